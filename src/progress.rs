//! Long headless work: a progress bar on stderr (only when stderr is a terminal and not in
//! CI) and Ctrl-C, which stops the work so the finished part can still be reported.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::sim::Engine;
use crate::time::Nanos;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Events between two looks at the Ctrl-C flag and the bar: cheap next to the events.
const CHECK_EVERY: u64 = 4096;

/// Work shorter than this shows no bar at all.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Makes Ctrl-C set a flag instead of ending the process. Installing twice is harmless.
pub fn catch_ctrl_c() {
    let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));
}

/// True once Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub const INTERRUPTED_EXIT: u8 = 130;

/// A progress bar that stays hidden until the work has taken a second, and for good when
/// stderr is not a terminal or `CI` is set (so logs and redirected output stay clean).
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    /// Tells the thread that would reveal the bar that the work is done.
    done: Option<mpsc::Sender<()>>,
}

impl Progress {
    /// A bar counting to `len` in `unit`s.
    pub fn new(len: u64, unit: &str) -> Self {
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
        let template = format!(
            "{{spinner}} [{{elapsed_precise}}] {{wide_bar}} {{pos}}/{{len}} {unit} \
             (about {{eta}} left; Ctrl-C stops and reports what finished)"
        );
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style);
        }
        let allowed = std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
        let done = allowed.then(|| {
            let (tx, rx) = mpsc::channel::<()>();
            let shown = bar.clone();
            std::thread::spawn(move || {
                // Work that ends within the second never draws a bar.
                if rx.recv_timeout(SHOW_AFTER) == Err(mpsc::RecvTimeoutError::Timeout) {
                    shown.set_draw_target(ProgressDrawTarget::stderr());
                    shown.enable_steady_tick(Duration::from_millis(200));
                }
            });
            tx
        });
        Progress { bar, done }
    }

    /// Moves the bar to `pos`.
    pub fn set(&self, pos: u64) {
        self.bar.set_position(pos);
    }

    /// Adds one to the bar.
    pub fn inc(&self) {
        self.bar.inc(1);
    }

    /// Removes the bar from the screen.
    pub fn finish(&self) {
        if let Some(done) = &self.done {
            let _ = done.send(());
        }
        self.bar.finish_and_clear();
    }
}

/// Looks at the engine before a step with the time of its first event, and once more at the
/// end (with a time just past the limit): how charts sample the run without changing it. It
/// returns the next time it will look at: no event after it is handled before it looks
/// again, and the events up to it are handled without asking it.
pub type Observer<'a> = &'a mut dyn FnMut(&Engine, Nanos) -> Nanos;

/// Plays `engine` up to `limit` like [`crate::report::play`], event for event the same, but
/// stops early on Ctrl-C. Returns the engine and whether it reached the end. An engine that
/// halts (stalled, or at its cap of requests in flight: [`Engine::halted`]) ends the play
/// there, not complete.
pub fn play_engine(
    mut engine: Engine,
    limit: Nanos,
    progress: Option<&Progress>,
    observe: Observer<'_>,
) -> (Engine, bool) {
    // Steps come in batches up to the time the observer looks again, each batch ending
    // at the next Ctrl-C and progress check.
    let mut since_check = 0u64;
    while !engine.is_finished() {
        match engine.next_event_time() {
            Some(t) if t <= limit => {
                let look = observe(&engine, t);
                let steps = engine.steps_within(look.min(limit), CHECK_EVERY - since_check);
                if steps == 0 {
                    break;
                }
                since_check += steps;
            }
            _ => break,
        }
        if since_check == CHECK_EVERY {
            since_check = 0;
            if interrupted() {
                return (engine, false);
            }
            if let Some(p) = progress {
                p.set(engine.now().as_millis_f64() as u64);
            }
        }
    }
    if !engine.is_finished() {
        engine.advance_to(limit);
    }
    observe(&engine, engine.now().saturating_add(Nanos(1)));
    let complete = !engine.halted();
    (engine, complete)
}

/// An observer that looks at nothing.
pub fn unobserved(_: &Engine, _: Nanos) -> Nanos {
    Nanos::NEVER
}

/// Writes `line` and a newline to stderr. A message is best effort: a stderr that cannot be
/// written (`2>/dev/full`, a closed pipe) loses it and changes nothing else, neither what the
/// command does nor its exit code (where `eprintln!` would panic).
/// Control and format characters a message echoes from its input (`--set $'\e[31m...'`, a
/// bidi override) are written escaped (`\u{1b}`), so the input cannot drive the terminal;
/// line breaks stay.
pub fn say(line: impl std::fmt::Display) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{}", printable(&line.to_string()));
}

/// `text` with its control characters (but line breaks) and Unicode format characters
/// escaped.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c != '\n' && (c.is_control() || crate::scenario::is_format(c)) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_message_escapes_the_control_and_format_characters_it_echoes() {
        assert_eq!(
            super::printable("--set load.rate=\u{1b}[31mred\u{202E}x\tz\nnext é"),
            "--set load.rate=\\u{1b}[31mred\\u{202e}x\\u{9}z\nnext é"
        );
    }
}

//! Driving the TUI without a person: keys written as text (`"c"`, `"<Tab>+"`) and a timed
//! key script (`--keys FILE`), played on the simulated clock so a demo runs the same every
//! time.
//!
//! A script is one step a line, `TIME KEYS`, e.g.
//!
//! ```text
//! # the ironthread demo
//! 0.5s  3          # bulkhead
//! 2s    c          # the compare view
//! 4s    <Esc><Space>
//! ```
//!
//! `TIME` is time since the demo started (`500ms`, `2s`, `1m`), in order, counted in frames
//! (`frame / fps`): in a scripted session every frame moves the simulated clock by exactly
//! one frame's worth at the current speed, whatever the machine, and a pause stops the
//! simulated clock but not the script; `KEYS` is what the tour's `keys`
//! take: characters, and `<Tab>` `<BackTab>` `<Up>` `<Down>` `<Left>` `<Right>` `<Home>`
//! `<Enter>` `<Esc>` `<Space>` (`space` alone is the space bar too). `#` starts a comment.

use std::time::Duration;

use crate::scenario::{DurationError, KeysError, parse_duration};
use crate::time::Nanos;

use super::app::App;
use super::clock::BudgetSpec;
use super::keys::Key;

/// `"1c"`, `"<Tab>+"`: characters, and named keys in angle brackets, as a tour writes them
/// ([`crate::scenario::parse_keys`]), as the live keys they press.
pub fn parse_keys(text: &str) -> Result<Vec<Key>, KeysError> {
    let keys = crate::scenario::parse_keys(text)?;
    Ok(keys.into_iter().map(super::app::tour_key).collect())
}

/// One line of a key script: at this simulated time, press these keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub at: Nanos,
    pub keys: Vec<Key>,
}

/// A timed key script (`--keys FILE`), its steps in time order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyScript {
    steps: Vec<Step>,
    /// Steps already pressed.
    next: usize,
}

/// Largest key script read.
const MAX_SCRIPT_BYTES: u64 = 1 << 20;

/// Why a key script file was refused; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("{path}: cannot read the key script: {error}")]
    Read { path: String, error: std::io::Error },
    #[error("{path}: more than {MAX_SCRIPT_BYTES} bytes; a key script holds at most that")]
    TooLarge { path: String },
    #[error("{path}: not UTF-8 text: {error}")]
    NotText {
        path: String,
        error: std::string::FromUtf8Error,
    },
    #[error("{path}: {error}")]
    Line { path: String, error: LineError },
}

/// A line of a key script that is not `TIME KEYS` in order; each names the line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// `time` as written (elided).
    #[error("line {line}: time {time:?} {error}: allowed e.g. 500ms, 2s, 1m")]
    Time {
        line: usize,
        time: String,
        error: DurationError,
    },
    #[error("line {line}: time {time} comes before the line above ({previous}): steps go in order")]
    OutOfOrder {
        line: usize,
        time: String,
        previous: Nanos,
    },
    /// The keys and what [`parse_keys`] said of them.
    #[error("line {line}: keys {keys:?}: {error}")]
    Keys {
        line: usize,
        keys: String,
        error: KeysError,
    },
    #[error("line {line}: no keys after the time: allowed e.g. `2s c`")]
    NoKeys { line: usize },
}

impl KeyScript {
    /// Reads a script file; errors name the file, the line and what is allowed.
    pub fn load(path: &std::path::Path) -> Result<KeyScript, ScriptError> {
        let shown = || path.display().to_string();
        let read = |error| ScriptError::Read {
            path: shown(),
            error,
        };
        // What is read is counted, not what the file says its size is (0 for a device).
        let bytes = match crate::files::read_at_most(path, MAX_SCRIPT_BYTES) {
            Ok(bytes) => bytes,
            Err(crate::files::InputError::Read(error)) => return Err(read(error)),
            Err(crate::files::InputError::TooLarge { .. }) => {
                return Err(ScriptError::TooLarge { path: shown() });
            }
        };
        let text = String::from_utf8(bytes).map_err(|error| ScriptError::NotText {
            path: shown(),
            error,
        })?;
        KeyScript::parse(&text).map_err(|error| ScriptError::Line {
            path: shown(),
            error,
        })
    }

    /// Parses `TIME KEYS` lines; errors say `line N: ...`.
    pub fn parse(text: &str) -> Result<KeyScript, LineError> {
        let mut steps: Vec<Step> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let line = strip_comment(line).trim();
            if line.is_empty() {
                continue;
            }
            let (time, keys) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            let at = parse_duration(time).map_err(|error| LineError::Time {
                line: n,
                time: crate::scenario::elide(time, 20),
                error,
            })?;
            if let Some(last) = steps.last()
                && at < last.at
            {
                return Err(LineError::OutOfOrder {
                    line: n,
                    time: time.to_owned(),
                    previous: last.at,
                });
            }
            let keys = keys.trim();
            let keys = if keys == "space" {
                vec![Key::Char(' ')]
            } else {
                parse_keys(keys).map_err(|error| LineError::Keys {
                    line: n,
                    keys: keys.to_owned(),
                    error,
                })?
            };
            if keys.is_empty() {
                return Err(LineError::NoKeys { line: n });
            }
            steps.push(Step { at, keys });
        }
        Ok(KeyScript { steps, next: 0 })
    }

    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Presses every step due at `now`; true when it pressed any.
    pub fn press_due(&mut self, app: &mut App, now: Nanos) -> bool {
        let mut pressed = false;
        while let Some(step) = self.steps.get(self.next).filter(|s| s.at <= now) {
            for &key in &step.keys {
                app.press(key);
            }
            self.next += 1;
            pressed = true;
        }
        pressed
    }
}

/// A `#` at the start of a line or after whitespace starts a comment (so `c#` presses `c`
/// and `#`).
fn strip_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'#' && (i == 0 || bytes[i - 1].is_ascii_whitespace()) {
            return &line[..i];
        }
    }
    line
}

/// Events one scripted frame may play at `max` speed: a fixed count, not the wall clock's
/// budget, so a replay does the same work every time.
pub const SCRIPT_FRAME_EVENTS: u64 = 200_000;

/// One frame of a scripted session (frame 1 is the first tick): presses the steps due by
/// `frame / fps`, then moves the simulated clock by one frame at the current speed (unless
/// paused or finished). The frame loop and the tests drive the app only through this.
pub fn scripted_frame(app: &mut App, script: &mut KeyScript, frame: u64, fps: u32) {
    let fps = fps.max(1);
    let now = Nanos(frame.saturating_mul(1_000_000_000) / u64::from(fps));
    script.press_due(app, now);
    if app.needs_ticks() {
        app.advance(
            Duration::from_secs(1) / fps,
            BudgetSpec::Events(SCRIPT_FRAME_EVENTS),
        );
    }
}

/// Plays simulated time to `at` through the app's own pacing at 1x, with an unlimited event
/// budget: the same steps every time, whatever the machine's speed.
pub fn play_to(app: &mut App, at: Nanos) {
    while app.now() < at && !app.is_finished() && app.needs_ticks() {
        let left = at.saturating_sub(app.now());
        let step = left.min(Nanos::from_millis(250));
        app.advance(
            Duration::from_nanos(step.as_nanos()),
            BudgetSpec::Events(u64::MAX),
        );
    }
    settle(app);
}

/// Lets every engine that is behind (a compare view just opened) catch up to the clock,
/// without moving it.
pub fn settle(app: &mut App) {
    app.advance(Duration::ZERO, BudgetSpec::Events(u64::MAX));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_characters_and_named_keys() {
        assert_eq!(
            parse_keys("c<Tab>+<space>").expect("keys"),
            [Key::Char('c'), Key::Tab, Key::Char('+'), Key::Char(' ')]
        );
        let err = parse_keys("<F1>").expect_err("unknown").to_string();
        assert!(err.starts_with("unknown key <F1>: allowed"), "{err}");
    }

    #[test]
    fn a_script_is_timed_lines_in_order() {
        let s = KeyScript::parse("# demo\n0.5s 3\n\n2s c   # compare\n4s space\n").expect("valid");
        assert_eq!(s.steps().len(), 3);
        assert_eq!(s.steps()[0].at, Nanos::from_millis(500));
        assert_eq!(s.steps()[2].keys, [Key::Char(' ')]);
        let err = KeyScript::parse("2s c\n1s c").expect_err("out of order");
        assert_eq!(
            err.to_string(),
            "line 2: time 1s comes before the line above (2s): steps go in order"
        );
        let err = KeyScript::parse("soon c").expect_err("no time").to_string();
        assert!(err.starts_with("line 1: time \"soon\""), "{err}");
        let err = KeyScript::parse("1s").expect_err("no keys");
        assert_eq!(
            err.to_string(),
            "line 1: no keys after the time: allowed e.g. `2s c`"
        );
    }
}

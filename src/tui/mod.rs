//! The live terminal UI.
//!
//! One `select!` loop over keyboard input, a frame interval and termination signals (see
//! [`run`]). Keys map to [`app::Action`]s through the table in [`keys`]; [`app::App`] applies
//! them to the engines; [`clock`] paces simulated time against the wall clock; [`ui`] draws a
//! [`Snapshot`](crate::sim::Snapshot) with pure render functions (the layout is drawn in
//! `ui/mod.rs`).

pub mod app;
pub mod clock;
pub mod compare_runs;
pub mod expect;
pub mod fault_form;
pub mod guard;
mod input;
pub mod keys;
pub mod knob;
pub mod prompt;
pub mod recent;
pub mod record;
pub mod refusal;
pub mod script;
pub mod source;
pub mod sweep;
pub mod theme;
mod trace_file;
pub mod ui;

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use tokio::signal::unix::{SignalKind, signal};
use tokio::time::MissedTickBehavior;

use crate::real::RealOptions;
use crate::scenario::{Scenario, Strategy};

use app::App;
use clock::{BudgetSpec, FRAME_BUDGET};
use input::Input;

/// Colours to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    #[default]
    Dark,
    /// Dark text for white projector screens.
    Light,
    /// `NO_COLOR` or `--no-color`: no colours at all.
    NoColor,
}

/// How the TUI runs.
#[derive(Debug)]
pub struct TuiOptions {
    /// Frames per second while running (1..=120; paused, it draws only on input).
    pub fps: u32,
    pub theme: Theme,
    /// Play the scenario's `[[tour]]`.
    pub tour: bool,
    /// Run the scenario for real (`--engine real`) instead of simulating it.
    pub real: Option<RealOptions>,
    /// The config file's key overrides.
    pub keys: crate::config::KeyMap,
    /// `--record FILE.cast`: tee what is drawn into an asciicast v2 file (put in place when
    /// the session ends, whole).
    pub record: Option<crate::files::OutputFile>,
    /// `--keys FILE`: a timed key script; the simulated clock then moves one frame a frame.
    pub script: Option<script::KeyScript>,
    /// The `--set` overrides the scenario was loaded with: the variants compare (`C`) loads
    /// the preset again with them.
    pub overrides: Vec<String>,
    /// A lesson to play (`threadlab lesson`): the scenario given is its first part's.
    pub lesson: Option<LessonRun>,
}

/// A lesson to play, and where its results go.
#[derive(Debug, Clone, PartialEq)]
pub struct LessonRun {
    pub lesson: crate::lesson::Lesson,
    /// `--results FILE.json|csv`: written when the TUI ends, however it ends.
    pub results: Option<std::path::PathBuf>,
    /// The `--set` it was loaded with, for the results.
    pub sets: Vec<String>,
}

impl Default for TuiOptions {
    fn default() -> Self {
        TuiOptions {
            fps: 30,
            theme: Theme::Dark,
            tour: false,
            real: None,
            keys: crate::config::KeyMap::default(),
            record: None,
            script: None,
            overrides: Vec::new(),
            lesson: None,
        }
    }
}

/// The TUI ended because a signal asked it to: the process should exit with
/// `128 + signal` (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP), as a shell reports a
/// process the signal killed. The terminal is already restored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("stopped by signal {0}")]
pub struct Interrupted(pub i32);

impl Interrupted {
    /// The exit code a shell shows for it.
    pub fn exit_code(self) -> u8 {
        u8::try_from(128 + self.0).unwrap_or(255)
    }
}

/// Runs the TUI on `scenario`, starting with `strategy`, until the user quits (q, Ctrl-C) or
/// a terminating signal arrives (then the error is [`Interrupted`]). The terminal is restored
/// on every way out: normal exit, error, signal, and panic (`ratatui::init`'s hook); on
/// SIGTSTP it is restored before the process stops and taken again on SIGCONT. A real run is
/// stopped after it, in the background, so quitting is immediate.
pub fn run(scenario: Scenario, strategy: Strategy, options: TuiOptions) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut app = match options.real {
        Some(real) => App::new_real(scenario, strategy, real, options.theme)?,
        None => App::new(scenario, strategy, options.theme),
    };
    app.set_key_map(options.keys);
    app.set_overrides(options.overrides);
    if options.tour && !app.start_tour() {
        anyhow::bail!("{} has no [[tour]] steps", app.scenario().source);
    }
    let results = options.lesson.as_ref().and_then(|l| {
        l.results
            .as_ref()
            .map(|path| (path.clone(), l.sets.clone()))
    });
    if let Some(run) = options.lesson {
        app.start_lesson(crate::lesson::Session::new(run.lesson));
    }
    let cast_file = match options.record {
        Some(out) => Some(out.open()?),
        None => None,
    };
    // Raw mode, the alternate screen and the panic hook that undoes them; then a terminal
    // of our own whose writer can tee into the recording.
    let size = ratatui::try_init()?.size()?;
    let cast = match cast_file {
        Some(file) => {
            let clock = match options.script {
                Some(_) => record::CastClock::Frames { fps: options.fps },
                None => record::CastClock::Wall(Instant::now()),
            };
            // A scripted cast leaves out the time of day: the same script records the same
            // bytes.
            let timestamp = options.script.is_none().then(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs())
            });
            Some(record::Cast::new(
                file,
                (size.width, size.height),
                clock,
                timestamp,
            )?)
        }
        None => None,
    };
    let (writer, tee) = record::Tee::new(std::io::stdout(), cast);
    let recording = writer.recording();
    let mut terminal = match Terminal::new(CrosstermBackend::new(writer)) {
        Ok(t) => t,
        Err(e) => {
            restore_terminal();
            return Err(e.into());
        }
    };
    mouse_capture(true);
    let result = runtime.block_on(event_loop(
        &mut terminal,
        &mut app,
        options.fps,
        (options.script, &tee),
    ));
    restore_terminal();
    // The results are written however the lesson ended (quit, a signal, an error).
    let written = match (&results, app.lesson()) {
        (Some((path, sets)), Some(session)) => {
            let r = crate::lesson::results::Results::of(session, sets);
            Some(r.write(path).map(|()| (path.clone(), r.score, r.questions)))
        }
        _ => None,
    };
    drop(app);
    // The recording is whole up to the end, whatever ended the session: it goes in place,
    // unless a write failed (then the path is left as it was).
    drop(terminal);
    if let Some(cast) = recording.take() {
        let staged = cast.into_inner();
        match tee.take_error() {
            Some(e) => return Err(staged.failed(e).into()),
            None => staged.commit()?,
        }
    }
    match written {
        Some(Ok((path, score, of))) => {
            crate::progress::say(format_args!(
                "threadlab: wrote {} ({score} of {of} right)",
                path.display()
            ));
        }
        Some(Err(e)) => return Err(e.into()),
        None => {}
    }
    result
}

/// The terminal the TUI draws on: stdout, teed into a recording when there is one.
type Screen = Terminal<CrosstermBackend<record::Tee<std::io::Stdout, crate::files::Staged>>>;

/// Leaves raw mode and the alternate screen and shows the cursor again.
fn restore_terminal() {
    mouse_capture(false);
    ratatui::restore();
    let _ = ratatui::crossterm::execute!(std::io::stdout(), ratatui::crossterm::cursor::Show);
}

/// Takes the terminal again after a suspend, and repaints everything. (Not
/// `Terminal::clear`: it asks the terminal for the cursor position, and the answer would go to
/// the input stream.)
fn reenter_terminal(terminal: &mut Screen) -> anyhow::Result<()> {
    use ratatui::crossterm::terminal::{Clear, ClearType, EnterAlternateScreen, enable_raw_mode};
    enable_raw_mode()?;
    ratatui::crossterm::execute!(
        std::io::stdout(),
        EnterAlternateScreen,
        ratatui::crossterm::event::EnableMouseCapture,
        Clear(ClearType::All)
    )?;
    // Both buffers empty: the next draw writes every cell.
    terminal.swap_buffers();
    Ok(())
}

/// The signals that end the TUI (each one's default action would kill the process and leave
/// the terminal raw).
const TERMINATING: [SignalKind; 6] = [
    SignalKind::interrupt(),
    SignalKind::terminate(),
    SignalKind::hangup(),
    SignalKind::quit(),
    SignalKind::user_defined1(),
    SignalKind::alarm(),
];

/// What the loop waits for besides input and frames.
struct Signals {
    terminating: Vec<(i32, tokio::signal::unix::Signal)>,
    suspend: tokio::signal::unix::Signal,
    resume: tokio::signal::unix::Signal,
}

enum SignalEvent {
    Terminate(i32),
    Suspend,
    Resume,
}

impl Signals {
    fn new() -> std::io::Result<Signals> {
        let terminating = TERMINATING
            .iter()
            .map(|&kind| Ok((kind.as_raw_value(), signal(kind)?)))
            .collect::<std::io::Result<_>>()?;
        Ok(Signals {
            terminating,
            suspend: signal(SignalKind::from_raw(signal_hook::consts::SIGTSTP))?,
            resume: signal(SignalKind::from_raw(signal_hook::consts::SIGCONT))?,
        })
    }

    async fn next(&mut self) -> SignalEvent {
        let any_terminating = futures_util::future::select_all(
            self.terminating
                .iter_mut()
                .map(|(number, s)| Box::pin(async move { s.recv().await.map(|_| *number) })),
        );
        tokio::select! {
            (number, _, _) = any_terminating => SignalEvent::Terminate(number.unwrap_or(15)),
            _ = self.suspend.recv() => SignalEvent::Suspend,
            _ = self.resume.recv() => SignalEvent::Resume,
        }
    }
}

async fn event_loop(
    terminal: &mut Screen,
    app: &mut App,
    fps: u32,
    (mut script, tee): (Option<script::KeyScript>, &record::TeeHandle),
) -> anyhow::Result<()> {
    let mut events = Input::start()?;
    let mut signals = Signals::new()?;
    let mut frames = tokio::time::interval(Duration::from_secs(1) / fps.clamp(1, 120));
    frames.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut last = Instant::now();
    let mut shown = terminal.size()?;
    draw(terminal, app)?;
    let mut frame = 0;
    while !app.should_quit() {
        // A script's own clock is the frames: they keep coming while paused.
        let ticking = app.needs_ticks() || script.is_some();
        tokio::select! {
            // While paused or finished, no frames: only input redraws.
            _ = frames.tick(), if ticking => {
                let now = Instant::now();
                match &mut script {
                    Some(script) => {
                        frame += 1;
                        tee.next_frame();
                        script::scripted_frame(app, script, frame, fps);
                    }
                    None => app.advance(now - last, BudgetSpec::Wall(FRAME_BUDGET)),
                }
                last = now;
            }
            event = events.next() => match event {
                Some(Ok(first)) => {
                    let size = terminal.size()?;
                    handle_input(app, &mut events, first, (size.width, size.height))?;
                }
                Some(Err(err)) => return Err(err.into()),
                None => break,
            },
            signal = signals.next() => match signal {
                SignalEvent::Terminate(number) => return Err(Interrupted(number).into()),
                SignalEvent::Suspend => {
                    suspend()?;
                    reenter_terminal(terminal)?;
                    last = Instant::now();
                }
                SignalEvent::Resume => {
                    reenter_terminal(terminal)?;
                    // The time spent stopped does not count.
                    last = Instant::now();
                }
            },
        }
        if !ticking && app.needs_ticks() {
            // The clock resumes from now: the time spent paused does not count.
            last = Instant::now();
            frames.reset();
        }
        // A resized terminal is drawn anew at its size; a recording says so first.
        let size = terminal.size()?;
        if size != shown {
            shown = size;
            tee.resized((size.width, size.height));
        }
        draw(terminal, app)?;
    }
    Ok(())
}

/// SIGTSTP (`kill -TSTP`): give the terminal back, then stop for real (SIGSTOP, which cannot
/// be caught). Returns when SIGCONT continues the process; the caller takes the terminal back
/// (and again on the SIGCONT event, which also follows a `kill -STOP` from outside).
fn suspend() -> anyhow::Result<()> {
    restore_terminal();
    signal_hook::low_level::raise(signal_hook::consts::SIGSTOP)?;
    Ok(())
}

/// Handles `first` and every input already waiting behind it, before the next frame, so a
/// backlog of thousands of keys costs one redraw. Input that arrives meanwhile is taken
/// between two keys, and a quit key anywhere in what was taken wins over the keys before it
/// (a key that restarts a real run takes a while; `q` does not wait for them).
fn handle_input(
    app: &mut App,
    input: &mut Input,
    first: Event,
    (width, height): (u16, u16),
) -> anyhow::Result<()> {
    let mut pending = std::collections::VecDeque::new();
    push_input(&mut pending, first);
    loop {
        while pending.len() < MAX_KEYS_PER_FRAME
            && let Some(event) = input.try_next()
        {
            push_input(&mut pending, event?);
        }
        // While a prompt takes text, `q` is a letter like any other: keys go in order.
        let typing = app.is_typing();
        if !typing && let Some(quit) = pending.iter().find_map(quit_key) {
            app.handle_key(quit);
            if app.should_quit() {
                return Ok(());
            }
        }
        match pending.pop_front() {
            None => return Ok(()),
            Some(Event::Key(key)) if typing || !is_quit_key(&key) => app.handle_key(key),
            Some(Event::Mouse(mouse)) => app.handle_mouse(mouse, width, height),
            Some(_) => {}
        }
    }
}

/// Keeps the input the app acts on: keys and mouse events.
fn push_input(pending: &mut std::collections::VecDeque<Event>, event: Event) {
    if matches!(event, Event::Key(_) | Event::Mouse(_)) {
        pending.push_back(event);
    }
}

fn quit_key(event: &Event) -> Option<KeyEvent> {
    match event {
        Event::Key(key) if is_quit_key(key) => Some(*key),
        _ => None,
    }
}

/// Most keys read in one go; the rest wait for the next turn of the loop.
const MAX_KEYS_PER_FRAME: usize = 4096;

/// `q` and Ctrl-C: the keys that quit (q only where the key table says so).
fn is_quit_key(key: &KeyEvent) -> bool {
    key.kind != KeyEventKind::Release
        && match key.code {
            KeyCode::Char('q') => key.modifiers.difference(KeyModifiers::SHIFT).is_empty(),
            KeyCode::Char('c') => key.modifiers.contains(KeyModifiers::CONTROL),
            _ => false,
        }
}

/// Mouse reporting on or off. A panic turns it off before ratatui's own hook restores the
/// rest of the terminal, so no way out leaves the shell receiving mouse codes.
fn mouse_capture(on: bool) {
    use ratatui::crossterm::event::{DisableMouseCapture, EnableMouseCapture};
    let mut out = std::io::stdout();
    if on {
        let _ = ratatui::crossterm::execute!(out, EnableMouseCapture);
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let _ = ratatui::crossterm::execute!(std::io::stdout(), DisableMouseCapture);
            previous(info);
        }));
    } else {
        let _ = ratatui::crossterm::execute!(out, DisableMouseCapture);
    }
}

/// Draws a frame; when `p` asked for it, saves that frame and draws again to say where.
fn draw(terminal: &mut Screen, app: &mut App) -> anyhow::Result<()> {
    let snapshot = app.snapshot();
    let frame = terminal.draw(|frame| ui::render(frame, app, &snapshot))?;
    if app.take_screen_request() {
        let screen = frame.buffer.clone();
        app.save_screen(&screen);
        let snapshot = app.snapshot();
        terminal.draw(|frame| ui::render(frame, app, &snapshot))?;
    }
    Ok(())
}

//! The live terminal UI.
//!
//! One `select!` loop over keyboard input, a frame interval and termination signals (see
//! [`run`]). Keys map to [`app::Action`]s through the table in [`keys`]; [`app::App`] applies
//! them to the engines; [`clock`] paces simulated time against the wall clock; [`ui`] draws a
//! [`Snapshot`](crate::sim::Snapshot) with pure render functions (the layout is drawn in
//! `ui/mod.rs`).

pub mod app;
pub mod clock;
pub mod keys;
pub mod theme;
mod trace_file;
pub mod ui;

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{Event, EventStream};
use tokio::signal::unix::{SignalKind, signal};
use tokio::time::MissedTickBehavior;

use crate::real::RealOptions;
use crate::scenario::{Scenario, Strategy};

use app::App;
use clock::{BudgetSpec, FRAME_BUDGET};

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
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TuiOptions {
    /// Frames per second while running (1..=120; paused, it draws only on input).
    pub fps: u32,
    pub theme: Theme,
    /// Play the scenario's `[[tour]]`.
    pub tour: bool,
    /// Run the scenario for real (`--engine real`) instead of simulating it.
    pub real: Option<RealOptions>,
}

impl Default for TuiOptions {
    fn default() -> Self {
        TuiOptions {
            fps: 30,
            theme: Theme::Dark,
            tour: false,
            real: None,
        }
    }
}

/// Runs the TUI on `scenario`, starting with `strategy`, until the user quits (q, Esc,
/// Ctrl-C) or a SIGTERM/SIGHUP arrives. The terminal is restored on every way out: normal
/// exit, error, and panic (`ratatui::init`'s hook); a real run is stopped after it, in the
/// background, so quitting is immediate.
pub fn run(scenario: Scenario, strategy: Strategy, options: TuiOptions) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut app = match options.real {
        Some(real) => App::new_real(scenario, strategy, real, options.theme)?,
        None => App::new(scenario, strategy, options.theme),
    };
    if options.tour && !app.start_tour() {
        anyhow::bail!("{} has no [[tour]] steps", app.scenario().source);
    }
    let mut terminal = ratatui::try_init()?;
    let result = runtime.block_on(event_loop(&mut terminal, &mut app, options.fps));
    ratatui::restore();
    drop(app);
    result
}

async fn event_loop(terminal: &mut DefaultTerminal, app: &mut App, fps: u32) -> anyhow::Result<()> {
    let mut events = EventStream::new();
    let mut terminate = signal(SignalKind::terminate())?;
    let mut hangup = signal(SignalKind::hangup())?;
    let mut frames = tokio::time::interval(Duration::from_secs(1) / fps.clamp(1, 120));
    frames.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut last = Instant::now();
    draw(terminal, app)?;
    while !app.should_quit() {
        let ticking = app.needs_ticks();
        tokio::select! {
            // While paused or finished, no frames: only input redraws.
            _ = frames.tick(), if ticking => {
                let now = Instant::now();
                app.advance(now - last, BudgetSpec::Wall(FRAME_BUDGET));
                last = now;
            }
            event = events.next() => match event {
                Some(Ok(Event::Key(key))) => app.handle_key(key),
                Some(Ok(Event::Resize(..))) => {}
                Some(Ok(_)) => continue,
                Some(Err(err)) => return Err(err.into()),
                None => break,
            },
            _ = terminate.recv() => break,
            _ = hangup.recv() => break,
        }
        if !ticking && app.needs_ticks() {
            // The clock resumes from now: the time spent paused does not count.
            last = Instant::now();
            frames.reset();
        }
        draw(terminal, app)?;
    }
    Ok(())
}

fn draw(terminal: &mut DefaultTerminal, app: &App) -> anyhow::Result<()> {
    let snapshot = app.snapshot();
    terminal.draw(|frame| ui::render(frame, app, &snapshot))?;
    Ok(())
}

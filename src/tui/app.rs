//! The TUI's state: what the person looks at and which knob they hold. The engines hold the
//! world; `App` applies [`Action`]s to them as [`Command`]s and keeps only view state.
//!
//! What is on screen comes from a [`Source`]: a simulated engine the clock drives, or a real
//! run that moves by itself. `App` asks the source for snapshots, the time and what a key may
//! do; real time cannot pause, step, change speed or be reconfigured live, so those keys say
//! so instead ([`App::refusal`]); `r`, `s` and `1-4` restart the real run.

use super::refusal::Refusal;
use std::time::Duration;

use ratatui::crossterm::event::{KeyEvent, MouseButton, MouseEvent, MouseEventKind};

use crate::lesson::{Session, Showing};
use crate::real::{RealError, RealOptions};
use crate::scenario::{LoadMode, Scenario, ServiceId, Strategy, TourKey, TourStep};
use crate::sim::pool::PoolKind;
use crate::sim::{Command, Engine, Fault, PoolId, PoolSnapshot, Snapshot};
use crate::time::Nanos;

use super::Theme;
use super::clock::{Advance, BudgetSpec, Clock, Reach, catch_up, run_for};
use super::compare_runs::{CompareRow, CompareRuns, ComparedBy};
use super::fault_form::{DoubleLoad, FaultForm, FormLine};
use super::keys::{self, Context, Key};
use super::prompt::Prompt;
use super::source::{RealMode, Source};
use super::theme::Palette;
use super::ui::mouse as ui_mouse;

/// The lowest open rate `Down` sets, per second: one request every ten seconds, which the
/// header's two decimals still show (a preset may go lower).
pub const LEAST_KEYED_RATE: f64 = 0.1;

/// Everything a key can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    SelectStrategy(Strategy),
    /// Select this pool (a click on it).
    SelectPool(PoolId),
    NextPool,
    PreviousPool,
    GrowPool,
    ShrinkPool,
    GrowQueue,
    ShrinkQueue,
    MoreLoad,
    LessLoad,
    TogglePause,
    Step,
    SpeedUp,
    SlowDown,
    OpenFaultMenu,
    ToggleCompare,
    /// `C`: the scenario with and without a pattern, side by side.
    ToggleVariants,
    /// `a` in the variants compare: type a variant's overrides.
    AddVariant,
    /// A character typed into the prompt.
    PromptType(char),
    PromptBackspace,
    /// Enter in the prompt: hand the line on.
    PromptEnter,
    Reset,
    NewSeed,
    ToggleHelp,
    /// Esc: close what is open (never quits).
    Back,
    Quit,
    MenuUp,
    MenuDown,
    MenuChoose,
    /// Choose the n-th item (from 1).
    MenuPick(usize),
    /// One step more (true) or less of the fault menu's highlighted value.
    MenuAdjust(bool),
    /// Line n (from 1) of the fault menu highlighted and its value one step more (true) or
    /// less: a click on the line's `▸` or `◂`.
    MenuArrow(usize, bool),
    /// Close the tour's caption and play on to its next step.
    TourNext,
    /// The server between platform and virtual threads (restarts the run).
    ToggleServerThreads,
    /// The unbounded strategy between virtual and platform threads (restarts the run).
    ToggleUnboundedThreads,
    /// Replay the tour to its previous step.
    TourBack,
    /// Replay the tour from its first step.
    TourRestart,
    /// Open the list of the tour's steps.
    TourSteps,
    /// Replay the tour to step n (from 1).
    TourJump(usize),
    ToggleTimeline,
    /// Select the next (true) or previous thread lane of the timeline.
    MoveLane(bool),
    WriteTrace,
    /// Save the screen as it is drawn to an SVG file in the working directory.
    SaveScreen,
    /// Pin the run's figures as a baseline shown beside the live ones, or clear it.
    TogglePin,
    /// Presenter mode: the next live panel fills the screen (after the last: all of them).
    Zoom,
    /// Hide or show the theory rows.
    ToggleTheory,
    /// The headline figures in large type over the whole body, or the panels again.
    ToggleHeadline,
    /// A sweep of the selected pool's size (or the load) around its current value.
    OpenSweep,
    /// The sweep's cursor one point right (true) or left.
    SweepMove(bool),
    /// Set the knob to the value under the sweep's cursor.
    SweepApply,
    /// Sweep the next knob.
    SweepNextKnob,
    /// Close a lesson's caption or reveal and play on.
    LessonNext,
    /// A character typed into a lesson's prediction.
    Answer(char),
    AnswerBackspace,
    /// Enter on a lesson's question: the prediction is in (empty: skipped).
    AnswerEnter,
}

/// What is drawn over the screen and takes the keys first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlay {
    None,
    /// `?`: the keys of the live screen.
    Help,
    /// `?` again: the menus' and tours' keys, and what every marker and term means.
    Legend,
    Faults(FaultMenu),
    /// The tour's steps, the highlighted one (from 0).
    TourSteps(usize),
    /// `g`: the sweep chart ([`App::sweep`] holds it).
    Sweep,
}

/// The fault menu: first a service, then the fault for it (kind, strength, how long).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultMenu {
    /// The service chosen, once chosen.
    pub service: Option<usize>,
    /// The highlighted line.
    pub cursor: usize,
    /// The fault being set for the chosen service.
    pub form: FaultForm,
    /// How long the list's last line, "double the load", doubles it.
    pub double: DoubleLoad,
}

impl FaultMenu {
    /// The list of services, `cursor` on one of them.
    pub fn services(cursor: usize) -> FaultMenu {
        FaultMenu {
            service: None,
            cursor,
            form: FaultForm::default(),
            double: DoubleLoad::default(),
        }
    }
}

/// A fault given a duration: the app heals it when the simulated clock reaches `end`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimedFault {
    pub service: ServiceId,
    pub fault: Fault,
    pub end: Nanos,
}

/// The load the fault menu doubled: the app sets it back when the simulated clock reaches
/// `end`, if nothing changed it since.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadBoost {
    /// The load before, set again at the end.
    pub before: LoadLevel,
    /// The load the doubling set (the engine may hold it below twice `before`).
    pub doubled: LoadLevel,
    pub end: Nanos,
}

/// An open load's rate or a closed load's clients: what `Command::SetRate` and
/// `Command::SetClients` set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoadLevel {
    Rate(f64),
    Clients(u32),
}

impl LoadLevel {
    /// The level of `mode`; `None` for the loads the live keys do not change (runs, a
    /// batch, a trace).
    pub fn of(mode: &LoadMode) -> Option<LoadLevel> {
        match *mode {
            LoadMode::Open { rate, .. } => Some(LoadLevel::Rate(rate)),
            LoadMode::Closed { clients, .. } => Some(LoadLevel::Clients(clients)),
            _ => None,
        }
    }

    /// Twice as much: the rate doubled (exact in floating point), or the clients.
    pub fn doubled(self) -> LoadLevel {
        match self {
            LoadLevel::Rate(rate) => LoadLevel::Rate(rate * 2.0),
            LoadLevel::Clients(n) => LoadLevel::Clients(n.saturating_mul(2)),
        }
    }

    /// The engine command that sets this level.
    pub fn command(self) -> Command {
        match self {
            LoadLevel::Rate(rate) => Command::SetRate(rate),
            LoadLevel::Clients(n) => Command::SetClients(n),
        }
    }
}

/// A talk's scripted tour: steps fire at simulated times, press their keys, pause and show
/// a caption until the speaker goes on.
#[derive(Debug, Clone, PartialEq)]
pub struct Tour {
    steps: Vec<TourStep>,
    /// What the tour started from, so any step can be replayed from t = 0.
    scenario: Scenario,
    strategy: Strategy,
    /// The next step to fire.
    next: usize,
    /// The caption on screen: (step number from 1, text).
    caption: Option<(usize, String)>,
}

impl Tour {
    /// The caption on screen, with its step number (from 1) and the number of steps.
    pub fn caption(&self) -> Option<(usize, usize, &str)> {
        self.caption
            .as_ref()
            .map(|(i, text)| (*i, self.steps.len(), text.as_str()))
    }

    /// The step whose caption is shown (from 0).
    pub fn shown_step(&self) -> Option<&TourStep> {
        let (number, _) = self.caption.as_ref()?;
        self.steps.get(number.checked_sub(1)?)
    }

    pub fn steps(&self) -> &[TourStep] {
        &self.steps
    }

    /// Steps fired so far.
    pub fn fired(&self) -> usize {
        self.next
    }

    /// Every step has been played and its caption closed: the keys are the speaker's, and
    /// `←`, `Home` and `l` still replay the tour.
    pub fn is_over(&self) -> bool {
        self.caption.is_none() && self.next >= self.steps.len()
    }

    fn pending(&self) -> Option<&TourStep> {
        if self.caption.is_some() {
            None
        } else {
            self.steps.get(self.next)
        }
    }
}

/// The status line: what the last key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Info(String),
    /// The engine refused a change; shown, never fatal.
    Error(String),
}

/// The TUI's state.
#[derive(Debug)]
pub struct App {
    /// What `r` rebuilds from; `s` changes its seed, `v` and `u` its threads.
    scenario: Scenario,
    /// The preset as loaded: the badges show what differs from it.
    preset: Scenario,
    /// Every pool's settings at the start of a run, to show the ones changed since.
    baseline: Vec<settings::PoolSettings>,
    /// The run on screen, simulated or real.
    source: Source,
    /// The compare view's runs while it is open: every strategy (`c`) or every variant
    /// (`C`), one engine each.
    compare: Option<CompareRuns>,
    /// The `--set` overrides the run was started with: a variant loads them again.
    overrides: Vec<String>,
    /// The live changes made with keys since the run started, in order: the variants
    /// replay them from t = 0.
    live_changes: Vec<Command>,
    /// The one-line prompt (`a`: `compare with: `), while it is open.
    prompt: Option<Prompt>,
    clock: Clock,
    overlay: Overlay,
    /// Index into [`App::pool_ids`].
    selected: usize,
    status: Option<Status>,
    /// Some engine could not keep pace in the last frame.
    behind: bool,
    quit: bool,
    /// `q` was pressed once during a tour: a second `q` quits.
    quit_asked: bool,
    /// Log entries scrolled back from the newest (the mouse wheel).
    log_scroll: usize,
    palette: Palette,
    tour: Option<Tour>,
    /// A lesson being played (`threadlab lesson`): its state and grading
    /// ([`crate::lesson::Session`]); `app_lesson.rs` drives it.
    lesson: Option<Session>,
    /// The timeline view, while open: the selected lane.
    timeline: Option<usize>,
    /// The sweep overlay's chart and the work computing it.
    sweep: Option<super::sweep::Sweep>,
    /// The config file's key overrides, applied to the person's keys (not a tour's).
    key_map: crate::config::KeyMap,
    theme: Theme,
    /// `p` was pressed: the frame loop saves the next frame it draws.
    screen_wanted: bool,
    /// `b`: a run's figures pinned to compare the live run with.
    pin: Option<Pin>,
    /// `z`: the live panel that fills the screen, if one does.
    zoom: Option<Panel>,
    /// `h`: the theory rows are hidden (the log takes their rows).
    theory_hidden: bool,
    /// `L`: the headline figures in large type fill the body.
    headline: bool,
    /// Faults given a duration, healed when the simulated clock reaches their end.
    fault_ends: Vec<TimedFault>,
    /// The load doubled from the fault menu, set back at its end.
    load_boost: Option<LoadBoost>,
}

/// A panel of the live view, as presenter mode (`z`) zooms them, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Panel {
    Pools,
    Outcomes,
    Latency,
    Theory,
    /// Only when the run has a resilience pattern in play (`ui::resilience::shown`).
    Resilience,
    Log,
}

impl Panel {
    const ORDER: [Panel; 6] = [
        Panel::Pools,
        Panel::Outcomes,
        Panel::Latency,
        Panel::Theory,
        Panel::Resilience,
        Panel::Log,
    ];

    /// The panel `z` zooms next: the first after none, none after the last; the Resilience
    /// panel only when the run shows it.
    fn after(current: Option<Panel>, resilience: bool) -> Option<Panel> {
        let start = match current {
            None => 0,
            Some(p) => Panel::ORDER.iter().position(|&q| q == p).unwrap_or(0) + 1,
        };
        Panel::ORDER[start.min(Panel::ORDER.len())..]
            .iter()
            .copied()
            .find(|&p| p != Panel::Resilience || resilience)
    }
}

/// A run's figures at the moment `b` pinned them: the headline and the compare view show
/// them beside the live run until `b` clears them.
#[derive(Debug, Clone, PartialEq)]
pub struct Pin {
    pub strategy: Strategy,
    /// Simulated time of the run when pinned.
    pub at: Nanos,
    pub goodput_rps: f64,
    /// Answered p50 and p99 (`None`: nothing answered yet).
    pub p50_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    /// Failed + timeout + refused per second.
    pub failed_rps: f64,
    /// The same figures over the last 10 s before it was pinned (`None` before 10 s).
    pub recent: Option<super::recent::Recent>,
}

impl App {
    pub fn new(scenario: Scenario, strategy: Strategy, theme: Theme) -> App {
        let source = Source::sim(&scenario, strategy);
        App::with_source(scenario, source, theme)
    }

    /// Real mode: starts `scenario` for real under `strategy` for its duration.
    pub fn new_real(
        scenario: Scenario,
        strategy: Strategy,
        options: RealOptions,
        theme: Theme,
    ) -> Result<App, RealError> {
        let source = Source::real(&scenario, strategy, options)?;
        Ok(App::with_source(scenario, source, theme))
    }

    fn with_source(scenario: Scenario, source: Source, theme: Theme) -> App {
        App {
            preset: scenario.clone(),
            baseline: settings::baseline_of(&scenario, source.strategy()),
            scenario,
            source,
            compare: None,
            overrides: Vec::new(),
            live_changes: Vec::new(),
            prompt: None,
            clock: Clock::default(),
            overlay: Overlay::None,
            selected: 0,
            status: None,
            behind: false,
            quit: false,
            quit_asked: false,
            log_scroll: 0,
            palette: Palette::of(theme),
            tour: None,
            lesson: None,
            timeline: None,
            sweep: None,
            key_map: crate::config::KeyMap::default(),
            theme,
            screen_wanted: false,
            pin: None,
            zoom: None,
            theory_hidden: false,
            headline: false,
            fault_ends: Vec::new(),
            load_boost: None,
        }
    }

    /// Whether `L` shows the headline figures in large type.
    pub fn headline(&self) -> bool {
        self.headline
    }

    /// `L`: the headline figures in large type, or the panels again.
    pub fn toggle_headline(&mut self) {
        self.headline = !self.headline;
        if self.headline {
            self.info("headline in large type: L or Esc shows the panels again".into());
        }
    }

    /// The faults given a duration that still hold, with when each ends.
    pub fn timed_faults(&self) -> &[TimedFault] {
        &self.fault_ends
    }

    /// The load the fault menu doubled, while it is doubled.
    pub fn load_boost(&self) -> Option<LoadBoost> {
        self.load_boost
    }

    /// The live panel zoomed to the whole body (`z`), if any.
    pub fn zoom(&self) -> Option<Panel> {
        self.zoom
    }

    /// Whether `h` hid the theory rows.
    /// (While a lesson's question is open the theory rows are hidden too: they would give
    /// its answer away.)
    pub fn theory_hidden(&self) -> bool {
        self.theory_hidden || self.lesson.as_ref().is_some_and(Session::hides_theory)
    }

    /// The pinned baseline, if any.
    pub fn pin(&self) -> Option<&Pin> {
        self.pin.as_ref()
    }

    /// `b`: pins the run on screen as it is now, or clears the pin.
    pub fn toggle_pin(&mut self) {
        if self.pin.take().is_some() {
            self.info("baseline cleared".into());
            return;
        }
        let Some(engine) = self.source.engine() else {
            return;
        };
        let snapshot = engine.snapshot();
        let r = crate::report::RunReport::from_snapshot(
            engine.scenario(),
            &snapshot,
            &[],
            engine.prediction(),
        );
        let answered = r.latency_ms.count > 0;
        let pin = Pin {
            strategy: engine.strategy(),
            at: self.now(),
            goodput_rps: r.goodput_rps,
            p50_ms: answered.then_some(r.latency_ms.p50),
            p99_ms: answered.then_some(r.latency_ms.p99),
            failed_rps: r.failure_rps.total(),
            recent: super::recent::Recent::of(&snapshot),
        };
        self.info(format!(
            "pinned {} at {}: goodput {:.2}/s shown beside the live run (b clears)",
            pin.strategy,
            super::ui::clock_text(pin.at),
            pin.goodput_rps
        ));
        self.pin = Some(pin);
    }

    /// Key overrides from the config file: the person's keys are read through them.
    pub fn set_key_map(&mut self, key_map: crate::config::KeyMap) {
        self.key_map = key_map;
    }

    /// The config file's key overrides.
    pub fn key_map(&self) -> &crate::config::KeyMap {
        &self.key_map
    }

    /// How the help and the footer name a binding's key: the config file's key when it
    /// moved the binding.
    pub fn key_label(&self, binding: &keys::Binding) -> std::borrow::Cow<'static, str> {
        match binding.keys.first().and_then(|&k| self.key_map.shown(k)) {
            Some(Key::Char(c)) if binding.keys.len() == 1 => c.to_string().into(),
            _ => binding.label.into(),
        }
    }

    /// The run on screen.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// The real run, in real mode.
    pub fn real(&self) -> Option<&RealMode> {
        self.source.real_run()
    }

    /// Why a key does nothing on this run (real time cannot do what the simulated clock
    /// can), or `None` when it works.
    pub fn refusal(&self, action: Action) -> Option<&'static str> {
        self.source.refusal(action)
    }

    /// Plays the scenario's `[[tour]]`: false when it has none.
    pub fn start_tour(&mut self) -> bool {
        if self.scenario.tour.is_empty() {
            return false;
        }
        self.tour = Some(Tour {
            steps: self.scenario.tour.clone(),
            scenario: self.scenario.clone(),
            strategy: self.source.strategy(),
            next: 0,
            caption: None,
        });
        self.fire_due_tour_steps();
        true
    }

    pub fn tour(&self) -> Option<&Tour> {
        self.tour.as_ref()
    }

    /// Fires the next tour step if the clock has reached it (or the run has ended): press its
    /// keys, pause, show its caption.
    fn fire_due_tour_steps(&mut self) {
        let now = self.now();
        // A finite load that has ended moves the clock no more: its later steps are due now.
        let ended = self.is_finished();
        let Some(tour) = &mut self.tour else { return };
        let Some(step) = tour.pending().filter(|s| s.at <= now || ended).cloned() else {
            return;
        };
        tour.next += 1;
        let number = tour.next;
        for key in &step.keys {
            self.press(tour_key(*key));
        }
        self.clock.pause();
        if let Some(tour) = &mut self.tour {
            tour.caption = Some((number, step.caption));
        }
    }

    pub fn tour_next(&mut self) {
        let Some(tour) = &mut self.tour else { return };
        tour.caption = None;
        // The tour stays, over, so that it can still be replayed.
        if tour.is_over() {
            self.info(
                "end of the tour: the keys are yours (← replays the last step, Home restarts)"
                    .to_string(),
            );
        }
        if self.clock.is_paused() {
            self.clock.toggle_pause();
        }
        self.fire_due_tour_steps();
    }

    /// `←`: the previous step, replayed from t = 0.
    pub fn tour_back(&mut self) {
        let shown = self.tour.as_ref().map_or(0, |t| match t.caption {
            Some((n, _)) => n.saturating_sub(1),
            None => t.next,
        });
        self.tour_jump(shown.saturating_sub(1));
    }

    /// Replays the tour from t = 0 up to step `index` (from 0) and shows its caption. The run
    /// is deterministic, so the screen is the one the step first showed.
    pub fn tour_jump(&mut self, index: usize) {
        let Some(tour) = &mut self.tour else {
            self.info("no tour is playing: threadlab tour PRESET plays one".to_string());
            return;
        };
        let Some(last) = tour.steps.len().checked_sub(1) else {
            return;
        };
        let index = index.min(last);
        tour.next = 0;
        tour.caption = None;
        let (scenario, strategy) = (tour.scenario.clone(), tour.strategy);
        let times: Vec<Nanos> = tour.steps[..=index].iter().map(|s| s.at).collect();
        self.scenario = scenario;
        self.source = Source::sim(&self.scenario, strategy);
        self.forget_timed();
        self.compare = None;
        self.prompt = None;
        self.sweep = None;
        self.overlay = Overlay::None;
        self.selected = 0;
        for at in times {
            self.run_until_healing(at);
            self.fire_due_tour_steps();
            if let Some(t) = &mut self.tour
                && t.next <= index
            {
                t.caption = None;
            }
        }
        self.clock.pause();
    }

    /// The shown step's expectations that do not hold on screen (empty when all hold).
    pub fn tour_expectation_failures(&self) -> Vec<String> {
        let step = self.tour.as_ref().and_then(Tour::shown_step);
        let (Some(step), Some(engine)) = (step, self.source.engine()) else {
            return Vec::new();
        };
        let value = self.screen_value(engine);
        step.expect
            .iter()
            .filter_map(|c| super::expect::check(&value, c).err().map(|e| e.to_string()))
            .collect()
    }

    /// What a tour's `expect` reads: the report and live figures of `engine` (the one on
    /// screen), with the strategies' compare view when it is open (`compare.semaphore...`).
    fn screen_value(&self, engine: &Engine) -> serde_json::Value {
        let value = super::expect::screen_value(&self.scenario, engine);
        // Tours read the strategies' compare view by strategy (`compare.semaphore...`), the
        // variants' by row (`variants.3...`).
        match self.compare.as_ref() {
            Some(runs) => match runs.compared {
                ComparedBy::Strategies => {
                    super::expect::with_compare(value, &self.scenario, runs.engines())
                }
                ComparedBy::Variants => super::expect::with_variants(
                    value,
                    &self.scenario,
                    runs.rows.iter().map(CompareRow::engine),
                ),
            },
            None => value,
        }
    }

    // ----- reading -----

    /// The scenario `r` rebuilds from.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The simulated engine (none in real mode).
    pub fn engine(&self) -> Option<&Engine> {
        self.source.engine()
    }

    /// The compare view's engines: one per strategy in [`Strategy::ALL`] order, or one per
    /// variant that loaded.
    pub fn compare_engines(&self) -> Option<Vec<&Engine>> {
        self.compare.as_ref().map(|runs| runs.engines().collect())
    }

    /// The compare view's rows and what they compare, while it is open.
    pub fn compare_runs(&self) -> Option<&CompareRuns> {
        self.compare.as_ref()
    }

    /// The one-line prompt, while it is open.
    pub fn prompt(&self) -> Option<&Prompt> {
        self.prompt.as_ref()
    }

    pub fn snapshot(&self) -> Snapshot {
        self.source.snapshot()
    }

    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    pub fn overlay(&self) -> Overlay {
        self.overlay
    }

    pub fn status(&self) -> Option<&Status> {
        self.status.as_ref()
    }

    pub fn palette(&self) -> &Palette {
        &self.palette
    }

    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// Some engine fell behind the wall clock in the last frame (in real mode: the run is
    /// not keeping up).
    pub fn is_behind(&self) -> bool {
        self.behind || !self.source.lag().is_empty()
    }

    /// The pools the current strategy uses, the ones Tab walks through first...
    /// ...then the pools it no longer uses that still hold threads or queued tasks (the hung
    /// calls of a strategy left behind), so none is out of reach.
    pub fn pool_ids(&self) -> Vec<PoolId> {
        let mut ids = self.source.pools_in_use();
        for pool in self.source.snapshot().pools {
            if !ids.contains(&pool.id) && (pool.pool_size > 0 || pool.queued > 0) {
                ids.push(pool.id);
            }
        }
        ids
    }

    pub fn selected_pool(&self) -> Option<PoolId> {
        let ids = self.pool_ids();
        ids.get(self.selected % ids.len().max(1)).copied()
    }

    /// The simulated clock: the furthest any engine driven got.
    pub fn now(&self) -> Nanos {
        self.compare_driven()
            .map(Engine::now)
            .fold(self.source.now(), Nanos::max)
    }

    /// The run on screen, and every compare engine, has played its whole finite load, or an
    /// open or closed load its duration (a real run: has ended).
    pub fn is_finished(&self) -> bool {
        let end = self.run_end();
        let ended = |e: &Engine| e.is_finished() || end.is_some_and(|end| e.now() >= end);
        let main = match self.source.engine() {
            Some(engine) => ended(engine),
            None => self.source.is_finished(),
        };
        main && self.compare_driven().all(ended)
    }

    /// Where a simulated open or closed load stops, as `run` cuts it: the scenario's
    /// duration, so the screen at the end shows the totals `run` prints. A finite load ends
    /// with its last answer, and a real run by itself: `None`.
    pub fn run_end(&self) -> Option<Nanos> {
        let scenario = self.source.engine()?.scenario();
        scenario
            .load
            .mode
            .finite_count()
            .is_none()
            .then_some(scenario.duration)
    }

    /// The loop must keep ticking: the clock runs, an engine is catching up, or a real run's
    /// end is still to be kept. (A real run's clock never pauses: those keys are refused.)
    pub fn needs_ticks(&self) -> bool {
        self.source.awaits_tick()
            || (!self.clock.is_paused() && !self.is_finished())
            || self.behind
            || self.sweep_computing()
    }

    /// The compare view's engines.
    fn compare_driven(&self) -> impl Iterator<Item = &Engine> {
        self.compare.iter().flat_map(CompareRuns::engines)
    }

    /// Every engine the clock drives: the simulated one on screen, then the compare view's
    /// (none for a real run, which moves by itself).
    fn driven(&self) -> impl Iterator<Item = &Engine> {
        self.source
            .engine()
            .into_iter()
            .chain(self.compare_driven())
    }

    fn driven_mut(&mut self) -> impl Iterator<Item = &mut Engine> {
        let main = self.source.engine_mut().into_iter();
        main.chain(self.compare.iter_mut().flat_map(CompareRuns::engines_mut))
    }

    fn context(&self) -> Context {
        if self.prompt.is_some() {
            return Context::Prompt;
        }
        if self.overlay == Overlay::None
            && let Some(context) = self.lesson_context()
        {
            return context;
        }
        match self.overlay {
            Overlay::None if self.tour.as_ref().is_some_and(|t| t.caption.is_some()) => {
                Context::Tour
            }
            Overlay::None if self.tour.is_some() => Context::TourPlaying,
            Overlay::None => Context::Live,
            Overlay::Help | Overlay::Legend => Context::Help,
            Overlay::Faults(_) => Context::FaultMenu,
            Overlay::TourSteps(_) => Context::TourSteps,
            Overlay::Sweep => Context::Sweep,
        }
    }

    // ----- time -----

    /// Moves every engine driven along by `elapsed` wall time at the clock's speed, within
    /// the budget; engines that are behind (a fresh compare view) catch up.
    pub fn advance(&mut self, elapsed: Duration, budget: BudgetSpec) {
        self.advance_clock(elapsed, budget);
    }

    fn advance_clock(&mut self, elapsed: Duration, budget: BudgetSpec) {
        self.poll_sweep();
        // A real run moves by itself: the tick keeps its end once it has ended (drawing never
        // does) and looks at how it keeps up; there is no engine to drive.
        if let Some(error) = self.source.update() {
            self.status = Some(Status::Error(error));
        }
        if self.source.engine().is_none() {
            return;
        }
        self.share_budget();
        // A halted engine does nothing more (`Engine::halted`: stalled, or at its cap of
        // requests in flight): say so every frame rather than spend the frame's budget on it.
        let stalled = self.driven().find(|e| e.halted()).map(|e| {
            if e.stalled() {
                format!(
                    "STALLED at {} (r resets, q quits): the {} run's clock stopped; something \
                     is answered and retried at once",
                    e.now(),
                    e.strategy()
                )
            } else {
                let shared = match e.sharing() {
                    1 => String::new(),
                    n => format!(" (its share: the {n} runs played at once share one run's)"),
                };
                format!(
                    "STOPPED at {} (r resets, q quits): the {} run holds the most requests in \
                     flight a run may{shared} ({}); the load arrives faster than the server \
                     answers",
                    e.now(),
                    e.strategy(),
                    e.requests_in_flight()
                )
            }
        });
        if let Some(text) = stalled {
            self.status = Some(Status::Error(text));
            return;
        }
        let engines = self.driven().count();
        let now = self.now();
        // A tour stops the clock exactly at its next step, a lesson at its next step or
        // reveal, and a timed fault at its end.
        let stop = self
            .tour
            .as_ref()
            .and_then(Tour::pending)
            .map(|s| s.at)
            .into_iter()
            .chain(self.lesson.as_ref().and_then(Session::next_stop))
            .chain(self.next_fault_end())
            .chain(self.run_end())
            .min();
        let target = match self.clock.plan(elapsed) {
            Advance::Hold => now,
            Advance::By(d) => stop.map_or(now + d, |at| (now + d).min(at.max(now))),
            Advance::AsFastAsPossible => {
                // The first engine with work left leads; the others follow to its clock. A
                // stop (a tour's next step, a timed fault's end): as fast as possible, but
                // no further than it; the budget, not a lag, decides how far a frame gets.
                match self.driven_mut().find(|e| !e.is_finished()) {
                    Some(lead) => {
                        let mut lead_budget = budget.start(engines);
                        match stop {
                            Some(at) => {
                                catch_up(lead, at.max(now), &mut lead_budget);
                            }
                            None => {
                                run_for(lead, &mut lead_budget);
                            }
                        }
                        lead.now().max(now)
                    }
                    None => now,
                }
            }
        };
        let mut behind = false;
        for engine in self.driven_mut() {
            behind |= catch_up(engine, target, &mut budget.start(engines)) == Reach::Behind;
        }
        self.behind = behind;
        self.end_due_faults();
        self.fire_due_tour_steps();
        self.fire_due_lesson();
        self.measure_if_settled();
    }

    // ----- keys -----

    pub fn handle_key(&mut self, event: KeyEvent) {
        let key = Key::from_event(event);
        // Typed text is what was typed: the config file's moved keys do not apply to it.
        let key = if self.is_typing() {
            key
        } else {
            key.and_then(|k| self.key_map.resolve(k))
        };
        if let Some(key) = key {
            self.press(key);
        }
    }

    /// A mouse event on a `width` x `height` screen: a click on a strategy tab or a fault
    /// menu line does what its key does; the wheel scrolls the log.
    pub fn handle_mouse(&mut self, event: MouseEvent, width: u16, height: u16) {
        match event.kind {
            MouseEventKind::ScrollUp => self.scroll_log(true),
            MouseEventKind::ScrollDown => self.scroll_log(false),
            MouseEventKind::Down(MouseButton::Left) => {
                let target = ui_mouse::target(self, width, height, event.column, event.row);
                if let Some(action) = ui_mouse::click(target) {
                    self.apply(action);
                }
            }
            _ => {}
        }
    }

    /// Scrolls the log back (towards older entries) or forward, three entries at a time.
    pub fn scroll_log(&mut self, back: bool) {
        let len = self.snapshot().log.len();
        self.log_scroll = if back {
            (self.log_scroll + 3).min(len.saturating_sub(1))
        } else {
            self.log_scroll.saturating_sub(3)
        };
    }

    /// Log entries scrolled back from the newest.
    pub fn log_scroll(&self) -> usize {
        self.log_scroll
    }

    /// What a key does where the person is.
    pub fn press(&mut self, key: Key) {
        if let Some(action) = keys::action_for(self.context(), key) {
            self.apply(action);
        }
    }

    pub fn apply(&mut self, action: Action) {
        self.status = None;
        if action != Action::Quit {
            self.quit_asked = false;
        }
        if let Some(why) = self.refusal(action) {
            self.info(why.to_string());
            return;
        }
        // The compare view, the timeline and a zoomed panel are other bodies: the headline
        // makes way for them.
        if matches!(
            action,
            Action::ToggleCompare | Action::ToggleVariants | Action::ToggleTimeline | Action::Zoom
        ) {
            self.headline = false;
        }
        match action {
            Action::SelectStrategy(s) => self.select_strategy(s),
            Action::SelectPool(pool) => self.select_pool(pool),
            Action::NextPool => self.select_next_pool(),
            Action::PreviousPool => self.select_previous_pool(),
            Action::GrowPool => self.resize_pool(true),
            Action::ShrinkPool => self.resize_pool(false),
            Action::GrowQueue => self.resize_queue(true),
            Action::ShrinkQueue => self.resize_queue(false),
            Action::MoreLoad => self.change_load(true),
            Action::LessLoad => self.change_load(false),
            Action::TogglePause => self.toggle_pause(),
            Action::Step => self.step(),
            Action::SpeedUp => self.change_speed(true),
            Action::SlowDown => self.change_speed(false),
            Action::OpenFaultMenu => self.open_fault_menu(),
            Action::ToggleCompare => self.toggle_compare(),
            Action::ToggleVariants => self.toggle_variants(),
            Action::AddVariant => self.open_variant_prompt(),
            Action::PromptType(c) => self.prompt.iter_mut().for_each(|p| p.type_char(c)),
            Action::PromptBackspace => self.prompt.iter_mut().for_each(Prompt::backspace),
            Action::PromptEnter => self.add_typed_variant(),
            Action::Reset => self.reset(),
            Action::NewSeed => self.new_seed(),
            Action::ToggleHelp => self.toggle_help(),
            Action::Back => self.back(),
            Action::Quit => self.quit(),
            Action::MenuUp => self.move_menu_cursor(false),
            Action::MenuDown => self.move_menu_cursor(true),
            Action::MenuChoose => self.choose_in_menu(),
            Action::MenuPick(n) => self.pick_in_menu(n),
            Action::MenuAdjust(more) => self.adjust_in_menu(None, more),
            Action::MenuArrow(line, more) => self.adjust_in_menu(Some(line), more),
            Action::TourNext => self.tour_next(),
            Action::ToggleServerThreads => self.toggle_server_threads(),
            Action::ToggleUnboundedThreads => self.toggle_unbounded_threads(),
            Action::TourBack => self.tour_back(),
            Action::TourRestart => self.tour_jump(0),
            Action::TourSteps => self.open_tour_steps(),
            Action::TourJump(n) => self.tour_jump(n.saturating_sub(1)),
            Action::ToggleTimeline => self.toggle_timeline(),
            Action::MoveLane(next) => self.move_lane(next),
            Action::WriteTrace => self.write_trace(),
            Action::SaveScreen => self.screen_wanted = true,
            Action::TogglePin => self.toggle_pin(),
            Action::Zoom => {
                let resilience = super::ui::resilience::shown(self.source.scenario());
                self.zoom = Panel::after(self.zoom, resilience);
            }
            Action::ToggleTheory => self.theory_hidden = !self.theory_hidden,
            Action::ToggleHeadline => self.toggle_headline(),
            Action::OpenSweep => self.open_sweep(),
            Action::SweepMove(right) => self.move_sweep_cursor(right),
            Action::SweepApply => self.apply_sweep_point(),
            Action::SweepNextKnob => self.sweep_next_knob(),
            Action::LessonNext => self.lesson_go_on(),
            Action::Answer(c) => self.lesson.iter_mut().for_each(|l| l.type_char(c)),
            Action::AnswerBackspace => self.lesson.iter_mut().for_each(Session::backspace),
            Action::AnswerEnter => self.lesson_submit(),
        }
    }

    // ----- intentions -----

    pub fn select_strategy(&mut self, strategy: Strategy) {
        if strategy == self.source.strategy() {
            self.info(format!("already {strategy}"));
            return;
        }
        let finished = self.is_finished();
        if let Some(engine) = self.source.engine_mut().filter(|_| !finished) {
            // The strategies' compare engines keep their own; the variants follow the run on
            // screen, whose strategy they all play.
            let result = engine.apply(Command::SetStrategy(strategy));
            if result.is_ok()
                && let Some(runs) = self.compare.as_mut()
                && runs.compared == ComparedBy::Variants
            {
                for e in runs.engines_mut() {
                    let _same_for_all = e.apply(Command::SetStrategy(strategy));
                }
            }
            self.report(result.map_err(Refusal::from));
            self.selected = 0;
            return;
        }
        // A real run cannot change strategy while it runs, and after the load has ended a new
        // strategy would see no request: the run restarts.
        if let Err(e) = self.source.restart(&self.scenario, strategy) {
            self.status = Some(Status::Error(e.to_string()));
            return;
        }
        self.forget_timed();
        self.selected = 0;
        self.info(match self.source {
            Source::Sim(_) if self.run_end().is_some() => {
                format!("strategy {strategy}: the run's duration was played, so it restarted")
            }
            Source::Sim(_) => {
                format!("strategy {strategy}: the load had ended, so the run restarted")
            }
            Source::Real(_) => format!("real run restarted: {strategy}"),
        });
    }

    /// Selects `pool` if the panel shows it.
    pub fn select_pool(&mut self, pool: PoolId) {
        if let Some(i) = self.pool_ids().iter().position(|&p| p == pool) {
            self.selected = i;
        }
    }

    pub fn select_next_pool(&mut self) {
        let n = self.pool_ids().len().max(1);
        self.selected = (self.selected % n + 1) % n;
    }

    pub fn select_previous_pool(&mut self) {
        let n = self.pool_ids().len().max(1);
        self.selected = (self.selected % n + n - 1) % n;
    }

    /// `+`/`-`: the selected pool's size knob (core, Tomcat's maxThreads, parallelism) by
    /// about 10%, at least 1.
    pub fn resize_pool(&mut self, grow: bool) {
        let Some(pool) = self.selected_pool_snapshot() else {
            return;
        };
        let size = super::knob::pool_size(&pool);
        let new = if grow {
            size.saturating_add(step_of(size))
        } else {
            size.saturating_sub(step_of(size)).max(1)
        };
        if new == size && pool.kind != PoolKind::PerTask {
            self.info(format!("{} is at its smallest size", pool.name));
            return;
        }
        // The engine explains that a thread-per-task pool has no size.
        let commands = crate::sim::size_commands(&pool, new);
        self.commands(&commands);
    }

    /// Applies `commands` in order and reports them on one status line (stops at an error).
    fn commands(&mut self, commands: &[Command]) {
        let mut said = Vec::new();
        for &command in commands {
            match self.try_command(command) {
                Ok(text) => said.push(text),
                // The status line says why.
                Err(_) => return,
            }
        }
        self.info(said.join(" · "));
    }

    /// `]`/`[`: the selected pool's queue capacity by about 10%, at least 1. An unbounded
    /// queue shrinks to 100 (Tomcat's `acceptCount` default, a familiar bound).
    pub fn resize_queue(&mut self, grow: bool) {
        let Some(pool) = self.selected_pool_snapshot() else {
            return;
        };
        let capacity = match (pool.kind, pool.queue_capacity) {
            // The engine explains that these pools have no bounded queue.
            (PoolKind::PerTask | PoolKind::ForkJoin, c) => c,
            (_, None) if grow => {
                self.info(format!("{}'s queue is unbounded", pool.name));
                return;
            }
            (_, None) => Some(100),
            (_, Some(c)) if grow => Some(c.saturating_add(step_of(c).max(1))),
            (_, Some(0)) => {
                self.info(format!("{} hands off (queue 0)", pool.name));
                return;
            }
            (_, Some(c)) => Some(c - step_of(c).max(1)),
        };
        self.command(Command::SetQueueCapacity {
            pool: pool.id,
            capacity,
        });
    }

    /// `Up` / `Down`: the open load's rate times or over 1.25 (never below
    /// [`LEAST_KEYED_RATE`], which the header still shows), a closed load's clients 10 % more
    /// or fewer (at least one).
    pub fn change_load(&mut self, more: bool) {
        let command = match &self.source.scenario().load.mode {
            // Three significant digits, so the rate set is the rate the screen shows.
            &LoadMode::Open { rate, .. } => {
                if !more && rate <= LEAST_KEYED_RATE {
                    self.info(format!(
                        "the open load stays at {rate}/s: Down goes no lower than \
                         {LEAST_KEYED_RATE}/s (a preset or --set may)"
                    ));
                    return;
                }
                // From a phase's pause (0/s), Up starts the load again at 1/s.
                let rate = if more && rate <= 0.0 {
                    1.0
                } else if more {
                    rate * 1.25
                } else {
                    (rate / 1.25).max(LEAST_KEYED_RATE)
                };
                Command::SetRate(super::knob::three_digits(rate))
            }
            &LoadMode::Closed { clients, .. } => {
                let step = (clients / 10).max(1);
                let n = if more {
                    clients.saturating_add(step)
                } else {
                    clients.saturating_sub(step).max(1)
                };
                Command::SetClients(n)
            }
            &LoadMode::Runs { count } => {
                self.info(format!(
                    "the load is {count} runs one after another: Up/Down change open and closed load"
                ));
                return;
            }
            &LoadMode::Batch { count } => {
                self.info(format!(
                    "the load is a batch of {count} at t=0: Up/Down change open and closed load"
                ));
                return;
            }
            LoadMode::Trace { rows } => {
                let n = rows.len();
                self.info(format!(
                    "the load replays a trace of {n} requests: Up/Down change open and closed load"
                ));
                return;
            }
        };
        self.command(command);
    }

    pub fn toggle_pause(&mut self) {
        self.clock.toggle_pause();
    }

    /// `.`: pause, then process exactly one event of the main engine; the compare engines
    /// follow to its clock on the next tick.
    /// `.`: pauses and plays one event, then says what it did.
    pub fn step(&mut self) {
        let end = self.run_end();
        let Some(engine) = self.source.engine_mut() else {
            return;
        };
        self.clock.pause();
        // The run's duration played: no event after it (`r` plays it again).
        if let Some(end) = end
            && engine.next_event_time().is_none_or(|t| t > end)
        {
            if engine.now() < end {
                engine.run_until(end);
            }
            self.info(format!(
                "step to t {}: the run's duration is played (r runs it again)",
                super::ui::clock_text(end)
            ));
            self.behind = self.compare.is_some();
            return;
        }
        let before = engine.snapshot();
        // A timed fault (or a doubled load) that ends before the next event: the step goes to
        // its end and heals it.
        let next_end = self
            .fault_ends
            .iter()
            .map(|t| t.end)
            .chain(self.load_boost.map(|b| b.end))
            .min();
        if let Some(end) = next_end.filter(|&end| engine.next_event_time().is_none_or(|t| t > end))
            && !engine.is_finished()
        {
            engine.run_until(end);
            let healed = self
                .end_due_faults()
                .unwrap_or_else(|| "a timed fault's time was up".to_string());
            self.info(format!(
                "step to t {}: {healed}",
                super::ui::clock_text(end)
            ));
            self.behind = self.compare.is_some();
            return;
        }
        let text = if engine.step() {
            step_text(&before, &engine.snapshot())
        } else {
            "no event left".to_string()
        };
        let text = match self.end_due_faults() {
            Some(healed) => format!("{text} · {healed}"),
            None => text,
        };
        self.info(text);
        self.behind = self.compare.is_some();
    }

    /// `>` (`faster`) or `<`: one rung along the speed ladder, saying so when the speed is
    /// already at that end.
    pub fn change_speed(&mut self, faster: bool) {
        let (moved, end) = if faster {
            (self.clock.speed_up(), "fastest")
        } else {
            (self.clock.slow_down(), "slowest")
        };
        let speed = self.clock.speed();
        self.info(if moved {
            format!("speed {speed}")
        } else {
            format!("speed {speed}: already the {end}")
        });
    }

    pub fn open_fault_menu(&mut self) {
        self.overlay = Overlay::Faults(FaultMenu::services(0));
    }

    /// `c`: every strategy replays the scenario as it is now (live changes and faults
    /// included) from t = 0 with the same seed, catches up with the main clock, then runs in
    /// lockstep with it. Closing drops them; over the variants' view (`C`) it takes its place.
    pub fn toggle_compare(&mut self) {
        if self.close_compare(ComparedBy::Strategies) {
            return;
        }
        let Some(engine) = self.source.engine() else {
            return;
        };
        let rows = strategy_rows(engine);
        self.compare = Some(CompareRuns {
            compared: ComparedBy::Strategies,
            rows,
        });
        self.behind = true;
    }

    /// Closes the compare view if it shows `what` (true), else drops the other one to make
    /// way for it (false): `c` and `C` are never open together.
    fn close_compare(&mut self, what: ComparedBy) -> bool {
        self.prompt = None;
        match self.compare.take() {
            Some(runs) if runs.compared == what => {
                self.behind = false;
                true
            }
            _ => false,
        }
    }

    /// `r`: rebuild from the original scenario, same seed, same strategy.
    pub fn reset(&mut self) {
        // A run that did not restart: the status line says why.
        let Ok(dropped) = self.rebuild_dropping() else {
            return;
        };
        let what = match self.source {
            Source::Sim(_) => "reset",
            Source::Real(_) => "real run restarted",
        };
        self.info(format!("{what}: seed {}{dropped}", self.scenario.seed));
    }

    /// `s`: the next seed, then reset; after the largest seed `--seed` accepts, seed 0.
    pub fn new_seed(&mut self) {
        let wrapped = self.scenario.seed >= crate::scenario::MAX_SEED;
        self.scenario.seed = if wrapped { 0 } else { self.scenario.seed + 1 };
        let Ok(dropped) = self.rebuild_dropping() else {
            return;
        };
        let note = if wrapped {
            format!(
                " (after {}, the largest, back to 0)",
                crate::scenario::MAX_SEED
            )
        } else {
            String::new()
        };
        self.info(format!("new seed {}{note}{dropped}", self.scenario.seed));
    }

    /// [`App::rebuild`], and what it undid: ` · live changes dropped: IronThread core 12,
    /// orders slow x5` (the changes made with keys since the run started; the `v` and `u`
    /// switches stay), or nothing; or why the run did not restart.
    pub(super) fn rebuild_dropping(&mut self) -> Result<String, Refusal> {
        let before = self.badges(&self.snapshot());
        self.rebuild()?;
        let after = self.badges(&self.snapshot());
        let dropped: Vec<String> = before.into_iter().filter(|b| !after.contains(b)).collect();
        Ok(if dropped.is_empty() {
            String::new()
        } else {
            format!(" · live changes dropped: {}", dropped.join(", "))
        })
    }

    /// The run again from t = 0 with the same strategy (the scenario `r` rebuilds from); on
    /// failure a real run stays on screen, stopped, and the status says why (as the error
    /// returned).
    fn rebuild(&mut self) -> Result<(), Refusal> {
        if let Err(e) = self.source.restart(&self.scenario, self.source.strategy()) {
            let refusal = Refusal::from(e);
            self.status = Some(Status::Error(refusal.to_string()));
            return Err(refusal);
        }
        self.forget_timed();
        self.record_timeline_if_shown();
        self.rebuild_compare();
        self.behind = false;
        Ok(())
    }

    /// `t`: the timeline view of the selected pool's threads; opening it starts recording.
    pub fn toggle_timeline(&mut self) {
        if self.timeline.take().is_some() {
            return;
        }
        self.timeline = Some(0);
        if self.source.engine().is_some_and(|e| e.timeline().is_none()) {
            self.record_timeline_if_shown();
            let t = self.now().as_secs_f64();
            self.info(format!("recording thread timelines from t {t:.3}s"));
        }
    }

    /// Records thread timelines from now on, shown or not: a headless screenshot records
    /// from t 0, so a timeline (`t`) pressed at its time shows what the threads did.
    pub fn record_timelines(&mut self) {
        if let Some(engine) = self.source.engine_mut()
            && engine.timeline().is_none()
        {
            engine.record_timeline(crate::sim::Retention::LIVE);
        }
    }

    fn record_timeline_if_shown(&mut self) {
        if self.timeline.is_some()
            && let Some(engine) = self.source.engine_mut()
        {
            engine.record_timeline(crate::sim::Retention::LIVE);
        }
    }

    /// The timeline's selected lane, while the view is open.
    pub fn timeline_lane(&self) -> Option<usize> {
        self.timeline
    }

    /// `j`/`k`: the next or previous lane (the view clamps to the lanes there are).
    pub fn move_lane(&mut self, next: bool) {
        match &mut self.timeline {
            Some(lane) if next => *lane += 1,
            Some(lane) => *lane = lane.saturating_sub(1),
            None => self.info("j/k move between the timeline's lanes: press t first".into()),
        }
    }

    /// `w`: writes what the timeline recorded as a Perfetto / Chrome trace.
    pub fn write_trace(&mut self) {
        let Some(engine) = self.source.engine() else {
            return;
        };
        if engine.timeline().is_none() {
            self.timeline.get_or_insert(0);
            self.record_timeline_if_shown();
            self.info("recording thread timelines from now: press w again to write them".into());
            return;
        }
        let name = super::trace_file::trace_file_name(engine.strategy(), self.now());
        match super::trace_file::write_trace(engine, &name) {
            Ok(text) => self.info(text),
            Err(e) => self.status = Some(Status::Error(e.to_string())),
        }
    }

    /// Whether `p` asked for the screen to be saved; asking clears the request.
    pub fn take_screen_request(&mut self) -> bool {
        std::mem::take(&mut self.screen_wanted)
    }

    /// `p`: saves `screen` (the frame just drawn) as `threadlab-screen-<UTC time>.svg` in the
    /// working directory, and says where on the status line.
    pub fn save_screen(&mut self, screen: &ratatui::buffer::Buffer) {
        let stamp = crate::screenshot::utc_stamp(std::time::SystemTime::now());
        match crate::screenshot::save_new(screen, self.theme, std::path::Path::new(""), &stamp) {
            Ok(path) => self.info(format!("saved the screen to {}", path.display())),
            Err(e) => self.status = Some(Status::Error(e.to_string())),
        }
    }

    /// `?`: the keys, then the legend, then closed.
    pub fn toggle_help(&mut self) {
        self.overlay = match self.overlay {
            Overlay::Help => Overlay::Legend,
            Overlay::Legend => Overlay::None,
            _ => Overlay::Help,
        };
    }

    /// Esc: back one level (fault list, service list, overlay, compare view); never quits.
    pub fn back(&mut self) {
        if self.prompt.take().is_some() {
            self.info("no variant added".to_string());
            return;
        }
        if let Some(lesson) = self
            .lesson
            .as_mut()
            .filter(|l| l.shown() == &Showing::Results)
        {
            lesson.close_results();
            self.info("results closed: the keys are yours, q quits".to_string());
            return;
        }
        match self.overlay {
            Overlay::Faults(FaultMenu {
                service: Some(service),
                ..
            }) => self.overlay = Overlay::Faults(FaultMenu::services(service)),
            Overlay::Faults(_) | Overlay::Help | Overlay::Legend | Overlay::TourSteps(_) => {
                self.overlay = Overlay::None;
            }
            Overlay::Sweep => self.close_sweep(),
            Overlay::None if self.headline => self.headline = false,
            Overlay::None if self.compare.is_some() => {
                self.compare = None;
                self.behind = false;
            }
            Overlay::None if self.timeline.is_some() => self.timeline = None,
            Overlay::None if self.zoom.is_some() => self.zoom = None,
            // Esc never quits: on a projector a stray Esc must not end the lesson.
            Overlay::None => self.info("nothing to close: q quits".to_string()),
        }
    }

    /// `q`: quits at once, except during a tour or a lesson, where it asks first.
    pub fn quit(&mut self) {
        if self.quit_asked {
            self.quit = true;
            return;
        }
        if self.tour.is_some() {
            self.quit_asked = true;
            self.info("quit the tour? q again quits, any other key goes on".to_string());
            return;
        }
        if self.lesson.as_ref().is_some_and(|l| !l.is_over()) {
            self.quit_asked = true;
            // At a question q is a letter of the answer.
            let again = if self.is_typing() { "Ctrl-C" } else { "q" };
            self.info(format!(
                "quit the lesson? {again} again quits, any other key goes on"
            ));
            return;
        }
        self.quit = true;
    }

    fn menu_len(&self, menu: FaultMenu) -> usize {
        match menu.service {
            // The services, then "double the load".
            None => self.source.scenario().services.len() + 1,
            Some(_) => FormLine::LINES.len(),
        }
    }

    fn open_tour_steps(&mut self) {
        match &self.tour {
            Some(t) => self.overlay = Overlay::TourSteps(t.next.saturating_sub(1)),
            None => self.info("no tour is playing: threadlab tour PRESET plays one".to_string()),
        }
    }

    fn move_menu_cursor(&mut self, down: bool) {
        if let Overlay::TourSteps(cursor) = self.overlay {
            let n = self.tour.as_ref().map_or(1, |t| t.steps.len().max(1));
            let cursor = if down {
                (cursor + 1) % n
            } else {
                (cursor + n - 1) % n
            };
            self.overlay = Overlay::TourSteps(cursor);
            return;
        }
        let Overlay::Faults(mut menu) = self.overlay else {
            return;
        };
        let n = self.menu_len(menu).max(1);
        menu.cursor = if down {
            (menu.cursor + 1) % n
        } else {
            (menu.cursor + n - 1) % n
        };
        self.overlay = Overlay::Faults(menu);
    }

    /// Digit n (or a click on line n): a service in the list; in the form, line n, which
    /// applies the fault when it is the last line.
    fn pick_in_menu(&mut self, n: usize) {
        let Overlay::Faults(mut menu) = self.overlay else {
            return;
        };
        if n == 0 || n > self.menu_len(menu) {
            return;
        }
        menu.cursor = n - 1;
        self.overlay = Overlay::Faults(menu);
        if menu.service.is_none() || FormLine::at(menu.cursor) == FormLine::Apply {
            self.choose_in_menu();
        }
    }

    /// Enter: in the list, the service's form (set to its fault, if it has one); in the
    /// form, apply it.
    fn choose_in_menu(&mut self) {
        if let Overlay::TourSteps(cursor) = self.overlay {
            self.tour_jump(cursor);
            return;
        }
        let Overlay::Faults(menu) = self.overlay else {
            return;
        };
        match menu.service {
            None if menu.cursor >= self.source.scenario().services.len() => {
                self.overlay = Overlay::None;
                self.double_load(menu.double);
            }
            None => {
                let current = self
                    .source
                    .snapshot()
                    .services
                    .get(menu.cursor)
                    .and_then(|s| s.fault);
                self.overlay = Overlay::Faults(FaultMenu {
                    service: Some(menu.cursor),
                    cursor: 0,
                    form: FaultForm::for_current(current),
                    double: menu.double,
                });
            }
            Some(service) => {
                self.overlay = Overlay::None;
                self.apply_fault(ServiceId(service), menu.form);
            }
        }
    }

    // ----- helpers -----

    fn selected_pool_snapshot(&self) -> Option<PoolSnapshot> {
        let id = self.selected_pool()?;
        self.source
            .snapshot()
            .pools
            .into_iter()
            .find(|p| p.id == id)
    }

    /// [`App::try_command`] where only the status line tells what it did.
    fn command(&mut self, command: Command) {
        let _shown = self.try_command(command);
    }

    /// Applies a command to the main engine, and in the compare view to every one of them
    /// (the pool playing the same role, the same service), then says what happened on the
    /// status line and returns it: what changed, or why it was refused. A compared run that
    /// refuses it (it has no such pool, its load is of another kind) keeps going without it,
    /// the others take it, and the status line counts the refusals.
    fn try_command(&mut self, command: Command) -> Result<String, Refusal> {
        let Some(engine) = self.source.engine_mut() else {
            // A real run takes no commands: its keys are refused before they get here.
            return Err(Refusal::RealRun);
        };
        let result = engine.apply(command).map_err(Refusal::from);
        let mut refused = Vec::new();
        if result.is_ok() {
            let from = engine.topology();
            for e in self.compare.iter_mut().flat_map(CompareRuns::engines_mut) {
                let applied = match command.for_topology(from, e.topology()) {
                    Some(command) => e.apply(command).map_err(Refusal::from),
                    None => Err(Refusal::NoSuchPool),
                };
                refused.extend(applied.err());
            }
            if !matches!(
                command,
                Command::InjectFault { .. } | Command::ClearFault { .. }
            ) {
                // Faults are replayed from the engine's own (`live_faults`), healed or not.
                self.live_changes.push(command);
            }
        }
        let result = result.map(|text| match refused.first() {
            Some(why) => format!(
                "{text} · not in {} compared run{}: {why}",
                refused.len(),
                if refused.len() == 1 { "" } else { "s" }
            ),
            None => text,
        });
        self.report(result.clone());
        result
    }

    /// Shows what an engine command did on the status line.
    fn report(&mut self, result: Result<String, Refusal>) {
        self.status = Some(match result {
            Ok(text) => Status::Info(text),
            Err(refusal) => Status::Error(refusal.to_string()),
        });
    }

    fn info(&mut self, text: String) {
        self.status = Some(Status::Info(text));
    }
}

/// What one event changed, from the snapshots around it: a request sent or ended, else the
/// pools whose busy threads or queue moved.
fn step_text(before: &Snapshot, after: &Snapshot) -> String {
    let mut what = Vec::new();
    if after.sent > before.sent {
        what.push(format!("request {} arrived", after.sent));
    }
    if let Some(crate::sim::LogLine::Run(run)) = after.log.last()
        && after.outcomes.total() > before.outcomes.total()
    {
        what.push(format!("run {} ended {}", run.run, run.status));
    }
    for (a, b) in after.pools.iter().zip(&before.pools) {
        // Only what moved: `tomcat busy 3->4`, never `queue 0->0`.
        let mut moved = Vec::new();
        if a.active != b.active {
            moved.push(format!("busy {}->{}", b.active, a.active));
        }
        if a.queued != b.queued {
            moved.push(format!("queue {}->{}", b.queued, a.queued));
        }
        if !moved.is_empty() {
            what.push(format!("{} {}", a.name, moved.join(" ")));
        }
    }
    if what.is_empty() {
        what.push("a timer fired, nothing visible changed".to_string());
    }
    format!(
        "step to t {}: {}",
        super::ui::clock_text(after.now),
        what.join(" · ")
    )
}

/// One row per strategy, each replaying the scenario as it is now (live changes and faults
/// included) from t = 0.
fn strategy_rows(engine: &Engine) -> Vec<CompareRow> {
    let scenario = engine.scenario().clone();
    let faults = super::sweep::live_faults(engine);
    Strategy::ALL
        .iter()
        .map(|&s| {
            let mut e = Engine::new(&scenario, s);
            for &(service, fault) in &faults {
                // Faults the main engine accepted apply to the same services here.
                let _ = e.apply(Command::InjectFault { service, fault });
            }
            CompareRow::of(s.name(), e)
        })
        .collect()
}

/// About 10% of a size, at least 1.
fn step_of(size: u32) -> u32 {
    (size / 10).max(1)
}

#[path = "settings.rs"]
mod settings;

#[path = "app_sweep.rs"]
mod app_sweep;

#[path = "app_faults.rs"]
mod app_faults;

#[path = "app_variants.rs"]
mod app_variants;

#[path = "app_lesson.rs"]
mod app_lesson;
#[path = "budget.rs"]
mod budget;

#[cfg(test)]
#[path = "app_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "tour_tests.rs"]
mod tour_tests;

#[cfg(test)]
#[path = "settings_tests.rs"]
mod settings_tests;

#[cfg(test)]
#[path = "app_sweep_tests.rs"]
mod sweep_tests;

#[cfg(test)]
#[path = "fault_tests.rs"]
mod fault_tests;

#[cfg(test)]
#[path = "variants_tests.rs"]
mod variants_tests;

#[cfg(test)]
#[path = "lesson_tests.rs"]
mod lesson_tests;

/// The live key a tour key (or a key script's) stands for.
pub(crate) fn tour_key(key: TourKey) -> Key {
    match key {
        TourKey::Char(c) => Key::Char(c),
        TourKey::Tab => Key::Tab,
        TourKey::BackTab => Key::BackTab,
        TourKey::Up => Key::Up,
        TourKey::Down => Key::Down,
        TourKey::Left => Key::Left,
        TourKey::Right => Key::Right,
        TourKey::Home => Key::Home,
        TourKey::Enter => Key::Enter,
        TourKey::Esc => Key::Esc,
    }
}

#[cfg(test)]
impl App {
    /// The simulated engine, in tests of a simulated run.
    pub(crate) fn sim(&self) -> &Engine {
        self.engine().expect("a simulated run")
    }
}

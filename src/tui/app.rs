//! The TUI's state: what the person looks at and which knob they hold. The engines hold the
//! world; `App` applies [`Action`]s to them as [`Command`]s and keeps only view state.
//!
//! In real mode a [`LiveRun`] is the source of every snapshot; the engine stays as the
//! scenario's model (its pools and theory) and is never advanced. Real time cannot pause,
//! step, change speed or be reconfigured live, so those keys say so instead
//! ([`App::refusal`]); `r`, `s` and `1-4` restart the real run.

use std::time::Duration;

use ratatui::crossterm::event::KeyEvent;

use crate::real::{Lag, LiveRun, RealError, RealOptions};
use crate::scenario::{LoadMode, Scenario, ServiceId, Strategy, TourKey, TourStep};
use crate::sim::pool::PoolKind;
use crate::sim::{Command, Engine, Fault, PoolId, PoolSnapshot, Snapshot};
use crate::time::Nanos;

use super::Theme;
use super::clock::{Advance, BudgetSpec, Clock, Pace, catch_up, run_for};
use super::keys::{self, Context, Key};
use super::theme::Palette;

/// Everything a key can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    SelectStrategy(Strategy),
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
    Reset,
    NewSeed,
    ToggleHelp,
    /// Esc: close what is open, else quit.
    Back,
    Quit,
    MenuUp,
    MenuDown,
    MenuChoose,
    /// Choose the n-th item (from 1).
    MenuPick(usize),
    /// Close the tour's caption and play on to its next step.
    TourNext,
    ToggleTimeline,
    /// Select the next (true) or previous thread lane of the timeline.
    MoveLane(bool),
    WriteTrace,
}

/// The faults the menu offers, in order; `None` heals.
pub const FAULTS: [(&str, Option<Fault>); 4] = [
    ("slow x5", Some(Fault::Slow { factor: 5.0 })),
    (
        "hang 30s",
        Some(Fault::Hang {
            duration: Nanos::from_secs(30),
        }),
    ),
    ("fail 100%", Some(Fault::Fail { probability: 1.0 })),
    ("heal", None),
];

/// What is drawn over the screen and takes the keys first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help,
    Faults(FaultMenu),
}

/// The fault menu: first a service, then a fault for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultMenu {
    /// The service chosen, once chosen.
    pub service: Option<usize>,
    /// The highlighted line.
    pub cursor: usize,
}

/// A talk's scripted tour: steps fire at simulated times, press their keys, pause and show
/// a caption until the speaker goes on.
#[derive(Debug, Clone, PartialEq)]
pub struct Tour {
    steps: Vec<TourStep>,
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
    /// What `r` rebuilds from; `s` changes its seed.
    scenario: Scenario,
    engine: Engine,
    /// The four strategies side by side, while the compare view is open.
    compare: Option<Vec<Engine>>,
    clock: Clock,
    overlay: Overlay,
    /// Index into [`App::pool_ids`].
    selected: usize,
    status: Option<Status>,
    /// Some engine could not keep pace in the last frame.
    behind: bool,
    quit: bool,
    palette: Palette,
    tour: Option<Tour>,
    /// Real mode: the run on screen and why it is not keeping up.
    real: Option<RealMode>,
    /// The timeline view, while open: the selected lane.
    timeline: Option<usize>,
}

/// A real run on screen.
#[derive(Debug)]
pub struct RealMode {
    run: LiveRun,
    /// Why it is not keeping up, as of the last frame.
    lag: Vec<Lag>,
}

impl RealMode {
    pub fn run(&self) -> &LiveRun {
        &self.run
    }

    /// Why the run is not keeping up, as of the last frame (empty when it is).
    pub fn lag(&self) -> &[Lag] {
        &self.lag
    }
}

impl App {
    pub fn new(scenario: Scenario, strategy: Strategy, theme: Theme) -> App {
        let engine = Engine::new(&scenario, strategy);
        App {
            scenario,
            engine,
            compare: None,
            clock: Clock::default(),
            overlay: Overlay::None,
            selected: 0,
            status: None,
            behind: false,
            quit: false,
            palette: Palette::of(theme),
            tour: None,
            real: None,
            timeline: None,
        }
    }

    /// Real mode: starts `scenario` for real under `strategy` for its duration.
    pub fn new_real(
        scenario: Scenario,
        strategy: Strategy,
        options: RealOptions,
        theme: Theme,
    ) -> Result<App, RealError> {
        let run = LiveRun::start(&scenario, strategy, scenario.duration, options)?;
        let mut app = App::new(scenario, strategy, theme);
        app.real = Some(RealMode {
            run,
            lag: Vec::new(),
        });
        Ok(app)
    }

    /// The real run, in real mode.
    pub fn real(&self) -> Option<&RealMode> {
        self.real.as_ref()
    }

    /// Why a key does nothing in this mode (real time cannot do what the simulated clock
    /// can), or `None` when it works.
    pub fn refusal(&self, action: Action) -> Option<&'static str> {
        self.real.as_ref()?;
        match action {
            Action::TogglePause | Action::Step | Action::SpeedUp | Action::SlowDown => {
                Some("real run: the clock is the wall clock; it cannot pause, step or change speed")
            }
            Action::GrowPool
            | Action::ShrinkPool
            | Action::GrowQueue
            | Action::ShrinkQueue
            | Action::MoreLoad
            | Action::LessLoad => Some(
                "real run: pools and load are fixed while it runs; set them with --set (r restarts)",
            ),
            Action::OpenFaultMenu => {
                Some("real run: faults can be injected with --engine sim only")
            }
            Action::ToggleCompare => {
                Some("real run: compare the strategies with `threadlab compare --engine real`")
            }
            Action::ToggleTimeline | Action::WriteTrace | Action::MoveLane(_) => {
                Some("real run: thread timelines are recorded by the simulated engine only")
            }
            _ => None,
        }
    }

    /// Plays the scenario's `[[tour]]`: false when it has none.
    pub fn start_tour(&mut self) -> bool {
        if self.scenario.tour.is_empty() {
            return false;
        }
        self.tour = Some(Tour {
            steps: self.scenario.tour.clone(),
            next: 0,
            caption: None,
        });
        self.fire_due_tour_steps();
        true
    }

    pub fn tour(&self) -> Option<&Tour> {
        self.tour.as_ref()
    }

    /// Fires the next tour step if the clock has reached it: press its keys, pause, show
    /// its caption.
    fn fire_due_tour_steps(&mut self) {
        let now = self.now();
        let Some(tour) = &mut self.tour else { return };
        let Some(step) = tour.pending().filter(|s| s.at <= now).cloned() else {
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
        if tour.next >= tour.steps.len() {
            self.tour = None;
            self.info("end of the tour: the keys are yours".to_string());
        }
        if self.clock.is_paused() {
            self.clock.toggle_pause();
        }
        self.fire_due_tour_steps();
    }

    // ----- reading -----

    /// The scenario `r` rebuilds from.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The compare view's engines, one per strategy in [`Strategy::ALL`] order.
    pub fn compare_engines(&self) -> Option<&[Engine]> {
        self.compare.as_deref()
    }

    pub fn snapshot(&self) -> Snapshot {
        match &self.real {
            Some(real) => real.run.snapshot(),
            None => self.engine.snapshot(),
        }
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
        match &self.real {
            Some(real) => !real.lag.is_empty(),
            None => self.behind,
        }
    }

    /// The pools the current strategy uses, the ones Tab walks through.
    pub fn pool_ids(&self) -> Vec<PoolId> {
        self.engine.pools_of(self.engine.strategy())
    }

    pub fn selected_pool(&self) -> Option<PoolId> {
        let ids = self.pool_ids();
        ids.get(self.selected % ids.len().max(1)).copied()
    }

    /// The simulated clock: the furthest any engine driven got.
    pub fn now(&self) -> Nanos {
        if let Some(real) = &self.real {
            return real.run.now();
        }
        self.driven().map(Engine::now).max().unwrap_or(Nanos::ZERO)
    }

    /// Every engine driven has played its whole finite load (in real mode: the real run has
    /// ended).
    pub fn is_finished(&self) -> bool {
        if let Some(real) = &self.real {
            return real.run.is_finished();
        }
        self.driven().all(Engine::is_finished)
    }

    /// The loop must keep ticking: the clock runs, or an engine is catching up.
    pub fn needs_ticks(&self) -> bool {
        if self.real.is_some() {
            return !self.is_finished();
        }
        (!self.clock.is_paused() && !self.is_finished()) || self.behind
    }

    fn driven(&self) -> impl Iterator<Item = &Engine> {
        std::iter::once(&self.engine).chain(self.compare.iter().flatten())
    }

    fn driven_mut(&mut self) -> impl Iterator<Item = &mut Engine> {
        std::iter::once(&mut self.engine).chain(self.compare.iter_mut().flatten())
    }

    fn context(&self) -> Context {
        match self.overlay {
            Overlay::None if self.tour.as_ref().is_some_and(|t| t.caption.is_some()) => {
                Context::Tour
            }
            Overlay::None => Context::Live,
            Overlay::Help => Context::Help,
            Overlay::Faults(_) => Context::FaultMenu,
        }
    }

    // ----- time -----

    /// Moves every engine driven along by `elapsed` wall time at the clock's speed, within
    /// the budget; engines that are behind (a fresh compare view) catch up.
    pub fn advance(&mut self, elapsed: Duration, budget: BudgetSpec) {
        if let Some(real) = &mut self.real {
            // Real time moves by itself: only look at how the run keeps up.
            let snapshot = real.run.snapshot();
            real.lag = real.run.lag(&snapshot, &real.run.runtime());
            if let Some(error) = real.run.error() {
                self.status = Some(Status::Error(error));
            }
            return;
        }
        let engines = 1 + self.compare.as_ref().map_or(0, Vec::len);
        let now = self.now();
        // A tour stops the clock exactly at its next step.
        let stop = self.tour.as_ref().and_then(Tour::pending).map(|s| s.at);
        let target = match self.clock.plan(elapsed) {
            Advance::Hold => now,
            Advance::By(d) => stop.map_or(now + d, |at| (now + d).min(at.max(now))),
            Advance::AsFastAsPossible => {
                // The first engine with work left leads; the others follow to its clock.
                match self.driven_mut().find(|e| !e.is_finished()) {
                    Some(lead) => {
                        run_for(lead, &mut budget.start(engines));
                        lead.now().max(now)
                    }
                    None => now,
                }
            }
        };
        let mut behind = false;
        for engine in self.driven_mut() {
            behind |= catch_up(engine, target, &mut budget.start(engines)) == Pace::Behind;
        }
        self.behind = behind;
        self.fire_due_tour_steps();
    }

    // ----- keys -----

    pub fn handle_key(&mut self, event: KeyEvent) {
        if let Some(key) = Key::from_event(event) {
            self.press(key);
        }
    }

    /// What a key does where the person is.
    pub fn press(&mut self, key: Key) {
        if let Some(action) = keys::action_for(self.context(), key) {
            self.apply(action);
        }
    }

    pub fn apply(&mut self, action: Action) {
        self.status = None;
        if let Some(why) = self.refusal(action) {
            self.info(why.to_string());
            return;
        }
        match action {
            Action::SelectStrategy(s) => self.select_strategy(s),
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
            Action::SpeedUp => self.speed_up(),
            Action::SlowDown => self.slow_down(),
            Action::OpenFaultMenu => self.open_fault_menu(),
            Action::ToggleCompare => self.toggle_compare(),
            Action::Reset => self.reset(),
            Action::NewSeed => self.new_seed(),
            Action::ToggleHelp => self.toggle_help(),
            Action::Back => self.back(),
            Action::Quit => self.quit(),
            Action::MenuUp => self.move_menu_cursor(false),
            Action::MenuDown => self.move_menu_cursor(true),
            Action::MenuChoose => self.choose_in_menu(),
            Action::MenuPick(n) => self.pick_in_menu(n),
            Action::TourNext => self.tour_next(),
            Action::ToggleTimeline => self.toggle_timeline(),
            Action::MoveLane(next) => self.move_lane(next),
            Action::WriteTrace => self.write_trace(),
        }
    }

    // ----- intentions -----

    pub fn select_strategy(&mut self, strategy: Strategy) {
        if strategy == self.engine.strategy() {
            self.info(format!("already {strategy}"));
            return;
        }
        if self.real.is_some() {
            self.restart_real(strategy);
            return;
        }
        // The compare engines keep their own strategies.
        let result = self.engine.apply(Command::SetStrategy(strategy));
        self.report(result);
        self.selected = 0;
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
        let size = match pool.kind {
            PoolKind::ThreadPool | PoolKind::ForkJoin => pool.core,
            PoolKind::Tomcat => pool.max,
            // The engine explains that a thread-per-task pool has no size.
            PoolKind::PerTask => 0,
        };
        let new = if grow {
            size.saturating_add(step_of(size))
        } else {
            size.saturating_sub(step_of(size)).max(1)
        };
        if new == size && pool.kind != PoolKind::PerTask {
            self.info(format!("{} is at its smallest size", pool.name));
            return;
        }
        self.command(Command::SetPoolSize {
            pool: pool.id,
            size: new,
        });
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

    /// Up/Down: open load x1.25 or /1.25; closed load +-10% clients (at least 1).
    pub fn change_load(&mut self, more: bool) {
        let command = match &self.engine.scenario().load.mode {
            &LoadMode::Open { rate, .. } => {
                Command::SetRate(if more { rate * 1.25 } else { rate / 1.25 })
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
    pub fn step(&mut self) {
        self.clock.pause();
        if !self.engine.step() {
            self.info("no event left".to_string());
        }
        self.behind = self.compare.is_some();
    }

    pub fn speed_up(&mut self) {
        self.clock.speed_up();
        self.info(format!("speed {}", self.clock.speed()));
    }

    pub fn slow_down(&mut self) {
        self.clock.slow_down();
        self.info(format!("speed {}", self.clock.speed()));
    }

    pub fn open_fault_menu(&mut self) {
        self.overlay = Overlay::Faults(FaultMenu {
            service: None,
            cursor: 0,
        });
    }

    /// `c`: the four strategies replay the scenario as it is now (live changes and faults
    /// included) from t = 0 with the same seed, catch up with the main clock, then run in
    /// lockstep with it. Closing drops them.
    pub fn toggle_compare(&mut self) {
        if self.compare.take().is_some() {
            self.behind = false;
            return;
        }
        let scenario = self.engine.scenario().clone();
        let faults: Vec<_> = self
            .engine
            .snapshot()
            .services
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.fault.map(|f| (ServiceId(i), f)))
            .collect();
        let engines = Strategy::ALL
            .iter()
            .map(|&s| {
                let mut e = Engine::new(&scenario, s);
                for &(service, fault) in &faults {
                    // Faults the main engine accepted apply to the same services here.
                    let _ = e.apply(Command::InjectFault { service, fault });
                }
                e
            })
            .collect();
        self.compare = Some(engines);
        self.behind = true;
    }

    /// `r`: rebuild from the original scenario, same seed, same strategy.
    pub fn reset(&mut self) {
        self.rebuild();
        let what = if self.real.is_some() {
            "real run restarted"
        } else {
            "reset"
        };
        self.info_unless_error(format!("{what}: seed {}", self.scenario.seed));
    }

    /// `s`: the next seed, then reset.
    pub fn new_seed(&mut self) {
        self.scenario.seed = self.scenario.seed.wrapping_add(1);
        self.rebuild();
        self.info_unless_error(format!("new seed {}", self.scenario.seed));
    }

    fn rebuild(&mut self) {
        if self.real.is_some() {
            self.restart_real(self.engine.strategy());
            return;
        }
        self.engine = Engine::new(&self.scenario, self.engine.strategy());
        self.record_timeline_if_shown();
        if let Some(engines) = &mut self.compare {
            *engines = Strategy::ALL
                .iter()
                .map(|&s| Engine::new(&self.scenario, s))
                .collect();
        }
        self.behind = false;
    }

    /// Stops the real run and starts it again from t = 0 under `strategy` (same options and
    /// length); on failure the old run stays on screen, stopped, and the status says why.
    fn restart_real(&mut self, strategy: Strategy) {
        let Some(real) = &mut self.real else { return };
        real.run.halt();
        let (limit, options) = (real.run.limit(), real.run.options());
        match LiveRun::start(&self.scenario, strategy, limit, options) {
            Ok(run) => {
                // The old run is dropped here: it stops in the background.
                real.run = run;
                real.lag.clear();
                self.engine = Engine::new(&self.scenario, strategy);
                self.selected = 0;
                self.info(format!("real run restarted: {strategy}"));
            }
            Err(e) => self.status = Some(Status::Error(e.to_string())),
        }
    }

    /// `t`: the timeline view of the selected pool's threads; opening it starts recording.
    pub fn toggle_timeline(&mut self) {
        if self.timeline.take().is_some() {
            return;
        }
        self.timeline = Some(0);
        if self.engine.timeline().is_none() {
            self.record_timeline_if_shown();
            let t = self.now().as_secs_f64();
            self.info(format!("recording thread timelines from t {t:.3}s"));
        }
    }

    fn record_timeline_if_shown(&mut self) {
        if self.timeline.is_some() {
            self.engine.record_timeline(crate::sim::Retention::LIVE);
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
        if self.engine.timeline().is_none() {
            self.timeline.get_or_insert(0);
            self.record_timeline_if_shown();
            self.info("recording thread timelines from now: press w again to write them".into());
            return;
        }
        let name = super::trace_file::trace_file_name(self.engine.strategy(), self.now());
        match super::trace_file::write_trace(&self.engine, &name) {
            Ok(text) => self.info(text),
            Err(e) => self.status = Some(Status::Error(e)),
        }
    }

    pub fn toggle_help(&mut self) {
        self.overlay = match self.overlay {
            Overlay::Help => Overlay::None,
            _ => Overlay::Help,
        };
    }

    /// Esc: back one level (fault list, service list, overlay, compare view), else quit.
    pub fn back(&mut self) {
        match self.overlay {
            Overlay::Faults(FaultMenu {
                service: Some(service),
                ..
            }) => {
                self.overlay = Overlay::Faults(FaultMenu {
                    service: None,
                    cursor: service,
                })
            }
            Overlay::Faults(_) | Overlay::Help => self.overlay = Overlay::None,
            Overlay::None if self.compare.is_some() => self.toggle_compare(),
            Overlay::None if self.timeline.is_some() => self.timeline = None,
            Overlay::None => self.quit = true,
        }
    }

    pub fn quit(&mut self) {
        self.quit = true;
    }

    fn menu_len(&self, menu: FaultMenu) -> usize {
        match menu.service {
            None => self.engine.scenario().services.len(),
            Some(_) => FAULTS.len(),
        }
    }

    fn move_menu_cursor(&mut self, down: bool) {
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

    fn pick_in_menu(&mut self, n: usize) {
        let Overlay::Faults(mut menu) = self.overlay else {
            return;
        };
        if n == 0 || n > self.menu_len(menu) {
            return;
        }
        menu.cursor = n - 1;
        self.overlay = Overlay::Faults(menu);
        self.choose_in_menu();
    }

    fn choose_in_menu(&mut self) {
        let Overlay::Faults(menu) = self.overlay else {
            return;
        };
        match menu.service {
            None => {
                self.overlay = Overlay::Faults(FaultMenu {
                    service: Some(menu.cursor),
                    cursor: 0,
                })
            }
            Some(service) => {
                self.overlay = Overlay::None;
                let service = ServiceId(service);
                let command = match FAULTS.get(menu.cursor) {
                    Some((_, Some(fault))) => Command::InjectFault {
                        service,
                        fault: *fault,
                    },
                    _ => Command::ClearFault { service },
                };
                self.command(command);
            }
        }
    }

    // ----- helpers -----

    fn selected_pool_snapshot(&self) -> Option<PoolSnapshot> {
        let id = self.selected_pool()?;
        self.engine
            .snapshot()
            .pools
            .into_iter()
            .find(|p| p.id == id)
    }

    /// Applies a command to the main engine, and in the compare view to the four others
    /// (same pool ids, same services), then says what happened.
    fn command(&mut self, command: Command) {
        let result = self.engine.apply(command);
        if result.is_ok()
            && let Some(engines) = &mut self.compare
        {
            for e in engines {
                if let Err(err) = e.apply(command) {
                    self.status = Some(Status::Error(err.to_string()));
                    return;
                }
            }
        }
        self.report(result);
    }

    fn report(&mut self, result: Result<String, crate::sim::CommandError>) {
        self.status = Some(match result {
            Ok(text) => Status::Info(text),
            Err(err) => Status::Error(err.to_string()),
        });
    }

    fn info(&mut self, text: String) {
        self.status = Some(Status::Info(text));
    }

    /// Says `text` unless the action already reported an error.
    fn info_unless_error(&mut self, text: String) {
        if !matches!(self.status, Some(Status::Error(_))) {
            self.info(text);
        }
    }
}

/// About 10% of a size, at least 1.
fn step_of(size: u32) -> u32 {
    (size / 10).max(1)
}

#[cfg(test)]
#[path = "app_tests.rs"]
mod tests;

/// The live key a tour key stands for.
fn tour_key(key: TourKey) -> Key {
    match key {
        TourKey::Char(c) => Key::Char(c),
        TourKey::Tab => Key::Tab,
        TourKey::BackTab => Key::BackTab,
        TourKey::Up => Key::Up,
        TourKey::Down => Key::Down,
        TourKey::Enter => Key::Enter,
        TourKey::Esc => Key::Esc,
    }
}

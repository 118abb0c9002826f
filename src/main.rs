//! The `threadlab` command line: the TUI, headless runs and comparisons, preset tools.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, ValueEnum};

use threadlab::plot::{self, timeline};
use threadlab::progress::{self, Progress};
use threadlab::real::{self, RealOptions};
use threadlab::report::{self, Exporter, RunReport};
use threadlab::scenario::{self, LoadMode, Scenario, Strategy};
use threadlab::sweep;
use threadlab::time::Nanos;
use threadlab::tui::{self, Theme, TuiOptions};

/// Watch concurrency strategies work and fail: thread pools, queues, bulkheads and virtual
/// threads, simulated with the JVM's exact rules.
#[derive(Debug, Parser)]
#[command(name = "threadlab", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    subcommand: Option<Subcommand>,
}

/// A `threadlab` subcommand (not the engine's live `sim::Command`).
#[derive(Debug, clap::Subcommand)]
enum Subcommand {
    /// Open the live TUI (the default command; default preset `ironthread`).
    Tui {
        /// A built-in preset name or a path to a .toml file.
        preset: Option<String>,
        #[command(flatten)]
        scenario: ScenarioArgs,
        #[command(flatten)]
        view: ViewArgs,
        /// `sim` plays the scenario on the engine; `real` runs it on this machine (the wall
        /// clock: no pause, step or speed) with a runtime panel. Without a terminal, `real`
        /// prints the real comparison instead.
        #[arg(long, value_enum, default_value_t = EngineArg::Sim)]
        engine: EngineArg,
        #[command(flatten)]
        real: RealArgs,
    },
    /// Play a preset's scripted tour in the TUI (for talks): space or → goes on.
    Tour {
        /// A built-in preset name or a path to a .toml file (default: ironthread).
        preset: Option<String>,
        #[command(flatten)]
        scenario: ScenarioArgs,
        #[command(flatten)]
        view: ViewArgs,
    },
    /// Play a preset headless under one strategy and print the results.
    Run {
        /// A built-in preset (see `threadlab presets`) or a path to a .toml file.
        preset: String,
        #[command(flatten)]
        scenario: ScenarioArgs,
        #[command(flatten)]
        engine: EngineArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Play a preset under every strategy on identical requests, side by side.
    Compare {
        /// A built-in preset (see `threadlab presets`) or a path to a .toml file.
        preset: String,
        #[command(flatten)]
        scenario: ScenarioArgs,
        #[command(flatten)]
        engine: EngineArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Run a preset both simulated and for real, side by side; exit 1 when a figure differs by
    /// more than the tolerance.
    Verify {
        /// A built-in preset (see `threadlab presets`) or a path to a .toml file.
        preset: String,
        #[command(flatten)]
        scenario: ScenarioArgs,
        #[command(flatten)]
        real: RealArgs,
        /// Largest relative difference allowed for each figure, 0..=10 (0.05 = 5 %).
        #[arg(long, default_value_t = 0.05, allow_negative_numbers = true, value_parser = tolerance)]
        tolerance: f64,
    },
    /// Play a preset at every point of a grid of `--set` values (each a full run with the
    /// same seed) and print goodput, failures, latency and theory's ceiling per point.
    Sweep {
        /// A built-in preset (see `threadlab presets`) or a path to a .toml file.
        preset: String,
        /// What to vary: PATH=a..b:step, PATH=a..b*factor or PATH=a,b,c, where PATH is any
        /// `--set` path. Twice gives a grid.
        #[arg(long, value_name = "PATH=SPEC", required = true)]
        vary: Vec<String>,
        /// A strategy name, or `all` for every strategy (default: the preset's).
        #[arg(long, value_name = "S|all")]
        strategy: Option<String>,
        /// Seed, duration, overrides and --force, as for `run` (each point is a full run).
        #[command(flatten)]
        preset_args: PresetArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// List the built-in presets.
    Presets,
    /// Reproduce the articles' figures with every built-in preset (a Markdown table).
    Articles,
    /// Validate a preset (and overrides) without running it.
    Check {
        /// A built-in preset (see `threadlab presets`) or a path to a .toml file.
        preset: String,
        #[command(flatten)]
        scenario: ScenarioArgs,
    },
}

/// How the TUI looks.
#[derive(Debug, Args)]
struct ViewArgs {
    /// Frames per second while running.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=120))]
    fps: u32,
    /// No colours (also when NO_COLOR is set).
    #[arg(long)]
    no_color: bool,
    /// Colour theme; `light` reads on a white projector screen.
    #[arg(long, value_enum, default_value_t = ThemeArg::Dark)]
    theme: ThemeArg,
}

impl ViewArgs {
    /// The colour theme: none with `--no-color` or a non-empty `NO_COLOR`.
    fn theme(&self) -> Theme {
        let no_color = self.no_color || std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        match (no_color, self.theme) {
            (true, _) => Theme::NoColor,
            (false, ThemeArg::Light) => Theme::Light,
            (false, ThemeArg::Dark) => Theme::Dark,
        }
    }
}

impl Default for ViewArgs {
    fn default() -> Self {
        ViewArgs {
            fps: 30,
            no_color: false,
            theme: ThemeArg::Dark,
        }
    }
}

#[derive(Debug, Args, Default)]
struct ScenarioArgs {
    /// Strategy (default: the preset's).
    #[arg(long, value_enum)]
    strategy: Option<StrategyArg>,
    #[command(flatten)]
    preset: PresetArgs,
}

/// How a preset is loaded and played: shared by every command that runs one.
#[derive(Debug, Args, Default)]
struct PresetArgs {
    /// Seed for every random draw, 0..=9223372036854775807 (default: the preset's).
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=scenario::MAX_SEED))]
    seed: Option<u64>,
    /// Simulated time to run, e.g. 60s, 1500ms, 10m (default: the preset's).
    #[arg(long)]
    duration: Option<String>,
    /// Override a preset value: key.path=value (repeatable), e.g. server.threads=400,
    /// services.recommendations.failure=0, strategy.bulkhead.IronThread.core=12.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Run even when the up-front estimate says the run is too large for this machine
    /// (events, calls in flight or memory).
    #[arg(long)]
    force: bool,
}

#[derive(Debug, Args)]
struct EngineArgs {
    /// `sim` plays the scenario on the discrete-event engine; `real` runs it on this machine
    /// with OS threads and tokio tasks that really sleep.
    #[arg(long, value_enum, default_value_t = EngineArg::Sim)]
    engine: EngineArg,
    #[command(flatten)]
    real: RealArgs,
}

#[derive(Debug, Args)]
struct RealArgs {
    /// Real seconds per scenario second for real runs, 0.01..=100: 0.1 turns 100 ms into
    /// 10 ms. Reported figures stay in scenario units.
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true, value_parser = time_scale)]
    time_scale: f64,
    /// Refuse a real run that would start more OS threads than this.
    #[arg(long, default_value_t = real::DEFAULT_MAX_THREADS)]
    max_threads: u64,
}

impl RealArgs {
    fn options(&self) -> RealOptions {
        RealOptions {
            time_scale: self.time_scale,
            max_threads: self.max_threads,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EngineArg {
    Sim,
    Real,
}

#[derive(Debug, Args)]
struct OutputArgs {
    /// Output format.
    #[arg(
        long,
        default_value = "table",
        value_parser = clap::builder::PossibleValuesParser::new(report::export::names())
    )]
    format: String,
    /// Also draw a chart to FILE.svg or FILE.png (sweep: goodput and p99 against the varied
    /// value; run and compare: the series over simulated time).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// The chart's colours: `light` for pages and white screens, `dark` for dark slides.
    #[arg(long = "theme", value_enum, default_value_t = PlotThemeArg::Light)]
    plot_theme: PlotThemeArg,
    /// Also write the thread timelines as a Perfetto / Chrome trace (Trace Event JSON).
    #[arg(long, value_name = "FILE.json")]
    trace: Option<PathBuf>,
}

impl OutputArgs {
    /// The `--format` exporter (clap accepts only the exporters' names).
    fn exporter(&self) -> &'static dyn Exporter {
        report::export::exporter(&self.format).unwrap_or(&report::export::Table)
    }

    /// The chart to draw, if any, its path checked before any work starts.
    fn plot(&self) -> anyhow::Result<Option<(&Path, plot::Theme)>> {
        let Some(path) = &self.plot else {
            return Ok(None);
        };
        plot::check_path(path).map_err(|e| BadInput(e.to_string()))?;
        let theme = match self.plot_theme {
            PlotThemeArg::Light => plot::Theme::Light,
            PlotThemeArg::Dark => plot::Theme::Dark,
        };
        Ok(Some((path, theme)))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PlotThemeArg {
    Light,
    Dark,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum StrategyArg {
    Sequential,
    Shared,
    Bulkhead,
    Unbounded,
    Semaphore,
}

impl From<StrategyArg> for Strategy {
    fn from(s: StrategyArg) -> Self {
        match s {
            StrategyArg::Sequential => Strategy::Sequential,
            StrategyArg::Shared => Strategy::Shared,
            StrategyArg::Bulkhead => Strategy::Bulkhead,
            StrategyArg::Unbounded => Strategy::Unbounded,
            StrategyArg::Semaphore => Strategy::Semaphore,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ThemeArg {
    Dark,
    Light,
}

/// `--time-scale`: a number in [`scenario::TIME_SCALE`].
fn time_scale(text: &str) -> Result<f64, String> {
    number_in(text, scenario::TIME_SCALE)
}

/// `--tolerance`: a number in [`scenario::TOLERANCE`].
fn tolerance(text: &str) -> Result<f64, String> {
    number_in(text, scenario::TOLERANCE)
}

/// A number within `range`; the message gives the range and a short form of the value.
fn number_in(text: &str, range: std::ops::RangeInclusive<f64>) -> Result<f64, String> {
    let allowed = format!("allowed {}..={}", range.start(), range.end());
    match text.trim().parse::<f64>() {
        Ok(v) if range.contains(&v) => Ok(v),
        Ok(v) => Err(format!(
            "{} is out of range: {allowed}",
            scenario::short_number(v)
        )),
        Err(_) => Err(format!("not a number: {allowed}")),
    }
}

/// Bad input: a preset, an override or a flag. Exit code 2.
#[derive(Debug)]
struct BadInput(String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli.subcommand) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.downcast_ref::<BadInput>().is_some() => {
            eprintln!("threadlab: {e}");
            ExitCode::from(2)
        }
        // The TUI stopped on a signal: exit as the signal would have (130, 143, 129...).
        Err(e) if e.downcast_ref::<tui::Interrupted>().is_some() => e
            .downcast_ref::<tui::Interrupted>()
            .map_or(ExitCode::FAILURE, |i| ExitCode::from(i.exit_code())),
        Err(e) if e.downcast_ref::<Interrupted>().is_some() => {
            eprintln!("threadlab: {e}");
            ExitCode::from(progress::INTERRUPTED_EXIT)
        }
        Err(e) if e.downcast_ref::<VerifyFailed>().is_some() => {
            eprintln!("threadlab: {e}");
            ExitCode::from(1)
        }
        // The report was printed; the warnings said why its figures are not the model's.
        Err(e) if e.downcast_ref::<FellBehind>().is_some() => ExitCode::from(FellBehind::EXIT),
        Err(e) => {
            eprintln!("threadlab: error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn dispatch(subcommand: Option<Subcommand>) -> anyhow::Result<()> {
    let Some(subcommand) = subcommand else {
        let screen = Screen::live(ViewArgs::default(), None);
        return open_tui(None, &ScenarioArgs::default(), screen);
    };
    match subcommand {
        Subcommand::Tui {
            preset,
            scenario,
            view,
            engine,
            real,
        } => {
            let real = (engine == EngineArg::Real).then(|| real.options());
            open_tui(preset.as_deref(), &scenario, Screen::live(view, real))
        }
        Subcommand::Tour {
            preset,
            scenario,
            view,
        } => open_tui(preset.as_deref(), &scenario, Screen::tour(view)),
        Subcommand::Run {
            preset,
            scenario,
            engine,
            output,
        } => run_on(&preset, &scenario, &engine, &output),
        Subcommand::Compare {
            preset,
            scenario,
            engine,
            output,
        } => compare_on(&preset, &scenario, &engine, &output),
        Subcommand::Sweep {
            preset,
            vary,
            strategy,
            preset_args,
            output,
        } => sweep(&preset, preset_args, &vary, strategy.as_deref(), &output),
        Subcommand::Verify {
            preset,
            scenario,
            real,
            tolerance,
        } => verify(&preset, &scenario, &real, tolerance),
        Subcommand::Presets => {
            print!("{}", presets_listing());
            Ok(())
        }
        Subcommand::Articles => articles(),
        Subcommand::Check { preset, scenario } => check(&preset, &scenario),
    }
}

/// `run` on the engine `--engine` names.
fn run_on(
    preset: &str,
    scenario: &ScenarioArgs,
    engine: &EngineArgs,
    output: &OutputArgs,
) -> anyhow::Result<()> {
    match engine.engine {
        EngineArg::Sim => run(preset, scenario, output),
        EngineArg::Real => {
            sim_only_outputs(output)?;
            run_real(preset, scenario, &engine.real, output.exporter())
        }
    }
}

/// `compare` on the engine `--engine` names.
fn compare_on(
    preset: &str,
    scenario: &ScenarioArgs,
    engine: &EngineArgs,
    output: &OutputArgs,
) -> anyhow::Result<()> {
    match engine.engine {
        EngineArg::Sim => compare(preset, scenario, output),
        EngineArg::Real => {
            sim_only_outputs(output)?;
            refuse_strategy_on_compare(scenario)?;
            compare_real(preset, scenario, &engine.real, output.exporter())
        }
    }
}

/// `articles`: every built-in preset's figures against the articles' (a Markdown table).
fn articles() -> anyhow::Result<()> {
    let mut results = Vec::new();
    for name in scenario::builtin_names() {
        results.extend(report::figures::evaluate(name)?);
    }
    print!("{}", report::figures::table(&results));
    Ok(())
}

/// `check`: loads and validates a preset with its flags, and says what it would play.
fn check(preset: &str, args: &ScenarioArgs) -> anyhow::Result<()> {
    let (s, strategy, duration) = load(preset, args)?;
    println!(
        "{}: ok ({}; {} services, {} stage(s), strategy {strategy}, {} simulated)",
        s.source,
        s.name,
        s.services.len(),
        s.endpoint.stages.len(),
        duration
    );
    Ok(())
}

/// Loads a preset with its overrides and flags: the scenario, the strategy, the duration.
fn load(preset: &str, args: &ScenarioArgs) -> anyhow::Result<(Scenario, Strategy, Nanos)> {
    let mut s = scenario::load(preset, &args.preset.set).map_err(|e| BadInput(e.to_string()))?;
    if let Some(seed) = args.preset.seed {
        s.seed = seed;
    }
    if let Some(d) = &args.preset.duration {
        let d =
            scenario::parse_duration(d).map_err(|e| BadInput(format!("--duration {d:?}: {e}")))?;
        if d == Nanos::ZERO {
            return Err(BadInput("--duration must be greater than 0".into()).into());
        }
        s.duration = d;
    }
    if let Some(why) = load_set_that_does_not_apply(&s, &args.preset.set) {
        return Err(BadInput(why).into());
    }
    let strategy = args.strategy.map_or(s.strategy.default, Strategy::from);
    let duration = s.duration;
    if let Some(why) = scenario::estimate_cost(&s, duration).refusal()
        && !args.preset.force
    {
        return Err(BadInput(format!(
            "{}: this run is too large: {why}; shorten --duration, lower the load, or add \
             --force to run it anyway",
            s.source
        ))
        .into());
    }
    Ok((s, strategy, duration))
}

/// A `--set load.FIELD=...` that the scenario's load mode ignores (`load.clients` on a `runs`
/// load): said rather than silently dropped.
fn load_set_that_does_not_apply(s: &Scenario, sets: &[String]) -> Option<String> {
    let (mode, fields): (&str, &[&str]) = match s.load.mode {
        LoadMode::Runs { .. } => ("runs", &["count"]),
        LoadMode::Batch { .. } => ("batch", &["count"]),
        LoadMode::Open { .. } => ("open", &["rate", "ramp"]),
        LoadMode::Closed { .. } => ("closed", &["clients", "think", "keep_alive"]),
        LoadMode::Trace { .. } => ("trace", &["file"]),
    };
    sets.iter().find_map(|set| {
        let key = set.split('=').next()?.trim();
        let field = key.strip_prefix("load.")?.split('.').next()?;
        // Every load's clients talk TCP the same way.
        let link = [
            "mode",
            "timeout",
            "timeout_mode",
            "rtt",
            "turnaround",
            "connect_timeout",
            "syn_retries",
            "syn_linear_timeouts",
        ];
        let applies = link.contains(&field) || fields.contains(&field);
        (!applies).then(|| {
            format!(
                "--set {key}: a {mode} load has no {field} (it uses {}, and every load's \
                 timeout and connection fields); change load.mode too to use it",
                fields.join(", ")
            )
        })
    })
}

fn run(preset: &str, args: &ScenarioArgs, output: &OutputArgs) -> anyhow::Result<()> {
    let (s, strategy, duration) = load(preset, args)?;
    let chart = output.plot()?;
    progress::catch_ctrl_c();
    let bar = Progress::new(duration.as_millis_f64() as u64, "simulated ms");
    let mut rec = timeline::Recorder::new(strategy, duration);
    let engine = new_engine(&s, strategy, output.trace.is_some());
    // The chart's series are sampled only when a chart is drawn.
    let (engine, complete) = if chart.is_some() {
        progress::play_engine(engine, duration, Some(&bar), &mut |e, t| rec.observe(e, t))
    } else {
        progress::play_engine(engine, duration, Some(&bar), &mut progress::unobserved)
    };
    bar.finish();
    no_stall(&engine)?;
    let r = RunReport::new(&s, &engine);
    print!("{}", output.exporter().run(&s, &r, complete)?);
    if let Some((path, theme)) = chart {
        let title = format!("{}: {strategy}", s.name);
        draw(&timeline::figure(&title, &[rec.finish()]), path, theme)?;
    }
    write_trace(output, &[&engine])?;
    finished(
        complete,
        &format!(
            "{} of {} simulated seconds",
            r.simulated_s,
            duration.as_secs_f64()
        ),
    )
}

fn compare(preset: &str, args: &ScenarioArgs, output: &OutputArgs) -> anyhow::Result<()> {
    refuse_strategy_on_compare(args)?;
    let (s, _, duration) = load(preset, args)?;
    let chart = output.plot()?;
    progress::catch_ctrl_c();
    let traced = output.trace.is_some();
    let c = compare_output(&s, duration, output.exporter(), traced, chart.is_some())?;
    print!("{}", c.out);
    if let Some((path, theme)) = chart {
        let title = format!("{}: every strategy", s.name);
        draw(&timeline::figure(&title, &c.timelines), path, theme)?;
    }
    write_trace(output, &c.traced.iter().collect::<Vec<_>>())?;
    finished(
        c.complete,
        "the strategies played so far, the last one cut short",
    )
}

/// A new engine for `strategy`, recording its thread timelines when a trace is wanted.
fn new_engine(s: &Scenario, strategy: Strategy, traced: bool) -> threadlab::sim::Engine {
    if traced {
        report::perfetto::traced(s, strategy)
    } else {
        threadlab::sim::Engine::new(s, strategy)
    }
}

/// `--trace FILE`: the runs' thread timelines as a Perfetto / Chrome trace.
fn write_trace(output: &OutputArgs, engines: &[&threadlab::sim::Engine]) -> anyhow::Result<()> {
    let Some(path) = &output.trace else {
        return Ok(());
    };
    let runs: Vec<(&str, &threadlab::sim::Engine)> = match engines {
        [one] => vec![("", *one)],
        _ => engines.iter().map(|e| (e.strategy().name(), *e)).collect(),
    };
    report::perfetto::write_trace_file(path, &runs).map_err(|e| BadInput(e).into())
}

/// What `compare` played: its output, the charts' series, the traced engines (when a trace
/// is wanted) and whether every strategy ran to the end.
struct Compared {
    out: String,
    timelines: Vec<timeline::Timeline>,
    traced: Vec<threadlab::sim::Engine>,
    complete: bool,
}

fn draw(figure: &plot::Figure, path: &Path, theme: plot::Theme) -> anyhow::Result<()> {
    plot::write(figure, path, theme).map_err(|e| BadInput(e.to_string()))?;
    eprintln!("threadlab: wrote {}", path.display());
    Ok(())
}

/// `--plot` and `--trace` draw what the simulated engine recorded: refused for real runs.
fn sim_only_outputs(output: &OutputArgs) -> anyhow::Result<()> {
    if output.plot.is_some() {
        return Err(BadInput("--plot draws simulated runs only; drop --engine real".into()).into());
    }
    if output.trace.is_some() {
        return Err(
            BadInput("--trace records the simulated engine only (--engine sim)".into()).into(),
        );
    }
    Ok(())
}

/// Plays the strategies one after another until the end or Ctrl-C; the one Ctrl-C stopped
/// is reported up to where it got (its JSON says `"partial": true`).
fn compare_output(
    s: &Scenario,
    duration: Nanos,
    exporter: &dyn Exporter,
    traced: bool,
    charted: bool,
) -> anyhow::Result<Compared> {
    use rayon::prelude::*;
    let strategies = Strategy::ALL;
    let bar = Progress::new(strategies.len() as u64, "strategies");
    // The strategies play side by side on the machine's cores; each engine is deterministic
    // on its own, and the results are read back in the list's order, so the output is the
    // same byte for byte as one after another.
    let played: Vec<_> = strategies
        .par_iter()
        .map(|&strategy| {
            let mut rec = timeline::Recorder::new(strategy, duration);
            let engine = new_engine(s, strategy, traced);
            let (engine, done) = if charted {
                progress::play_engine(engine, duration, None, &mut |e, t| rec.observe(e, t))
            } else {
                progress::play_engine(engine, duration, None, &mut progress::unobserved)
            };
            bar.inc();
            (engine, done, rec)
        })
        .collect();
    bar.finish();
    let mut reports = Vec::new();
    let mut timelines = Vec::new();
    let mut engines = Vec::new();
    let mut complete = true;
    for (engine, done, rec) in played {
        no_stall(&engine)?;
        reports.push((RunReport::new(s, &engine), done));
        timelines.push(rec.finish());
        if traced {
            engines.push(engine);
        }
        if !done {
            complete = false;
            break;
        }
    }
    Ok(Compared {
        out: exporter.compare(s, &reports)?,
        timelines,
        traced: engines,
        complete,
    })
}

/// After printing: Ctrl-C makes the exit code 130 and says what the output covers.
fn finished(complete: bool, covered: &str) -> anyhow::Result<()> {
    if complete {
        Ok(())
    } else {
        Err(Interrupted(format!(
            "interrupted by Ctrl-C: the output is partial ({covered})"
        ))
        .into())
    }
}

fn sweep(
    preset: &str,
    preset_args: PresetArgs,
    vary: &[String],
    strategy: Option<&str>,
    output: &OutputArgs,
) -> anyhow::Result<()> {
    let args = ScenarioArgs {
        strategy: None,
        preset: preset_args,
    };
    let (base, _, _) = load(preset, &args)?;
    let chart = output.plot()?;
    let strategies = match strategy {
        None => vec![base.strategy.default],
        Some("all") => Strategy::ALL.to_vec(),
        Some(name) => vec![
            Strategy::ALL
                .into_iter()
                .find(|s| s.name() == name)
                .ok_or_else(|| {
                    let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
                    BadInput(format!(
                        "--strategy {name:?}: unknown; one of {} or all",
                        names.join(", ")
                    ))
                })?,
        ],
    };
    let axes = vary
        .iter()
        .map(|v| sweep::parse_vary(v))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| BadInput(e.to_string()))?;
    let plan = sweep::Plan {
        preset: preset.to_owned(),
        set: args.preset.set.clone(),
        seed: Some(base.seed),
        duration: Some(base.duration),
        axes,
        strategies,
    };
    let points = plan.points().map_err(|e| BadInput(e.to_string()))?;
    progress::catch_ctrl_c();
    let bar = Progress::new((points.len() * plan.strategies.len()) as u64, "runs");
    let r = sweep::run(&plan, &points, Some(&bar));
    bar.finish();
    print!("{}", output.exporter().sweep(&r)?);
    if let Some((path, theme)) = chart {
        draw(&plot::sweep::figure(&r), path, theme)?;
    }
    finished(!r.partial, "only the points that finished")
}

/// A run that stopped making progress in simulated time is bad input: the scenario
/// livelocks (something is answered at once and retried at once).
fn no_stall(engine: &threadlab::sim::Engine) -> anyhow::Result<()> {
    match engine.stall_message() {
        Some(message) => Err(BadInput(format!("{}: {message}", engine.scenario().source)).into()),
        None => Ok(()),
    }
}

/// `compare` plays every strategy: a `--strategy` would be ignored, so it is refused.
fn refuse_strategy_on_compare(args: &ScenarioArgs) -> anyhow::Result<()> {
    if args.strategy.is_some() {
        return Err(BadInput(
            "compare --strategy: compare plays every strategy on the same requests; \
             use run --strategy NAME for one"
                .into(),
        )
        .into());
    }
    Ok(())
}

/// A real-mode refusal is bad input (exit 2); a failed run is an internal error (exit 1).
fn real_error(e: real::RealError) -> anyhow::Error {
    if e.is_bad_input() {
        BadInput(e.to_string()).into()
    } else {
        e.into()
    }
}

fn run_real(
    preset: &str,
    args: &ScenarioArgs,
    real_args: &RealArgs,
    exporter: &dyn Exporter,
) -> anyhow::Result<()> {
    let (s, strategy, duration) = load(preset, args)?;
    let run = real::run(&s, strategy, duration, real_args.options()).map_err(real_error)?;
    let r = run.report(&s);
    print!("{}", exporter.real_run(&s, &r)?);
    fell_behind(std::slice::from_ref(&r))
}

fn compare_real(
    preset: &str,
    args: &ScenarioArgs,
    real_args: &RealArgs,
    exporter: &dyn Exporter,
) -> anyhow::Result<()> {
    let (s, _, duration) = load(preset, args)?;
    let reports = real::compare(&s, duration, real_args.options()).map_err(real_error)?;
    print!("{}", exporter.real_compare(&s, &reports)?);
    fell_behind(&reports)
}

/// Says on stderr which real runs could not keep up; then exit 3.
fn fell_behind(reports: &[real::RealReport]) -> anyhow::Result<()> {
    let mut behind = false;
    for r in reports {
        if let Some(warning) = r.pace.warning() {
            eprintln!("threadlab: warning: {}: {warning}", r.run.strategy);
            behind = true;
        }
    }
    if behind {
        Err(FellBehind.into())
    } else {
        Ok(())
    }
}

/// A real run could not keep up with its scenario (exit 3): its report was printed, marked.
#[derive(Debug)]
struct FellBehind;

impl FellBehind {
    const EXIT: u8 = 3;
}

impl std::fmt::Display for FellBehind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a real run could not keep up with its scenario")
    }
}

impl std::error::Error for FellBehind {}

fn verify(
    preset: &str,
    args: &ScenarioArgs,
    real_args: &RealArgs,
    tolerance: f64,
) -> anyhow::Result<()> {
    let (s, _, duration) = load(preset, args)?;
    let strategies = match args.strategy {
        Some(st) => vec![Strategy::from(st)],
        None => Strategy::ALL.to_vec(),
    };
    let options = real_args.options();
    for &strategy in &strategies {
        real::check(&s, strategy, options).map_err(real_error)?;
    }
    let mut passed = true;
    for strategy in strategies {
        let v =
            real::verify::verify(&s, strategy, duration, options, tolerance).map_err(real_error)?;
        print!("{}", v.table());
        passed &= v.passed();
    }
    if passed {
        Ok(())
    } else {
        Err(VerifyFailed(tolerance).into())
    }
}

/// Ctrl-C stopped the work; what finished was printed (exit 130).
#[derive(Debug)]
struct Interrupted(String);

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Interrupted {}

/// A figure differed by more than the tolerance (exit 1).
#[derive(Debug)]
struct VerifyFailed(f64);

impl std::fmt::Display for VerifyFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "verify failed: real and simulated figures differ by more than {:.1} %",
            self.0 * 100.0
        )
    }
}

impl std::error::Error for VerifyFailed {}

/// How the TUI was asked for.
struct Screen {
    view: ViewArgs,
    tour: bool,
    /// `--engine real`.
    real: Option<RealOptions>,
}

impl Screen {
    /// The live view, of the engine or (with `real`) of a real run.
    fn live(view: ViewArgs, real: Option<RealOptions>) -> Self {
        Screen {
            view,
            tour: false,
            real,
        }
    }

    /// A preset's scripted tour, on the engine.
    fn tour(view: ViewArgs) -> Self {
        Screen {
            view,
            tour: true,
            real: None,
        }
    }
}

/// Opens the TUI on `preset` (default: the default preset); without a terminal, prints the
/// comparison the screen would have shown instead.
fn open_tui(preset: Option<&str>, args: &ScenarioArgs, screen: Screen) -> anyhow::Result<()> {
    let preset = preset.unwrap_or(scenario::DEFAULT_PRESET);
    let Screen { view, tour, real } = screen;
    let (s, strategy, duration) = load(preset, args)?;
    if tour && s.tour.is_empty() {
        return Err(no_tour(&s));
    }
    if let Some(options) = real {
        // Refuse before the screen opens: the thread cap, unsupported features.
        real::check(&s, strategy, options).map_err(real_error)?;
    }
    if !(std::io::stdout().is_terminal() && std::io::stdin().is_terminal()) {
        return headless_instead_of_tui(&s, duration, real);
    }
    let options = TuiOptions {
        fps: view.fps,
        theme: view.theme(),
        tour,
        real,
    };
    tui::run(s, strategy, options).map_err(|e| match e.downcast::<real::RealError>() {
        Ok(e) => real_error(e),
        Err(e) => e,
    })
}

/// `tour` of a preset without `[[tour]]` steps: names the presets that have some.
fn no_tour(s: &Scenario) -> anyhow::Error {
    let with: Vec<String> = scenario::builtin_names()
        .filter(|n| scenario::load(n, &[]).is_ok_and(|p| !p.tour.is_empty()))
        .map(str::to_string)
        .collect();
    BadInput(format!(
        "{}: has no [[tour]] steps; presets with a tour: {}",
        s.source,
        with.join(", ")
    ))
    .into()
}

/// No terminal to draw on: the comparison of every strategy as a table, real with `real`.
fn headless_instead_of_tui(
    s: &Scenario,
    duration: Nanos,
    real: Option<RealOptions>,
) -> anyhow::Result<()> {
    let table = &report::export::Table;
    if let Some(options) = real {
        eprintln!(
            "threadlab: no terminal attached, so no live view; running every strategy for \
             real instead (about {:.1} s of wall time each at most)",
            duration.as_secs_f64() * options.time_scale
        );
        let reports = real::compare(s, duration, options).map_err(real_error)?;
        print!("{}", table.real_compare(s, &reports)?);
        return fell_behind(&reports);
    }
    eprintln!(
        "threadlab: no terminal attached, so no live view; here is the headless comparison \
         (open `threadlab tui` in a terminal, or see `threadlab --help`)"
    );
    print!("{}", compare_output(s, duration, table, false, false)?.out);
    Ok(())
}

fn presets_listing() -> String {
    let mut out = String::new();
    let summaries = scenario::builtin_summaries();
    let width = summaries.iter().map(|p| p.name.len()).max().unwrap_or(0);
    for p in summaries {
        out.push_str(&format!("{:<width$}  {}\n", p.name, p.about));
    }
    out
}

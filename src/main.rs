//! The `threadlab` command line: the TUI, headless runs and comparisons, preset tools.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use threadlab::real::{self, RealOptions};
use threadlab::report::{self, Format, RunReport};
use threadlab::scenario::{self, Scenario, Strategy};
use threadlab::time::Nanos;
use threadlab::tui::{self, Theme, TuiOptions};

/// Watch concurrency strategies work and fail: thread pools, queues, bulkheads and virtual
/// threads, simulated with the JVM's exact rules.
#[derive(Debug, Parser)]
#[command(name = "threadlab", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
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
    /// Play a preset under all four strategies on identical requests, side by side.
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
        /// Largest relative difference allowed for each figure (0.05 = 5 %).
        #[arg(long, default_value_t = 0.05)]
        tolerance: f64,
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
    /// Strategy: sequential, shared, bulkhead or unbounded (default: the preset's).
    #[arg(long, value_enum)]
    strategy: Option<StrategyArg>,
    /// Seed for every random draw (default: the preset's).
    #[arg(long)]
    seed: Option<u64>,
    /// Simulated time to run, e.g. 60s, 1500ms, 10m (default: the preset's).
    #[arg(long)]
    duration: Option<String>,
    /// Override a preset value: key.path=value (repeatable), e.g. server.threads=400,
    /// services.recommendations.failure=0, strategy.bulkhead.IronThread.core=12.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
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
    /// Real seconds per scenario second for real runs: 0.1 turns 100 ms into 10 ms.
    /// Reported figures stay in scenario units.
    #[arg(long, default_value_t = 1.0)]
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
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    format: FormatArg,
    /// Also write the thread timelines as a Perfetto / Chrome trace (Trace Event JSON).
    #[arg(long, value_name = "FILE.json")]
    trace: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum StrategyArg {
    Sequential,
    Shared,
    Bulkhead,
    Unbounded,
}

impl From<StrategyArg> for Strategy {
    fn from(s: StrategyArg) -> Self {
        match s {
            StrategyArg::Sequential => Strategy::Sequential,
            StrategyArg::Shared => Strategy::Shared,
            StrategyArg::Bulkhead => Strategy::Bulkhead,
            StrategyArg::Unbounded => Strategy::Unbounded,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum FormatArg {
    Table,
    Json,
    Csv,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ThemeArg {
    Dark,
    Light,
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
    match dispatch(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.downcast_ref::<BadInput>().is_some() => {
            eprintln!("threadlab: {e}");
            ExitCode::from(2)
        }
        Err(e) if e.downcast_ref::<VerifyFailed>().is_some() => {
            eprintln!("threadlab: {e}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("threadlab: error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn dispatch(command: Option<Command>) -> anyhow::Result<()> {
    match command {
        None => open_tui(
            scenario::DEFAULT_PRESET,
            &ScenarioArgs::default(),
            Screen {
                view: ViewArgs::default(),
                tour: false,
                real: None,
            },
        ),
        Some(Command::Tui {
            preset,
            scenario,
            view,
            engine,
            real,
        }) => open_tui(
            preset.as_deref().unwrap_or(scenario::DEFAULT_PRESET),
            &scenario,
            Screen {
                view,
                tour: false,
                real: (engine == EngineArg::Real).then(|| real.options()),
            },
        ),
        Some(Command::Tour {
            preset,
            scenario,
            view,
        }) => open_tui(
            preset.as_deref().unwrap_or(scenario::DEFAULT_PRESET),
            &scenario,
            Screen {
                view,
                tour: true,
                real: None,
            },
        ),
        Some(Command::Run {
            preset,
            scenario,
            engine,
            output,
        }) => match engine.engine {
            EngineArg::Sim => run(&preset, &scenario, &output),
            EngineArg::Real if output.trace.is_some() => Err(BadInput(
                "--trace records the simulated engine only (--engine sim)".into(),
            )
            .into()),
            EngineArg::Real => run_real(&preset, &scenario, &engine.real, output.format),
        },
        Some(Command::Compare {
            preset,
            scenario,
            engine,
            output,
        }) => match engine.engine {
            EngineArg::Sim => compare(&preset, &scenario, &output),
            EngineArg::Real if output.trace.is_some() => Err(BadInput(
                "--trace records the simulated engine only (--engine sim)".into(),
            )
            .into()),
            EngineArg::Real => compare_real(&preset, &scenario, &engine.real, output.format),
        },
        Some(Command::Verify {
            preset,
            scenario,
            real,
            tolerance,
        }) => verify(&preset, &scenario, &real, tolerance),
        Some(Command::Presets) => {
            print!("{}", presets_listing());
            Ok(())
        }
        Some(Command::Articles) => {
            let mut results = Vec::new();
            for name in scenario::builtin_names() {
                results.extend(report::figures::evaluate(name)?);
            }
            print!("{}", report::figures::table(&results));
            Ok(())
        }
        Some(Command::Check { preset, scenario }) => {
            let (s, strategy, duration) = load(&preset, &scenario)?;
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
    }
}

/// Loads a preset with its overrides and flags: the scenario, the strategy, the duration.
fn load(preset: &str, args: &ScenarioArgs) -> anyhow::Result<(Scenario, Strategy, Nanos)> {
    let mut s = scenario::load(preset, &args.set).map_err(|e| BadInput(e.to_string()))?;
    if let Some(seed) = args.seed {
        s.seed = seed;
    }
    if let Some(d) = &args.duration {
        let d =
            scenario::parse_duration(d).map_err(|e| BadInput(format!("--duration {d:?}: {e}")))?;
        if d == Nanos::ZERO {
            return Err(BadInput("--duration must be greater than 0".into()).into());
        }
        s.duration = d;
    }
    let strategy = args.strategy.map_or(s.strategy.default, Strategy::from);
    let duration = s.duration;
    Ok((s, strategy, duration))
}

fn run(preset: &str, args: &ScenarioArgs, output: &OutputArgs) -> anyhow::Result<()> {
    let (s, strategy, duration) = load(preset, args)?;
    let engine = match output.trace {
        Some(_) => report::perfetto::play_traced(&s, strategy, duration),
        None => report::play(&s, strategy, duration),
    };
    let r = RunReport::new(&s, &engine);
    let out = match format_of(output.format) {
        Format::Table => report::run_table(&s, &r),
        Format::Json => report::to_json(&r)?,
        Format::Csv => report::run_csv(&r),
    };
    print!("{out}");
    match &output.trace {
        Some(path) => report::perfetto::write_trace_file(path, &[("", &engine)])
            .map_err(|e| BadInput(e).into()),
        None => Ok(()),
    }
}

fn compare(preset: &str, args: &ScenarioArgs, output: &OutputArgs) -> anyhow::Result<()> {
    let (s, _, duration) = load(preset, args)?;
    let Some(path) = &output.trace else {
        print!(
            "{}",
            compare_output(&s, duration, format_of(output.format))?
        );
        return Ok(());
    };
    let runs = report::perfetto::compare_traced(&s, duration);
    let reports: Vec<RunReport> = runs.iter().map(|(r, _)| r.clone()).collect();
    print!(
        "{}",
        format_compare(&s, &reports, format_of(output.format))?
    );
    let engines: Vec<(&str, &threadlab::sim::Engine)> =
        runs.iter().map(|(_, e)| (e.strategy().name(), e)).collect();
    report::perfetto::write_trace_file(path, &engines).map_err(|e| BadInput(e).into())
}

fn compare_output(s: &Scenario, duration: Nanos, format: Format) -> anyhow::Result<String> {
    let reports: Vec<RunReport> = report::compare(s, duration)
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    format_compare(s, &reports, format)
}

fn format_compare(s: &Scenario, reports: &[RunReport], format: Format) -> anyhow::Result<String> {
    Ok(match format {
        Format::Table => report::compare_table(s, reports),
        Format::Json => report::to_json(&reports)?,
        Format::Csv => report::compare_csv(reports),
    })
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
    format: FormatArg,
) -> anyhow::Result<()> {
    let (s, strategy, duration) = load(preset, args)?;
    let run = real::run(&s, strategy, duration, real_args.options()).map_err(real_error)?;
    let r = run.report(&s);
    let out = match format_of(format) {
        Format::Table => real::output::run_table(&s, &r),
        Format::Json => report::to_json(&r)?,
        Format::Csv => report::run_csv(&r.run),
    };
    print!("{out}");
    Ok(())
}

fn compare_real(
    preset: &str,
    args: &ScenarioArgs,
    real_args: &RealArgs,
    format: FormatArg,
) -> anyhow::Result<()> {
    let (s, _, duration) = load(preset, args)?;
    let reports = real::compare(&s, duration, real_args.options()).map_err(real_error)?;
    let out = match format_of(format) {
        Format::Table => real::output::compare_table(&s, &reports),
        Format::Json => report::to_json(&reports)?,
        Format::Csv => {
            let runs: Vec<RunReport> = reports.into_iter().map(|r| r.run).collect();
            report::compare_csv(&runs)
        }
    };
    print!("{out}");
    Ok(())
}

fn verify(
    preset: &str,
    args: &ScenarioArgs,
    real_args: &RealArgs,
    tolerance: f64,
) -> anyhow::Result<()> {
    let (s, _, duration) = load(preset, args)?;
    if !(tolerance.is_finite() && tolerance >= 0.0) {
        return Err(BadInput(format!("--tolerance must be 0 or more, not {tolerance}")).into());
    }
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

fn format_of(f: FormatArg) -> Format {
    match f {
        FormatArg::Table => Format::Table,
        FormatArg::Json => Format::Json,
        FormatArg::Csv => Format::Csv,
    }
}

/// How the TUI was asked for.
struct Screen {
    view: ViewArgs,
    tour: bool,
    /// `--engine real`.
    real: Option<RealOptions>,
}

fn open_tui(preset: &str, args: &ScenarioArgs, screen: Screen) -> anyhow::Result<()> {
    let Screen {
        view: ViewArgs {
            fps,
            no_color,
            theme,
        },
        tour,
        real,
    } = screen;
    let (s, strategy, duration) = load(preset, args)?;
    if tour && s.tour.is_empty() {
        let with: Vec<String> = scenario::builtin_names()
            .filter(|n| scenario::load(n, &[]).is_ok_and(|p| !p.tour.is_empty()))
            .map(str::to_string)
            .collect();
        return Err(BadInput(format!(
            "{}: has no [[tour]] steps; presets with a tour: {}",
            s.source,
            with.join(", ")
        ))
        .into());
    }
    if let Some(options) = real {
        // Refuse before the screen opens: the thread cap, unsupported features.
        real::check(&s, strategy, options).map_err(real_error)?;
    }
    if let Some(options) = real
        && !(std::io::stdout().is_terminal() && std::io::stdin().is_terminal())
    {
        eprintln!(
            "threadlab: no terminal attached, so no live view; running the four strategies for \
             real instead (about {:.1} s of wall time each at most)",
            duration.as_secs_f64() * options.time_scale
        );
        let reports = real::compare(&s, duration, options).map_err(real_error)?;
        print!("{}", real::output::compare_table(&s, &reports));
        return Ok(());
    }
    if !(std::io::stdout().is_terminal() && std::io::stdin().is_terminal()) {
        eprintln!(
            "threadlab: no terminal attached, so no live view; here is the headless comparison \
             (open `threadlab tui` in a terminal, or see `threadlab --help`)"
        );
        print!("{}", compare_output(&s, duration, Format::Table)?);
        return Ok(());
    }
    let no_color = no_color || std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let theme = match (no_color, theme) {
        (true, _) => Theme::NoColor,
        (false, ThemeArg::Light) => Theme::Light,
        (false, ThemeArg::Dark) => Theme::Dark,
    };
    let options = TuiOptions {
        fps,
        theme,
        tour,
        real,
    };
    tui::run(s, strategy, options).map_err(|e| match e.downcast::<real::RealError>() {
        Ok(e) => real_error(e),
        Err(e) => e,
    })
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

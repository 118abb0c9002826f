//! The `threadlab` command line: the TUI, headless runs and comparisons, preset tools.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, ValueEnum};

use threadlab::config::{Config, ConfigTheme};
use threadlab::export::{self, Exporter};
use threadlab::files::{OutputError, OutputFile};
use threadlab::plot::{self, timeline};
use threadlab::progress::{self, Progress};
use threadlab::real::{self, RealOptions};
use threadlab::report::{self, RealReport, RunReport};
use threadlab::scenario::{self, LoadMode, Scenario, Strategy};
use threadlab::time::Nanos;
use threadlab::tui::{self, Theme, TuiOptions};
use threadlab::{sweep, verify};

mod cli;
mod lesson_cli;
mod service;

/// Watch concurrency strategies work and fail: thread pools, queues, bulkheads and virtual
/// threads, simulated with the JVM's exact rules.
#[derive(Debug, Parser)]
#[command(name = "threadlab", version, about, long_about = None, after_help = cli::AFTER_HELP)]
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
        #[command(flatten)]
        demo: cli::DemoArgs,
    },
    /// Play a preset's scripted tour in the TUI (for talks): space or → goes on.
    Tour {
        /// A built-in preset name or a path to a .toml file (default: ironthread).
        preset: Option<String>,
        #[command(flatten)]
        scenario: ScenarioArgs,
        #[command(flatten)]
        view: ViewArgs,
        #[command(flatten)]
        demo: cli::DemoArgs,
    },
    /// Play a lesson in the TUI: predict, then watch the run reveal the answer. Without NAME,
    /// the built-in lessons with their length and goals.
    Lesson(lesson_cli::LessonArgs),
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
        /// Not offered: compare plays every strategy. Accepted only to say so (exit 2).
        #[arg(long, hide = true)]
        strategy: Option<String>,
        #[command(flatten)]
        preset_args: PresetArgs,
        #[command(flatten)]
        engine: EngineArgs,
        #[command(flatten)]
        output: OutputArgs,
        /// Play every strategy again with these overrides (KEY=VALUE, as --set; several in one
        /// as "KEY=VALUE, KEY=VALUE") and show every side: repeat it for more variants, a row
        /// each.
        #[arg(long, value_name = "KEY=VALUE")]
        against: Vec<String>,
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
        #[arg(long, value_parser = strategies_arg())]
        strategy: Option<Strategies>,
        /// Seed, duration, overrides and --force, as for `run` (each point is a full run).
        #[command(flatten)]
        preset_args: PresetArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Model your own service: a preset from Spring Boot configuration and telemetry.
    #[command(subcommand)]
    Import(service::ImportCommand),
    /// The cheapest setting of some values that meets every goal (a grid refined where the
    /// goals change), verified on more seeds; exit 1 when none does.
    Tune(service::TuneArgs),
    /// Play a preset once and check goals (p99<=800ms, goodput>=99%, ...): exit 1 when one
    /// fails, with the figure. A capacity test for a service's own CI.
    Assert(service::AssertArgs),
    /// Write a preset's settings in another tool's terms (Spring Boot's application.yml).
    #[command(subcommand)]
    Export(service::ExportCommand),
    /// List the built-in presets.
    Presets,
    /// Reproduce the articles' figures with every built-in preset (a Markdown table).
    Articles,
    /// Validate a preset or a lesson (and overrides) without running it (a lesson is played
    /// headless to check that every question has an answer on the run).
    Check {
        /// A built-in preset (see `threadlab presets`) or lesson (`threadlab lesson`), or a path
        /// to a .toml file.
        preset: String,
        #[command(flatten)]
        scenario: ScenarioArgs,
    },
    /// Draw the TUI headless after some simulated time and keys, to an SVG or PNG picture
    /// (for slides): the same screen every time for the same preset and seed.
    Screenshot {
        /// A built-in preset (see `threadlab presets`) or a path to a .toml file.
        preset: String,
        #[command(flatten)]
        scenario: ScenarioArgs,
        #[command(flatten)]
        shot: cli::ScreenshotArgs,
    },
    /// Print a shell completion script (e.g. `threadlab completions bash > ~/.local/share/bash-completion/completions/threadlab`).
    Completions(cli::CompletionsArgs),
    /// Print the man page (roff): `threadlab man | man -l -`.
    Man,
    /// Show the config file (theme, fps, preset, [keys]) and where it is read from.
    Config(cli::ConfigArgs),
}

/// How the TUI looks.
#[derive(Debug, Args, Default)]
struct ViewArgs {
    /// Frames per second while running [default: 30, or the config file's fps].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=120))]
    fps: Option<u32>,
    /// No colours (also when NO_COLOR is set).
    #[arg(long)]
    no_color: bool,
    /// Colour theme; `light` reads on a white projector screen [default: dark, or the config
    /// file's theme].
    #[arg(long, value_enum)]
    theme: Option<ThemeArg>,
}

impl ViewArgs {
    /// The colour theme: none with `--no-color` or a non-empty `NO_COLOR`, then `--theme`,
    /// then the config file's.
    fn theme(&self, config: &Config) -> Theme {
        let no_color = self.no_color || std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let configured = config.theme.map(|t| match t {
            ConfigTheme::Dark => Theme::Dark,
            ConfigTheme::Light => Theme::Light,
            ConfigTheme::NoColor => Theme::NoColor,
        });
        match (no_color, self.theme) {
            (true, _) => Theme::NoColor,
            (false, Some(theme)) => theme.theme(),
            (false, None) => configured.unwrap_or(Theme::Dark),
        }
    }

    /// `--fps`, else the config file's, else 30.
    fn fps(&self, config: &Config) -> u32 {
        self.fps.or(config.fps).unwrap_or(30)
    }
}

#[derive(Debug, Args, Default)]
struct ScenarioArgs {
    /// Strategy (default: the preset's).
    #[arg(long, value_parser = strategy_arg())]
    strategy: Option<Strategy>,
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
    /// Real seconds per scenario second for real runs, 0.01..=100 (default 1): 0.1 turns
    /// 100 ms into 10 ms. Reported figures stay in scenario units.
    #[arg(long, allow_negative_numbers = true, value_parser = time_scale)]
    time_scale: Option<f64>,
    /// Refuse a real run that would start more OS threads than this, 1..=1000000 (default
    /// 4096).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=scenario::MAX_REAL_THREADS))]
    max_threads: Option<u64>,
}

impl RealArgs {
    fn options(&self) -> RealOptions {
        RealOptions {
            time_scale: self.time_scale.unwrap_or(1.0),
            max_threads: self.max_threads.unwrap_or(real::DEFAULT_MAX_THREADS),
            interrupted: progress::interrupted,
        }
    }

    /// `--time-scale` and `--max-threads` shape real runs only: on the simulated engine they
    /// would be ignored, so they are refused.
    fn refuse_on_sim(&self) -> anyhow::Result<()> {
        let given = [
            ("--time-scale", self.time_scale.is_some()),
            ("--max-threads", self.max_threads.is_some()),
        ];
        match given.iter().find(|(_, set)| *set) {
            Some((flag, _)) => Err(BadInput(format!(
                "{flag} applies to real runs only; add --engine real, or drop {flag}"
            ))
            .into()),
            None => Ok(()),
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
        value_parser = clap::builder::PossibleValuesParser::new(export::names())
    )]
    format: String,
    /// Also draw a chart to FILE.svg or FILE.png (sweep: goodput and p99 against the varied
    /// value; run and compare: the series over simulated time).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// The chart's colours: `light` for pages and white screens, `dark` for dark slides
    /// (with --plot) [default: light].
    #[arg(long = "theme", value_enum)]
    plot_theme: Option<PlotThemeArg>,
    /// Also write the thread timelines as a Perfetto / Chrome trace (Trace Event JSON).
    #[arg(long, value_name = "FILE.json")]
    trace: Option<PathBuf>,
}

/// The output files of a headless run, checked before it plays.
pub(crate) struct Outputs {
    chart: Option<(OutputFile, plot::ChartTheme)>,
    trace: Option<OutputFile>,
}

impl OutputArgs {
    /// The `--format` exporter (clap accepts only the exporters' names).
    fn exporter(&self) -> &'static dyn Exporter {
        export::exporter(&self.format).unwrap_or(&export::Table)
    }

    /// `--theme` colours a `--plot` chart: without one it would be ignored, so it is refused.
    fn refuse_theme_without_plot(&self) -> anyhow::Result<()> {
        match (self.plot_theme, &self.plot) {
            (Some(_), None) => Err(BadInput(
                "--theme colours the --plot chart; add --plot FILE.svg, or drop --theme".into(),
            )
            .into()),
            _ => Ok(()),
        }
    }

    /// The chart and the trace to write, checked before any work starts: a `.svg` or `.png`
    /// chart, two different files, each in a folder that exists and either a file (or
    /// nothing yet), a pipe, a terminal or `/dev/null` ([`OutputFile::check`]).
    fn outputs(&self) -> anyhow::Result<Outputs> {
        self.refuse_theme_without_plot()?;
        if let Some(path) = &self.plot {
            plot::check_path(path).map_err(|e| BadInput(e.to_string()))?;
        }
        // One file cannot hold both: the second written would replace the first.
        if let (Some(trace), Some(path)) = (&self.trace, &self.plot)
            && std::path::absolute(trace).ok() == std::path::absolute(path).ok()
        {
            return Err(BadInput(format!(
                "--plot and --trace name the same file ({}): give each its own",
                path.display()
            ))
            .into());
        }
        let trace = match &self.trace {
            Some(path) => Some(OutputFile::check(Some("--trace"), path).map_err(output_error)?),
            None => None,
        };
        let chart = match &self.plot {
            Some(path) => {
                let theme = match self.plot_theme.unwrap_or(PlotThemeArg::Light) {
                    PlotThemeArg::Light => plot::ChartTheme::Light,
                    PlotThemeArg::Dark => plot::ChartTheme::Dark,
                };
                Some((
                    OutputFile::check(Some("--plot"), path).map_err(output_error)?,
                    theme,
                ))
            }
            None => None,
        };
        Ok(Outputs { chart, trace })
    }
}

/// An output file's error: refused before the work, bad input (exit 2); not written once the
/// work is done (a full disk), an I/O error (exit 1).
fn output_error(e: OutputError) -> anyhow::Error {
    if e.is_refusal() {
        BadInput(e.to_string()).into()
    } else {
        e.into()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PlotThemeArg {
    Light,
    Dark,
}

/// `--strategy NAME`: one of [`Strategy::ALL`], by name.
fn strategy_arg() -> impl clap::builder::TypedValueParser<Value = Strategy> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(Strategy::ALL.map(Strategy::name))
        .try_map(|name| Strategy::from_name(&name).ok_or("not a strategy"))
}

/// `sweep --strategy`: the strategies a sweep plays.
#[derive(Debug, Clone)]
struct Strategies(Vec<Strategy>);

/// `sweep --strategy NAME|all`: one of [`Strategy::ALL`], or all of them.
fn strategies_arg() -> impl clap::builder::TypedValueParser<Value = Strategies> {
    use clap::builder::TypedValueParser as _;
    let names = Strategy::ALL.map(Strategy::name);
    clap::builder::PossibleValuesParser::new(names.into_iter().chain(["all"])).try_map(|name| {
        match Strategy::from_name(&name) {
            Some(s) => Ok(Strategies(vec![s])),
            None if name == "all" => Ok(Strategies(Strategy::ALL.to_vec())),
            None => Err("not a strategy"),
        }
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ThemeArg {
    Dark,
    Light,
}

impl ThemeArg {
    /// The theme `--theme` names, for the live view and a screenshot alike.
    fn theme(self) -> Theme {
        match self {
            ThemeArg::Dark => Theme::Dark,
            ThemeArg::Light => Theme::Light,
        }
    }
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
struct BadInput(pub String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return command_line_error(&e),
    };
    match dispatch(cli.subcommand) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.downcast_ref::<BadInput>().is_some() => {
            progress::say(format!("threadlab: {e}"));
            ExitCode::from(2)
        }
        // The TUI stopped on a signal: exit as the signal would have (130, 143, 129...).
        Err(e) if e.downcast_ref::<tui::Interrupted>().is_some() => e
            .downcast_ref::<tui::Interrupted>()
            .map_or(ExitCode::FAILURE, |i| ExitCode::from(i.exit_code())),
        Err(e) if e.downcast_ref::<CommandInterrupted>().is_some() => {
            progress::say(format!("threadlab: {e}"));
            ExitCode::from(progress::INTERRUPTED_EXIT)
        }
        // Whoever read the output has gone (`| head`): nothing more to say.
        Err(e) if e.downcast_ref::<OutputClosed>().is_some() => ExitCode::SUCCESS,
        Err(e) if e.downcast_ref::<service::GoalsFailed>().is_some() => {
            progress::say(format!("threadlab: {e}"));
            ExitCode::from(1)
        }
        Err(e) if e.downcast_ref::<VerifyFailed>().is_some() => {
            progress::say(format!("threadlab: {e}"));
            ExitCode::from(1)
        }
        // The guarded live view said why it ended, and with which code.
        Err(e) if e.downcast_ref::<tui::guard::Ended>().is_some() => e
            .downcast_ref::<tui::guard::Ended>()
            .map_or(ExitCode::FAILURE, |e| ExitCode::from(e.0)),
        // The report was printed; the warnings said why its figures are not the model's.
        Err(e) if e.downcast_ref::<FellBehind>().is_some() => ExitCode::from(FellBehind::EXIT),
        Err(e) => {
            progress::say(format!("threadlab: error: {e:#}"));
            ExitCode::from(1)
        }
    }
}

/// What clap stops at: `--help` and `--version` (printed on stdout: exit 0, or 1 when it
/// cannot be written, 0 when its reader went away), or a command line it refuses (its
/// message on stderr, best effort: exit 2).
fn command_line_error(e: &clap::Error) -> ExitCode {
    let code = u8::try_from(e.exit_code()).unwrap_or(2);
    match e.print() {
        Err(error) if code == 0 && error.kind() != std::io::ErrorKind::BrokenPipe => {
            progress::say(format!(
                "threadlab: error: cannot write the output to stdout: {error}"
            ));
            ExitCode::from(1)
        }
        _ => ExitCode::from(code),
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
            demo,
        } => {
            if engine == EngineArg::Sim {
                real.refuse_on_sim()?;
            }
            refuse_duration_on_screen("tui", &scenario.preset)?;
            let real = (engine == EngineArg::Real).then(|| real.options());
            let screen = Screen {
                demo,
                ..Screen::live(view, real)
            };
            open_tui(preset.as_deref(), &scenario, screen)
        }
        Subcommand::Tour {
            preset,
            scenario,
            view,
            demo,
        } => {
            refuse_duration_on_screen("tour", &scenario.preset)?;
            let screen = Screen {
                demo,
                ..Screen::tour(view)
            };
            open_tui(preset.as_deref(), &scenario, screen)
        }
        Subcommand::Lesson(args) => lesson_cli::lesson(args),
        Subcommand::Run {
            preset,
            scenario,
            engine,
            output,
        } => run_on(&preset, &scenario, &engine, &output),
        Subcommand::Compare {
            preset,
            strategy,
            preset_args,
            engine,
            output,
            against,
        } => {
            refuse_strategy_on_compare(strategy.as_deref())?;
            let scenario = ScenarioArgs {
                strategy: None,
                preset: preset_args,
            };
            if against.is_empty() {
                compare_on(&preset, &scenario, &engine, &output)
            } else {
                cli::compare_against(&preset, &scenario, &engine, &output, &against)
            }
        }
        Subcommand::Sweep {
            preset,
            vary,
            strategy,
            preset_args,
            output,
        } => sweep(&preset, preset_args, &vary, strategy, &output),
        Subcommand::Verify {
            preset,
            scenario,
            real,
            tolerance,
        } => verify(&preset, &scenario, &real, tolerance),
        Subcommand::Import(command) => service::import(command),
        Subcommand::Tune(args) => service::tune(args),
        Subcommand::Assert(args) => service::assert(args),
        Subcommand::Export(command) => service::export(command),
        Subcommand::Presets => emit(&presets_listing()),
        Subcommand::Articles => articles(),
        Subcommand::Check { preset, scenario } => check(&preset, &scenario),
        Subcommand::Screenshot {
            preset,
            scenario,
            shot,
        } => cli::screenshot(&preset, &scenario, &shot),
        Subcommand::Completions(args) => emit(&cli::completions(Cli::command(), args.shell)),
        Subcommand::Man => emit(&cli::man_page(Cli::command())?),
        Subcommand::Config(args) => {
            let text = cli::config_report(&args, threadlab::config::path())
                .map_err(|e| BadInput(e.to_string()))?;
            emit(&text)
        }
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
        EngineArg::Sim => {
            engine.real.refuse_on_sim()?;
            run(preset, scenario, output)
        }
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
        EngineArg::Sim => {
            engine.real.refuse_on_sim()?;
            compare(preset, scenario, output)
        }
        EngineArg::Real => {
            sim_only_outputs(output)?;
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
    emit(&report::figures::table(&results))
}

/// `check`: loads and validates a preset with its flags, and says what it would play.
/// A tour's `expect`s and the `[[figures]]` metrics must name what a screen and a report
/// show: checked by `check` and before a tour plays (a `--set` that renames a pool for a run
/// does not make the tour's words a reason to refuse the run).
fn valid_expectations(s: &Scenario) -> anyhow::Result<()> {
    tui::expect::validate(s).map_err(|why| BadInput(format!("{}: {why}", s.source)).into())
}

fn check(preset: &str, args: &ScenarioArgs) -> anyhow::Result<()> {
    if threadlab::lesson::is_lesson(preset) {
        return lesson_cli::check(preset, args);
    }
    let (s, strategy, duration) = load(preset, args)?;
    valid_expectations(&s)?;
    valid_figure_sets(preset, args, &s)?;
    emit(&format!(
        "{}: ok ({}; {} services, {} stage(s), strategy {strategy}, {} simulated)\n",
        s.source,
        s.name,
        s.services.len(),
        s.endpoint.stages.len(),
        duration
    ))
}

/// Each `[[figures]]` `set` list must load as the variants compare (`C`) and `articles` load
/// it: the preset with the command's `--set`s (those of a key the list sets give way), then
/// the list, each of its keys used by the load.
fn valid_figure_sets(preset: &str, args: &ScenarioArgs, s: &Scenario) -> anyhow::Result<()> {
    let key = |set: &String| set.split('=').next().unwrap_or("").trim().to_owned();
    for (i, figure) in s.figures.iter().enumerate() {
        if figure.sets.is_empty() {
            continue;
        }
        let keys: Vec<String> = figure.sets.iter().map(key).collect();
        let all: Vec<String> = (args.preset.set.iter())
            .filter(|o| !keys.contains(&key(o)))
            .chain(&figure.sets)
            .cloned()
            .collect();
        let why = match scenario::load(preset, &all) {
            Err(e) => Some(e.to_string()),
            Ok(fs) => load_set_that_does_not_apply(&fs, &figure.sets),
        };
        if let Some(why) = why {
            return Err(BadInput(format!(
                "{}: figures.{i}.set ({:?}) does not load: {why}",
                s.source,
                scenario::elide(&figure.what, 40)
            ))
            .into());
        }
    }
    Ok(())
}

/// Loads a preset with its overrides and flags: the scenario, the strategy, the duration;
/// a run beyond the cost estimate's limits is refused (unless `--force`).
fn load(preset: &str, args: &ScenarioArgs) -> anyhow::Result<(Scenario, Strategy, Nanos)> {
    let (s, strategy) = load_scenario(preset, args)?;
    let duration = s.duration;
    within_cost(&s, duration, args.preset.force)?;
    Ok((s, strategy, duration))
}

/// Loads a preset with its overrides, `--seed` and `--duration`: the scenario and the
/// strategy, not yet weighed.
fn load_scenario(preset: &str, args: &ScenarioArgs) -> anyhow::Result<(Scenario, Strategy)> {
    let mut s = scenario::load(preset, &args.preset.set).map_err(|e| BadInput(e.to_string()))?;
    for note in s.server.notes() {
        progress::say(format!("threadlab: note: {note}"));
    }
    if let Some(seed) = args.preset.seed {
        s.seed = seed;
    }
    if let Some(d) = duration_arg(&args.preset)? {
        s.duration = d;
        // The preset's phases are before its own end; a shorter --duration leaves some out.
        if let Some(i) = s.load.phases.iter().position(|p| p.at >= d) {
            progress::say(format!(
                "threadlab: note: --duration {d}: the load's phases from load.phases.{i} (at \
                 {}) on begin at or after the run's end and are not played",
                s.load.phases[i].at
            ));
        }
    }
    if let Some(why) = load_set_that_does_not_apply(&s, &args.preset.set) {
        return Err(BadInput(why).into());
    }
    let strategy = args.strategy.unwrap_or(s.strategy.default);
    Ok((s, strategy))
}

/// Refuses a run of `s` for `duration` beyond the cost estimate's limits, unless `force`.
fn within_cost(s: &Scenario, duration: Nanos, force: bool) -> anyhow::Result<()> {
    let served = threadlab::theory::served_rps(s, &Strategy::ALL);
    if let Some(why) = scenario::estimate_cost(s, duration, served).refusal()
        && !force
    {
        return Err(BadInput(format!(
            "{}: this run is too large: {why}; shorten --duration, lower the load, or add \
             --force to run it anyway",
            s.source
        ))
        .into());
    }
    Ok(())
}

/// `--duration`, if given: a duration above 0.
fn duration_arg(args: &PresetArgs) -> anyhow::Result<Option<Nanos>> {
    let Some(text) = &args.duration else {
        return Ok(None);
    };
    let d = scenario::parse_duration(text)
        .map_err(|e| BadInput(format!("--duration {text:?}: {e}")))?;
    if d == Nanos::ZERO {
        return Err(BadInput("--duration must be greater than 0".into()).into());
    }
    Ok(Some(d))
}

/// A `--set load.FIELD=...` that the scenario's load mode ignores (`load.clients` on a `runs`
/// load): said rather than silently dropped.
fn load_set_that_does_not_apply(s: &Scenario, sets: &[String]) -> Option<String> {
    let (mode, fields): (&str, &[&str]) = match s.load.mode {
        LoadMode::Runs { .. } => ("runs", &["count"]),
        LoadMode::Batch { .. } => ("batch", &["count"]),
        LoadMode::Open { .. } => ("open", &["rate", "ramp", "phases", "retry", "breaker"]),
        LoadMode::Closed { .. } => (
            "closed",
            &[
                "clients",
                "think",
                "keep_alive",
                "connect_spacing",
                "phases",
                "retry",
                "breaker",
            ],
        ),
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
            "client",
            "connect_timeout",
            "syn_retries",
            "syn_linear_timeouts",
        ];
        let applies = link.contains(&field) || fields.contains(&field);
        (!applies).then(|| {
            let article = if mode == "open" { "an" } else { "a" };
            format!(
                "--set {key}: {article} {mode} load has no {field} (it uses {}, and every \
                 load's timeout and connection fields); change load.mode too to use it",
                fields.join(", ")
            )
        })
    })
}

fn run(preset: &str, args: &ScenarioArgs, output: &OutputArgs) -> anyhow::Result<()> {
    let (s, strategy, duration) = load(preset, args)?;
    let Outputs { chart, trace } = output.outputs()?;
    progress::catch_ctrl_c();
    let bar = Progress::new(duration.as_millis_f64() as u64, "simulated ms");
    let mut rec = timeline::Recorder::new(strategy, duration);
    let engine = new_engine(&s, strategy, trace.is_some().then_some(1), chart.is_some());
    // The chart's series are sampled only when a chart is drawn.
    let (engine, complete) = if chart.is_some() {
        progress::play_engine(engine, duration, Some(&bar), &mut |e, t| rec.observe(e, t))
    } else {
        progress::play_engine(engine, duration, Some(&bar), &mut progress::unobserved)
    };
    bar.finish();
    no_stall(&engine)?;
    let r = RunReport::new(&s, &engine);
    emit(&output.exporter().run(&s, &r, complete)?)?;
    if let Some((out, theme)) = chart {
        let title = format!("{}: {strategy}", s.name);
        draw(
            &timeline::figure(&title, &[rec.finish(&engine)]),
            out,
            theme,
        )?;
    }
    write_trace(trace, &[&engine])?;
    stopped_at_cap(&s, engine.cap_message())?;
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
    let (s, _, duration) = load(preset, args)?;
    let Outputs { chart, trace } = output.outputs()?;
    progress::catch_ctrl_c();
    let traced = trace.is_some();
    let c = compare_output(&s, duration, output.exporter(), traced, chart.is_some())?;
    emit(&c.out)?;
    if let Some((out, theme)) = chart {
        let title = format!("{}: every strategy", s.name);
        draw(&timeline::figure(&title, &c.timelines), out, theme)?;
    }
    write_trace(trace, &c.traced.iter().collect::<Vec<_>>())?;
    stopped_at_cap(&s, c.capped)?;
    finished(
        c.complete,
        "the strategies played so far, the last one cut short",
    )
}

/// A new engine for `strategy`, recording its thread timelines when a trace is wanted: its
/// share of the file's span limit, with `runs` runs in the file.
/// The engine of a headless run: a chart reads the rolling window, nothing else does.
fn new_engine(
    s: &Scenario,
    strategy: Strategy,
    traced: Option<usize>,
    charted: bool,
) -> threadlab::sim::Engine {
    let engine = if let Some(runs) = traced {
        report::perfetto::traced_share(s, strategy, runs)
    } else {
        threadlab::sim::Engine::new(s, strategy)
    };
    if charted { engine } else { engine.unwatched() }
}

/// `--trace FILE`: the runs' thread timelines as a Perfetto / Chrome trace.
fn write_trace(out: Option<OutputFile>, engines: &[&threadlab::sim::Engine]) -> anyhow::Result<()> {
    let Some(out) = out else {
        return Ok(());
    };
    let runs: Vec<(&str, &threadlab::sim::Engine)> = match engines {
        [one] => vec![("", *one)],
        _ => engines.iter().map(|e| (e.strategy().name(), *e)).collect(),
    };
    for line in report::perfetto::write_trace_file(out, &runs).map_err(output_error)? {
        progress::say(line);
    }
    Ok(())
}

/// What `compare` played: its output, the charts' series, the traced engines (when a trace
/// is wanted), whether every strategy ran to the end, and why one stopped at its cap.
struct Compared {
    out: String,
    timelines: Vec<timeline::StrategySeries>,
    traced: Vec<threadlab::sim::Engine>,
    complete: bool,
    capped: Option<String>,
}

/// A `--plot` chart's path checked before the work: `.svg` or `.png`, and a file to write
/// ([`OutputFile::check`]).
fn plot_output(path: Option<&std::path::Path>) -> anyhow::Result<Option<OutputFile>> {
    let Some(path) = path else {
        return Ok(None);
    };
    plot::check_path(path).map_err(|e| BadInput(e.to_string()))?;
    Ok(Some(
        OutputFile::check(Some("--plot"), path).map_err(output_error)?,
    ))
}

fn draw(figure: &plot::Figure, out: OutputFile, theme: plot::ChartTheme) -> anyhow::Result<()> {
    let path = out.path().display().to_string();
    plot::write(figure, out, theme).map_err(|e| match e {
        plot::PlotError::Extension(_) => anyhow::Error::new(BadInput(e.to_string())),
        plot::PlotError::Output(e) => output_error(e),
        _ => anyhow::Error::new(e),
    })?;
    progress::say(format!("threadlab: wrote {path}"));
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
/// is reported up to where it got (its JSON says `"interrupted": true`).
fn compare_output(
    s: &Scenario,
    duration: Nanos,
    exporter: &dyn Exporter,
    traced: bool,
    charted: bool,
) -> anyhow::Result<Compared> {
    let strategies = Strategy::ALL;
    let bar = Progress::new(strategies.len() as u64, "strategies");
    // The strategies play side by side on the machine's cores; each engine is deterministic
    // on its own, and the results are read back in the list's order, so the output is the
    // same byte for byte as one after another. They start in the order of their up-front
    // cost, largest first (a strategy whose server answers less than the load piles up
    // connections that retransmit), so the ones left for last are short and the cores
    // finish together. Each core also reads its run's report and drops its engine (unless
    // a trace wants it), so only the printing is left for after.
    struct Played {
        /// The run's report, or why it has none (the engine stalled).
        report: anyhow::Result<RunReport>,
        capped: Option<String>,
        done: bool,
        timeline: timeline::StrategySeries,
        engine: Option<threadlab::sim::Engine>,
    }
    let mut slots: Vec<Option<Played>> = strategies.iter().map(|_| None).collect();
    let mut jobs: Vec<_> = strategies
        .iter()
        .zip(slots.iter_mut())
        .map(|(&strategy, slot)| {
            let served = threadlab::theory::served_rps(s, &[strategy]);
            let cost = scenario::estimate_cost(s, duration, served);
            ((cost.requests_in_flight, cost.events), strategy, slot)
        })
        .collect();
    jobs.sort_by(|(a, ..), (b, ..)| b.partial_cmp(a).unwrap_or(std::cmp::Ordering::Equal));
    // The strategies played at once share one run's limits (of requests and calls in
    // flight, and so of memory).
    let at_once = rayon::current_num_threads().clamp(1, strategies.len()) as u64;
    rayon::scope_fifo(|scope| {
        for (_, strategy, slot) in jobs {
            let bar = &bar;
            scope.spawn_fifo(move |_| {
                let mut rec = timeline::Recorder::new(strategy, duration);
                let mut engine =
                    new_engine(s, strategy, traced.then_some(strategies.len()), charted);
                engine.share_limits(at_once);
                let (engine, done) = if charted {
                    progress::play_engine(engine, duration, None, &mut |e, t| rec.observe(e, t))
                } else {
                    progress::play_engine(engine, duration, None, &mut progress::unobserved)
                };
                bar.inc();
                *slot = Some(Played {
                    report: no_stall(&engine).map(|()| RunReport::new(s, &engine)),
                    capped: engine.cap_message(),
                    done,
                    timeline: rec.finish(&engine),
                    engine: traced.then_some(engine),
                });
            });
        }
    });
    bar.finish();
    let mut reports = Vec::new();
    let mut timelines = Vec::new();
    let mut engines = Vec::new();
    let mut complete = true;
    let mut capped = None;
    for played in slots.into_iter().flatten() {
        reports.push((played.report?, played.done));
        capped = played.capped;
        timelines.push(played.timeline);
        engines.extend(played.engine);
        if !played.done {
            complete = false;
            break;
        }
    }
    Ok(Compared {
        out: exporter.compare(s, &reports)?,
        timelines,
        traced: engines,
        complete,
        capped,
    })
}

/// After printing: Ctrl-C makes the exit code 130 and says what the output covers.
fn finished(complete: bool, covered: &str) -> anyhow::Result<()> {
    if complete {
        Ok(())
    } else {
        Err(CommandInterrupted(format!(
            "interrupted by Ctrl-C: the output is partial ({covered})"
        ))
        .into())
    }
}

fn sweep(
    preset: &str,
    preset_args: PresetArgs,
    vary: &[String],
    strategy: Option<Strategies>,
    output: &OutputArgs,
) -> anyhow::Result<()> {
    if output.trace.is_some() {
        return Err(BadInput(
            "sweep --trace: a sweep records no thread timelines; trace one point with \
             run PRESET --set PATH=VALUE --trace FILE.json"
                .into(),
        )
        .into());
    }
    let axes = vary
        .iter()
        .map(|v| sweep::parse_vary(v))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| BadInput(e.to_string()))?;
    let mut plan = sweep::Plan {
        preset: preset.to_owned(),
        set: preset_args.set.clone(),
        seed: preset_args.seed,
        duration: duration_arg(&preset_args)?,
        axes,
        strategies: Vec::new(),
    };
    let points = plan.points().map_err(|e| BadInput(e.to_string()))?;
    // The first point, checked as `run` checks one: a --vary or --set the load ignores.
    let mut first = ScenarioArgs {
        strategy: None,
        preset: preset_args,
    };
    first.preset.set.extend(
        plan.axes
            .iter()
            .filter_map(|a| Some(format!("{}={}", a.path, a.values.first()?))),
    );
    let (base, _, _) = load(preset, &first)?;
    let Outputs { chart, .. } = output.outputs()?;
    plan.strategies = strategy.map_or_else(|| vec![base.strategy.default], |s| s.0);
    if !first.preset.force {
        too_large_point(&plan, &points)?;
    }
    // The whole sweep, not only one point: points x strategies x each point's cost.
    let runs = points.len() * plan.strategies.len();
    let events: f64 = points
        .iter()
        .map(|p| plan.point_cost(p).events)
        .sum::<f64>()
        * plan.strategies.len() as f64;
    // Points play in parallel: a run's limit on each worker thread.
    let workers = rayon::current_num_threads().max(1);
    let limit = scenario::MAX_EVENTS * workers as f64;
    if events > limit && !first.preset.force {
        return Err(BadInput(format!(
            "{}: this sweep is too large: {} point(s) x {} strateg{} = {runs} runs, about \
             {events:.1e} events, more than {limit:.1e} ({:.0e} a run on each of {workers} \
             worker threads); vary fewer values, shorten --duration, or add --force to run it \
             anyway",
            base.source,
            points.len(),
            plan.strategies.len(),
            if plan.strategies.len() == 1 {
                "y"
            } else {
                "ies"
            },
            scenario::MAX_EVENTS
        ))
        .into());
    }
    progress::catch_ctrl_c();
    let bar = Progress::new((points.len() * plan.strategies.len()) as u64, "runs");
    let r = sweep::run(&plan, &points, Some(&bar));
    bar.finish();
    emit(&output.exporter().sweep(&r)?)?;
    if let Some((out, theme)) = chart {
        draw(&plot::sweep::figure(&r), out, theme)?;
    }
    if r.interrupted && !progress::interrupted() {
        return Err(BadInput(
            "a point stopped before its end (its requests in flight reached the most a run \
             may hold, or its clock stalled) and is left out; lower the load or narrow --vary"
                .into(),
        )
        .into());
    }
    finished(!r.interrupted, "only the points that finished")
}

/// The first sweep point beyond the cost estimate's limits, refused as `run` refuses it.
fn too_large_point(plan: &sweep::Plan, points: &[sweep::Point]) -> anyhow::Result<()> {
    for p in points {
        if let Some(why) = plan.point_cost(p).refusal() {
            return Err(BadInput(format!(
                "{}: the point {} is too large: {why}; narrow --vary, or add --force to run \
                 it anyway",
                p.scenario.source,
                plan.axes
                    .iter()
                    .zip(&p.values)
                    .map(|(axis, v)| format!("{}={v}", axis.path))
                    .collect::<Vec<_>>()
                    .join(" ")
            ))
            .into());
        }
    }
    Ok(())
}

/// A run that stopped making progress in simulated time is bad input: the scenario
/// livelocks (something is answered at once and retried at once).
fn no_stall(engine: &threadlab::sim::Engine) -> anyhow::Result<()> {
    match engine.stall_message() {
        Some(message) => Err(BadInput(format!("{}: {message}", engine.scenario().source)).into()),
        None => Ok(()),
    }
}

/// A run that stopped at its cap of requests in flight (`Engine::cap_message`) printed its
/// report marked partial; the message says why (exit 2, as the cost estimate's refusal).
fn stopped_at_cap(s: &Scenario, message: Option<String>) -> anyhow::Result<()> {
    match message {
        Some(message) => Err(BadInput(format!("{}: {message}", s.source)).into()),
        None => Ok(()),
    }
}

/// The live view plays until it is quit, not for a set time: a `--duration` would be
/// ignored, so it is refused.
fn refuse_duration_on_screen(command: &str, args: &PresetArgs) -> anyhow::Result<()> {
    match &args.duration {
        Some(_) => Err(BadInput(format!(
            "{command} --duration: the live view plays until you quit it (q), not for a set \
             time; drop --duration"
        ))
        .into()),
        None => Ok(()),
    }
}

/// `compare` plays every strategy: a `--strategy` would be ignored, so it is refused.
fn refuse_strategy_on_compare(strategy: Option<&str>) -> anyhow::Result<()> {
    if strategy.is_some() {
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
    progress::catch_ctrl_c();
    let run = real::run(&s, strategy, duration, real_args.options()).map_err(real_error)?;
    let r = RealReport::of(&s, &run);
    emit(&exporter.real_run(&s, &r)?)?;
    real_finished(std::slice::from_ref(&r))
}

fn compare_real(
    preset: &str,
    args: &ScenarioArgs,
    real_args: &RealArgs,
    exporter: &dyn Exporter,
) -> anyhow::Result<()> {
    let (s, _, duration) = load(preset, args)?;
    progress::catch_ctrl_c();
    let reports = real_compare(&s, duration, real_args.options())?;
    emit(&exporter.real_compare(&s, &reports)?)?;
    real_finished(&reports)
}

/// Every strategy run for real, one after another (see [`real::compare`]), as reports.
fn real_compare(
    s: &Scenario,
    duration: Nanos,
    options: RealOptions,
) -> anyhow::Result<Vec<RealReport>> {
    let runs = real::compare(s, duration, options).map_err(real_error)?;
    Ok(runs.iter().map(|run| RealReport::of(s, run)).collect())
}

/// After printing real runs: Ctrl-C made the last one partial (exit 130, as a simulated
/// run), else whether they kept up.
fn real_finished(reports: &[RealReport]) -> anyhow::Result<()> {
    if reports.iter().any(|r| r.interrupted) {
        return finished(
            false,
            "the real runs so far, the last one up to the scenario time it reached",
        );
    }
    fell_behind(reports)
}

/// Says on stderr which real runs could not keep up; then exit 3.
fn fell_behind(reports: &[RealReport]) -> anyhow::Result<()> {
    let mut behind = false;
    for r in reports {
        if let Some(warning) = r.pace.warning() {
            progress::say(format!("threadlab: warning: {}: {warning}", r.run.strategy));
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
        Some(st) => vec![st],
        None => Strategy::ALL.to_vec(),
    };
    let options = real_args.options();
    for &strategy in &strategies {
        real::check(&s, strategy, options).map_err(real_error)?;
    }
    progress::catch_ctrl_c();
    let mut passed = true;
    let mut reals = Vec::new();
    for strategy in strategies {
        let v = verify::verify(&s, strategy, duration, options, tolerance).map_err(real_error)?;
        emit(&v.table())?;
        if v.real.interrupted {
            return finished(
                false,
                "the strategies verified so far, the last one cut short",
            );
        }
        passed &= v.passed();
        reals.push(v.real);
    }
    // A real run that fell behind failed for this machine, not the model: exit 3, as `run`.
    fell_behind(&reals)?;
    if passed {
        Ok(())
    } else {
        Err(VerifyFailed(tolerance).into())
    }
}

/// Ctrl-C stopped the work; what finished was printed (exit 130).
#[derive(Debug)]
struct CommandInterrupted(String);

impl std::fmt::Display for CommandInterrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CommandInterrupted {}

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
    /// `--record`, `--keys`.
    demo: cli::DemoArgs,
}

impl Screen {
    /// The live view, of the engine or (with `real`) of a real run.
    fn live(view: ViewArgs, real: Option<RealOptions>) -> Self {
        Screen {
            view,
            tour: false,
            real,
            demo: cli::DemoArgs::default(),
        }
    }

    /// A preset's scripted tour, on the engine.
    fn tour(view: ViewArgs) -> Self {
        Screen {
            view,
            tour: true,
            real: None,
            demo: cli::DemoArgs::default(),
        }
    }
}

/// Opens the TUI on `preset` (default: the default preset); without a terminal, prints the
/// comparison the screen would have shown instead.
fn open_tui(preset: Option<&str>, args: &ScenarioArgs, screen: Screen) -> anyhow::Result<()> {
    let config = threadlab::config::load().map_err(|e| BadInput(e.to_string()))?;
    let preset = preset
        .or(config.preset.as_deref())
        .unwrap_or(scenario::DEFAULT_PRESET);
    let Screen {
        view,
        tour,
        real,
        demo,
    } = screen;
    let (s, strategy, duration) = load(preset, args)?;
    if tour {
        valid_expectations(&s)?;
    }
    if tour && s.tour.is_empty() {
        return Err(no_tour(&s));
    }
    if let Some(options) = real {
        // Refuse before the screen opens: the thread cap, unsupported features.
        real::check(&s, strategy, options).map_err(real_error)?;
    }
    let mut checked = demo.check(real.is_some())?;
    if !(std::io::stdout().is_terminal() && std::io::stdin().is_terminal()) {
        demo.refuse_without_terminal()?;
        return headless_instead_of_tui(&s, duration, real);
    }
    // Everything is checked: the screen opens in a guarded copy of this command, which
    // gives the terminal back even if the copy is killed (see `tui::guard`).
    if !tui::guard::guarded_copy() {
        drop(checked.record.take());
        match tui::guard::watch(demo.record.as_deref()) {
            Some(0) => return Ok(()),
            Some(code) => return Err(tui::guard::Ended(code).into()),
            // No copy could be started: the screen opens here, unguarded.
            None => checked = demo.check(real.is_some())?,
        }
    }
    let cli::Demo { script, record } = checked;
    let options = TuiOptions {
        fps: view.fps(&config),
        theme: view.theme(&config),
        tour,
        real,
        keys: config.keys,
        record,
        script,
        overrides: args.preset.set.clone(),
        lesson: None,
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
    let table = &export::Table;
    if let Some(options) = real {
        progress::say(format!(
            "threadlab: no terminal attached, so no live view; running every strategy for \
             real instead (about {:.1} s of wall time each at most)",
            duration.as_secs_f64() * options.time_scale
        ));
        progress::catch_ctrl_c();
        let reports = real_compare(s, duration, options)?;
        emit(&table.real_compare(s, &reports)?)?;
        return real_finished(&reports);
    }
    progress::say(
        "threadlab: no terminal attached, so no live view; here is the headless comparison \
         (open `threadlab tui` in a terminal, or see `threadlab --help`)",
    );
    let c = compare_output(s, duration, table, false, false)?;
    emit(&c.out)?;
    stopped_at_cap(s, c.capped)
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

/// Writes `text` to stdout: every byte the CLI prints goes through here. A reader that went
/// away (`| head`, `| true`) ends the command quietly ([`OutputClosed`], exit 0); any other
/// write error (a full disk) is an I/O error that names its cause (exit 1).
fn emit(text: &(impl AsRef<[u8]> + ?Sized)) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_ref()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(OutputClosed.into()),
        Err(e) => Err(anyhow::Error::new(e).context("cannot write the output to stdout")),
    }
}

/// Stdout was closed by its reader: the command stops without a word (exit 0).
#[derive(Debug)]
struct OutputClosed;

impl std::fmt::Display for OutputClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stdout was closed")
    }
}

impl std::error::Error for OutputClosed {}

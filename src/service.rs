//! The commands that model your own service: `import`, `tune`, `assert` and `export`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use threadlab::files::OutputFile;
use threadlab::import::{self, Fit, KeyOutcome};
use threadlab::progress;

use crate::{BadInput, emit};

/// What `import` reads.
#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// Spring Boot configuration (application.yml, .yaml, .properties; later files and
    /// documents win) to a preset; with --traces, latencies and load from telemetry too.
    Spring {
        /// The configuration files, in Spring Boot's order (later ones win).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Telemetry to take latencies and load from: OTLP/JSON, Zipkin v2 JSON or an access
        /// log (repeatable).
        #[arg(long = "traces", value_name = "FILE")]
        traces: Vec<PathBuf>,
        #[command(flatten)]
        common: ImportArgs,
    },
    /// Telemetry (OTLP/JSON, Zipkin v2 JSON, a Tomcat or nginx access log) to a preset; with
    /// --config, the pools and guards from Spring Boot configuration too.
    Traces {
        /// The telemetry files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Spring Boot configuration files to take the pools and guards from (repeatable).
        #[arg(long = "config", value_name = "FILE")]
        config: Vec<PathBuf>,
        #[command(flatten)]
        common: ImportArgs,
    },
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Write the preset to this file (the key report then goes to stdout); without it the
    /// preset goes to stdout and the report to stderr.
    #[arg(long, short = 'o', value_name = "PRESET.toml")]
    out: Option<PathBuf>,
    /// An active Spring profile (repeatable); default: the files' spring.profiles.active.
    #[arg(long = "profile", value_name = "NAME")]
    profiles: Vec<String>,
    /// The endpoint to model: a server span's name or an access log's `METHOD /path`
    /// (default: the most frequent).
    #[arg(long, value_name = "NAME")]
    endpoint: Option<String>,
    /// An access log's pattern: Tomcat's AccessLogValve (%D, %T, %{ms}T ...) or an nginx
    /// log_format with $request_time (default: Tomcat's common with %D, or nginx's combined
    /// with $request_time, whichever fits).
    #[arg(long, value_name = "PATTERN")]
    log_format: Option<String>,
    /// How latencies are written: the measured quantile table, or a fitted log-normal or
    /// gamma (the fit's error is printed).
    #[arg(long, default_value = "table", value_parser = ["table", "lognormal", "gamma"])]
    fit: String,
    /// The scenario's name (default: the endpoint's).
    #[arg(long)]
    name: Option<String>,
    /// The service's cores (Runtime.availableProcessors()), 1..=1024.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=1024))]
    cores: u32,
    /// Simulated time the preset plays.
    #[arg(long, default_value = "60s")]
    duration: String,
    /// The offered rate per second, when the telemetry's (what was served) is not it.
    #[arg(long)]
    rate: Option<f64>,
    /// The strategy (default: what the configuration implies).
    #[arg(long, value_parser = ["sequential", "shared", "bulkhead", "unbounded", "semaphore"])]
    strategy: Option<String>,
}

/// `import spring|traces`.
pub fn import(command: ImportCommand) -> anyhow::Result<()> {
    let (spring, telemetry, args) = match command {
        ImportCommand::Spring {
            files,
            traces,
            common,
        } => (files, traces, common),
        ImportCommand::Traces {
            files,
            config,
            common,
        } => (config, files, common),
    };
    if let Some(r) = args.rate
        && !(r > 0.0 && r <= 1_000_000.0)
    {
        return Err(BadInput(format!("--rate {r}: allowed > 0 and <= 1000000 per second")).into());
    }
    threadlab::scenario::parse_duration(&args.duration)
        .map_err(|e| BadInput(format!("--duration {:?}: {e}", args.duration)))?;
    let opts = import::Options {
        spring,
        telemetry,
        profiles: args.profiles,
        endpoint: args.endpoint,
        log_format: args.log_format,
        fit: Fit::from_name(&args.fit).unwrap_or_default(),
        name: args.name,
        cores: args.cores,
        duration: args.duration,
        rate: args.rate,
        strategy: args.strategy,
    };
    let imported = import::import(&opts).map_err(|e| BadInput(e.to_string()))?;
    let mut report = String::new();
    for k in &imported.keys {
        report.push_str(&format!("{k}\n"));
    }
    let mapped = imported
        .keys
        .iter()
        .filter(|k| matches!(k.outcome, KeyOutcome::Mapped(_)))
        .count();
    report.push_str(&format!(
        "{} keys: {mapped} mapped, {} not modelled, {} replaced or not read\n",
        imported.keys.len(),
        imported
            .keys
            .iter()
            .filter(|k| matches!(k.outcome, KeyOutcome::NotModelled(_)))
            .count(),
        imported.keys.len()
            - mapped
            - imported
                .keys
                .iter()
                .filter(|k| matches!(k.outcome, KeyOutcome::NotModelled(_)))
                .count(),
    ));
    for n in &imported.notes {
        report.push_str(&format!("note: {n}\n"));
    }
    match &args.out {
        Some(path) => {
            let out = OutputFile::check(Some("--out"), path).map_err(crate::output_error)?;
            out.write(|w| w.write_all(imported.preset.as_bytes()))
                .map_err(crate::output_error)?;
            report.push_str(&format!(
                "wrote {} (threadlab check it, run it, tune it)\n",
                path.display()
            ));
            emit(&report)
        }
        None => {
            progress::say(report.trim_end());
            emit(&imported.preset)
        }
    }
}

/// `tune`'s flags.
#[derive(Debug, Args)]
pub struct TuneArgs {
    /// A built-in preset (see `threadlab presets`) or a path to a .toml file.
    preset: String,
    /// A goal (repeatable): p99<=800ms, goodput>=99% (of the requests sent), failures<=0.1%
    /// (of the requests completed), recovers<=30s (after the last load phase or --spike), or
    /// PATH<=N / PATH>=N on any figure of `run --format json`.
    #[arg(long, required = true, value_name = "GOAL")]
    goal: Vec<String>,
    /// What to vary: PATH=a..b:step, PATH=a..b*factor or PATH=a,b,c (as sweep); twice for a
    /// grid.
    #[arg(long, required = true, value_name = "PATH=SPEC")]
    vary: Vec<String>,
    /// What to minimise: `settings` (the sum of the varied values), `threads` (every pool's
    /// max, Tomcat's included), `memory` (thread stacks at the peak) or a report path.
    #[arg(
        long,
        visible_alias = "minimize",
        default_value = "settings",
        value_name = "COST"
    )]
    minimise: String,
    /// Add a load spike: FACTORxDURATION@AT, e.g. 3x10s@30s (the open rate or the closed
    /// clients times FACTOR from AT for DURATION).
    #[arg(long, value_name = "SPIKE")]
    spike: Option<String>,
    /// Play every point of the grid rather than refine a coarse one.
    #[arg(long)]
    exhaustive: bool,
    /// Seeds the winner is verified on (its own and the next ones), 1..=20.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=20))]
    verify_seeds: u32,
    /// Strategy (default: the preset's).
    #[arg(long, value_parser = crate::strategy_arg())]
    strategy: Option<threadlab::scenario::Strategy>,
    #[command(flatten)]
    preset_args: crate::PresetArgs,
    /// Also draw the Pareto front (cost against the first goal) to FILE.svg or FILE.png.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
}

/// Goals that failed: exit 1 with the figures.
#[derive(Debug)]
pub struct GoalsFailed(pub String);

impl std::fmt::Display for GoalsFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GoalsFailed {}

fn goals(texts: &[String]) -> anyhow::Result<Vec<threadlab::tune::Goal>> {
    texts
        .iter()
        .map(|g| threadlab::tune::Goal::parse(g).map_err(|e| BadInput(e).into()))
        .collect()
}

/// `--spike 3x10s@30s` as the `--set` of two load phases.
fn spike_sets(preset: &str, sets: &[String], spike: &str) -> anyhow::Result<String> {
    use threadlab::scenario::LoadMode;
    let bad = |why: &str| {
        BadInput(format!(
            "--spike {spike:?}: {why}; write it as FACTORxDURATION@AT, e.g. 3x10s@30s"
        ))
    };
    let (factor, rest) = spike.split_once('x').ok_or_else(|| bad("no x"))?;
    let (length, at) = rest.split_once('@').ok_or_else(|| bad("no @"))?;
    let factor: f64 = factor
        .parse()
        .ok()
        .filter(|f: &f64| *f > 0.0 && f.is_finite())
        .ok_or_else(|| bad("the factor is not a number above 0"))?;
    let d = threadlab::scenario::parse_duration(length).map_err(|e| bad(&e.to_string()))?;
    let t = threadlab::scenario::parse_duration(at).map_err(|e| bad(&e.to_string()))?;
    let s = threadlab::scenario::load(preset, sets).map_err(|e| BadInput(e.to_string()))?;
    if !s.load.phases.is_empty() {
        return Err(bad("the preset has load phases already").into());
    }
    let (a, b) = (t.as_secs_f64(), (t + d).as_secs_f64());
    Ok(match s.load.mode {
        LoadMode::Open { rate, .. } => format!(
            "load.phases=[{{ at = \"{a}s\", rate = {} }}, {{ at = \"{b}s\", rate = {rate} }}]",
            rate * factor
        ),
        LoadMode::Closed { clients, .. } => format!(
            "load.phases=[{{ at = \"{a}s\", clients = {} }}, {{ at = \"{b}s\", clients = {clients} }}]",
            ((f64::from(clients) * factor).round() as u64).max(1)
        ),
        _ => return Err(bad("only an open or closed load can spike").into()),
    })
}

/// `tune`.
pub fn tune(args: TuneArgs) -> anyhow::Result<()> {
    let goals = goals(&args.goal)?;
    let axes = args
        .vary
        .iter()
        .map(|v| threadlab::sweep::parse_vary(v))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| BadInput(e.to_string()))?;
    let mut set = args.preset_args.set.clone();
    if let Some(spike) = &args.spike {
        set.push(spike_sets(&args.preset, &set, spike)?);
    }
    let chart = crate::plot_output(args.plot.as_deref())?;
    let plan = threadlab::tune::TunePlan {
        preset: args.preset.clone(),
        set,
        seed: args.preset_args.seed,
        duration: crate::duration_arg(&args.preset_args)?,
        strategy: args.strategy,
        axes,
        goals,
        cost: threadlab::tune::Minimise::parse(&args.minimise),
        exhaustive: args.exhaustive,
        verify_seeds: args.verify_seeds,
    };
    let total: usize = plan.axes.iter().map(|a| a.values.len()).product();
    if total > threadlab::sweep::MAX_POINTS {
        return Err(BadInput(format!(
            "--vary: {total} points, more than {}",
            threadlab::sweep::MAX_POINTS
        ))
        .into());
    }
    plan.check().map_err(|e| BadInput(e.to_string()))?;
    threadlab::progress::catch_ctrl_c();
    let bar = threadlab::progress::Progress::new(total as u64, "points");
    let tuned = threadlab::tune::run(&plan, Some(&bar));
    bar.finish();
    emit(&threadlab::tune::table(&tuned))?;
    if let Some(out) = chart {
        crate::draw(
            &threadlab::tune::figure(&tuned),
            out,
            threadlab::plot::ChartTheme::Light,
        )?;
    }
    if tuned.interrupted {
        return crate::finished(false, "the points played so far");
    }
    if tuned.winner.is_none() {
        return Err(GoalsFailed(
            "no setting in the range meets every goal (the closest is shown)".into(),
        )
        .into());
    }
    Ok(())
}

/// `assert`'s flags.
#[derive(Debug, Args)]
pub struct AssertArgs {
    /// A built-in preset (see `threadlab presets`) or a path to a .toml file.
    preset: String,
    /// A goal (repeatable), as for tune: p99<=800ms, goodput>=99%, failures<=0.1%, ...
    #[arg(long, required = true, value_name = "GOAL")]
    goal: Vec<String>,
    #[command(flatten)]
    scenario: crate::ScenarioArgs,
}

/// `assert`: plays the preset once and checks every goal; exit 1 when one fails.
pub fn assert(args: AssertArgs) -> anyhow::Result<()> {
    let goals = goals(&args.goal)?;
    let (s, strategy, duration) = crate::load(&args.preset, &args.scenario)?;
    if goals.iter().any(threadlab::tune::Goal::needs_phase) && s.load.phases.is_empty() {
        return Err(
            BadInput("recovers: the preset has no [[load.phases]] to recover from".into()).into(),
        );
    }
    threadlab::progress::catch_ctrl_c();
    let engine = threadlab::sim::Engine::new(&s, strategy).unwatched();
    let (engine, complete) = threadlab::progress::play_engine(
        engine,
        duration,
        None,
        &mut threadlab::progress::unobserved,
    );
    crate::no_stall(&engine)?;
    crate::finished(complete, "the run was cut short")?;
    let report = serde_json::to_value(threadlab::report::RunReport::new(&s, &engine))?;
    let (phases, offered) = threadlab::tune::phases_of(&s);
    let mut out = format!(
        "assert {} ({strategy}, seed {}, {} simulated):\n",
        s.source, s.seed, duration
    );
    let mut failed = Vec::new();
    for g in &goals {
        let x = g.measure(&report, phases, offered);
        let shown = x.map_or_else(
            || "-".to_owned(),
            |x| {
                if x.is_infinite() {
                    "never".into()
                } else {
                    format!("{x:.2}")
                }
            },
        );
        let ok = x.is_some_and(|x| g.holds(x));
        out.push_str(&format!(
            "{} {}: {} is {shown}\n",
            if ok { "PASS" } else { "FAIL" },
            g.text,
            g.label
        ));
        if !ok {
            failed.push(format!("{} ({} is {shown})", g.text, g.label));
        }
    }
    emit(&out)?;
    if failed.is_empty() {
        Ok(())
    } else {
        Err(GoalsFailed(format!("goal failed: {}", failed.join(", "))).into())
    }
}

/// What `export` writes.
#[derive(Debug, Subcommand)]
pub enum ExportCommand {
    /// A preset's (or a tuned result's: add the --set lines tune prints) settings as Spring
    /// Boot and resilience4j properties, application.yml.
    Spring {
        /// A built-in preset (see `threadlab presets`) or a path to a .toml file.
        preset: String,
        /// Override a preset value: key.path=value (repeatable), as for run.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
}

/// `export spring`.
pub fn export(command: ExportCommand) -> anyhow::Result<()> {
    let ExportCommand::Spring { preset, set } = command;
    let s = threadlab::scenario::load(&preset, &set).map_err(|e| BadInput(e.to_string()))?;
    emit(&threadlab::export_spring::to_yaml(&s))
}

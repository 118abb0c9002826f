//! The commands that model your own service: `import`, `tune`, `assert` and `export`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use threadlab::import::{self, Fit, Outcome};

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
        .filter(|k| matches!(k.outcome, Outcome::Mapped(_)))
        .count();
    report.push_str(&format!(
        "{} keys: {mapped} mapped, {} not modelled, {} replaced or not read\n",
        imported.keys.len(),
        imported
            .keys
            .iter()
            .filter(|k| matches!(k.outcome, Outcome::NotModelled(_)))
            .count(),
        imported.keys.len()
            - mapped
            - imported
                .keys
                .iter()
                .filter(|k| matches!(k.outcome, Outcome::NotModelled(_)))
                .count(),
    ));
    for n in &imported.notes {
        report.push_str(&format!("note: {n}\n"));
    }
    match &args.out {
        Some(path) => {
            std::fs::write(path, &imported.preset)
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
            report.push_str(&format!(
                "wrote {} (threadlab check it, run it, tune it)\n",
                path.display()
            ));
            emit(&report)
        }
        None => {
            eprint!("{report}");
            emit(&imported.preset)
        }
    }
}

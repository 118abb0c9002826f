//! Importing a service: Spring Boot configuration files (`application.yml`, `.properties`)
//! and telemetry (OTLP/JSON or Zipkin v2 traces, Tomcat or nginx access logs) turned into a
//! preset, with a line for every key of the configuration: what it became, or why it is not
//! modelled. The preset is TOML text with the source of each number beside it, and it is
//! loaded back before it is handed out, so an import never writes a preset `check` refuses.

mod access_log;
pub mod binding;
mod convert;
pub mod draft;
pub mod fit;
pub mod source;
mod spans;
pub mod spring;
pub mod telemetry;

use std::fmt;
use std::path::PathBuf;

pub use access_log::{NGINX_DEFAULT, TOMCAT_DEFAULT};
pub use convert::duration as spring_duration;
use draft::{Draft, quote};
pub use fit::Fit;
use telemetry::Telemetry;

use crate::scenario::{self, Scenario};

/// Bad input: the file, the line and the key when known, and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportError {
    pub file: String,
    pub line: Option<usize>,
    pub key: Option<String>,
    pub message: String,
}

impl ImportError {
    pub fn file(file: &str, message: impl Into<String>) -> Self {
        ImportError {
            file: file.to_owned(),
            line: None,
            key: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(key) = &self.key {
            write!(f, ": {key}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ImportError {}

/// What became of one key of the input.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyOutcome {
    /// The preset field(s) it set.
    Mapped(String),
    NotModelled(String),
    /// A later file or document set it again (there).
    Replaced(String),
    /// Its document is for a profile that is not active.
    Inactive(String),
}

/// One key of the input and what became of it.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyLine {
    pub file: String,
    pub line: usize,
    pub key: String,
    pub value: String,
    pub outcome: KeyOutcome,
}

impl KeyLine {
    pub fn of(e: &source::ConfigEntry, outcome: KeyOutcome) -> KeyLine {
        KeyLine {
            file: e.file.clone(),
            line: e.line,
            key: e.key.clone(),
            value: e.value.clone(),
            outcome,
        }
    }
}

impl fmt::Display for KeyLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = format!("{}:{}", self.file, self.line);
        let what = match &self.outcome {
            KeyOutcome::Mapped(to) => format!("-> {to}"),
            KeyOutcome::NotModelled(why) => format!("not modelled: {why}"),
            KeyOutcome::Replaced(at) => format!("replaced by {at}"),
            KeyOutcome::Inactive(why) => format!("not read: {why}"),
        };
        write!(f, "{at}  {} = {}  {what}", self.key, self.value)
    }
}

/// What to import and how.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub spring: Vec<PathBuf>,
    pub telemetry: Vec<PathBuf>,
    /// Active profiles (`spring.profiles.active`); none: the files' own.
    pub profiles: Vec<String>,
    /// The endpoint to rebuild (`GET /dashboard`); none: the most frequent.
    pub endpoint: Option<String>,
    /// An access log's pattern (Tomcat's or nginx's).
    pub log_format: Option<String>,
    pub fit: Fit,
    pub name: Option<String>,
    pub cores: u32,
    pub duration: String,
    /// The offered rate, when the telemetry's (served) rate is not it.
    pub rate: Option<f64>,
    pub strategy: Option<String>,
}

/// An import's result: the preset's text, each key's line, notes on what was measured or
/// assumed, and the preset loaded.
#[derive(Debug)]
pub struct Imported {
    pub preset: String,
    pub keys: Vec<KeyLine>,
    pub notes: Vec<String>,
    pub scenario: Scenario,
}

/// Reads every file and writes the preset.
pub fn import(opts: &Options) -> Result<Imported, ImportError> {
    let mut docs = Vec::new();
    for path in &opts.spring {
        docs.extend(source::read_spring_file(path)?);
    }
    let bound = binding::bind(&docs, &opts.profiles);
    let mut notes = Vec::new();
    let telemetry = read_telemetry(opts, &mut notes)?;
    let mut d = Draft::default();
    let sources: Vec<String> = opts
        .spring
        .iter()
        .chain(&opts.telemetry)
        .map(|p| p.display().to_string())
        .collect();
    d.header.push(format!(
        "Written by `threadlab import` from {}.",
        sources.join(", ")
    ));
    d.header.push(
        "Each number says where it came from; edit freely, then `threadlab check` it.".into(),
    );
    let name = opts
        .name
        .clone()
        .or_else(|| telemetry.as_ref().map(|t| t.endpoint.clone()))
        .unwrap_or_else(|| "my-service".into());
    d.scenario.set("name", quote(&name), "");
    d.scenario.set("duration", quote(&opts.duration), "");
    d.scenario.set(
        "cores",
        opts.cores.to_string(),
        "Runtime.availableProcessors()",
    );
    services(&mut d, telemetry.as_ref(), &bound, opts.fit, &mut notes);
    let (shape, keys) = spring::apply(&bound, &mut d, opts.cores)?;
    load(&mut d, telemetry.as_ref(), opts, &mut notes);
    strategy(&mut d, &shape, telemetry.as_ref(), opts, &mut notes);
    let text = d.to_toml();
    let source = format!("import of {}", sources.join(", "));
    let scenario = scenario::parse(&source, &text, &[]).map_err(|e| blame(&d, &e))?;
    Ok(Imported {
        preset: text,
        keys,
        notes,
        scenario,
    })
}

/// A preset the validator refused, blamed on the key or measurement behind the field.
fn blame(d: &Draft, e: &scenario::ScenarioError) -> ImportError {
    let path = e.path().unwrap_or_default();
    let found = d
        .paths()
        .into_iter()
        .find(|(p, _)| path.starts_with(p.as_str()));
    match found {
        Some((_, f)) if !f.from.is_empty() => {
            let (at, key) = f.from.split_once(' ').unwrap_or((f.from.as_str(), ""));
            let (file, line) = at.rsplit_once(':').unwrap_or((at, ""));
            ImportError {
                file: file.to_owned(),
                line: line.parse().ok(),
                key: (!key.is_empty()).then(|| key.to_owned()),
                message: format!("gives a preset threadlab refuses: {e}"),
            }
        }
        _ => ImportError::file("import", format!("gives a preset threadlab refuses: {e}")),
    }
}

fn read_telemetry(
    opts: &Options,
    notes: &mut Vec<String>,
) -> Result<Option<Telemetry>, ImportError> {
    let mut traced: Option<Telemetry> = None;
    let mut logged: Option<Telemetry> = None;
    for path in &opts.telemetry {
        let file = path.display().to_string();
        let text = source::read_text(path)?;
        let json = text.trim_start().starts_with(['{', '[']);
        if json {
            let (format, spans) = spans::read(&file, &text)?;
            let t = telemetry::from_spans(
                &format!("{file} ({})", format.name()),
                &spans,
                opts.endpoint.as_deref(),
            )
            .map_err(|m| ImportError::file(&file, m))?;
            notes.push(format!(
                "{}: {} spans, {} requests of {:?} at {:.2}/s; calls {} in {} of them",
                t.source,
                spans.len(),
                t.requests,
                t.endpoint,
                t.rate,
                stages_text(&t.stages),
                t.stages_seen
            ));
            traced.get_or_insert(t);
        } else {
            let t = access_log::read(
                &file,
                &text,
                opts.log_format.as_deref(),
                opts.endpoint.as_deref(),
            )?;
            notes.push(format!(
                "{}: {} requests of {:?} at {:.2}/s",
                t.source, t.requests, t.endpoint, t.rate
            ));
            logged.get_or_insert(t);
        }
    }
    Ok(match (traced, logged) {
        // Traces give the calls; the log, when given too, the rate of every request.
        (Some(mut t), Some(l)) => {
            t.rate = l.rate;
            t.source = format!("{}; rate from {}", t.source, l.source);
            Some(t)
        }
        (t, l) => t.or(l),
    })
}

/// `[user] then [orders + recommendations]`
pub fn stages_text(stages: &[Vec<String>]) -> String {
    let parts: Vec<String> = stages
        .iter()
        .map(|s| format!("[{}]", s.join(" + ")))
        .collect();
    parts.join(" then ")
}

/// The services, their latencies and failures: from telemetry, else resilience4j's
/// instance names with an assumed latency, else one piece of work.
fn services(
    d: &mut Draft,
    t: Option<&Telemetry>,
    bound: &binding::Bound,
    fit: Fit,
    notes: &mut Vec<String>,
) {
    if let Some(t) = t {
        for calls in &t.services {
            let (latency, how) = fit::latency(&calls.latencies_ms, fit);
            notes.push(format!("{}: {how}", calls.name));
            let s = d.service_mut(&calls.name);
            s.own
                .set("latency", latency, format!("{how} ({})", t.source));
            let n = calls.latencies_ms.len().max(1);
            let share = calls.failures as f64 / n as f64;
            s.own.set(
                "failure",
                format!("{share}"),
                format!("{} of {n} calls failed", calls.failures),
            );
        }
        d.stages = t.stages.clone();
        d.stages_from = format!(
            "{} of {} requests ({})",
            t.stages_seen, t.requests, t.source
        );
        return;
    }
    let mut names = spring::instances(bound);
    if names.is_empty() {
        names.push("handler".into());
    }
    for n in &names {
        d.service_mut(n).own.set(
            "latency",
            quote("100ms"),
            "assumed: no telemetry says how long a call takes",
        );
    }
    notes.push(
        "no telemetry: every call takes 100 ms, assumed (import traces or an access log too)"
            .into(),
    );
    d.stages = vec![names];
    d.stages_from = "every service at once: no telemetry says how they are called".into();
}

fn load(d: &mut Draft, t: Option<&Telemetry>, opts: &Options, notes: &mut Vec<String>) {
    d.load.set("mode", quote("open"), "Poisson arrivals");
    match (opts.rate, t) {
        (Some(r), _) => d.load.set("rate", convert::toml_number(r), "--rate"),
        (None, Some(t)) if t.rate > 0.0 => {
            let r = (t.rate * 1000.0).round() / 1000.0;
            d.load.set(
                "rate",
                convert::toml_number(r),
                format!(
                    "{} requests over the file's time ({})",
                    t.requests, t.source
                ),
            );
            notes.push(format!(
                "rate {r}/s is what the server answered; if it was saturated the offered rate was higher: give --rate"
            ));
        }
        _ => {
            d.load
                .set("rate", "10.0", "assumed: no telemetry gives the rate");
            notes.push("no rate in the input: 10/s assumed (give --rate)".into());
        }
    }
}

/// The strategy the configuration implies, and the `@Async` pool's services and defaults.
fn strategy(
    d: &mut Draft,
    shape: &spring::Shape,
    t: Option<&Telemetry>,
    opts: &Options,
    notes: &mut Vec<String>,
) {
    let fanned = d.stages.iter().any(|s| s.len() > 1);
    let (name, why) = if let Some(s) = &opts.strategy {
        (s.clone(), "--strategy".to_owned())
    } else if !shape.thread_pool_bulkheads.is_empty() || shape.task_pool {
        (
            "bulkhead".into(),
            "resilience4j thread-pool bulkheads or spring.task.execution pools".into(),
        )
    } else if !shape.semaphore_bulkheads.is_empty() {
        (
            "semaphore".into(),
            "resilience4j (semaphore) bulkheads".into(),
        )
    } else if shape.virtual_threads && fanned {
        (
            "unbounded".into(),
            "spring.threads.virtual.enabled: a virtual thread per call".into(),
        )
    } else if fanned && !t.is_some_and(|t| t.whole_endpoint) {
        (
            "shared".into(),
            "calls fan out with no executor configured: supplyAsync's common pool".into(),
        )
    } else {
        (
            "sequential".into(),
            "the request thread makes every call".into(),
        )
    };
    notes.push(format!("strategy {name}: {why}"));
    d.strategy.set("use", quote(&name), why);
    if shape.task_pool {
        let rest: Vec<String> = d
            .services
            .iter()
            .map(|s| s.name.clone())
            .filter(|n| !shape.thread_pool_bulkheads.contains(n))
            .collect();
        let pool = &mut d.bulkhead_mut(spring::TASK_POOL).table;
        let list: Vec<String> = rest.iter().map(|n| quote(n)).collect();
        pool.set(
            "services",
            format!("[{}]", list.join(", ")),
            "the calls no resilience4j pool takes (@Async)",
        );
        for (field, value, why) in [
            ("core", "8", "Spring's default"),
            (
                "max",
                "100000",
                "Spring's default Integer.MAX_VALUE, threadlab's most",
            ),
            (
                "queue",
                "10000000",
                "Spring's default Integer.MAX_VALUE, threadlab's most",
            ),
            ("keep_alive", "\"60s\"", "Spring's default"),
        ] {
            if pool.get(field).is_none() {
                pool.set(field, value, why);
            }
        }
        if rest.is_empty() {
            d.bulkheads.retain(|b| b.name != spring::TASK_POOL);
        }
    }
    // HikariCP's pool is borrowed by the services that are databases.
    if !d.resources.is_empty() {
        for s in &mut d.services {
            let db = [
                "db",
                "database",
                "postgresql",
                "mysql",
                "mariadb",
                "oracle",
                "mssql",
                "h2",
            ];
            if db.contains(&s.name.to_ascii_lowercase().as_str()) {
                s.own.set(
                    "uses",
                    quote(spring::DB_RESOURCE),
                    "a database call borrows a HikariCP connection",
                );
            }
        }
    }
}

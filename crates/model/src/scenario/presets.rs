//! Built-in presets (embedded so an installed binary has them) and the loading entry points:
//! preset name or path + `--set` overrides -> validated [`Scenario`].
//!
//! To add a preset: write `presets/<name>.toml` and add a line to [`BUILTIN`].

use std::path::Path;

use super::error::ScenarioError;
use super::limits::elide;
use super::model::Scenario;
use super::overrides::{self, Applied};
use super::raw::RawPreset;
use super::trace::{read_limited, utf8_text};
use super::validate::validate;

/// The preset `threadlab` opens without arguments.
pub const DEFAULT_PRESET: &str = "ironthread";

/// Name and text of every built-in preset, in listing order.
const BUILTIN: &[(&str, &str)] = &[
    (
        "ironthread",
        include_str!("../../../../presets/ironthread.toml"),
    ),
    (
        "tomcat-ceiling",
        include_str!("../../../../presets/tomcat-ceiling.toml"),
    ),
    (
        "erlang-c",
        include_str!("../../../../presets/erlang-c.toml"),
    ),
    (
        "executor-vs-threads",
        include_str!("../../../../presets/executor-vs-threads.toml"),
    ),
    (
        "bounded-pool",
        include_str!("../../../../presets/bounded-pool.toml"),
    ),
    (
        "forkjoin-trap",
        include_str!("../../../../presets/forkjoin-trap.toml"),
    ),
    (
        "bulkhead-containment",
        include_str!("../../../../presets/bulkhead-containment.toml"),
    ),
    (
        "virtual-threads",
        include_str!("../../../../presets/virtual-threads.toml"),
    ),
    ("pinning", include_str!("../../../../presets/pinning.toml")),
    (
        "connection-pool",
        include_str!("../../../../presets/connection-pool.toml"),
    ),
    (
        "overload",
        include_str!("../../../../presets/overload.toml"),
    ),
    ("spike", include_str!("../../../../presets/spike.toml")),
    (
        "metastable",
        include_str!("../../../../presets/metastable.toml"),
    ),
    (
        "circuit-breaker",
        include_str!("../../../../presets/circuit-breaker.toml"),
    ),
    (
        "jvm-pauses",
        include_str!("../../../../presets/jvm-pauses.toml"),
    ),
];

/// One line of `threadlab presets`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresetSummary {
    pub name: &'static str,
    /// The preset's `[scenario] about`.
    pub about: String,
}

/// The TOML text of a built-in preset; names are matched case-insensitively.
pub fn builtin(name: &str) -> Option<&'static str> {
    BUILTIN
        .iter()
        .find(|(builtin, _)| builtin.eq_ignore_ascii_case(name))
        .map(|(_, text)| *text)
}

/// The names of the built-in presets, in listing order.
pub fn builtin_names() -> impl Iterator<Item = &'static str> {
    BUILTIN.iter().map(|(name, _)| *name)
}

/// Every built-in preset with its one-line description, for `threadlab presets`.
pub fn builtin_summaries() -> Vec<PresetSummary> {
    BUILTIN
        .iter()
        .map(|(name, text)| PresetSummary {
            name,
            about: about(text),
        })
        .collect()
}

/// Loads a built-in preset by name or a preset file by path, applies `--set` overrides and
/// validates. `preset` is a path if it contains `/`, ends with `.toml` or names a file.
pub fn load(preset: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    // The name or path is echoed in every message and report: no escape sequences.
    if let Some(at) = preset.chars().position(char::is_control) {
        return Err(ScenarioError::Invalid {
            origin: "preset".to_owned(),
            path: format!("character {}", at + 1),
            value: format!("{:?}", elide(preset, 80)),
            reason: "is a control character: give a plain name or path".to_owned(),
        });
    }
    let is_path = preset.contains('/') || preset.ends_with(".toml") || Path::new(preset).is_file();
    if is_path {
        let bytes = read_limited(Path::new(preset))?;
        return parse(preset, utf8_text(preset, &bytes)?, overrides);
    }
    match builtin(preset) {
        Some(text) => parse(&preset.to_ascii_lowercase(), text, overrides),
        None => Err(ScenarioError::UnknownPreset {
            name: preset.to_owned(),
            known: builtin_names().collect::<Vec<_>>().join(", "),
        }),
    }
}

/// Parses preset `text` (from `source`, a path or preset name used in messages), applies
/// `--set` overrides and validates. An error about a value an override set names the override.
pub fn parse(source: &str, text: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let mut table: toml::Table =
        text.parse()
            .map_err(|error: toml::de::Error| ScenarioError::Syntax {
                origin: source.to_owned(),
                message: printable(error.to_string().trim_end()),
            })?;
    let applied = overrides::apply(&mut table, overrides)?;
    let blame = |error: ScenarioError| blame_override(error, source, &applied);
    let raw: RawPreset = serde_path_to_error::deserialize(table).map_err(|error| {
        blame(ScenarioError::Schema {
            origin: source.to_owned(),
            path: error.path().to_string(),
            message: plain_types(error.inner().message()),
        })
    })?;
    validate(raw, source).map_err(blame)
}

/// The parser's message quotes the offending line: escape its control characters (an escape
/// sequence in the file must not drive the terminal) and cut very long lines.
fn printable(message: &str) -> String {
    message
        .lines()
        .map(|line| {
            let mut escaped = String::with_capacity(line.len());
            for c in line.chars() {
                if c.is_control() {
                    escaped.extend(c.escape_unicode());
                } else {
                    escaped.push(c);
                }
            }
            elide(&escaped, 200)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Names the last override that set the erroneous field, if one did.
fn blame_override(error: ScenarioError, source: &str, applied: &[Applied]) -> ScenarioError {
    let culprit = error
        .path()
        .and_then(|path| applied.iter().rev().find(|a| a.touches(path)));
    match culprit {
        Some(applied) => {
            let origin = format!("{source} with --set {}", elide(&applied.spec, 80));
            error.with_origin(origin)
        }
        None => error,
    }
}

/// serde names Rust types (`expected i64`, `expected struct RawBulkhead`, `invalid type:
/// integer`); say what a preset writes instead.
pub fn plain_types(message: &str) -> String {
    let message = without_struct_names(message);
    let mut message = message
        .replace("expected i64", "expected an integer")
        .replace("expected u64", "expected an integer")
        .replace("expected u32", "expected an integer")
        .replace("expected f64", "expected a number")
        .replace("expected a sequence", "expected an array")
        .replace("expected a map", "expected a table")
        .replace("expected a boolean", "expected true or false");
    for (serde, words) in [
        ("invalid type: integer", "got the integer"),
        ("invalid type: floating point", "got the number"),
        ("invalid type: string", "got the string"),
        ("invalid type: boolean", "got the boolean"),
        ("invalid type: sequence", "got an array"),
        ("invalid type: map", "got a table"),
        ("invalid type: ", "got "),
        ("invalid length ", "got an array of length "),
        ("invalid value: ", "got "),
    ] {
        message = message.replace(serde, words);
    }
    // What serde says is expected (the fields a table allows, a variant's names, a type) is
    // the schema's, and all of it answers a misspelt field: only what the file wrote is cut.
    match message.split_once(EXPECTED) {
        Some((wrote, allowed)) => {
            format!("{}{EXPECTED}{}", elide(wrote, 300), elide(allowed, 1_000))
        }
        None => elide(&message, 300),
    }
}

/// Where serde's message turns from what was written to what is expected.
const EXPECTED: &str = ", expected ";

/// `struct RawService with 9 elements` and `struct RawBulkhead` become `a table`.
fn without_struct_names(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("struct ") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "struct ".len()..];
        let name_end = after
            .find(|c: char| !c.is_alphanumeric() && c != '_')
            .unwrap_or(after.len());
        let mut tail = &after[name_end..];
        if let Some(more) = tail.strip_prefix(" with ")
            && let Some(end) = more.find(" element")
        {
            let words = &more[end..];
            let skip = if words.starts_with(" elements") { 9 } else { 8 };
            tail = &more[end + skip..];
        }
        out.push_str("a table");
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// `[scenario] about` of a preset text, or empty if it has none.
fn about(text: &str) -> String {
    text.parse::<toml::Table>()
        .ok()
        .and_then(|table| {
            let about = table.get("scenario")?.get("about")?.as_str()?;
            Some(about.to_owned())
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::test_support::{BASE, assert_mentions};
    use crate::scenario::{
        BulkheadPool, Endpoint, Jdk, Latency, Load, LoadMode, RejectionPolicy, Server,
        ServerThreads, Service, ServiceId, Strategy, StrategyConfig,
    };
    use crate::time::Nanos;

    fn service(name: &str, millis: u64) -> Service {
        Service::plain(name, Latency::Fixed(Nanos::from_millis(millis)))
    }

    #[test]
    fn a_syntax_error_quotes_its_line_with_control_characters_escaped() {
        let error = parse("x.toml", "a = \u{1b}[2J oops\n", &[]).expect_err("not TOML");
        let message = error.to_string();
        assert!(message.contains("x.toml: invalid TOML"), "{message}");
        assert!(message.contains("line 1"), "{message}");
        assert!(!message.contains('\u{1b}'), "{message:?}");
    }

    #[test]
    fn ironthread_parses_to_the_expected_model() {
        let s = load("ironthread", &[]).expect("the default preset is valid");
        let recommendations = Service {
            failure: 0.2,
            fallback: Some("Recs:Fallback".to_owned()),
            ..service("recommendations", 1000)
        };
        let expected = Scenario {
            faults: Vec::new(),
            jvm: crate::scenario::Jvm::default(),
            source: "ironthread".to_owned(),
            name: "IronThread".to_owned(),
            about: s.about.clone(),
            seed: 10,
            duration: Nanos::from_secs(60),
            cores: 11,
            jdk: Jdk::V21,
            load: Load {
                mode: LoadMode::Runs { count: 5 },
                timeout: None,
                link: crate::scenario::Link {
                    rtt: Nanos::ZERO,
                    turnaround: Nanos::ZERO,
                    client: crate::scenario::ClientKind::Custom,
                    connect_spacing: Nanos::ZERO,
                    ..crate::scenario::Link::default()
                },
                phases: Vec::new(),
                retry: None,
                breaker: None,
            },
            server: Server {
                threads: ServerThreads::Platform(200),
                min_spare: 10,
                max_connections: 8192,
                accept_count: crate::scenario::TOMCAT_ACCEPT_COUNT,
                accept_count_ignored: None,
                max_queue: None,
                keep_alive: Nanos::from_secs(60),
                async_: false,
                connector: crate::scenario::Connector {
                    cpu_per_request: Nanos::ZERO,
                    post_response: Nanos::ZERO,
                    cpu_per_error: Nanos::ZERO,
                    ..crate::scenario::Connector::default()
                },
                queue_timeout: None,
                adaptive_lifo: None,
                rate_limit: None,
            },
            services: vec![
                service("user", 200),
                service("orders", 500),
                recommendations,
            ],
            endpoint: Endpoint {
                stages: vec![vec![ServiceId(0), ServiceId(1), ServiceId(2)]],
            },
            spawn_cost: Nanos::ZERO,
            // 11 cores: the kernel's slice is 3 ms (its factor stops at 8 CPUs).
            cpu_scheduling: crate::scenario::CpuScheduling::TimeSliced {
                slice: Nanos::from_millis(3),
                switch: Nanos::from_micros(2),
            },
            resources: Vec::new(),
            figures: s.figures.clone(),
            tour: s.tour.clone(),
            strategy: StrategyConfig {
                default: Strategy::Bulkhead,
                shared_threads: None,
                unbounded_threads: crate::scenario::UnboundedThreads::Virtual,
                semaphore: crate::scenario::SemaphoreConfig::default(),
                bulkheads: vec![BulkheadPool {
                    name: "IronThread".to_owned(),
                    services: vec![ServiceId(0), ServiceId(1), ServiceId(2)],
                    core: 10,
                    max: 20,
                    queue: 500,
                    rejection: RejectionPolicy::Abort,
                    keep_alive: Nanos::from_secs(60),
                }],
            },
        };
        assert_eq!(s, expected);
        assert!(
            s.about.contains("1.7 s") && !s.about.contains('\n'),
            "{}",
            s.about
        );
    }

    #[test]
    fn every_builtin_preset_is_valid_and_has_an_about_line() {
        for summary in builtin_summaries() {
            load(summary.name, &[]).expect("built-in presets validate");
            assert!(!summary.about.is_empty(), "{} has no about", summary.name);
        }
        assert!(builtin_names().any(|name| name == DEFAULT_PRESET));
    }

    #[test]
    fn builtin_names_match_case_insensitively() {
        assert_eq!(builtin("IronThread"), builtin("ironthread"));
        assert_eq!(load("IronThread", &[]).expect("valid").source, "ironthread");
    }

    #[test]
    fn unknown_preset_lists_the_builtins() {
        let message = load("nope", &[]).expect_err("unknown").to_string();
        assert_mentions(&message, &["unknown preset `nope`", "ironthread", "path"]);
    }

    #[test]
    fn unreadable_file_names_the_path_and_the_os_error() {
        let message = load("no/such/dir/x.toml", &[])
            .expect_err("missing")
            .to_string();
        assert_mentions(
            &message,
            &["no/such/dir/x.toml: cannot read preset", "os error"],
        );
    }

    #[test]
    fn a_preset_file_is_loaded_from_its_path() {
        let path = std::env::temp_dir().join(format!("threadlab-{}-base.toml", std::process::id()));
        std::fs::write(&path, BASE).expect("temp file written");
        let path_text = path.to_string_lossy().into_owned();
        let loaded = load(&path_text, &["scenario.seed=3".to_owned()]);
        std::fs::remove_file(&path).expect("temp file removed");
        let s = loaded.expect("valid file");
        assert_eq!((s.source.as_str(), s.seed), (path_text.as_str(), 3));
    }

    #[test]
    fn overrides_change_the_builtin_by_name_and_index() {
        let sets = [
            "services.recommendations.failure=0".to_owned(),
            "strategy.bulkhead.IronThread.core=12".to_owned(),
            "strategy.bulkhead.0.max=24".to_owned(),
            "services.user.latency=300ms".to_owned(),
        ];
        let s = load("ironthread", &sets).expect("valid overrides");
        assert_eq!(s.services[2].failure, 0.0);
        assert_eq!(
            (s.strategy.bulkheads[0].core, s.strategy.bulkheads[0].max),
            (12, 24)
        );
        assert_eq!(
            s.services[0].latency,
            Latency::Fixed(Nanos::from_millis(300))
        );
    }

    #[test]
    fn a_huge_overridden_value_is_elided_where_the_override_is_named_too() {
        let sets = [format!("server.threads=1{}", "0".repeat(300))];
        let message = load("ironthread", &sets)
            .expect_err("far beyond the thread limit")
            .to_string();
        assert!(
            message.len() < 400,
            "{} characters: {message}",
            message.len()
        );
        assert_mentions(
            &message,
            &[
                "ironthread with --set server.threads=100",
                "(316 characters)",
            ],
        );
    }

    #[test]
    fn a_misspelt_field_is_answered_with_every_field_its_table_allows() {
        let message = load("ironthread", &["server.thread=10".to_owned()])
            .expect_err("no field `thread`")
            .to_string();
        // The last of `[server]`'s fields as well as the first.
        assert_mentions(
            &message,
            &["unknown field `thread`", "`threads`", "`rate_limit`"],
        );
        assert!(!message.contains("characters)"), "{message}");
        // What the user wrote is still cut when it is huge.
        let huge = format!("server.t{}=1", "h".repeat(500));
        let message = load("ironthread", &[huge])
            .expect_err("unknown")
            .to_string();
        assert_mentions(&message, &["characters)", "`rate_limit`"]);
        assert!(message.len() < 1_500, "{} characters", message.len());
        // A table of two fields, which serde words otherwise.
        let huge = format!("strategy.semaphore.{}=1", "x".repeat(400));
        let message = load("ironthread", &[huge])
            .expect_err("unknown")
            .to_string();
        assert_mentions(&message, &["characters)", "`permits`", "`max_wait`"]);
    }

    #[test]
    fn an_error_in_an_overridden_value_names_the_override() {
        let sets = ["strategy.bulkhead.IronThread.max=5".to_owned()];
        let message = load("ironthread", &sets)
            .expect_err("max below core")
            .to_string();
        assert!(
            message.starts_with("ironthread with --set strategy.bulkhead.IronThread.max=5: "),
            "{message}"
        );
        assert_mentions(
            &message,
            &["strategy.bulkhead[0].max = 5 is below core = 10"],
        );
    }

    #[test]
    fn an_error_in_the_file_names_the_file_even_with_overrides() {
        let sets = ["scenario.seed=3".to_owned()];
        let text = BASE.replace("count = 1", "count = 0");
        let message = parse("base.toml", &text, &sets)
            .expect_err("count 0")
            .to_string();
        assert!(
            message.starts_with("base.toml: load.count = 0"),
            "{message}"
        );
    }

    #[test]
    fn type_errors_say_integer_not_i64() {
        let sets = ["scenario.cores=eight".to_owned()];
        let message = parse("base.toml", BASE, &sets)
            .expect_err("wrong type")
            .to_string();
        assert_mentions(&message, &["scenario.cores", "expected an integer"]);
    }
}

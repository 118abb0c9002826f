//! `--set key.path=value`: edits to the parsed preset table, made before it is deserialized so
//! an override is checked exactly like the same value written in the file.
//!
//! The value is read as TOML (`400`, `0.5`, `true`, `"x"`, `["a", "b"]`) and otherwise taken as
//! a plain string, so `--set services.user.latency=300ms` needs no quotes. Elements of an array
//! of tables are addressed by their `name` (`strategy.bulkhead.IronThread.core=12`) or by
//! index (`services.0.failure=0`). Missing tables on the way are created (`load.timeout=2s`).

use toml::{Table, Value};

use super::error::{OverrideError, ScenarioError};
use super::limits::{MAX_KEY_SEGMENTS, elide};

/// An override that was applied: its spec and the field path it set, written the way
/// validation errors write paths (`services[2].failure`), so errors can blame the override.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    pub spec: String,
    pub path: String,
}

impl Applied {
    /// Whether an error at `error_path` is about the value this override set: one path
    /// contains the other (`services[0].latency` and `services[0].latency.min`).
    pub fn touches(&self, error_path: &str) -> bool {
        within(&self.path, error_path) || within(error_path, &self.path)
    }
}

/// Applies every spec in order. A field is set once: a spec that would overwrite what an
/// earlier one set (the same field, or a table holding it), however the path spells an array
/// element (`services.0` and `services.user`), is refused rather than one of them ignored.
/// A later spec may set a field inside a table an earlier one wrote: both take effect.
pub fn apply(table: &mut Table, specs: &[String]) -> Result<Vec<Applied>, ScenarioError> {
    let mut applied: Vec<Applied> = Vec::with_capacity(specs.len());
    for spec in specs {
        let fail = |reason| ScenarioError::Override {
            spec: elide(spec, 80),
            reason,
        };
        let path = apply_one(table, spec).map_err(fail)?;
        let this = Applied {
            spec: spec.clone(),
            path,
        };
        if let Some(earlier) = applied.iter().find(|a| within(&this.path, &a.path)) {
            return Err(ScenarioError::SetTwice {
                spec: elide(spec, 80),
                path: this.path,
                earlier: elide(&earlier.spec, 80),
            });
        }
        applied.push(this);
    }
    Ok(applied)
}

fn apply_one(table: &mut Table, spec: &str) -> Result<String, OverrideError> {
    let Some((key, text)) = spec.split_once('=') else {
        return Err(OverrideError::NoEquals);
    };
    let key = key.trim();
    if key.is_empty() {
        return Err(OverrideError::EmptyKey);
    }
    let segments: Vec<&str> = key.split('.').map(str::trim).collect();
    if segments.len() > MAX_KEY_SEGMENTS {
        return Err(OverrideError::TooManySegments(segments.len()));
    }
    if segments.iter().any(|s| s.is_empty()) {
        return Err(OverrideError::EmptySegment(elide(key, 60)));
    }
    set_in_table(table, &segments, "", parse_value(text))
}

/// TOML if it parses as a value, else the text itself as a string.
fn parse_value(text: &str) -> Value {
    let text = text.trim();
    text.parse::<Value>()
        .unwrap_or_else(|_| Value::String(text.to_owned()))
}

fn set_in_table(
    table: &mut Table,
    segments: &[&str],
    path: &str,
    value: Value,
) -> Result<String, OverrideError> {
    let Some((first, rest)) = segments.split_first() else {
        return Err(OverrideError::NoField);
    };
    let here = if path.is_empty() {
        (*first).to_owned()
    } else {
        format!("{path}.{first}")
    };
    if rest.is_empty() {
        table.insert((*first).to_owned(), value);
        return Ok(here);
    }
    let child = table
        .entry(*first)
        .or_insert_with(|| Value::Table(Table::new()));
    set_in_value(child, rest, &here, value)
}

fn set_in_value(
    target: &mut Value,
    segments: &[&str],
    path: &str,
    value: Value,
) -> Result<String, OverrideError> {
    match target {
        Value::Table(table) => set_in_table(table, segments, path, value),
        Value::Array(items) => {
            let Some((first, rest)) = segments.split_first() else {
                return Err(OverrideError::NoField);
            };
            let index = find_element(items, first).ok_or_else(|| no_element(items, path, first))?;
            let here = format!("{path}[{index}]");
            let Some(item) = items.get_mut(index) else {
                return Err(no_element(&[], path, first));
            };
            if rest.is_empty() {
                *item = value;
                Ok(here)
            } else {
                set_in_value(item, rest, &here, value)
            }
        }
        other => Err(OverrideError::NotATable {
            path: path.to_owned(),
            kind: a_or_an(other.type_str()),
            field: elide(&segments.join("."), 60),
        }),
    }
}

/// The element whose `name` is `key`, else the element at index `key`.
fn find_element(items: &[Value], key: &str) -> Option<usize> {
    items
        .iter()
        .position(|item| element_name(item) == Some(key))
        .or_else(|| key.parse::<usize>().ok().filter(|&i| i < items.len()))
}

fn element_name(item: &Value) -> Option<&str> {
    item.as_table()?.get("name")?.as_str()
}

fn no_element(items: &[Value], path: &str, key: &str) -> OverrideError {
    OverrideError::NoElement {
        path: path.to_owned(),
        key: elide(key, 60),
        names: items
            .iter()
            .filter_map(element_name)
            .map(str::to_owned)
            .collect(),
        len: items.len(),
    }
}

/// "an integer", "a string": TOML's type names with their article.
fn a_or_an(word: &str) -> String {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        format!("an {word}")
    } else {
        format!("a {word}")
    }
}

/// Whether `inner` is `outer` or a field or element inside it.
fn within(outer: &str, inner: &str) -> bool {
    inner
        .strip_prefix(outer)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRESET: &str = r#"
        [scenario]
        name = "x"
        [[services]]
        name = "user"
        latency = "200ms"
        [[services]]
        name = "recommendations"
        latency = "1000ms"
        failure = 0.2
        [[strategy.bulkhead]]
        name = "IronThread"
        services = ["user"]
    "#;

    fn set(specs: &[&str]) -> Result<(Table, Vec<Applied>), ScenarioError> {
        let mut table: Table = PRESET.parse().expect("test preset parses");
        let specs: Vec<String> = specs.iter().map(|s| (*s).to_owned()).collect();
        let applied = apply(&mut table, &specs)?;
        Ok((table, applied))
    }

    fn get<'a>(table: &'a Table, path: &[&str]) -> &'a Value {
        let mut value = &table[path[0]];
        for segment in &path[1..] {
            value = match value {
                Value::Array(items) => &items[segment.parse::<usize>().expect("index")],
                other => &other[*segment],
            };
        }
        value
    }

    #[test]
    fn array_elements_are_addressed_by_name() {
        let (table, applied) = set(&["services.recommendations.failure=0"]).expect("applies");
        assert_eq!(
            get(&table, &["services", "1", "failure"]),
            &Value::Integer(0)
        );
        assert_eq!(applied[0].path, "services[1].failure");
    }

    #[test]
    fn array_elements_are_addressed_by_index() {
        let (table, applied) = set(&["services.0.failure=0.5"]).expect("applies");
        assert_eq!(
            get(&table, &["services", "0", "failure"]),
            &Value::Float(0.5)
        );
        assert_eq!(applied[0].path, "services[0].failure");
    }

    #[test]
    fn nested_arrays_of_tables_are_addressed_by_name() {
        let (table, _) = set(&["strategy.bulkhead.IronThread.core=12"]).expect("applies");
        assert_eq!(
            get(&table, &["strategy", "bulkhead", "0", "core"]),
            &Value::Integer(12)
        );
    }

    #[test]
    fn values_are_toml_or_else_plain_strings() {
        let (table, _) = set(&[
            "services.user.latency=300ms",
            "services.user.fallback=\"quoted\"",
            "server.async=true",
            "endpoint.calls=[\"user\", \"recommendations\"]",
        ])
        .expect("applies");
        assert_eq!(
            get(&table, &["services", "0", "latency"]),
            &Value::String("300ms".into())
        );
        assert_eq!(
            get(&table, &["services", "0", "fallback"]),
            &Value::String("quoted".into())
        );
        assert_eq!(get(&table, &["server", "async"]), &Value::Boolean(true));
        assert_eq!(
            get(&table, &["endpoint", "calls", "1"]),
            &Value::String("recommendations".into())
        );
    }

    #[test]
    fn missing_tables_are_created() {
        let (table, applied) = set(&["load.timeout=2s"]).expect("applies");
        assert_eq!(
            get(&table, &["load", "timeout"]),
            &Value::String("2s".into())
        );
        assert_eq!(applied[0].path, "load.timeout");
    }

    #[test]
    fn a_spec_without_equals_is_rejected_naming_the_spec() {
        let message = set(&["services.user.failure"])
            .expect_err("rejected")
            .to_string();
        assert!(
            message.starts_with("--set services.user.failure: "),
            "{message}"
        );
        assert!(message.contains("key.path=value"), "{message}");
    }

    #[test]
    fn an_empty_path_is_rejected() {
        let message = set(&["=3"]).expect_err("rejected").to_string();
        assert!(
            message.contains("--set =3") && message.contains("empty"),
            "{message}"
        );
        let message = set(&["load..count=3"]).expect_err("rejected").to_string();
        assert!(message.contains("empty segment"), "{message}");
    }

    #[test]
    fn an_unknown_element_name_lists_the_known_ones() {
        let message = set(&["services.orders.failure=0"])
            .expect_err("rejected")
            .to_string();
        assert!(
            message.contains("--set services.orders.failure=0"),
            "{message}"
        );
        assert!(message.contains("no element named `orders`"), "{message}");
        assert!(message.contains("user, recommendations"), "{message}");
        assert!(message.contains("0..=1"), "{message}");
    }

    #[test]
    fn a_field_below_a_scalar_is_rejected() {
        let message = set(&["scenario.name.first=1"])
            .expect_err("rejected")
            .to_string();
        assert!(message.contains("`scenario.name` is a string"), "{message}");
    }

    #[test]
    fn a_field_set_twice_is_refused_however_its_element_is_named() {
        let message = set(&["services.0.failure=0.5", "services.user.failure=0"])
            .expect_err("refused")
            .to_string();
        assert!(
            message.contains("--set services.user.failure=0")
                && message.contains("--set services.0.failure=0.5 sets too"),
            "{message}"
        );
        let message = set(&["load.timeout=2s", "load.timeout=3s"])
            .expect_err("refused")
            .to_string();
        assert!(message.contains("give each field once"), "{message}");
        let message = set(&["services.user.latency=1s", "services.user={name=\"user\"}"])
            .expect_err("a table holding a field set before")
            .to_string();
        assert!(message.contains("sets too"), "{message}");
        set(&[
            "services.user.failure=0",
            "services.recommendations.failure=0",
        ])
        .expect("two fields apply");
        let (table, _) = set(&["services.user={name=\"user\"}", "services.user.failure=0.5"])
            .expect("a field inside a table set before applies");
        assert_eq!(
            get(&table, &["services", "0", "failure"]),
            &Value::Float(0.5)
        );
    }

    #[test]
    fn touches_matches_whole_segments_only() {
        let applied = Applied {
            spec: String::new(),
            path: "services[1].latency".into(),
        };
        assert!(applied.touches("services[1].latency"));
        assert!(applied.touches("services[1].latency.min"));
        assert!(applied.touches("services[1]"));
        assert!(!applied.touches("services[1].latency_x"));
        assert!(!applied.touches("services[10].latency"));
    }

    #[test]
    fn each_refused_override_says_why_in_words() {
        let reason = |spec: &str| match set(&[spec]) {
            Err(ScenarioError::Override { reason, .. }) => reason.to_string(),
            other => panic!("{spec}: {other:?}"),
        };
        for (spec, said) in [
            (
                "x",
                "expected key.path=value, like services.user.failure=0.5",
            ),
            ("=1", "the key path is empty: expected key.path=value"),
            ("a..b=1", "the key path `a..b` has an empty segment"),
            (
                "services.nope.failure=0",
                "`services` has no element named `nope`: names are user, recommendations, or \
                 use an index 0..=1",
            ),
            (
                "scenario.name.x=1",
                "`scenario.name` is a string, not a table, so it has no field `x`",
            ),
        ] {
            assert_eq!(reason(spec), said, "{spec}");
        }
        let mut table = Table::new();
        table.insert("list".into(), Value::Array(vec![]));
        assert_eq!(
            apply_one(&mut table, "list.0=1")
                .expect_err("empty")
                .to_string(),
            "`list` is empty, so it has no element `0`"
        );
    }
}

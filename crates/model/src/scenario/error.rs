//! What can go wrong turning a preset into a [`super::Scenario`]. Every message names where
//! the input came from (a file path, a built-in preset name or a `--set` override), the field
//! path, the offending value and what is allowed, so a user can fix it without reading code.

use thiserror::Error;

use super::limits::{MAX_KEY_SEGMENTS, elide_list};

/// A preset (or an override of it) that cannot become a scenario. Maps to exit code 2.
#[derive(Debug, Error)]
pub enum ScenarioError {
    /// The preset name is neither built in nor a path.
    #[error(
        "unknown preset `{name}`: built-in presets are {known}; or give a path to a .toml file"
    )]
    UnknownPreset { name: String, known: String },

    /// The preset file could not be read.
    #[error("{path}: cannot read preset: {error}")]
    Read {
        path: String,
        #[source]
        error: std::io::Error,
    },

    /// The text is not TOML.
    #[error("{origin}: invalid TOML: {message}")]
    Syntax { origin: String, message: String },

    /// A `--set key.path=value` that cannot be applied.
    #[error("--set {spec}: {reason}")]
    Override { spec: String, reason: OverrideError },

    /// Two `--set` (or a `--set` and a sweep's `--vary`) of one field: neither is dropped.
    #[error("--set {spec}: sets `{path}`, which --set {earlier} sets too; give each field once")]
    SetTwice {
        spec: String,
        path: String,
        earlier: String,
    },

    /// TOML that does not fit the schema: an unknown field, a wrong type, a missing field.
    /// `message` is serde's, which lists the expected fields or type.
    #[error("{origin}: {}: {message}", display_path(path))]
    Schema {
        origin: String,
        path: String,
        message: String,
    },

    /// A value of the right type outside its allowed range or set.
    /// Displays as `origin: path = value reason`, e.g.
    /// `x.toml: scenario.cores = 0 is out of range: allowed 1..=1024`.
    #[error("{origin}: {path} = {value} {reason}")]
    Invalid {
        origin: String,
        path: String,
        value: String,
        reason: String,
    },

    /// A field this combination of other fields requires.
    #[error("{origin}: {path} is missing: {reason}")]
    Missing {
        origin: String,
        path: String,
        reason: String,
    },
}

impl ScenarioError {
    /// The field path the error is about, if it is about one.
    pub fn path(&self) -> Option<&str> {
        match self {
            ScenarioError::Schema { path, .. }
            | ScenarioError::Invalid { path, .. }
            | ScenarioError::Missing { path, .. } => Some(path),
            _ => None,
        }
    }

    /// Blames `origin` instead of the preset, for a value an override put there.
    pub(crate) fn with_origin(mut self, new_origin: String) -> Self {
        match &mut self {
            ScenarioError::Syntax { origin, .. }
            | ScenarioError::Schema { origin, .. }
            | ScenarioError::Invalid { origin, .. }
            | ScenarioError::Missing { origin, .. } => *origin = new_origin,
            _ => {}
        }
        self
    }
}

/// serde_path_to_error prints the root as `.`; say it in words.
fn display_path(path: &str) -> &str {
    if path.is_empty() || path == "." {
        "(top level)"
    } else {
        path
    }
}

/// Why one `--set` could not be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OverrideError {
    #[error("expected key.path=value, like services.user.failure=0.5")]
    NoEquals,
    #[error("the key path is empty: expected key.path=value")]
    EmptyKey,
    #[error("the key path has {0} segments: allowed at most {MAX_KEY_SEGMENTS}")]
    TooManySegments(usize),
    /// The key (elided) with an empty segment.
    #[error("the key path `{0}` has an empty segment")]
    EmptySegment(String),
    /// Nothing left of the path where a field was wanted.
    #[error("the key path is empty")]
    NoField,
    /// An array of `path` has no element `key` (elided); `names` lists its elements' names.
    #[error("{}", no_such_element(.path, .key, .names, *.len))]
    NoElement {
        path: String,
        key: String,
        names: Vec<String>,
        len: usize,
    },
    /// `path` holds a value of type `kind` ("an integer"), not a table, so no `field`.
    #[error("`{path}` is {kind}, not a table, so it has no field `{field}`")]
    NotATable {
        path: String,
        kind: String,
        field: String,
    },
}

/// The message of [`OverrideError::NoElement`]: the element's names and the index range.
fn no_such_element(path: &str, key: &str, names: &[String], len: usize) -> String {
    let index_range = match len {
        0 => return format!("`{path}` is empty, so it has no element `{key}`"),
        n => format!("0..={}", n - 1),
    };
    if names.is_empty() {
        format!("`{path}` has no element `{key}`: use an index {index_range}")
    } else {
        format!(
            "`{path}` has no element named `{key}`: names are {}, or use an index {index_range}",
            elide_list(names.iter().map(String::as_str), 10)
        )
    }
}

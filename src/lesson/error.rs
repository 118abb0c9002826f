//! What can go wrong turning a lesson file into a [`super::Lesson`]: every message names the
//! lesson (its file or built-in name), the field (`parts[1].steps[2].tolerance`), the value
//! and what is allowed. Each maps to exit code 2.

use thiserror::Error;

use crate::scenario::ScenarioError;

#[derive(Debug, Error)]
pub enum LessonError {
    #[error(
        "unknown lesson `{name}`: built-in lessons are {known}; or give a path to a .toml file"
    )]
    Unknown { name: String, known: String },

    #[error("{path}: cannot read the lesson: {error}")]
    Read {
        path: String,
        #[source]
        error: std::io::Error,
    },

    #[error("{path}: {size} bytes; a lesson file holds at most {max}")]
    TooLarge { path: String, size: u64, max: u64 },

    #[error("{origin}: invalid TOML: {message}")]
    Syntax { origin: String, message: String },

    /// An unknown field, a wrong type, a missing field (serde's message, in plain words).
    #[error("{origin}: {path}: {message}")]
    Schema {
        origin: String,
        path: String,
        message: String,
    },

    /// A value outside what is allowed: `origin: field = value reason`.
    #[error("{origin}: {field} = {value} {reason}")]
    Invalid {
        origin: String,
        field: String,
        value: String,
        reason: String,
    },

    /// A field missing or given where it does not belong, or fields that do not go together.
    #[error("{origin}: {field}: {reason}")]
    Field {
        origin: String,
        field: String,
        reason: String,
    },

    /// A part's preset did not load (with the part's `set` and the command line's `--set`).
    #[error("{origin}: {field}: {error}")]
    Preset {
        origin: String,
        field: String,
        #[source]
        error: Box<ScenarioError>,
    },
}

impl LessonError {
    /// The field the error is about, if it is about one.
    pub fn field(&self) -> Option<&str> {
        match self {
            LessonError::Schema { path, .. } => Some(path),
            LessonError::Invalid { field, .. }
            | LessonError::Field { field, .. }
            | LessonError::Preset { field, .. } => Some(field),
            _ => None,
        }
    }
}

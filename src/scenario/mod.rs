//! Presets: parsing, validation and the typed model.

mod duration;
mod error;
mod model;
mod overrides;

pub use duration::{DURATION_FORM, DurationError, parse_duration};
pub use error::ScenarioError;
pub use model::*;

//! Presets: parsing, validation and the typed model.

mod duration;
mod model;

pub use duration::{DURATION_FORM, DurationError, parse_duration};
pub use model::*;

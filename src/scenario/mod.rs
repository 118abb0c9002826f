//! Presets: parsing, validation and the typed model.

mod model;

pub use model::*;

//! Presets: parsing, validation and the typed model.
//!
//! A preset is TOML text (built in or a file). [`load`] / [`parse`] read it into a
//! `toml::Table`, apply `--set` overrides, deserialize it into the `raw` structs (unknown
//! fields and wrong types are errors with a field path) and validate it into a [`Scenario`].

mod check;
mod cost;
mod duration;
mod error;
mod jvm;
mod jvm_check;
mod limits;
mod model;
mod network;
mod overrides;
mod pools;
mod presets;
mod raw;
mod resilience;
mod trace;
mod validate;

pub use check::is_format;
pub use cost::{
    Cost, MAX_CALLS_IN_FLIGHT, MAX_EVENTS, MAX_PEAK_BYTES, estimate_cost, max_open_rate,
    max_requests_in_flight,
};
pub use duration::{DURATION_FORM, DurationError, parse_duration};
pub use error::{OverrideError, ScenarioError};
pub use jvm::{Collection, Collector, ConnectorThreads, Errors, Gc, Jvm, Warmup};
pub use limits::*;
pub use model::*;
pub use presets::{
    DEFAULT_PRESET, PresetSummary, builtin, builtin_names, builtin_summaries, load, parse,
    plain_types,
};
pub use resilience::*;
pub use trace::parse_trace_bytes;

#[cfg(test)]
mod test_support;

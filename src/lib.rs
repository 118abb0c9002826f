//! threadlab: a terminal lab that shows concurrency strategies work and fail.
//!
//! A scenario (a TOML preset) is parsed once into a typed [`scenario::Scenario`]; the
//! deterministic engine in [`sim`] plays it; [`report`] prints headless tables and the TUI
//! renders the engine's snapshots live.

pub mod config;
pub mod export;
pub mod files;
pub mod flow;
pub mod metrics;
pub mod plot;
pub mod progress;
pub mod real;
pub mod report;
pub mod scenario;
pub mod screenshot;
pub mod sim;
pub mod sweep;
pub mod theory;
pub mod time;
pub mod topology;
pub mod tui;

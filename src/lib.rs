//! threadlab: a terminal lab that shows concurrency strategies work and fail.
//!
//! A scenario (a TOML preset) is parsed once into a typed [`scenario::Scenario`] by the model
//! (`threadlab-model`); the deterministic engine in [`sim`] (`threadlab-sim`) and the real one
//! in [`real`] (`threadlab-real`) play it; this crate holds what sits above them: [`report`]
//! prints headless tables, [`export`] their formats, [`sweep`] and [`plot`] curves and charts,
//! [`verify`] holds a real run against the simulation, and [`tui`] renders the engines'
//! snapshots live.

pub use threadlab_model::{
    draw, flow, handles, metrics, pool, scenario, snapshot, theory, time, topology,
};
pub use threadlab_real as real;
pub use threadlab_sim as sim;

pub mod config;
pub mod export;
pub mod export_spring;
pub mod files;
pub mod import;
pub mod lesson;
pub mod plot;
pub mod progress;
pub mod report;
pub mod screenshot;
pub mod sweep;
pub mod tui;
pub mod tune;
pub mod verify;

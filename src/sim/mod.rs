//! The deterministic discrete-event engine.

pub mod draw;
pub mod pool;

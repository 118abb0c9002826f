//! threadlab's model of a Java dashboard endpoint: the scenario (presets parsed and
//! validated into a typed model), the pools and how calls reach them, the JVM's executor
//! rules (ThreadPoolExecutor, the ForkJoin common pool, Tomcat's executor and connector), the
//! request flow's decisions, the keyed draws, the measurements, queueing theory's predictions
//! and the snapshot both engines produce.
//!
//! It performs no I/O and knows no clock: the engines (the discrete-event simulation and the
//! real run) drive it. It depends on no async runtime, terminal, plotting, CLI or thread-pool
//! crate.

pub mod draw;
pub mod flow;
pub mod handles;
pub mod metrics;
pub mod pool;
pub mod scenario;
pub mod snapshot;
pub mod theory;
pub mod time;
pub mod topology;

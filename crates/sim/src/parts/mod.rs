//! The engine's components that own their data and know nothing of the engine: the connection
//! layer, the load generator, the log of recent runs, the cores and connection pools, the
//! client retries, and what wraps each service's calls (breaker, limiter, semaphore permits,
//! call retries). The engine's handling of each (the `impl Engine` files beside this folder)
//! wires them to the clock and the event queue.

pub mod cpu;
pub mod guards;
pub mod jvm;
pub mod load;
pub mod net;
pub mod retries;

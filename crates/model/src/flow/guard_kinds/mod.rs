//! Every kind of guard in front of a service's calls, one line each, in decoration order
//! (outermost first): resilience4j's Spring Boot order,
//! `CircuitBreaker(RateLimiter(TimeLimiter(Bulkhead(call))))`. A guard that holds permits
//! (the semaphore bulkhead) comes after every guard that can refuse.
//!
//! Adding a guard: a file in this folder with its rule, its [`CallGuard`] and a
//! `guard(scenario, service)` that builds it for a service whose settings give it one; its
//! `mod` line and one line in [`REGISTRY`] here.

use crate::scenario::{Scenario, ServiceId};

use super::call_guard::{CallGuard, GuardSet};

pub mod adaptive_limit;

/// Builds a kind of guard for a service, if the scenario gives the service one.
pub type Build = fn(&Scenario, ServiceId) -> Option<Box<dyn CallGuard>>;

/// The kinds of guard, in the order a call meets them.
pub const REGISTRY: &[Build] = &[
    super::breaker::guard,
    super::ratelimit::guard,
    adaptive_limit::guard,
    super::permit::guard,
];

const _: () = assert!(REGISTRY.len() <= GuardSet::MAX);

/// `service`'s guards, in the order a call meets them.
pub fn build(scenario: &Scenario, service: ServiceId) -> Vec<Box<dyn CallGuard>> {
    REGISTRY
        .iter()
        .filter_map(|build| build(scenario, service))
        .collect()
}

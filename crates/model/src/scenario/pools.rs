//! `[strategy]`: the default strategy, the shared pool's size and the bulkhead pools. Bulkhead
//! rules copy `ThreadPoolExecutor`'s constructor checks; services no bulkhead lists get the pool
//! resilience4j's `ThreadPoolBulkhead` would give them.

use super::check::service_id;
use super::check::{Checker, quoted};
use super::error::ScenarioError;
use super::model::{
    BulkheadPool, Endpoint, RejectionPolicy, SemaphoreConfig, Service, ServiceId, Strategy,
    StrategyConfig, UnboundedThreads,
};
use super::raw::{RawBulkhead, RawSemaphore, RawStrategy};
use crate::time::Nanos;

// MAX_THREADS: far beyond what a real JVM survives; MAX_QUEUE: memory, not the JDK, limits it.
use super::limits::{MAX_QUEUE, MAX_THREADS};

pub(crate) fn strategy(
    check: &Checker,
    raw: &RawStrategy,
    services: &[Service],
    endpoint: &Endpoint,
    cores: u32,
) -> Result<StrategyConfig, ScenarioError> {
    let choices = Strategy::ALL.map(|s| (s.name(), s));
    let default = check.one_of("strategy.use", &raw.use_, &choices)?;
    let shared_threads = match raw.shared.as_ref().and_then(|shared| shared.threads) {
        Some(threads) => Some(check.count("strategy.shared.threads", threads, 1..=MAX_THREADS)?),
        None => None,
    };
    let mut bulkheads: Vec<BulkheadPool> = Vec::with_capacity(raw.bulkhead.len());
    for (i, pool) in raw.bulkhead.iter().enumerate() {
        let pool = bulkhead(
            check,
            &format!("strategy.bulkhead[{i}]"),
            pool,
            services,
            &bulkheads,
        )?;
        bulkheads.push(pool);
    }
    for id in endpoint.stages.iter().flatten() {
        if !bulkheads.iter().any(|pool| pool.services.contains(id)) {
            bulkheads.push(default_pool(*id, &services[id.0].name, cores));
        }
    }
    let unbounded_threads = match &raw.unbounded {
        Some(u) => check.one_of(
            "strategy.unbounded.threads",
            &u.threads,
            &[
                ("virtual", UnboundedThreads::Virtual),
                ("platform", UnboundedThreads::Platform),
            ],
        )?,
        None => UnboundedThreads::Virtual,
    };
    Ok(StrategyConfig {
        default,
        shared_threads,
        bulkheads,
        unbounded_threads,
        semaphore: semaphore(check, raw.semaphore.as_ref())?,
    })
}

/// Most time a caller may wait for a permit.
const MAX_PERMIT_WAIT: Nanos = Nanos::from_secs(3600);

/// `[strategy.semaphore]`: `BulkheadConfig.Builder` refuses fewer than one concurrent call
/// and a negative wait.
fn semaphore(
    check: &Checker,
    raw: Option<&RawSemaphore>,
) -> Result<SemaphoreConfig, ScenarioError> {
    let Some(raw) = raw else {
        return Ok(SemaphoreConfig::default());
    };
    let permits = check.count("strategy.semaphore.permits", raw.permits, 1..=MAX_THREADS)?;
    let max_wait = check.duration("strategy.semaphore.max_wait", &raw.max_wait)?;
    if max_wait > MAX_PERMIT_WAIT {
        return Err(check.invalid(
            "strategy.semaphore.max_wait",
            quoted(&raw.max_wait.0),
            "must be at most \"1h\"",
        ));
    }
    Ok(SemaphoreConfig { permits, max_wait })
}

/// The pool resilience4j's `ThreadPoolBulkheadConfig` defaults describe: core
/// `max(1, cores - 1)`, max `cores`, queue capacity 100, keep-alive 20 ms, `AbortPolicy`;
/// its threads are named `bulkhead-<name>-N`.
fn default_pool(id: ServiceId, service: &str, cores: u32) -> BulkheadPool {
    BulkheadPool {
        name: format!("bulkhead-{service}"),
        services: vec![id],
        core: cores.saturating_sub(1).max(1),
        max: cores,
        queue: 100,
        rejection: RejectionPolicy::Abort,
        keep_alive: Nanos::from_millis(20),
    }
}

/// One `[[strategy.bulkhead]]`, checked against the pools before it.
fn bulkhead(
    check: &Checker,
    path: &str,
    raw: &RawBulkhead,
    services: &[Service],
    earlier: &[BulkheadPool],
) -> Result<BulkheadPool, ScenarioError> {
    let field = |name: &str| format!("{path}.{name}");
    let name = check.name(&field("name"), &raw.name)?;
    if let Some(j) = earlier.iter().position(|pool| pool.name == name) {
        return Err(check.invalid(&field("name"), quoted(&name), format!("is already the name of strategy.bulkhead[{j}]: pool names must be unique (they prefix thread names)")));
    }
    let ids = bulkhead_services(check, path, raw, services, earlier)?;
    let (core, max) = bulkhead_sizes(check, path, raw)?;
    let queue = check.count(&field("queue"), raw.queue, 0..=MAX_QUEUE)?;
    let choices = RejectionPolicy::ALL.map(|p| (p.name(), p));
    let rejection = check.one_of(&field("rejection"), &raw.rejection, &choices)?;
    if rejection.needs_queue() && queue == 0 {
        return Err(check.invalid(&field("rejection"), quoted(&raw.rejection), format!("cannot be used with {path}.queue = 0: with a SynchronousQueue the JDK's DiscardOldestPolicy polls nothing and re-executes the task, which is rejected again, recursively, until StackOverflowError")));
    }
    if rejection == RejectionPolicy::Fallback
        && let Some(id) = ids.iter().find(|id| services[id.0].fallback.is_none())
    {
        let service = &services[id.0].name;
        return Err(check.invalid(&field("rejection"), quoted(&raw.rejection), format!("needs a fallback for every service of the pool: give services.{service}.fallback, or use \"abort\" (the rejection fails the request)")));
    }
    Ok(BulkheadPool {
        name,
        services: ids,
        core,
        max,
        queue,
        rejection,
        // ThreadPoolExecutor accepts keepAliveTime 0: threads above core leave at once.
        keep_alive: check.duration(&field("keep_alive"), &raw.keep_alive)?,
    })
}

/// The services a bulkhead runs: at least one, each in no other bulkhead.
fn bulkhead_services(
    check: &Checker,
    path: &str,
    raw: &RawBulkhead,
    services: &[Service],
    earlier: &[BulkheadPool],
) -> Result<Vec<ServiceId>, ScenarioError> {
    let field = |name: &str| format!("{path}.{name}");
    if raw.services.is_empty() {
        return Err(check.invalid(
            &field("services"),
            "[]",
            "is empty: list the services whose calls this pool runs",
        ));
    }
    let mut ids: Vec<ServiceId> = Vec::with_capacity(raw.services.len());
    for (k, service) in raw.services.iter().enumerate() {
        let service_path = format!("{path}.services[{k}]");
        let id = service_id(check, &service_path, service, services)?;
        let owner = if ids.contains(&id) {
            Some(path.to_owned())
        } else {
            earlier
                .iter()
                .position(|pool| pool.services.contains(&id))
                .map(|j| format!("strategy.bulkhead[{j}]"))
        };
        if let Some(owner) = owner {
            return Err(check.invalid(
                &service_path,
                quoted(service),
                format!("is already listed in {owner}: a service belongs to at most one bulkhead"),
            ));
        }
        ids.push(id);
    }
    Ok(ids)
}

/// A bulkhead's core and max threads, as `ThreadPoolExecutor`'s constructor checks them.
fn bulkhead_sizes(
    check: &Checker,
    path: &str,
    raw: &RawBulkhead,
) -> Result<(u32, u32), ScenarioError> {
    let field = |name: &str| format!("{path}.{name}");
    let core = check.count(&field("core"), raw.core, 0..=MAX_THREADS)?;
    // An absent max means a fixed-size pool (max = core), like Executors.newFixedThreadPool.
    let max_value = raw.max.unwrap_or(raw.core);
    let max = check.count(&field("max"), max_value, 1..=MAX_THREADS).map_err(|_| {
        let shown = match raw.max {
            Some(max) => max.to_string(),
            None => format!("{max_value} (defaulted to core)"),
        };
        check.invalid(&field("max"), shown, format!("is out of range: allowed 1..={MAX_THREADS} (ThreadPoolExecutor throws IllegalArgumentException when maximumPoolSize <= 0)"))
    })?;
    if max < core {
        return Err(check.invalid(&field("max"), max, format!("is below core = {core}: max must be >= core (ThreadPoolExecutor throws IllegalArgumentException)")));
    }
    Ok((core, max))
}

#[cfg(test)]
#[path = "pools_tests.rs"]
mod tests;

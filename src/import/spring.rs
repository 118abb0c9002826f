//! Spring Boot and resilience4j properties mapped onto a preset: Tomcat's connector,
//! virtual threads, the `@Async` executor, HikariCP and resilience4j's instances (with their
//! `configs` defaults and `base-config`). Every bound key gets a line: what it maps to, or why
//! it is not modelled.

use super::binding::{Bound, Property};
use super::convert::{boolean, duration, number, toml_number, whole};
use super::draft::{Draft, FieldTable, quote};
use super::{ImportError, KeyLine, KeyOutcome};

/// The Tomcat, task executor and HikariCP keys that map one to one.
const SIMPLE: [(&str, Where, &str, Kind); 13] = [
    (
        "server.tomcat.threads.max",
        Where::Server,
        "threads",
        Kind::Whole,
    ),
    (
        "server.tomcat.threads.min-spare",
        Where::Server,
        "min_spare",
        Kind::Whole,
    ),
    (
        "server.tomcat.threads.max-queue-capacity",
        Where::Server,
        "max_queue",
        Kind::Whole,
    ),
    (
        "server.tomcat.accept-count",
        Where::Server,
        "accept_count",
        Kind::Whole,
    ),
    (
        "server.tomcat.max-connections",
        Where::Server,
        "max_connections",
        Kind::Whole,
    ),
    (
        "server.tomcat.keep-alive-timeout",
        Where::Server,
        "keep_alive_timeout",
        Kind::Duration,
    ),
    (
        "server.tomcat.max-keep-alive-requests",
        Where::Server,
        "max_keep_alive_requests",
        Kind::Whole,
    ),
    (
        "spring.task.execution.pool.core-size",
        Where::Task,
        "core",
        Kind::Whole,
    ),
    (
        "spring.task.execution.pool.max-size",
        Where::Task,
        "max",
        Kind::Whole,
    ),
    (
        "spring.task.execution.pool.queue-capacity",
        Where::Task,
        "queue",
        Kind::Whole,
    ),
    (
        "spring.task.execution.pool.keep-alive",
        Where::Task,
        "keep_alive",
        Kind::Duration,
    ),
    (
        "spring.datasource.hikari.maximum-pool-size",
        Where::Db,
        "size",
        Kind::Whole,
    ),
    (
        "spring.datasource.hikari.connection-timeout",
        Where::Db,
        "timeout",
        Kind::Duration,
    ),
];

/// The pool `@Async` methods run on (`spring.task.execution`), named as its threads are.
pub const TASK_POOL: &str = "task";
/// The HikariCP pool (`spring.datasource.hikari`).
pub const DB_RESOURCE: &str = "db";

#[derive(Debug, Clone, Copy, PartialEq)]
enum Where {
    Server,
    Task,
    Db,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Whole,
    Number,
    Duration,
    Bool,
}

/// Whether the files turn virtual threads on.
fn virtual_threads(bound: &Bound) -> bool {
    bound
        .properties
        .iter()
        .any(|p| p.is("spring.threads.virtual.enabled") && boolean(&p.entry.value) == Ok(true))
}

/// resilience4j's sections, as their keys name them, and the preset table each fills.
const SECTIONS: [&str; 6] = [
    "circuitbreaker",
    "retry",
    "ratelimiter",
    "timelimiter",
    "bulkhead",
    "threadpoolbulkhead",
];

/// A value in the form `kind` asks for, as preset text.
fn convert(kind: Kind, text: &str) -> Result<String, String> {
    match kind {
        Kind::Whole => whole(text).map(|n| n.to_string()),
        Kind::Number => number(text).map(toml_number),
        Kind::Duration => duration(text).map(|d| quote(&d)),
        Kind::Bool => boolean(text).map(|b| b.to_string()),
    }
}

fn bad(p: &Property, why: String) -> ImportError {
    ImportError {
        file: p.entry.file.clone(),
        line: Some(p.entry.line),
        key: Some(p.entry.key.clone()),
        message: why,
    }
}

/// What the configuration says beyond single fields: which pools it defines.
#[derive(Debug, Default)]
pub struct Shape {
    pub virtual_threads: bool,
    pub task_pool: bool,
    pub thread_pool_bulkheads: Vec<String>,
    pub semaphore_bulkheads: Vec<String>,
    /// resilience4j instance names, in order of appearance: the services they guard.
    pub instances: Vec<String>,
}

/// The instance names of resilience4j's sections, in order of appearance.
pub fn instances(bound: &Bound) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in &bound.properties {
        if let Some((_, "instances", name, _)) = r4j_parts(p)
            && !out.iter().any(|n| n == name)
        {
            out.push(name.to_owned());
        }
    }
    out
}

/// `resilience4j.<section>.<instances|configs>.<name>.<property>`, split.
fn r4j_parts(p: &Property) -> Option<(&str, &str, &str, &str)> {
    match p.elements.as_slice() {
        [r, section, kind, name, prop]
            if r == "resilience4j" && SECTIONS.contains(&section.as_str()) =>
        {
            Some((section, kind, name, prop))
        }
        [r, section, kind, name, prop, index]
            if r == "resilience4j"
                && index.starts_with('[')
                && SECTIONS.contains(&section.as_str()) =>
        {
            Some((section, kind, name, prop))
        }
        _ => None,
    }
}

/// Maps every bound property onto `draft` (whose services are already named); returns one
/// line per key of the input, in the files' order.
pub fn apply(
    bound: &Bound,
    draft: &mut Draft,
    cores: u32,
) -> Result<(Shape, Vec<KeyLine>), ImportError> {
    let mut shape = Shape {
        instances: instances(bound),
        ..Shape::default()
    };
    let services: Vec<String> = draft.services.iter().map(|s| s.name.clone()).collect();
    let mut lines = Vec::new();
    for p in &bound.properties {
        let outcome = map_one(p, bound, draft, &mut shape, &services, cores)?;
        lines.push(KeyLine::of(&p.entry, outcome));
        for old in &p.replaced {
            lines.push(KeyLine::of(old, KeyOutcome::Replaced(p.entry.at())));
        }
    }
    for (e, why) in &bound.inactive {
        lines.push(KeyLine::of(e, KeyOutcome::Inactive(why.clone())));
    }
    lines.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    Ok((shape, lines))
}

fn map_one(
    p: &Property,
    bound: &Bound,
    draft: &mut Draft,
    shape: &mut Shape,
    services: &[String],
    cores: u32,
) -> Result<KeyOutcome, ImportError> {
    let from = format!("{} {}", p.entry.at(), p.entry.key);
    for (pattern, place, field, kind) in SIMPLE {
        if p.is(pattern) {
            let value = convert(kind, &p.entry.value).map_err(|w| bad(p, w))?;
            let target = match place {
                Where::Server => {
                    draft.server.set(field, value.clone(), from);
                    format!("server.{field}")
                }
                // With virtual threads Spring Boot's @Async executor is a
                // SimpleAsyncTaskExecutor (a virtual thread per task): no pool.
                Where::Task if virtual_threads(bound) => {
                    return Ok(KeyOutcome::NotModelled(
                        "spring.threads.virtual.enabled: @Async runs a virtual thread per task"
                            .into(),
                    ));
                }
                Where::Task => {
                    shape.task_pool = true;
                    draft
                        .bulkhead_mut(TASK_POOL)
                        .table
                        .set(field, value.clone(), from);
                    format!("strategy.bulkhead.{TASK_POOL}.{field}")
                }
                Where::Db => {
                    draft
                        .resource_mut(DB_RESOURCE)
                        .table
                        .set(field, value.clone(), from);
                    format!("resources.{DB_RESOURCE}.{field}")
                }
            };
            return Ok(KeyOutcome::Mapped(format!("{target} = {value}")));
        }
    }
    if p.is("server.tomcat.connection-timeout") || p.is("server.connection-timeout") {
        let value = convert(Kind::Duration, &p.entry.value).map_err(|w| bad(p, w))?;
        let explicit = bound
            .properties
            .iter()
            .any(|q| q.is("server.tomcat.keep-alive-timeout"));
        if explicit {
            return Ok(KeyOutcome::NotModelled(
                "the wait for a new connection's first request; threadlab's clients send it at once".into(),
            ));
        }
        draft.server.set(
            "keep_alive_timeout",
            value.clone(),
            format!("{from} (Tomcat's keepAliveTimeout defaults to it)"),
        );
        return Ok(KeyOutcome::Mapped(format!(
            "server.keep_alive_timeout = {value} (keepAliveTimeout defaults to connectionTimeout)"
        )));
    }
    if p.is("spring.threads.virtual.enabled") {
        let on = boolean(&p.entry.value).map_err(|w| bad(p, w))?;
        shape.virtual_threads = on;
        if on {
            draft.server.set("threads", quote("virtual"), from.clone());
            draft.unbounded.set("threads", quote("virtual"), from);
            return Ok(KeyOutcome::Mapped(
                "server.threads = \"virtual\", strategy.unbounded.threads = \"virtual\" (@Async on virtual threads)".into(),
            ));
        }
        return Ok(KeyOutcome::Mapped(
            "platform threads (threadlab's default)".into(),
        ));
    }
    if p.is("spring.task.execution.thread-name-prefix") {
        return Ok(KeyOutcome::NotModelled(format!(
            "thread names only; the pool is called {TASK_POOL:?} (its threads {TASK_POOL}-1, {TASK_POOL}-2, ...)"
        )));
    }
    if p.is("spring.profiles.active")
        || p.is("spring.config.activate.on-profile")
        || p.is("spring.profiles")
    {
        return Ok(KeyOutcome::Mapped(format!(
            "selects the documents (active: {})",
            list_or_none(&bound.profiles)
        )));
    }
    if let Some((section, kind, name, prop)) = r4j_parts(p) {
        return resilience(
            p,
            bound,
            draft,
            shape,
            services,
            cores,
            (section, kind, name, prop),
        );
    }
    Ok(KeyOutcome::NotModelled(unmodelled_reason(p)))
}

fn list_or_none(xs: &[String]) -> String {
    if xs.is_empty() {
        "none".into()
    } else {
        xs.join(", ")
    }
}

/// Why a key is left out, in a few words.
fn unmodelled_reason(p: &Property) -> String {
    let first = p.elements.first().map(String::as_str).unwrap_or("");
    match first {
        "server" | "spring" | "resilience4j" | "management" => "threadlab does not model it".into(),
        _ => "not a Spring Boot or resilience4j setting threadlab models".into(),
    }
}

/// The instances a resilience4j property applies to: an instance's own, or every instance
/// whose base config it is (`base-config`, else `default`).
fn applies_to(bound: &Bound, section: &str, kind: &str, name: &str) -> Vec<String> {
    if kind == "instances" {
        return vec![name.to_owned()];
    }
    let mut out = Vec::new();
    for inst in instances(bound) {
        let base = bound.properties.iter().find_map(|q| match r4j_parts(q) {
            Some((s, "instances", n, "baseconfig")) if s == section && n == inst => {
                Some(q.entry.value.trim().to_owned())
            }
            _ => None,
        });
        let has_section = bound.properties.iter().any(
            |q| matches!(r4j_parts(q), Some((s, "instances", n, _)) if s == section && n == inst),
        );
        if has_section && base.as_deref().unwrap_or("default") == name {
            out.push(inst);
        }
    }
    out
}

/// An instance's own value of `prop` in `section` wins over its base config's.
fn overridden_by_instance(bound: &Bound, section: &str, inst: &str, prop: &str) -> bool {
    bound
        .properties
        .iter()
        .any(|q| matches!(r4j_parts(q), Some((s, "instances", n, pr)) if s == section && n == inst && pr == prop))
}

#[allow(clippy::too_many_arguments)]
fn resilience(
    p: &Property,
    bound: &Bound,
    draft: &mut Draft,
    shape: &mut Shape,
    services: &[String],
    cores: u32,
    (section, kind, name, prop): (&str, &str, &str, &str),
) -> Result<KeyOutcome, ImportError> {
    if kind != "instances" && kind != "configs" {
        return Ok(KeyOutcome::NotModelled(
            "threadlab does not model it".into(),
        ));
    }
    if prop == "baseconfig" {
        return Ok(KeyOutcome::Mapped(format!(
            "{name} inherits configs.{}",
            p.entry.value.trim()
        )));
    }
    let Some((table, field, value_kind)) = target(section, prop) else {
        let written = p.entry.key.rsplit('.').next().unwrap_or(prop);
        return Ok(KeyOutcome::NotModelled(format!(
            "threadlab does not model resilience4j's {written}"
        )));
    };
    let value = field_value(p, section, prop, value_kind)?;
    if value.is_empty() {
        return Ok(KeyOutcome::Mapped(
            "off: no randomization (resilience4j's default)".into(),
        ));
    }
    // A switch's default gives way to the value the instance or its config sets.
    let weak =
        matches!(prop, "enableexponentialbackoff" | "enablerandomizedwait") && value != "1.0";
    let mut targets = Vec::new();
    let mut missing = Vec::new();
    for inst in applies_to(bound, section, kind, name) {
        if kind == "configs" && overridden_by_instance(bound, section, &inst, prop) {
            continue;
        }
        if !services.contains(&inst) {
            missing.push(inst);
            continue;
        }
        let from = format!("{} {}", p.entry.at(), p.entry.key);
        if weak && explicit_elsewhere(bound, section, &inst, field) {
            targets.push(format!(
                "services.{inst}.retry.{field} (the value its own key gives)"
            ));
            continue;
        }
        let path = put(draft, shape, table, &inst, field, &value, from, cores);
        targets.push(format!("{path} = {value}"));
    }
    if targets.is_empty() {
        let why = if missing.is_empty() {
            format!("no instance uses configs.{name} for {section}")
        } else {
            format!("no service {} in the endpoint", missing.join(", "))
        };
        return Ok(KeyOutcome::NotModelled(why));
    }
    Ok(KeyOutcome::Mapped(targets.join("; ")))
}

/// Whether an instance (or its config) sets the number a switch would default.
fn explicit_elsewhere(bound: &Bound, section: &str, inst: &str, field: &str) -> bool {
    let prop = match field {
        "multiplier" => "exponentialbackoffmultiplier",
        _ => "randomizedwaitfactor",
    };
    bound.properties.iter().any(|q| match r4j_parts(q) {
        Some((s, "instances", n, pr)) => s == section && n == inst && pr == prop,
        Some((s, "configs", n, pr)) => {
            s == section
                && pr == prop
                && applies_to(bound, section, "configs", n)
                    .iter()
                    .any(|i| i == inst)
        }
        _ => false,
    })
}

/// Which preset table and field a resilience4j property fills.
#[derive(Debug, Clone, Copy, PartialEq)]
enum R4jTable {
    Breaker,
    Retry,
    RateLimit,
    Service,
    Semaphore,
    Pool,
}

fn target(section: &str, prop: &str) -> Option<(R4jTable, &'static str, Kind)> {
    use Kind::*;
    use R4jTable::*;
    Some(match (section, prop) {
        ("circuitbreaker", "slidingwindowtype") => (Breaker, "window_type", Whole),
        ("circuitbreaker", "slidingwindowsize") => (Breaker, "window_size", Whole),
        ("circuitbreaker", "failureratethreshold") => (Breaker, "failure_rate", Number),
        ("circuitbreaker", "slowcallratethreshold") => (Breaker, "slow_call_rate", Number),
        ("circuitbreaker", "slowcalldurationthreshold") => {
            (Breaker, "slow_call_duration", Duration)
        }
        ("circuitbreaker", "minimumnumberofcalls") => (Breaker, "minimum_calls", Whole),
        ("circuitbreaker", "waitdurationinopenstate") => (Breaker, "wait_in_open", Duration),
        ("circuitbreaker", "permittednumberofcallsinhalfopenstate") => {
            (Breaker, "permitted_in_half_open", Whole)
        }
        ("circuitbreaker", "maxwaitdurationinhalfopenstate") => {
            (Breaker, "max_wait_in_half_open", Duration)
        }
        ("circuitbreaker", "automatictransitionfromopentohalfopenenabled") => {
            (Breaker, "automatic_transition", Bool)
        }
        ("retry", "maxattempts") => (Retry, "attempts", Whole),
        ("retry", "waitduration") => (Retry, "backoff", Duration),
        ("retry", "exponentialbackoffmultiplier") => (Retry, "multiplier", Number),
        ("retry", "enableexponentialbackoff") => (Retry, "multiplier", Bool),
        ("retry", "exponentialmaxwaitduration") => (Retry, "max_backoff", Duration),
        ("retry", "randomizedwaitfactor") => (Retry, "randomization", Number),
        ("retry", "enablerandomizedwait") => (Retry, "randomization", Bool),
        ("retry", "ignoreexceptions") => (Retry, "on", Whole),
        ("ratelimiter", "limitforperiod") => (RateLimit, "limit", Whole),
        ("ratelimiter", "limitrefreshperiod") => (RateLimit, "period", Duration),
        ("ratelimiter", "timeoutduration") => (RateLimit, "timeout", Duration),
        ("timelimiter", "timeoutduration") => (Service, "timeout", Duration),
        ("bulkhead", "maxconcurrentcalls") => (Semaphore, "permits", Whole),
        ("bulkhead", "maxwaitduration") => (Semaphore, "max_wait", Duration),
        ("threadpoolbulkhead", "corethreadpoolsize") => (Pool, "core", Whole),
        ("threadpoolbulkhead", "maxthreadpoolsize") => (Pool, "max", Whole),
        ("threadpoolbulkhead", "queuecapacity") => (Pool, "queue", Whole),
        ("threadpoolbulkhead", "keepaliveduration") => (Pool, "keep_alive", Duration),
        _ => return None,
    })
}

/// The preset value of a resilience4j property, with the few that change form.
fn field_value(p: &Property, section: &str, prop: &str, kind: Kind) -> Result<String, ImportError> {
    let v = p.entry.value.trim();
    match (section, prop) {
        ("circuitbreaker", "slidingwindowtype") => {
            match v.to_ascii_uppercase().replace('-', "_").as_str() {
                "COUNT_BASED" => Ok(quote("count")),
                "TIME_BASED" => Ok(quote("time")),
                _ => Err(bad(p, format!("{v:?} is not COUNT_BASED or TIME_BASED"))),
            }
        }
        // Switches whose value decides the field: off writes resilience4j's plain interval.
        // On, the switch gives resilience4j's default (1.5, 0.5) unless the instance sets one;
        // off, the plain interval.
        ("retry", "enableexponentialbackoff") => Ok(if boolean(v).map_err(|w| bad(p, w))? {
            "1.5".into()
        } else {
            "1.0".into()
        }),
        ("retry", "enablerandomizedwait") => Ok(if boolean(v).map_err(|w| bad(p, w))? {
            "0.5".into()
        } else {
            String::new()
        }),
        ("retry", "ignoreexceptions") => {
            if v.ends_with("CallNotPermittedException") {
                Ok("[\"timeout\", \"failure\", \"refused\"]".into())
            } else {
                Err(bad(
                    p,
                    "only CallNotPermittedException can be ignored in the model".into(),
                ))
            }
        }
        _ => convert(kind, v).map_err(|w| bad(p, w)),
    }
}

#[allow(clippy::too_many_arguments)]
fn put(
    draft: &mut Draft,
    shape: &mut Shape,
    table: R4jTable,
    inst: &str,
    field: &str,
    value: &str,
    from: String,
    cores: u32,
) -> String {
    let service = draft.service_mut(inst);
    let t: &mut FieldTable = match table {
        R4jTable::Breaker => &mut service.breaker,
        R4jTable::Retry => &mut service.retry,
        R4jTable::RateLimit => &mut service.rate_limit,
        R4jTable::Service => &mut service.own,
        R4jTable::Semaphore => {
            if !shape.semaphore_bulkheads.iter().any(|n| n == inst) {
                shape.semaphore_bulkheads.push(inst.to_owned());
            }
            // One permit count for every service: the smallest given wins.
            let keep = draft.semaphore.get(field).is_some_and(|f| {
                field == "permits"
                    && f.value.parse::<i64>().unwrap_or(i64::MAX)
                        <= value.parse().unwrap_or(i64::MAX)
            });
            if !keep {
                draft.semaphore.set(field, value, from);
            }
            return format!(
                "strategy.semaphore.{field} (one for every service: the smallest given)"
            );
        }
        R4jTable::Pool => {
            if !shape.thread_pool_bulkheads.iter().any(|n| n == inst) {
                shape.thread_pool_bulkheads.push(inst.to_owned());
            }
            let pool = draft.bulkhead_mut(inst);
            if pool.table.is_empty() {
                pool.table.set(
                    "services",
                    format!("[{}]", quote(inst)),
                    "the instance's service",
                );
                // resilience4j's ThreadPoolBulkheadConfig defaults, replaced by what is set.
                let max = cores.max(1);
                pool.table.set(
                    "core",
                    (max.saturating_sub(1)).max(1).to_string(),
                    "resilience4j's default: cores - 1",
                );
                pool.table
                    .set("max", max.to_string(), "resilience4j's default: cores");
                pool.table.set("queue", "100", "resilience4j's default");
                pool.table
                    .set("keep_alive", quote("20ms"), "resilience4j's default");
            }
            pool.table.set(field, value, from);
            return format!("strategy.bulkhead.{inst}.{field}");
        }
    };
    t.set(field, value, from);
    let section = match table {
        R4jTable::Breaker => ".breaker",
        R4jTable::Retry => ".retry",
        R4jTable::RateLimit => ".rate_limit",
        _ => "",
    };
    format!("services.{inst}{section}.{field}")
}

//! A preset's settings as Spring Boot and resilience4j properties (`application.yml`), under
//! the names `threadlab import spring` reads: Tomcat's connector, virtual threads, the
//! `@Async` pool (`task`), HikariCP (`db`), and each service's resilience4j instances, every
//! setting written out (a base config's values too), so importing the file gives the same
//! preset back. What resilience4j has no property for (a retry budget, full jitter) is a
//! comment.

use std::fmt::Write as _;

use crate::scenario::{BreakerWindow, Jitter, Scenario, ServerThreads, Strategy, UnboundedThreads};
use crate::time::Nanos;

/// A duration in Spring's simple form, in the largest unit that keeps it exact.
pub fn duration(d: Nanos) -> String {
    let n = d.0;
    if n == 0 {
        return "0ms".into();
    }
    for (unit, size) in [
        ("h", 3_600_000_000_000u64),
        ("m", 60_000_000_000),
        ("s", 1_000_000_000),
        ("ms", 1_000_000),
        ("us", 1_000),
    ] {
        if n.is_multiple_of(size) {
            return format!("{}{unit}", n / size);
        }
    }
    format!("{n}ns")
}

fn number(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}

/// One property: its path and its value (or a comment line, with an empty path).
type Property = (Vec<String>, String);

fn prop(path: &[&str], value: impl Into<String>) -> Property {
    (path.iter().map(|s| (*s).to_owned()).collect(), value.into())
}

/// The preset's properties, in `application.yml`'s order.
pub fn properties(s: &Scenario) -> Vec<Property> {
    let mut out = Vec::new();
    let tomcat = |k: &[&'static str]| [&["server", "tomcat"][..], k].concat();
    match s.server.threads {
        ServerThreads::Platform(n) => out.push(prop(&tomcat(&["threads", "max"]), n.to_string())),
        ServerThreads::Virtual => {
            out.push(prop(&["spring", "threads", "virtual", "enabled"], "true"))
        }
    }
    out.push(prop(
        &tomcat(&["threads", "min-spare"]),
        s.server.min_spare.to_string(),
    ));
    if let Some(q) = s.server.max_queue {
        out.push(prop(
            &tomcat(&["threads", "max-queue-capacity"]),
            q.to_string(),
        ));
    }
    out.push(prop(
        &tomcat(&["accept-count"]),
        s.server.accept_count.to_string(),
    ));
    out.push(prop(
        &tomcat(&["max-connections"]),
        s.server.max_connections.to_string(),
    ));
    let c = &s.server.connector;
    out.push(prop(
        &tomcat(&["keep-alive-timeout"]),
        duration(c.keep_alive_timeout),
    ));
    let requests = c
        .max_keep_alive_requests
        .map_or_else(|| "-1".to_owned(), |n| n.to_string());
    out.push(prop(&tomcat(&["max-keep-alive-requests"]), requests));
    if s.server.threads != ServerThreads::Virtual
        && s.strategy.unbounded_threads == UnboundedThreads::Virtual
        && s.strategy.default == Strategy::Unbounded
    {
        out.push(prop(&["spring", "threads", "virtual", "enabled"], "true"));
    }
    for b in s
        .strategy
        .bulkheads
        .iter()
        .filter(|b| b.name == crate::import::spring::TASK_POOL)
    {
        let task = |k: &str| {
            vec![
                "spring".to_owned(),
                "task".into(),
                "execution".into(),
                "pool".into(),
                k.into(),
            ]
        };
        out.push((task("core-size"), b.core.to_string()));
        out.push((task("max-size"), b.max.to_string()));
        out.push((task("queue-capacity"), b.queue.to_string()));
        out.push((task("keep-alive"), duration(b.keep_alive)));
    }
    for r in s
        .resources
        .iter()
        .filter(|r| r.name == crate::import::spring::DB_RESOURCE)
    {
        out.push(prop(
            &["spring", "datasource", "hikari", "maximum-pool-size"],
            r.size.to_string(),
        ));
        out.push(prop(
            &["spring", "datasource", "hikari", "connection-timeout"],
            duration(r.timeout),
        ));
    }
    resilience(s, &mut out);
    out
}

fn resilience(s: &Scenario, out: &mut Vec<Property>) {
    let r4j = |section: &str, name: &str, key: &str| {
        vec![
            "resilience4j".to_owned(),
            section.into(),
            "instances".into(),
            name.into(),
            key.into(),
        ]
    };
    for b in s
        .strategy
        .bulkheads
        .iter()
        .filter(|b| b.name != crate::import::spring::TASK_POOL)
    {
        let served: Vec<&str> = b
            .services
            .iter()
            .filter_map(|id| s.services.get(id.0))
            .map(|x| x.name.as_str())
            .collect();
        // A pool threadlab gives a service no bulkhead lists: resilience4j's defaults.
        if served.len() == 1 && b.name == format!("bulkhead-{}", served[0]) {
            continue;
        }
        if served != [b.name.as_str()] {
            out.push((Vec::new(), format!(
                "pool {} serves {}: a resilience4j thread-pool bulkhead serves one instance, so it is not written",
                b.name,
                served.join(", ")
            )));
            continue;
        }
        let k = |key: &str| r4j("thread-pool-bulkhead", &b.name, key);
        out.push((k("core-thread-pool-size"), b.core.to_string()));
        out.push((k("max-thread-pool-size"), b.max.to_string()));
        out.push((k("queue-capacity"), b.queue.to_string()));
        out.push((k("keep-alive-duration"), duration(b.keep_alive)));
    }
    if s.strategy.default == Strategy::Semaphore {
        for svc in &s.services {
            let k = |key: &str| r4j("bulkhead", &svc.name, key);
            out.push((
                k("max-concurrent-calls"),
                s.strategy.semaphore.permits.to_string(),
            ));
            out.push((
                k("max-wait-duration"),
                duration(s.strategy.semaphore.max_wait),
            ));
        }
    }
    for svc in &s.services {
        if let Some(t) = svc.timeout {
            out.push((
                r4j("timelimiter", &svc.name, "timeout-duration"),
                duration(t),
            ));
        }
    }
    for svc in &s.services {
        let Some(b) = &svc.breaker else { continue };
        let k = |key: &str| r4j("circuitbreaker", &svc.name, key);
        let (kind, size) = match b.window {
            BreakerWindow::Count(n) => ("COUNT_BASED", n),
            BreakerWindow::Time(n) => ("TIME_BASED", n),
        };
        out.push((k("sliding-window-type"), kind.into()));
        out.push((k("sliding-window-size"), size.to_string()));
        out.push((k("minimum-number-of-calls"), b.minimum_calls.to_string()));
        out.push((
            k("failure-rate-threshold"),
            number(b.failure_rate_threshold),
        ));
        out.push((
            k("slow-call-rate-threshold"),
            number(b.slow_call_rate_threshold),
        ));
        out.push((
            k("slow-call-duration-threshold"),
            duration(b.slow_call_duration),
        ));
        out.push((k("wait-duration-in-open-state"), duration(b.wait_in_open)));
        out.push((
            k("permitted-number-of-calls-in-half-open-state"),
            b.permitted_in_half_open.to_string(),
        ));
        if let Some(w) = b.max_wait_in_half_open {
            out.push((k("max-wait-duration-in-half-open-state"), duration(w)));
        }
        out.push((
            k("automatic-transition-from-open-to-half-open-enabled"),
            b.automatic_transition.to_string(),
        ));
    }
    for svc in &s.services {
        let Some(r) = &svc.retry else { continue };
        let k = |key: &str| r4j("retry", &svc.name, key);
        out.push((k("max-attempts"), r.attempts.to_string()));
        out.push((k("wait-duration"), duration(r.backoff.wait)));
        if r.backoff.multiplier != 1.0 {
            out.push((k("enable-exponential-backoff"), "true".into()));
            out.push((
                k("exponential-backoff-multiplier"),
                number(r.backoff.multiplier),
            ));
        }
        if let Some(m) = r.backoff.max_wait {
            out.push((k("exponential-max-wait-duration"), duration(m)));
        }
        match r.backoff.jitter {
            Jitter::Randomized(f) => {
                out.push((k("enable-randomized-wait"), "true".into()));
                out.push((k("randomized-wait-factor"), number(f)));
            }
            Jitter::Full => out.push((
                Vec::new(),
                format!("{}: full jitter has no resilience4j property", svc.name),
            )),
            Jitter::None => {}
        }
        if r.budget.is_some() {
            out.push((
                Vec::new(),
                format!("{}: a retry budget has no resilience4j property", svc.name),
            ));
        }
        if !r.on.not_permitted {
            let mut path = k("ignore-exceptions");
            path.push("[0]".into());
            out.push((
                path,
                "io.github.resilience4j.circuitbreaker.CallNotPermittedException".into(),
            ));
        }
    }
    for svc in s.services.iter().filter(|x| x.adaptive_limit.is_some()) {
        out.push((Vec::new(), format!(
            "{} has an adaptive concurrency limit (Netflix concurrency-limits): resilience4j has no such property, so it is not written",
            svc.name
        )));
    }
    for svc in &s.services {
        let Some(r) = &svc.rate_limit else { continue };
        let k = |key: &str| r4j("ratelimiter", &svc.name, key);
        out.push((k("limit-for-period"), r.limit_for_period.to_string()));
        out.push((k("limit-refresh-period"), duration(r.refresh_period)));
        out.push((k("timeout-duration"), duration(r.timeout)));
    }
}

/// The properties as YAML: nested mappings, a list for `[0]` elements, comments for what
/// has no property.
pub fn to_yaml(s: &Scenario) -> String {
    let mut out = format!(
        "# {}: written by `threadlab export spring`\n",
        s.name.replace('\n', " ")
    );
    let mut previous: Vec<String> = Vec::new();
    for (path, value) in properties(s) {
        if path.is_empty() {
            let _ = writeln!(out, "# {value}");
            continue;
        }
        let (leaf, parents) = path
            .split_last()
            .map_or((&path[0], &[][..]), |(l, p)| (l, p));
        let common = previous
            .iter()
            .zip(parents)
            .take_while(|(a, b)| a == b)
            .count();
        for (depth, key) in parents.iter().enumerate().skip(common) {
            let _ = writeln!(out, "{}{}:", "  ".repeat(depth), yaml_key(key));
        }
        let depth = parents.len();
        if let Some(i) = leaf.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let _ = i;
            let _ = writeln!(out, "{}- {}", "  ".repeat(depth), yaml_value(&value));
        } else {
            let _ = writeln!(
                out,
                "{}{}: {}",
                "  ".repeat(depth),
                yaml_key(leaf),
                yaml_value(&value)
            );
        }
        previous = parents.to_vec();
    }
    out
}

/// A key YAML reads as plain text (a name with other characters is quoted).
fn yaml_key(key: &str) -> String {
    if key
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        key.to_owned()
    } else {
        format!("\"[{}]\"", key.replace('"', ""))
    }
}

fn yaml_value(value: &str) -> String {
    if value
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || ".-_".contains(c))
    {
        value.to_owned()
    } else {
        format!("{value:?}")
    }
}

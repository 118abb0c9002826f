//! Raw preset -> typed [`Scenario`]: every range, name and cross-field rule is checked here,
//! once, so the engine never meets an invalid value. Rules copy what the JDK and Tomcat would
//! accept or reject, and say so in their messages.

use super::check::{Checker, quoted, service_id};
use super::error::ScenarioError;
use super::model::{
    ArticleFigure, CpuScheduling, Endpoint, Fault, Hang, Jdk, Latency, Load, LoadMode, Phase,
    PhaseChange, Ramp, Resource, ResourceId, Scenario, ScheduledFault, Server, ServerThreads,
    Service, ServiceId, Strategy, TOMCAT_ACCEPT_COUNT, TourKey, TourPanel, TourStep,
};
use super::pools;
use super::raw::{
    RawBreaker, RawDist, RawEndpoint, RawFault, RawFigure, RawLatency, RawLoad, RawPreset,
    RawRateLimit, RawResource, RawRetry, RawServer, RawService, RawThreads, RawTourStep,
};
use super::resilience::{
    Backoff, BreakerConfig, BreakerWindow, Jitter, RateLimiterConfig, Retry, RetryOn,
};
// LARGE: counts that only memory limits (connections, queue slots).
use super::limits::{
    MAX_CALL_ATTEMPTS, MAX_CALLS, MAX_CLIENTS, MAX_CONNECTIONS as LARGE, MAX_SERVICES,
};

use super::trace::{parse_trace_bytes, read_limited};

/// Checks every rule of the preset schema and builds the model. `origin` names the source in errors.
pub(crate) fn validate(raw: RawPreset, origin: &str) -> Result<Scenario, ScenarioError> {
    let check = Checker { origin };
    let name = check.name("scenario.name", &raw.scenario.name)?;
    let seed = u64::try_from(raw.scenario.seed).map_err(|_| {
        check.invalid(
            "scenario.seed",
            raw.scenario.seed,
            format!("is negative: allowed 0..={}", i64::MAX),
        )
    })?;
    let duration = check.positive_duration("scenario.duration", &raw.scenario.duration)?;
    let cores = check.count("scenario.cores", raw.scenario.cores, 1..=1024)?;
    let jdk = jdk(&check, raw.scenario.jdk)?;
    let spawn_cost = check.duration("scenario.spawn_cost", &raw.scenario.spawn_cost)?;
    let cpu_scheduling = cpu_scheduling(&check, &raw.scenario, cores)?;
    let resources = resources(&check, &raw.resources)?;
    let services = services(&check, &raw.services, &resources)?;
    let endpoint = endpoint(&check, &raw.endpoint, &services)?;
    call_attempts(&check, &services, &endpoint)?;
    let figures = figures(&check, &raw.figures)?;
    let tour = tour(&check, &raw.tour)?;
    let faults = faults(&check, &raw.faults, &services)?;
    let mut load = load(&check, &raw.load, &services)?;
    phases_within(&check, &raw.load, &load, duration)?;
    let server = server(&check, &raw.server, jdk)?;
    if raw.load.connect_spacing.is_none()
        && server.connector.accept_cost == crate::time::Nanos::ZERO
    {
        // An acceptor that costs nothing takes any burst: the client kind's spacing would
        // only shift the clients' starts, so they start together as they always have.
        load.link.connect_spacing = crate::time::Nanos::ZERO;
    }
    Ok(Scenario {
        source: origin.to_owned(),
        name,
        about: check.text("scenario.about", &raw.scenario.about, false)?,
        seed,
        duration,
        cores,
        jdk,
        load,
        server,
        strategy: pools::strategy(&check, &raw.strategy, &services, &endpoint, cores)?,
        services,
        endpoint,
        spawn_cost,
        cpu_scheduling,
        resources,
        figures,
        faults,
        tour,
        jvm: super::jvm_check::jvm(&check, raw.jvm.as_ref())?,
    })
}

/// `scenario.cpu_scheduling`, with its slice (the kernel's for `cores` unless given) and the
/// cost of a context switch.
fn cpu_scheduling(
    check: &Checker,
    raw: &super::raw::RawScenario,
    cores: u32,
) -> Result<CpuScheduling, ScenarioError> {
    let switch = check.duration("scenario.context_switch", &raw.context_switch)?;
    if switch > crate::time::Nanos::from_millis(1) {
        return Err(check.invalid(
            "scenario.context_switch",
            quoted(&raw.context_switch.0),
            "is out of range: allowed 0s..=1ms (a switch costs microseconds)",
        ));
    }
    match raw.cpu_scheduling.as_str() {
        "time-sliced" => {
            let slice = match &raw.slice {
                Some(text) => check.positive_duration("scenario.slice", text)?,
                None => CpuScheduling::kernel_slice(cores),
            };
            Ok(CpuScheduling::TimeSliced { slice, switch })
        }
        "run-to-completion" => Ok(CpuScheduling::RunToCompletion),
        other => Err(check.invalid(
            "scenario.cpu_scheduling",
            quoted(other),
            "is not allowed: expected \"time-sliced\" or \"run-to-completion\"",
        )),
    }
}

fn tour(check: &Checker, raw: &[RawTourStep]) -> Result<Vec<TourStep>, ScenarioError> {
    let mut last = crate::time::Nanos::ZERO;
    raw.iter()
        .enumerate()
        .map(|(i, step)| {
            let path = format!("tour[{i}]");
            let at = check.duration(&format!("{path}.at"), &step.at)?;
            if at < last {
                return Err(check.invalid(
                    &format!("{path}.at"),
                    quoted(&step.at.0),
                    "is before the previous step: steps run in order of time",
                ));
            }
            last = at;
            Ok(TourStep {
                at,
                keys: tour_keys(check, &format!("{path}.keys"), &step.keys)?,
                caption: check.text(&format!("{path}.caption"), &step.caption, true)?,
                panel: tour_panel(check, &format!("{path}.panel"), step.panel.as_deref())?,
                expect: step.expect.clone(),
            })
        })
        .collect()
}

/// Which part of the screen a caption talks about.
fn tour_panel(check: &Checker, path: &str, text: Option<&str>) -> Result<TourPanel, ScenarioError> {
    let Some(name) = text else {
        return Ok(TourPanel::Pools);
    };
    TourPanel::named(name).ok_or_else(|| {
        check.invalid(
            path,
            quoted(name),
            "is not a panel: pools, outcomes, latency, compare, theory, resilience or log",
        )
    })
}

/// A tour step's keys, in the one key notation ([`super::parse_keys`]).
fn tour_keys(check: &Checker, path: &str, text: &str) -> Result<Vec<TourKey>, ScenarioError> {
    super::parse_keys(text).map_err(|why| check.invalid(path, quoted(text), why.to_string()))
}

fn resources(check: &Checker, raw: &[RawResource]) -> Result<Vec<Resource>, ScenarioError> {
    let mut out: Vec<Resource> = Vec::with_capacity(raw.len());
    for (i, r) in raw.iter().enumerate() {
        let path = format!("resources[{i}]");
        let name = check.name(&format!("{path}.name"), &r.name)?;
        if out.iter().any(|o| o.name == name) {
            return Err(check.invalid(
                &format!("{path}.name"),
                quoted(&name),
                "is already the name of another resource: names must be unique",
            ));
        }
        out.push(Resource {
            name,
            size: check.count(&format!("{path}.size"), r.size, 1..=100_000)?,
            timeout: check.positive_duration(&format!("{path}.timeout"), &r.timeout)?,
        });
    }
    Ok(out)
}

fn figures(check: &Checker, raw: &[RawFigure]) -> Result<Vec<ArticleFigure>, ScenarioError> {
    let choices = Strategy::ALL.map(|s| (s.name(), s));
    raw.iter()
        .enumerate()
        .map(|(i, f)| {
            let path = format!("figures[{i}]");
            if !(f.tolerance.is_finite() && (0.0..=1.0).contains(&f.tolerance)) {
                return Err(check.invalid(
                    &format!("{path}.tolerance"),
                    f.tolerance,
                    "is out of range: allowed 0.0..=1.0 (a relative difference)",
                ));
            }
            if !f.expect.is_finite() {
                return Err(check.invalid(
                    &format!("{path}.expect"),
                    f.expect,
                    "must be a finite number",
                ));
            }
            Ok(ArticleFigure {
                what: check.text(&format!("{path}.what"), &f.what, false)?,
                article: check.text(&format!("{path}.article"), &f.article, false)?,
                strategy: check.one_of(&format!("{path}.strategy"), &f.strategy, &choices)?,
                metric: f.metric.clone(),
                expect: f.expect,
                tolerance: f.tolerance,
                sets: f.set.clone(),
                duration: match &f.duration {
                    Some(d) => Some(check.positive_duration(&format!("{path}.duration"), d)?),
                    None => None,
                },
            })
        })
        .collect()
}

fn jdk(check: &Checker, version: i64) -> Result<Jdk, ScenarioError> {
    match version {
        17 => Ok(Jdk::V17),
        21 => Ok(Jdk::V21),
        25 => Ok(Jdk::V25),
        other => Err(check.invalid(
            "scenario.jdk",
            other,
            "is not supported: expected one of 17, 21, 25",
        )),
    }
}

/// Fields of the other modes are ignored (see [`RawLoad`]).
fn load(check: &Checker, raw: &RawLoad, services: &[Service]) -> Result<Load, ScenarioError> {
    let count = |path: &str, value: Option<i64>, what: &str| match value {
        Some(v) => check.count(path, v, 1..=MAX_CLIENTS),
        None => Err(check.missing(
            path,
            format!("required when load.mode = {:?} ({what})", raw.mode),
        )),
    };
    let mode = match raw.mode.as_str() {
        "runs" => LoadMode::Runs {
            count: count(
                "load.count",
                raw.count,
                "how many requests, one after another",
            )?,
        },
        "batch" => LoadMode::Batch {
            count: count("load.count", raw.count, "how many requests, all at t = 0")?,
        },
        "open" => open_load(check, raw)?,
        "closed" => LoadMode::Closed {
            clients: count(
                "load.clients",
                raw.clients,
                "how many clients, each waiting for its response",
            )?,
            think: check.duration("load.think", &raw.think)?,
        },
        "trace" => trace_load(check, raw, services)?,
        other => {
            return Err(check.invalid(
                "load.mode",
                quoted(other),
                "is not allowed: expected one of runs, open, closed, batch, trace",
            ));
        }
    };
    let timeout = match &raw.timeout {
        Some(text) => Some(check.positive_duration("load.timeout", text)?),
        None => None,
    };
    let phases = phases(check, raw, &mode)?;
    let retry = match &raw.retry {
        Some(_) if !matches!(mode, LoadMode::Open { .. } | LoadMode::Closed { .. }) => {
            return Err(check.invalid(
                "load.retry",
                "{ ... }",
                "needs load.mode = \"open\" or \"closed\": only their clients send again",
            ));
        }
        Some(r) => Some(retry(check, "load.retry", r)?),
        None => None,
    };
    let breaker = match &raw.breaker {
        Some(_) if !matches!(mode, LoadMode::Open { .. } | LoadMode::Closed { .. }) => {
            return Err(check.invalid(
                "load.breaker",
                "{ ... }",
                "needs load.mode = \"open\" or \"closed\": only their clients keep sending",
            ));
        }
        Some(b) => Some(breaker(check, "load.breaker", b)?),
        None => None,
    };
    Ok(Load {
        mode,
        timeout,
        link: super::network::link(check, raw)?,
        phases,
        retry,
        breaker,
    })
}

/// `[load.retry]` (a client's retries of a whole request) or `[services.retry]` (resilience4j's
/// `Retry` around each call), at `path`.
fn retry(check: &Checker, path: &str, raw: &RawRetry) -> Result<Retry, ScenarioError> {
    let field = |name: &str| format!("{path}.{name}");
    let attempts = check.count(&field("attempts"), raw.attempts, 1..=100)?;
    let multiplier = raw.multiplier;
    if !(multiplier.is_finite() && (1.0..=10.0).contains(&multiplier)) {
        return Err(check.invalid(
            &field("multiplier"),
            crate::scenario::short_number(multiplier),
            "is out of range: allowed 1.0..=10.0 (1 keeps the pause fixed)",
        ));
    }
    let jitter = match (raw.jitter.as_str(), raw.randomization) {
        ("none", None) => Jitter::None,
        ("full", None) => Jitter::Full,
        ("none", Some(f)) if f.is_finite() && f > 0.0 && f < 1.0 => Jitter::Randomized(f),
        ("none", Some(f)) => {
            return Err(check.invalid(
                &field("randomization"),
                crate::scenario::short_number(f),
                "is out of range: allowed > 0 and < 1 (resilience4j's randomizationFactor)",
            ));
        }
        ("full", Some(_)) => {
            return Err(check.invalid(
                &field("randomization"),
                "(set)",
                "cannot be combined with jitter = \"full\": give one of them",
            ));
        }
        (other, _) => {
            return Err(check.invalid(
                &field("jitter"),
                quoted(other),
                "is not allowed: expected \"none\" or \"full\" (or give randomization)",
            ));
        }
    };
    let max_wait = match &raw.max_backoff {
        Some(text) => Some(check.positive_duration(&field("max_backoff"), text)?),
        None => None,
    };
    let budget = match raw.budget {
        Some(b) if b.is_finite() && b > 0.0 && b <= 10.0 => Some(b),
        Some(b) => {
            return Err(check.invalid(
                &field("budget"),
                crate::scenario::short_number(b),
                "is out of range: allowed > 0 and <= 10 (retries per first attempt)",
            ));
        }
        None => None,
    };
    if raw.on.is_empty() {
        return Err(check.invalid(
            &field("on"),
            "[]",
            "is empty, which retries nothing here while resilience4j reads an empty list as \
             every exception: list the outcomes to retry (\"timeout\", \"failure\", \
             \"refused\", \"not_permitted\"), leave `on` out for all of them, or set \
             attempts = 1 for no retries",
        ));
    }
    // Finagle's `RetryBudget` takes a `ttl` of 1 to 60 seconds.
    let budget_window = match &raw.budget_window {
        Some(text) if budget.is_none() => {
            return Err(check.invalid(
                &field("budget_window"),
                quoted(&text.0),
                "needs a budget: give budget too (retries per first attempt)",
            ));
        }
        Some(text) => {
            let window = check.duration(&field("budget_window"), text)?;
            if !(crate::time::Nanos::from_secs(1)..=crate::time::Nanos::from_secs(60))
                .contains(&window)
            {
                return Err(check.invalid(
                    &field("budget_window"),
                    quoted(&text.0),
                    "is out of range: allowed 1s..=60s (Finagle's ttl)",
                ));
            }
            Some(window)
        }
        None => None,
    };
    let mut on = RetryOn::default();
    for (i, name) in raw.on.iter().enumerate() {
        match name.as_str() {
            "timeout" => on.timeout = true,
            "failure" => on.failure = true,
            "refused" => on.rejection = true,
            "not_permitted" => on.not_permitted = true,
            other => {
                return Err(check.invalid(
                    &field(&format!("on.{i}")),
                    quoted(other),
                    "is not allowed: expected \"timeout\", \"failure\", \"refused\" or \
                     \"not_permitted\"",
                ));
            }
        }
    }
    Ok(Retry {
        attempts,
        backoff: Backoff {
            wait: check.duration(&field("backoff"), &raw.backoff)?,
            multiplier,
            jitter,
            max_wait,
        },
        budget,
        budget_window,
        on,
    })
}

/// A phase at or after the run's end would never be played (nor should the cost estimate
/// count it): refused, naming it.
fn phases_within(
    check: &Checker,
    raw: &RawLoad,
    load: &Load,
    duration: crate::time::Nanos,
) -> Result<(), ScenarioError> {
    match load.phases.iter().position(|p| p.at >= duration) {
        Some(i) => Err(check.invalid(
            &format!("load.phases.{i}.at"),
            quoted(&raw.phases[i].at.0),
            format!(
                "is at or after the run's end (scenario.duration = {duration}), so it would \
                 never be played: allowed before it"
            ),
        )),
        None => Ok(()),
    }
}

/// `[[load.phases]]`: each at a later time than the one before, with the rate of an open
/// load or the clients of a closed one.
fn phases(check: &Checker, raw: &RawLoad, mode: &LoadMode) -> Result<Vec<Phase>, ScenarioError> {
    let mut phases: Vec<Phase> = Vec::with_capacity(raw.phases.len());
    for (i, p) in raw.phases.iter().enumerate() {
        let path = |field: &str| format!("load.phases.{i}.{field}");
        let at = check.positive_duration(&path("at"), &p.at)?;
        if let Some(before) = phases.last()
            && at <= before.at
        {
            return Err(check.invalid(
                &path("at"),
                quoted(&p.at.0),
                format!(
                    "must come after load.phases.{}.at ({}): phases are in time order",
                    i - 1,
                    before.at
                ),
            ));
        }
        let change = match (mode, p.rate, p.clients) {
            (LoadMode::Open { ramp: Some(_), .. }, ..) => {
                return Err(check.invalid(
                    "load.ramp",
                    format!(
                        "{{ to = {} }}",
                        crate::scenario::short_number(raw.ramp.as_ref().map_or(0.0, |r| r.to))
                    ),
                    "cannot be combined with [[load.phases]]: give the ramp's steps as phases",
                ));
            }
            // 0: the load pauses, or ends, until a later phase.
            (LoadMode::Open { .. }, Some(0.0), None) => PhaseChange::Rate(0.0),
            (LoadMode::Open { .. }, Some(rate), None) if rate > 0.0 => {
                PhaseChange::Rate(check.rate(&path("rate"), rate)?)
            }
            (LoadMode::Open { .. }, Some(rate), None) => {
                return Err(check.invalid(
                    &path("rate"),
                    crate::scenario::short_number(rate),
                    "is out of range: allowed 0 (no new requests until the next phase) to \
                     1000000 per second",
                ));
            }
            (LoadMode::Closed { .. }, None, Some(clients)) => {
                PhaseChange::Clients(check.count(&path("clients"), clients, 0..=MAX_CLIENTS)?)
            }
            (LoadMode::Open { .. }, _, Some(clients)) => {
                return Err(check.invalid(
                    &path("clients"),
                    clients,
                    "is not allowed in a phase of an open load: give its rate (requests per \
                     second) only",
                ));
            }
            (LoadMode::Closed { .. }, Some(rate), _) => {
                return Err(check.invalid(
                    &path("rate"),
                    crate::scenario::short_number(rate),
                    "is not allowed in a phase of a closed load: give its clients only",
                ));
            }
            (LoadMode::Open { .. }, ..) => {
                return Err(check.missing(
                    &path("rate"),
                    "required, and only it, in a phase of an open load (requests per second)",
                ));
            }
            (LoadMode::Closed { .. }, ..) => {
                return Err(check.missing(
                    &path("clients"),
                    "required, and only it, in a phase of a closed load (how many clients)",
                ));
            }
            _ => {
                return Err(check.invalid(
                    "load.mode",
                    quoted(&raw.mode),
                    "has no [[load.phases]]: only open and closed loads change over time",
                ));
            }
        };
        phases.push(Phase { at, change });
    }
    Ok(phases)
}

/// `load.mode = "open"`: Poisson arrivals at `rate`, optionally ramping.
fn open_load(check: &Checker, raw: &RawLoad) -> Result<LoadMode, ScenarioError> {
    let Some(rate) = raw.rate else {
        return Err(check.missing(
            "load.rate",
            "required when load.mode = \"open\" (requests per second, like 50.0)",
        ));
    };
    let ramp = match &raw.ramp {
        Some(ramp) => Some(Ramp {
            to: check.rate("load.ramp.to", ramp.to)?,
            over: check.positive_duration("load.ramp.over", &ramp.over)?,
        }),
        None => None,
    };
    Ok(LoadMode::Open {
        rate: check.rate("load.rate", rate)?,
        ramp,
    })
}

/// `load.mode = "trace"`: the rows of a CSV file, relative to the preset's folder.
fn trace_load(
    check: &Checker,
    raw: &RawLoad,
    services: &[Service],
) -> Result<LoadMode, ScenarioError> {
    let Some(file) = &raw.file else {
        return Err(check.missing(
            "load.file",
            "required when load.mode = \"trace\" (a CSV of arrival times and latencies)",
        ));
    };
    // Relative to the preset's folder (the working directory for built-ins).
    let base = std::path::Path::new(check.origin)
        .parent()
        .filter(|p| !p.as_os_str().is_empty() && check.origin.ends_with(".toml"));
    let path = base.map_or_else(|| std::path::PathBuf::from(file), |b| b.join(file));
    let label = path.display().to_string();
    let bytes = read_limited(&path)?;
    Ok(LoadMode::Trace {
        rows: parse_trace_bytes(&label, &bytes, services)?,
    })
}

fn server(check: &Checker, raw: &RawServer, jdk: Jdk) -> Result<Server, ScenarioError> {
    let threads = match &raw.threads {
        RawThreads::Count(n) => {
            ServerThreads::Platform(check.count("server.threads", *n, 1..=100_000)?)
        }
        RawThreads::Named(name) if name == "virtual" => {
            if jdk < Jdk::V21 {
                return Err(check.invalid(
                    "server.threads",
                    quoted(name),
                    "needs scenario.jdk >= 21: virtual threads are final from JDK 21 (JEP 444)",
                ));
            }
            ServerThreads::Virtual
        }
        RawThreads::Named(name) => {
            return Err(check.invalid(
                "server.threads",
                quoted(name),
                "is not allowed: expected a count 1..=100000 or \"virtual\"",
            ));
        }
    };
    let min_spare = check.count("server.min_spare", raw.min_spare, 0..=100_000)?;
    if let ServerThreads::Platform(max) = threads
        && min_spare > max
    {
        return Err(check.invalid("server.min_spare", min_spare, format!("is above server.threads = {max}: min_spare must be <= threads (Tomcat would silently cap minSpareThreads at maxThreads)")));
    }
    Ok(Server {
        threads,
        min_spare,
        max_connections: check.count("server.max_connections", raw.max_connections, 1..=LARGE)?,
        accept_count: if raw.accept_count <= 0 {
            TOMCAT_ACCEPT_COUNT
        } else {
            check.count("server.accept_count", raw.accept_count, 1..=LARGE)?
        },
        accept_count_ignored: (raw.accept_count <= 0).then_some(raw.accept_count),
        max_queue: match raw.max_queue {
            Some(q) => Some(check.count("server.max_queue", q, 1..=LARGE)?),
            None => None,
        },
        keep_alive: check.duration("server.keep_alive", &raw.keep_alive)?,
        async_: raw.async_,
        connector: super::network::connector(check, raw)?,
        queue_timeout: match &raw.queue_timeout {
            Some(text) => Some(check.positive_duration("server.queue_timeout", text)?),
            None => None,
        },
        adaptive_lifo: match raw.adaptive_lifo {
            Some(n) => Some(check.count("server.adaptive_lifo", n, 0..=LARGE)?),
            None => None,
        },
        rate_limit: match &raw.rate_limit {
            Some(l) => Some(rate_limit(check, "server.rate_limit", l)?),
            None => None,
        },
    })
}

fn services(
    check: &Checker,
    raw: &[RawService],
    resources: &[Resource],
) -> Result<Vec<Service>, ScenarioError> {
    if raw.is_empty() {
        return Err(check.invalid(
            "services",
            "[]",
            "is empty: define at least one [[services]] with a name and a latency",
        ));
    }
    if raw.len() > MAX_SERVICES {
        return Err(check.invalid(
            "services",
            format!("[{} services]", raw.len()),
            format!("has too many entries: allowed at most {MAX_SERVICES}"),
        ));
    }
    let mut services: Vec<Service> = Vec::with_capacity(raw.len());
    for (i, entry) in raw.iter().enumerate() {
        let path = format!("services[{i}]");
        let name = check.name(&format!("{path}.name"), &entry.name)?;
        if let Some(j) = services.iter().position(|s| s.name == name) {
            return Err(check.invalid(
                &format!("{path}.name"),
                quoted(&name),
                format!("is already the name of services[{j}]: service names must be unique"),
            ));
        }
        services.push(service(check, &path, name, entry, resources)?);
    }
    Ok(services)
}

/// The service at `path` (`services[i]`), its `name` already checked.
fn service(
    check: &Checker,
    path: &str,
    name: String,
    raw: &RawService,
    resources: &[Resource],
) -> Result<Service, ScenarioError> {
    let hang = match &raw.hang {
        Some(hang) => Some(Hang {
            probability: check
                .probability(&format!("{path}.hang.probability"), hang.probability)?,
            duration: check.positive_duration(&format!("{path}.hang.duration"), &hang.duration)?,
        }),
        None => None,
    };
    let timeout = match &raw.timeout {
        Some(text) => Some(check.positive_duration(&format!("{path}.timeout"), text)?),
        None => None,
    };
    let cpu = match &raw.cpu {
        Some(text) => check.duration(&format!("{path}.cpu"), text)?,
        None => crate::time::Nanos::ZERO,
    };
    let uses = match &raw.uses {
        Some(r) => Some(resource_id(check, &format!("{path}.uses"), r, resources)?),
        None => None,
    };
    Ok(Service {
        name,
        latency: latency(check, &format!("{path}.latency"), &raw.latency)?,
        failure: check.probability(&format!("{path}.failure"), raw.failure)?,
        fallback: match &raw.fallback {
            Some(text) => Some(check.text(&format!("{path}.fallback"), text, false)?),
            None => None,
        },
        timeout,
        hang,
        cpu,
        uses,
        pinned: raw.pinned,
        breaker: match &raw.breaker {
            Some(b) => Some(breaker(check, &format!("{path}.breaker"), b)?),
            None => None,
        },
        rate_limit: match &raw.rate_limit {
            Some(l) => Some(rate_limit(check, &format!("{path}.rate_limit"), l)?),
            None => None,
        },
        retry: match &raw.retry {
            Some(r) => Some(retry(check, &format!("{path}.retry"), r)?),
            None => None,
        },
        adaptive_limit: match &raw.adaptive_limit {
            Some(l) => Some(adaptive_limit(check, &format!("{path}.adaptive_limit"), l)?),
            None => None,
        },
    })
}

/// `[services.adaptive_limit]`: the ranges of concurrency-limits' builders (`backoffRatio`
/// in [0.5, 1.0), `rttTolerance` >= 1), and `min <= initial <= max`.
fn adaptive_limit(
    check: &Checker,
    path: &str,
    raw: &super::raw::RawAdaptiveLimit,
) -> Result<super::model::AdaptiveLimitConfig, ScenarioError> {
    use super::model::LimitAlgorithm;
    let field = |name: &str| format!("{path}.{name}");
    let number = |name: &str, value: f64, ok: bool, allowed: &str| {
        if value.is_finite() && ok {
            Ok(value)
        } else {
            let value = crate::scenario::short_number(value);
            Err(check.invalid(
                &field(name),
                value,
                format!("is out of range: allowed {allowed}"),
            ))
        }
    };
    let max = check.count(&field("max"), raw.max, 1..=100_000)?;
    let min = check.count(&field("min"), raw.min, 1..=max)?;
    let initial = check.count(&field("initial"), raw.initial, min..=max)?;
    let aimd = check.one_of(
        &field("algorithm"),
        &raw.algorithm,
        &[("aimd", true), ("gradient2", false)],
    )?;
    let algorithm = if aimd {
        let r = raw.backoff_ratio;
        LimitAlgorithm::Aimd {
            backoff_ratio: number(
                "backoff_ratio",
                r,
                (0.5..1.0).contains(&r),
                ">= 0.5 and < 1",
            )?,
            timeout: check.positive_duration(&field("timeout"), &raw.timeout)?,
        }
    } else {
        let (s, t) = (raw.smoothing, raw.tolerance);
        LimitAlgorithm::Gradient2 {
            smoothing: number("smoothing", s, s > 0.0 && s <= 1.0, "> 0 and <= 1")?,
            tolerance: number("tolerance", t, (1.0..=100.0).contains(&t), "1..=100")?,
            long_window: check.count(&field("long_window"), raw.long_window, 1..=100_000)?,
            queue_size: check.count(&field("queue_size"), raw.queue_size, 0..=100_000)?,
        }
    };
    Ok(super::model::AdaptiveLimitConfig {
        algorithm,
        initial,
        min,
        max,
    })
}

/// `[services.breaker]`: resilience4j's `CircuitBreakerConfig`, with its builder's ranges.
fn breaker(check: &Checker, path: &str, raw: &RawBreaker) -> Result<BreakerConfig, ScenarioError> {
    let field = |name: &str| format!("{path}.{name}");
    let size = check.count(&field("window_size"), raw.window_size, 1..=100_000)?;
    let window = check.one_of(
        &field("window_type"),
        &raw.window_type,
        &[
            ("count", BreakerWindow::Count(size)),
            ("time", BreakerWindow::Time(size)),
        ],
    )?;
    let percent = |name: &str, value: f64| {
        if value.is_finite() && value > 0.0 && value <= 100.0 {
            Ok(value)
        } else {
            Err(check.invalid(
                &field(name),
                crate::scenario::short_number(value),
                "is out of range: allowed > 0 and <= 100 (a percentage)",
            ))
        }
    };
    Ok(BreakerConfig {
        window,
        failure_rate_threshold: percent("failure_rate", raw.failure_rate)?,
        slow_call_rate_threshold: percent("slow_call_rate", raw.slow_call_rate)?,
        slow_call_duration: check
            .positive_duration(&field("slow_call_duration"), &raw.slow_call_duration)?,
        minimum_calls: check.count(&field("minimum_calls"), raw.minimum_calls, 1..=100_000)?,
        wait_in_open: check.positive_duration(&field("wait_in_open"), &raw.wait_in_open)?,
        permitted_in_half_open: check.count(
            &field("permitted_in_half_open"),
            raw.permitted_in_half_open,
            1..=100_000,
        )?,
        max_wait_in_half_open: match &raw.max_wait_in_half_open {
            Some(text) => Some(check.positive_duration(&field("max_wait_in_half_open"), text)?),
            None => None,
        },
        automatic_transition: raw.automatic_transition,
    })
}

/// `[services.rate_limit]`: resilience4j's `RateLimiterConfig`.
fn rate_limit(
    check: &Checker,
    path: &str,
    raw: &RawRateLimit,
) -> Result<RateLimiterConfig, ScenarioError> {
    let field = |name: &str| format!("{path}.{name}");
    Ok(RateLimiterConfig {
        limit_for_period: check.count(&field("limit"), raw.limit, 1..=1_000_000)?,
        refresh_period: check.positive_duration(&field("period"), &raw.period)?,
        timeout: check.duration(&field("timeout"), &raw.timeout)?,
    })
}

/// The id of the resource called `name`, or an error listing the `[[resources]]`.
fn resource_id(
    check: &Checker,
    path: &str,
    name: &str,
    resources: &[Resource],
) -> Result<ResourceId, ScenarioError> {
    resources
        .iter()
        .position(|x| x.name == name)
        .map(ResourceId)
        .ok_or_else(|| {
            let known: Vec<&str> = resources.iter().map(|x| x.name.as_str()).collect();
            check.invalid(
                path,
                quoted(name),
                format!(
                    "is not a known resource: [[resources]] are {}",
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ),
            )
        })
}

/// A fixed latency may be zero (an instant call); a distribution's parameters may not.
fn latency(check: &Checker, path: &str, raw: &RawLatency) -> Result<Latency, ScenarioError> {
    let field = |name: &str| format!("{path}.{name}");
    let dist = match raw {
        RawLatency::Fixed(text) => return Ok(Latency::Fixed(check.duration(path, text)?)),
        RawLatency::Dist(dist) => dist,
    };
    Ok(match dist {
        RawDist::Uniform { min, max } => {
            let lo = check.positive_duration(&field("min"), min)?;
            let hi = check.positive_duration(&field("max"), max)?;
            if hi < lo {
                return Err(check.invalid(
                    &field("max"),
                    quoted(&max.0),
                    format!("is below min = {:?}: uniform needs min <= max", min.0),
                ));
            }
            Latency::Uniform { min: lo, max: hi }
        }
        RawDist::Exponential { mean } => Latency::Exponential {
            mean: check.positive_duration(&field("mean"), mean)?,
        },
        RawDist::Normal { mean, sd } => Latency::Normal {
            mean: check.positive_duration(&field("mean"), mean)?,
            // Any parsed duration is >= 0; sd = 0 is a fixed latency.
            sd: check.duration(&field("sd"), sd)?,
        },
        RawDist::LogNormal { p50, p99 } => {
            let median = check.positive_duration(&field("p50"), p50)?;
            let tail = check.positive_duration(&field("p99"), p99)?;
            if tail < median {
                return Err(check.invalid(
                    &field("p99"),
                    quoted(&p99.0),
                    format!("is below p50 = {:?}: lognormal needs 0 < p50 <= p99", p50.0),
                ));
            }
            Latency::LogNormal {
                p50: median,
                p99: tail,
            }
        }
        RawDist::Empirical { values } => {
            if values.is_empty() {
                return Err(check.invalid(
                    &field("values"),
                    "[]",
                    "is empty: list at least one duration, like [\"90ms\", \"120ms\"]",
                ));
            }
            let values = values
                .iter()
                .enumerate()
                .map(|(i, v)| check.positive_duration(&format!("{path}.values[{i}]"), v))
                .collect::<Result<_, _>>()?;
            Latency::Empirical(values)
        }
        RawDist::Quantiles {
            percentiles,
            values,
        } => quantiles(check, path, percentiles, values)?,
    })
}

/// `{ dist = "quantiles", percentiles = [0, 50, 99, 100], values = [...] }`: as many values
/// as percentiles, percentiles rising from 0 to 100, values never falling.
fn quantiles(
    check: &Checker,
    path: &str,
    percentiles: &[f64],
    values: &[super::raw::DurationText],
) -> Result<Latency, ScenarioError> {
    let field = |name: &str| format!("{path}.{name}");
    let list = |xs: &[f64]| {
        let parts: Vec<String> = xs.iter().map(f64::to_string).collect();
        format!("[{}]", parts.join(", "))
    };
    if percentiles.len() < 2 || percentiles.len() != values.len() {
        return Err(check.invalid(
            &field("percentiles"),
            list(percentiles),
            format!(
                "has {} entries and values {}: give at least two, one value per percentile",
                percentiles.len(),
                values.len()
            ),
        ));
    }
    let rising = percentiles.windows(2).all(|w| w[0] < w[1]);
    if !rising || percentiles.first() != Some(&0.0) || percentiles.last() != Some(&100.0) {
        return Err(check.invalid(
            &field("percentiles"),
            list(percentiles),
            "must rise strictly from 0 to 100",
        ));
    }
    let mut rows = Vec::with_capacity(values.len());
    for (i, (p, v)) in percentiles.iter().zip(values).enumerate() {
        let d = check.duration(&format!("{path}.values[{i}]"), v)?;
        if let Some(&(_, before)) = rows.last()
            && d < before
        {
            return Err(check.invalid(
                &format!("{path}.values[{i}]"),
                quoted(&v.0),
                format!(
                    "is below values[{}] = {:?}: a quantile table's values never fall",
                    i - 1,
                    values[i - 1].0
                ),
            ));
        }
        rows.push((p / 100.0, d));
    }
    Ok(Latency::Quantiles(rows))
}

/// `calls` is one stage; `stages` are dependent stages. Exactly one must be given.
fn endpoint(
    check: &Checker,
    raw: &RawEndpoint,
    services: &[Service],
) -> Result<Endpoint, ScenarioError> {
    let (stages, base) = stage_lists(check, raw)?;
    let single = raw.calls.is_some();
    let mut resolved = Vec::with_capacity(stages.len());
    for (s, stage) in stages.iter().enumerate() {
        let stage_path = if single {
            base.to_owned()
        } else {
            format!("{base}[{s}]")
        };
        resolved.push(stage_ids(check, &stage_path, stage, services)?);
    }
    let fan_out = fan_out(check, raw, &resolved)?;
    if fan_out > 1 {
        for stage in &mut resolved {
            *stage = stage
                .iter()
                .flat_map(|&id| std::iter::repeat_n(id, fan_out))
                .collect();
        }
    }
    Ok(Endpoint { stages: resolved })
}

/// The stages of service names, from `calls` (one stage) or `stages`, and the field they
/// came from.
fn stage_lists(
    check: &Checker,
    raw: &RawEndpoint,
) -> Result<(Vec<Vec<String>>, &'static str), ScenarioError> {
    match (&raw.calls, &raw.stages) {
        (Some(calls), None) => {
            if calls.is_empty() {
                return Err(check.invalid(
                    "endpoint.calls",
                    "[]",
                    "is empty: list the services the endpoint calls",
                ));
            }
            Ok((vec![calls.clone()], "endpoint.calls"))
        }
        (None, Some(stages)) => {
            if stages.is_empty() {
                return Err(check.invalid(
                    "endpoint.stages",
                    "[]",
                    "is empty: list at least one stage of calls",
                ));
            }
            Ok((stages.clone(), "endpoint.stages"))
        }
        (Some(_), Some(stages)) => Err(check.invalid(
            "endpoint.stages",
            format!("{stages:?}"),
            "is given together with endpoint.calls: give exactly one (calls is a single stage)",
        )),
        (None, None) => Err(check.missing(
            "endpoint.calls",
            "give endpoint.calls (one stage of calls) or endpoint.stages (dependent stages)",
        )),
    }
}

/// The services one stage (at `path`) calls; a stage calls at least one.
fn stage_ids(
    check: &Checker,
    path: &str,
    stage: &[String],
    services: &[Service],
) -> Result<Vec<ServiceId>, ScenarioError> {
    if stage.is_empty() {
        return Err(check.invalid(
            path,
            "[]",
            "is empty: every stage calls at least one service",
        ));
    }
    stage
        .iter()
        .enumerate()
        .map(|(i, name)| service_id(check, &format!("{path}[{i}]"), name, services))
        .collect()
}

/// `fan_out` (default 1), within [`MAX_CALLS`] calls per request over all the stages.
fn fan_out(
    check: &Checker,
    raw: &RawEndpoint,
    stages: &[Vec<ServiceId>],
) -> Result<usize, ScenarioError> {
    let fan_out = match raw.fan_out {
        Some(n) => check.count("endpoint.fan_out", n, 1..=MAX_CALLS as u32)? as usize,
        None => 1,
    };
    let total: usize = stages.iter().map(Vec::len).sum::<usize>() * fan_out;
    if total > MAX_CALLS {
        // Blame the field that was set: fan_out when given, else the list of calls.
        let (field, value) = match raw.fan_out {
            Some(_) => ("endpoint.fan_out", fan_out.to_string()),
            None => ("endpoint", format!("[{total} calls]")),
        };
        return Err(check.invalid(
            field,
            value,
            format!("makes {total} calls per request: allowed at most {MAX_CALLS}"),
        ));
    }
    Ok(fan_out)
}

/// Every attempt of every call of a request has a number of its own: the calls per request
/// times the most attempts of a `[services.retry]` stay within [`MAX_CALL_ATTEMPTS`].
fn call_attempts(
    check: &Checker,
    services: &[Service],
    endpoint: &Endpoint,
) -> Result<(), ScenarioError> {
    let calls: usize = endpoint.stages.iter().map(Vec::len).sum();
    for (i, s) in services.iter().enumerate() {
        let Some(retry) = &s.retry else { continue };
        let slots = calls * retry.attempts as usize;
        if slots > MAX_CALL_ATTEMPTS {
            let most = MAX_CALL_ATTEMPTS / calls.max(1);
            return Err(check.invalid(
                &format!("services[{i}].retry.attempts"),
                retry.attempts,
                format!(
                    "is out of range with {calls} calls per request: allowed 1..={most} \
                     (calls x attempts at most {})",
                    MAX_CALL_ATTEMPTS
                ),
            ));
        }
    }
    Ok(())
}

/// `[[faults]]`: each names a service, a time, and exactly one of fail, hang or slow (the
/// fault menu's ranges); `until`, if given, comes after `at`.
fn faults(
    check: &Checker,
    raw: &[RawFault],
    services: &[Service],
) -> Result<Vec<ScheduledFault>, ScenarioError> {
    let mut faults = Vec::with_capacity(raw.len());
    for (i, f) in raw.iter().enumerate() {
        let path = |field: &str| format!("faults[{i}].{field}");
        let service = service_id(check, &path("service"), &f.service, services)?;
        let at = check.duration(&path("at"), &f.at)?;
        let until = match &f.until {
            Some(text) => {
                let until = check.positive_duration(&path("until"), text)?;
                if until <= at {
                    return Err(check.invalid(
                        &path("until"),
                        quoted(&text.0),
                        format!("must come after faults[{i}].at ({at})"),
                    ));
                }
                Some(until)
            }
            None => None,
        };
        let fault = match (f.fail, &f.hang, f.slow) {
            (Some(p), None, None) => Fault::Fail {
                probability: check.probability(&path("fail"), p)?,
            },
            (None, Some(d), None) => Fault::Hang {
                duration: check.positive_duration(&path("hang"), d)?,
            },
            (None, None, Some(factor))
                if factor.is_finite() && (1.0..=1000.0).contains(&factor) =>
            {
                Fault::Slow { factor }
            }
            (None, None, Some(factor)) => {
                return Err(check.invalid(
                    &path("slow"),
                    crate::scenario::short_number(factor),
                    "is out of range: allowed 1..=1000 (times the drawn latency)",
                ));
            }
            _ => {
                return Err(check.missing(
                    &path("fail"),
                    "give exactly one of fail (a probability), hang (a duration) or slow (a factor)",
                ));
            }
        };
        faults.push(ScheduledFault {
            at,
            until,
            service,
            fault,
        });
    }
    Ok(faults)
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;

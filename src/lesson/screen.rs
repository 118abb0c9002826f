//! The figures a lesson's expressions read: what the screen shows (the tour's screen value:
//! the run report, the pools' live figures, the compare view's reports) and `model`, what the
//! part's preset sets once `--set` has changed it, so an explanation's arithmetic names the
//! model's own numbers (`{model.server.threads} threads`).

use serde_json::{Value, json};

use crate::scenario::{LoadMode, Scenario, ServerThreads};

/// `model`: the preset's numbers as the run plays them.
///
/// - `cores`; `server.threads` (`maxThreads`; absent on virtual threads);
/// - `load.rate` (open), `load.clients` and `load.think_ms` (closed), `load.count` (runs and
///   batch), `load.timeout_ms` (when clients time out), `load.attempts` (with `[load.retry]`);
/// - `services.<name>`: `latency_ms` (the mean), `failure` (0 to 1), `timeout_ms` (with
///   `orTimeout`).
pub fn model_value(s: &Scenario) -> Value {
    let mut load = serde_json::Map::new();
    match s.load.mode {
        LoadMode::Open { rate, .. } => {
            load.insert("rate".into(), rate.into());
        }
        LoadMode::Closed { clients, think } => {
            load.insert("clients".into(), clients.into());
            load.insert("think_ms".into(), think.as_millis_f64().into());
        }
        LoadMode::Runs { count } | LoadMode::Batch { count } => {
            load.insert("count".into(), count.into());
        }
        LoadMode::Trace { .. } => {}
    }
    if let Some(t) = s.load.timeout {
        load.insert("timeout_ms".into(), t.as_millis_f64().into());
    }
    if let Some(r) = &s.load.retry {
        load.insert("attempts".into(), r.attempts.into());
    }
    let mut server = serde_json::Map::new();
    if let ServerThreads::Platform(n) = s.server.threads {
        server.insert("threads".into(), n.into());
    }
    let services: Vec<Value> = s
        .services
        .iter()
        .map(|svc| {
            let mut v = json!({
                "name": svc.name,
                "latency_ms": svc.latency.mean().as_millis_f64(),
                "failure": svc.failure,
            });
            if let Some(t) = svc.timeout {
                v["timeout_ms"] = t.as_millis_f64().into();
            }
            v
        })
        .collect();
    json!({
        "cores": s.cores,
        "server": server,
        "load": load,
        "services": services,
    })
}

/// `screen` with `model` added.
pub fn with_model(mut screen: Value, s: &Scenario) -> Value {
    if let Some(map) = screen.as_object_mut() {
        map.insert("model".into(), model_value(s));
    }
    screen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::figures::lookup;

    #[test]
    fn the_model_follows_set() {
        let s = crate::scenario::load("tomcat-ceiling", &["server.threads=400".into()])
            .expect("preset");
        let v = with_model(json!({}), &s);
        assert_eq!(lookup(&v, "model.server.threads"), Some(400.0));
        assert_eq!(lookup(&v, "model.load.clients"), Some(400.0));
        assert_eq!(lookup(&v, "model.cores"), Some(8.0));
        assert_eq!(lookup(&v, "model.services.orders.latency_ms"), Some(500.0));
        assert_eq!(lookup(&v, "model.load.rate"), None);
    }
}

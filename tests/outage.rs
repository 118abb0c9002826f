//! What a run reports during an outage: the server's work beside goodput (every response it
//! wrote, late ones included), the storm's timelines second by second (new requests, retries,
//! attempts, late responses), and who gave up.

mod support;

use serde_json::Value;
use support::{ms, one_call, parse};
use threadlab::scenario::Strategy;
use threadlab::sim::Engine;

/// One closed client whose every attempt takes 1.5 s on the server and gives up after 1 s,
/// retried as `retry` says (the lines of `[load.retry]`).
fn slow_client(retry: &str) -> Engine {
    let toml = one_call(
        &format!("mode = \"closed\"\nclients = 1\ntimeout = \"1s\"\n[load.retry]\n{retry}"),
        "",
    )
    .replace("latency = \"100ms\"", "latency = \"1500ms\"");
    Engine::new(&parse(&toml), Strategy::Sequential)
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&support::stdout(args)).expect("JSON output")
}

fn numbers(v: &Value) -> Vec<u64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|n| n.as_u64().expect("a count"))
        .collect()
}

#[test]
fn the_server_counts_every_response_it_wrote_those_nobody_waited_for_included() {
    // Attempts go out at 0, 1.2 and 2.6 s (200 ms, then 400 ms of backoff) and each takes
    // 1.5 s: the server writes them at 1.5, 2.7 and 4.1 s, every one after its client left.
    let mut e = slow_client("attempts = 3\nbackoff = \"200ms\"\nmultiplier = 2.0");
    e.run_until(ms(4_150));
    let snap = e.snapshot();
    assert_eq!((snap.server_responses, snap.late_responses), (3, 3));
    assert_eq!(snap.response_timeline, [0, 1, 1, 0, 1]);
    assert_eq!(snap.late_timeline, [0, 1, 1, 0, 1]);
    assert_eq!(snap.outcomes.responded(), 0, "no client saw a response");
    // One request sent at 0 s, another once the first gave up at 3.6 s; retries at 1.0 and
    // 2.2 s (counted when the client decided them).
    assert_eq!(snap.new_timeline, [1, 0, 0, 1, 0]);
    assert_eq!(snap.retry_timeline, [0, 1, 1, 0, 0]);
}

#[test]
fn metastable_reports_the_servers_responses_beside_goodput_and_the_storm_second_by_second() {
    let r = json(&["run", "metastable", "--format", "json"]);
    let q = &r["requests"];
    let server = q["server_responses"].as_u64().expect("server_responses");
    let tomcat = r["pools"][0]["completed"].as_u64().expect("completed");
    // Every request Tomcat completed is a response it wrote: the 2,866 answered in time and
    // the 12,831 whose client had left (every attempt that timed out ran anyway).
    assert_eq!(server, tomcat);
    let late = q["late_responses"].as_u64().expect("late");
    assert_eq!(server, q["success"].as_u64().expect("success") + late);
    let secs = r["simulated_s"].as_f64().expect("simulated_s");
    let rate = r["server_responses_rps"].as_f64().expect("a rate");
    assert!(
        (rate * secs - server as f64).abs() < 1e-6,
        "{rate} x {secs}"
    );
    assert!(rate > 5.0 * r["goodput_rps"].as_f64().expect("goodput"));
    // Attempts are new requests plus retries, second by second; their sums are the counts.
    let new = numbers(&r["new_timeline"]);
    let retries = numbers(&r["retries_timeline"]);
    let attempts = numbers(&r["attempts_timeline"]);
    let late_each = numbers(&r["late_timeline"]);
    assert_eq!(new.len(), 160);
    for s in 0..160 {
        assert_eq!(attempts[s], new[s] + retries[s], "second {s}");
    }
    assert_eq!(new.iter().sum::<u64>(), q["sent"].as_u64().expect("sent"));
    let retried = r["resilience"]["retries"].as_u64().expect("retries");
    assert_eq!(retries.iter().sum::<u64>(), retried);
    assert_eq!(late_each.iter().sum::<u64>(), late);
    // The storm: back at 90 new requests a second (60-70 s), the clients send several times
    // as many attempts, above the server's 100 a second.
    let mean = |t: &[u64]| t[60..70].iter().sum::<u64>() as f64 / 10.0;
    assert!((80.0..100.0).contains(&mean(&new)), "{}", mean(&new));
    assert!(mean(&attempts) > 200.0, "{}", mean(&attempts));
    let table = support::stdout(&["run", "metastable"]);
    assert!(
        table.contains("server responses 98.11/s, 12831 of them late"),
        "{table}"
    );
}

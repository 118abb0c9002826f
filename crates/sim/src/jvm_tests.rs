//! Hand-computed sequences of the JVM's costs: a pause stops every Java thread, timers fire
//! no earlier than its end, eden fills every so many requests, a fresh JVM warms up.

use crate::scenario::{Collection, Strategy};
use crate::time::Nanos;

use super::super::engine::Engine;
use super::super::event::Event;

/// One request at a time (`runs`), no network, no connector costs, one core; its one call
/// spends 10 ms of CPU. A `[jvm.gc]` that allocates nothing: it never collects by itself.
const BASE: &str = r#"
[scenario]
name = "jvm"
duration = "10s"
cores = 1
jdk = 17
[load]
mode = "runs"
count = 1
rtt = "0s"
turnaround = "0s"
[server]
cpu_per_request = "0s"
post_response = "0s"
cpu_per_error = "0s"
[[services]]
name = "work"
latency = "0ms"
cpu = "10ms"
[endpoint]
calls = ["work"]
[strategy]
use = "sequential"
[jvm.gc]
alloc_per_request = "0B"
"#;

fn engine(sets: &[&str]) -> Engine {
    let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
    let s = crate::scenario::parse("jvm.toml", BASE, &sets).expect("the scenario is valid");
    Engine::new(&s, Strategy::Sequential)
}

const fn ms(n: u64) -> Nanos {
    Nanos::from_millis(n)
}

impl Engine {
    /// Runs to `at`, then a collection whose pause is `len` starts there.
    fn pause_at(&mut self, at: Nanos, len: Nanos) {
        self.run_until(at);
        if let Some(jvm) = self.jvm.as_deref_mut() {
            jvm.collection = Collection {
                pause: len,
                concurrent_cpu: Nanos::ZERO,
            };
        }
        self.schedule(at, Event::Gc);
        // The collection's event, alone at this instant.
        assert!(self.step());
    }

    fn finish(&mut self) {
        self.run_until(ms(10_000));
    }

    fn latencies_ms(&self) -> Vec<f64> {
        self.run_lines()
            .iter()
            .map(|r| r.time.as_secs_f64() * 1e3)
            .collect()
    }
}

#[test]
fn a_pause_stops_a_burst_under_way_for_its_whole_length() {
    // 10 ms of CPU from t = 0; a 5 ms pause at 4 ms: the thread stands still 4..9 ms and
    // finishes at 15 ms.
    let mut e = engine(&[]);
    e.pause_at(ms(4), ms(5));
    e.finish();
    assert_eq!(e.latencies_ms(), [15.0]);
    let gc = e.snapshot().gc.expect("a collector");
    assert_eq!(
        (gc.collections, gc.pause_total, gc.longest_pause),
        (1, ms(5), ms(5))
    );
}

#[test]
fn a_timer_due_in_a_pause_fires_at_its_end_and_one_due_after_on_time() {
    // A call of 100 ms with a 20 ms orTimeout and a fallback: answered at 20 ms.
    let slow = [
        "services.work.cpu=0s",
        "services.work.latency=100ms",
        "services.work.timeout=20ms",
        "services.work.fallback=x",
    ];
    let mut e = engine(&slow);
    e.finish();
    assert_eq!(e.latencies_ms(), [20.0]);
    // A pause 15..25 ms: the timer's thread runs again at 25.
    let mut e = engine(&slow);
    e.pause_at(ms(15), ms(10));
    e.finish();
    assert_eq!(e.latencies_ms(), [25.0]);
    // Due exactly when a 7 ms pause starts: delayed by the pause's length.
    let mut e = engine(&slow);
    e.pause_at(ms(20) - Nanos(1), ms(7));
    e.finish();
    assert_eq!(e.latencies_ms(), [27.0 - 1e-6]);
    // A pause over before it is due changes nothing.
    let mut e = engine(&slow);
    e.pause_at(ms(5), ms(5));
    e.finish();
    assert_eq!(e.latencies_ms(), [20.0]);
}

#[test]
fn the_kernel_queues_connections_while_the_acceptor_stands_still() {
    // Three new connections at t = 0 into a pause of 10 ms: the kernel completes their
    // handshakes and queues them; nobody accepts, nothing is served until 10 ms.
    let sets = [
        "load.mode=batch",
        "load.count=3",
        "load.keep_alive=false",
        "load.rtt=2ms",
        "services.work.cpu=0s",
        "services.work.latency=5ms",
    ];
    let mut e = engine(&sets);
    e.finish();
    // Alone: the handshake and request 3 ms (three half round trips), the call 5 ms, the
    // answer back 1 ms.
    assert_eq!(e.snapshot().latency.max, 9.0);
    let mut e = engine(&sets);
    e.pause_at(Nanos::ZERO, ms(10));
    e.run_until(ms(9));
    let snap = e.snapshot();
    assert_eq!((snap.backlog, snap.outcomes.total()), (3, 0));
    e.finish();
    // Accepted together at 10 ms (their requests are there), the call 5 ms, back 1 ms.
    let latency = e.snapshot().latency;
    assert_eq!((latency.count, latency.max), (3, 16.0));
    assert!((latency.mean - 16.0).abs() < 1e-9, "{latency:?}");
}

#[test]
fn eden_of_a_young_generation_fills_every_so_many_requests() {
    // 10 MiB young: eden 8 MiB; 64 KiB a request: a collection every 128 requests, so 7 in
    // 1,000. Split between the request (32 KiB) and its call (32 KiB): the same.
    for alloc in [
        ["jvm.gc.alloc_per_request=64KiB", "jvm.gc.alloc_per_call=0B"],
        [
            "jvm.gc.alloc_per_request=32KiB",
            "jvm.gc.alloc_per_call=32KiB",
        ],
    ] {
        let mut sets = vec![
            "load.mode=batch",
            "load.count=1000",
            "services.work.cpu=0s",
            "services.work.latency=1ms",
            "jvm.gc.collector=parallel",
            "jvm.gc.young_gen=10MiB",
        ];
        sets.extend(alloc);
        let mut e = engine(&sets);
        e.finish();
        let gc = e.snapshot().gc.expect("a collector");
        let pause = e.scenario().jvm.gc.expect("gc").collection(1).pause;
        assert_eq!(gc.collections, 7, "{alloc:?}");
        assert_eq!(gc.pause_total, Nanos(pause.0 * 7));
        assert_eq!(e.snapshot().outcomes.total(), 1000);
    }
}

#[test]
fn a_fresh_jvm_pays_the_warmup_multiplier_request_by_request() {
    // first 3, no tail: 1 + 2 e^(-n / 0.35) on 10 ms of CPU: 30, 11.149, 10.066 ms.
    let mut e = engine(&[
        "load.count=3",
        "jvm.warmup.first=3.0",
        "jvm.warmup.tail=0.0",
        "jvm.warmup.thread_start=0s",
    ]);
    e.finish();
    let got = e.latencies_ms();
    let expected = [30.0, 11.149, 10.066];
    for (g, x) in got.iter().zip(expected) {
        assert!((g - x).abs() < 0.001, "{got:?} against {expected:?}");
    }
    assert_eq!(got.len(), 3);
}

#[test]
fn a_thread_beyond_min_spare_costs_its_start() {
    // 11 requests at once on 10 prestarted threads: the eleventh starts a thread first.
    let mut e = engine(&[
        "load.mode=batch",
        "load.count=11",
        "load.keep_alive=false",
        "services.work.cpu=0s",
        "services.work.latency=100ms",
        "jvm.warmup.first=1.0",
        "jvm.warmup.tail=0.0",
        "jvm.warmup.thread_start=700us",
    ]);
    e.finish();
    let latency = e.snapshot().latency;
    assert_eq!((latency.count, latency.max), (11, 100.7));
    assert!(
        (latency.mean - (1000.0 + 100.7) / 11.0).abs() < 1e-9,
        "{latency:?}"
    );
}

#[test]
fn a_caught_and_logged_rejection_burns_its_cpu() {
    // Three requests at once into a bulkhead of one thread with a hand-off queue and a
    // fallback: two submissions are rejected; each logged one takes 1 ms of the one core.
    let mut toml = BASE.replace("use = \"sequential\"", "use = \"bulkhead\"");
    toml.push_str(
        "[[strategy.bulkhead]]\nname = \"b\"\nservices = [\"work\"]\ncore = 1\nmax = 1\n\
         queue = 0\nrejection = \"fallback\"\n[jvm.errors]\nlogged_rejection = \"1ms\"\n",
    );
    let sets = [
        "load.mode=batch",
        "load.count=3",
        "services.work.cpu=0s",
        "services.work.latency=10ms",
        "services.work.fallback=x",
    ];
    let busy = |toml: &str| {
        let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
        let s = crate::scenario::parse("jvm.toml", toml, &sets).expect("valid");
        let mut e = Engine::new(&s, Strategy::Bulkhead);
        e.finish();
        e.cpu_utilisation() * e.now().as_secs_f64()
    };
    let logged = busy(&toml);
    let silent = busy(&toml.replace("[jvm.errors]\nlogged_rejection = \"1ms\"\n", ""));
    assert!(silent.abs() < 1e-12, "{silent}");
    assert!((logged - 0.002).abs() < 1e-9, "{logged}");
}

/// `BASE` with Tomcat's connector threads on the cores (`[jvm.connector_threads]`).
fn with_connector_threads(poll: &str, register: &str) -> String {
    format!(
        "{BASE}[jvm.connector_threads]\npoll_cost = \"{poll}\"\nregister_cost = \"{register}\"\n"
    )
}

fn engine_of(toml: &str, sets: &[&str]) -> Engine {
    let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
    let s = crate::scenario::parse("jvm.toml", toml, &sets).expect("the scenario is valid");
    Engine::new(&s, Strategy::Sequential)
}

#[test]
fn the_acceptors_turn_waits_for_a_core_among_the_connector_threads() {
    // Two new connections at t = 0, an Acceptor turn of 1 ms each, 10 ms of CPU a request on
    // one core, each burst run to its end. Its own thread: accepted at 1 and 2 ms, the bursts 1..11 and 11..21 ms.
    let sets = [
        "load.mode=batch",
        "load.count=2",
        "load.keep_alive=false",
        "server.accept_cost=1ms",
        "scenario.cpu_scheduling=run-to-completion",
    ];
    let mut e = engine(&sets);
    e.finish();
    let latency = e.snapshot().latency;
    assert_eq!((latency.count, latency.mean, latency.max), (2, 16.0, 21.0));
    // On the core: the first turn 0..1 ms; at 1 the second turn takes the core before the
    // first request's burst asks for it, which runs 2..12; the second request's 12..22.
    let mut e = engine_of(&with_connector_threads("0s", "0s"), &sets);
    e.finish();
    let latency = e.snapshot().latency;
    assert_eq!((latency.count, latency.mean, latency.max), (2, 17.0, 22.0));
    assert!((e.cpu_utilisation() * e.now().as_secs_f64() - 0.022).abs() < 1e-9);
}

#[test]
fn the_poller_spends_its_cpu_per_request_and_per_new_connection() {
    // One request on a new connection, taken at once (no accept cost): the Poller registers
    // it (0.25 ms) and hands it on (0.5 ms) on the one core before its 10 ms burst gets it.
    let mut e = engine_of(
        &with_connector_threads("500us", "250us"),
        &["load.mode=batch", "load.count=1", "load.keep_alive=false"],
    );
    e.finish();
    assert_eq!(e.snapshot().latency.max, 10.75);
    // One client on a kept-alive connection, a second between requests: registered once,
    // polled for every request: 10.75 ms, then 10.5 ms each.
    let mut e = engine_of(
        &with_connector_threads("500us", "250us"),
        &[
            "load.mode=closed",
            "load.clients=1",
            "load.think=1s",
            "load.keep_alive=true",
        ],
    );
    e.finish();
    let latency = e.snapshot().latency;
    let n = latency.count as f64;
    assert!(latency.count >= 9, "{latency:?}");
    assert_eq!(latency.max, 10.75);
    assert!(
        (latency.mean - (10.75 + (n - 1.0) * 10.5) / n).abs() < 1e-9,
        "{latency:?}"
    );
}

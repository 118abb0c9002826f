//! Overload as Linux and Tomcat behave, measured against a real Tomcat 10.1 on Linux 6.x with
//! closed-loop clients: nothing is refused beyond `maxConnections` + `acceptCount` (SYNs are
//! dropped and retransmitted), kept-alive connections hold their slot so clients beyond them
//! get no answer at all, and the keep-alive fast path makes the executor queue unfair.

use threadlab::report::{self, ClientsReport, RunReport};
use threadlab::scenario::{self, Scenario, Strategy};
use threadlab::sim::{Command, Engine};
use threadlab::time::Nanos;

/// 10 threads, maxConnections 20, acceptCount 5, 1 s requests, closed clients.
const BACKLOG: &str = r#"
[scenario]
name = "backlog"
seed = 7
cores = 2
[load]
mode = "closed"
clients = 50
[server]
threads = 10
min_spare = 10
max_connections = 20
accept_count = 5
[[services]]
name = "work"
latency = "1s"
[endpoint]
calls = ["work"]
[strategy]
use = "sequential"
"#;

fn run(text: &str, sets: &[&str], seconds: u64) -> RunReport {
    let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
    let s: Scenario = scenario::parse("overload", text, &sets).expect("valid scenario");
    let engine = report::play(&s, Strategy::Sequential, Nanos::from_secs(seconds));
    RunReport::new(&s, &engine)
}

fn clients(r: &RunReport) -> ClientsReport {
    r.clients.expect("a closed load reports its clients")
}

#[test]
fn keep_alive_clients_beyond_the_connections_get_no_answer_and_nothing_is_refused() {
    let r = run(BACKLOG, &[], 30);
    assert_eq!(r.requests.refused, 0);
    assert!(
        (r.goodput_rps - 10.0).abs() <= 0.5,
        "10 threads / 1 s: {} req/s",
        r.goodput_rps
    );
    let c = clients(&r);
    // 20 connections are served; 6 more wait in the accept queue with their request sent.
    // The other 24 SYNs came at the same instant, saw the same room and were answered, but
    // their ACKs found the queue full: those clients retransmit, and always find it full.
    assert!(c.never_answered >= 20, "{c:?}");
    assert_eq!(c.never_answered, 30, "{c:?}");
    assert!(c.longest_wait_ms >= 29_999.0, "{c:?}");
    let conn = r.connections.expect("simulated");
    assert_eq!(conn.accept_queue_max, 6, "acceptCount + 1");
    assert_eq!(conn.syn_drops, 0);
    // Each of the 24 tries with its request at 0.2, 0.6, 1.4, 3.0, 6.2, 12.6 and 25.4 s and
    // with its ACKs to the SYN-ACKs of 1, 7 and 15 s (the one of 3 s comes with a request):
    // 1 + 10 overflows each in 30 s.
    assert_eq!(conn.ack_overflows, 24 * 11, "{conn:?}");
}

#[test]
fn clients_that_start_apart_lose_their_syns_instead() {
    // 1 ms apart, each SYN finds the handshakes before it completed (rtt 40 us): the 25th
    // and later find the queue full and are dropped, and no ACK overflows.
    let r = run(BACKLOG, &["load.connect_spacing=\"1ms\""], 30);
    let conn = r.connections.expect("simulated");
    assert_eq!(conn.ack_overflows, 0, "{conn:?}");
    assert!(conn.syn_drops >= 24, "{conn:?}");
    assert_eq!(clients(&r).never_answered, 30);
}

#[test]
fn connection_close_clients_rotate_through_syn_retransmits_with_a_long_tail() {
    let r = run(BACKLOG, &["load.clients=30", "load.keep_alive=false"], 30);
    assert_eq!(r.requests.refused, 0);
    let c = clients(&r);
    assert_eq!(
        c.never_answered, 0,
        "every client is answered at least once: {c:?}"
    );
    assert!(
        r.latency_ms.p99 > 4000.0,
        "p99 {} ms: SYN retransmits, the accept queue and the executor queue add up",
        r.latency_ms.p99
    );
    let conn = r.connections.expect("simulated");
    assert!(conn.syn_drops > 0);
    // A dropped SYN costs its client a whole retransmit timeout (1 s, then more).
    assert!(conn.connect_ms.max >= 1000.0, "{:?}", conn.connect_ms);
}

#[test]
fn the_keep_alive_fast_path_keeps_the_mean_on_littles_law_and_stretches_the_tail() {
    let sets = [
        "load.clients=40",
        "server.threads=20",
        "server.max_connections=8192",
        "server.accept_count=100",
        "services.work.latency=170ms",
        // The race the fast path is: a 40 us round trip and 10 us of client turnaround
        // against 100 us of the thread's post-response work (measured share with wrk: 0.60).
        "load.rtt=40us",
        "load.turnaround=10us",
        "server.post_response=100us",
    ];
    let r = run(BACKLOG, &sets, 30);
    let n = 40.0;
    let little_ms = n / r.goodput_rps * 1e3;
    let mean = r.latency_ms.mean;
    assert!(
        (mean - little_ms).abs() <= 0.05 * little_ms,
        "mean {mean} ms vs N / X = {little_ms} ms"
    );
    assert!(
        r.latency_ms.p99 > 2.5 * r.latency_ms.p50,
        "p50 {} ms, p99 {} ms",
        r.latency_ms.p50,
        r.latency_ms.p99
    );
    let conn = r.connections.expect("simulated");
    let share =
        conn.fast_path_requests as f64 / (conn.fast_path_requests + conn.executor_requests) as f64;
    assert!(
        (0.5..0.7).contains(&share),
        "fast-path share {share} (Tomcat with wrk: 0.60)"
    );
}

#[test]
fn a_full_max_queue_resets_connections_at_a_cpu_cost_that_bounds_the_storm() {
    // 1 thread, a queue of 1: most requests are reset. Each reset costs 250 us of CPU on
    // 2 cores, so at most 8,000 a second, however many clients retry.
    let sets = [
        "load.clients=200",
        "server.threads=1",
        "server.min_spare=1",
        "server.max_queue=1",
        "server.max_connections=8192",
    ];
    let r = run(BACKLOG, &sets, 10);
    assert!(r.requests.refused > 0);
    let conn = r.connections.expect("simulated");
    // Counted when the poller gives up on the connection; the client learns of it after
    // the close's CPU time.
    assert!(conn.closed_by_max_queue >= r.requests.refused);
    let per_second = r.requests.refused as f64 / 10.0;
    assert!(per_second <= 2.0 / 250e-6, "{per_second} resets/s");
    // And no client action is free: every request costs at least a round trip.
    let bound = 200.0 * 10.0 / 40e-6;
    assert!((r.requests.sent as f64) < bound);
}

#[test]
fn a_client_connect_timeout_fails_connections_the_backlog_never_takes() {
    // Clients 1 ms apart: the SYNs beyond the queue are dropped (not answered), so connect()
    // waits for the backlog and times out.
    let sets = [
        "load.connect_timeout=2500ms",
        "load.connect_spacing=\"1ms\"",
    ];
    let r = run(BACKLOG, &sets, 30);
    let conn = r.connections.expect("simulated");
    assert!(conn.connect_failures > 0, "{conn:?}");
    assert_eq!(r.requests.refused, 0);
    assert!(r.requests.timeout >= conn.connect_failures);
}

#[test]
fn bad_connection_fields_name_the_field_and_the_allowed_range() {
    let error = |set: &str| {
        scenario::parse("overload.toml", BACKLOG, &[set.to_string()])
            .expect_err("rejected")
            .to_string()
    };
    let rtt = error("load.rtt=20s");
    assert!(
        rtt.contains("load.rtt") && rtt.contains("0s..=10s"),
        "{rtt}"
    );
    let mode = error("load.timeout_mode=sometimes");
    assert!(
        mode.contains("load.timeout_mode") && mode.contains("abort") && mode.contains("count"),
        "{mode}"
    );
    let requests = error("server.max_keep_alive_requests=0");
    assert!(
        requests.contains("server.max_keep_alive_requests") && requests.contains("-1"),
        "{requests}"
    );
    let retries = error("load.syn_retries=0");
    assert!(
        retries.contains("load.syn_retries") && retries.contains("1..=20"),
        "{retries}"
    );
    let cpu = error("server.cpu_per_request=2s");
    assert!(
        cpu.contains("server.cpu_per_request") && cpu.contains("0s..=1s"),
        "{cpu}"
    );
}

#[test]
fn failing_requests_cost_the_error_report_so_a_storm_of_500s_is_bounded_by_the_cores() {
    // Every call fails after 1 ms and nothing falls back: each request is a 500. The
    // container logs the exception and renders the error page (350 us of CPU) on top of
    // its 30 us per request, so 2 cores answer at most 2 / 380 us = 5,263 failures a second,
    // whatever the 100 clients and 200 threads could send.
    let text = r#"
[scenario]
name = "storm"
seed = 3
cores = 2
[load]
mode = "closed"
clients = 100
[[services]]
name = "work"
latency = "1ms"
failure = 1.0
[endpoint]
calls = ["work"]
[strategy]
use = "sequential"
"#;
    let r = run(text, &[], 10);
    let bound = 2.0 / 380e-6;
    let failed = r.requests.failed as f64 / 10.0;
    assert_eq!(r.requests.success, 0);
    assert!(failed <= bound, "{failed} failures/s above {bound}");
    assert!(
        failed > 0.95 * bound,
        "{failed} failures/s: the cores are the bound"
    );
    // Without the report's cost, the same storm runs at the request's own 30 us.
    let free = run(text, &["server.cpu_per_error=0s"], 10);
    let free_failed = free.requests.failed as f64 / 10.0;
    assert!(free_failed > 10.0 * failed, "{free_failed} vs {failed}");
}

#[test]
fn no_preset_sends_more_requests_than_its_clients_round_trips_allow() {
    // A closed client's next request leaves only after its answer, and every answer costs at
    // least a round trip plus the server's own CPU (think time adds to it). An open load
    // sends what its rate says, a finite one its count.
    for name in scenario::builtin_names() {
        let s = scenario::load(name, &[]).expect("built-in preset");
        let secs = 5.0;
        for strategy in Strategy::ALL {
            let engine = report::play(&s, strategy, Nanos::from_secs(5));
            let r = RunReport::new(&s, &engine);
            let sent = r.requests.sent as f64;
            let bound = match s.load.mode {
                scenario::LoadMode::Closed { clients, think } => {
                    let cycle = s.load.link.rtt + s.server.connector.cpu_per_request + think;
                    if cycle == Nanos::ZERO {
                        continue;
                    }
                    f64::from(clients) * (secs / cycle.as_secs_f64() + 1.0)
                }
                scenario::LoadMode::Open { rate, ramp } => {
                    let peak = ramp.map_or(rate, |r| r.to.max(rate));
                    peak * secs * 1.05 + 10.0
                }
                scenario::LoadMode::Runs { count } | scenario::LoadMode::Batch { count } => {
                    f64::from(count)
                }
                scenario::LoadMode::Trace { ref rows } => rows.len() as f64,
            };
            assert!(
                sent <= bound,
                "{name} {strategy:?}: {sent} sent, bound {bound}"
            );
        }
    }
}

/// 10 closed clients that think 90 s between requests of 10 ms, against Tomcat's 60 s
/// keep-alive timeout.
const IDLE: &str = r#"
[scenario]
name = "idle"
seed = 5
cores = 2
[load]
mode = "closed"
clients = 10
think = "90s"
[[services]]
name = "work"
latency = "10ms"
[endpoint]
calls = ["work"]
[strategy]
use = "sequential"
"#;

#[test]
fn a_think_time_beyond_the_keep_alive_timeout_costs_a_new_connection_per_request() {
    // 10 clients think 90 s between requests; Tomcat closes a connection idle for 60 s, so
    // each request after a client's first opens a new one (a handshake each). With 30 s of
    // think the connections stay: one handshake per client.
    let r = run(IDLE, &[], 400);
    let conn = r.connections.expect("simulated");
    assert!(r.requests.sent >= 40, "{} sent", r.requests.sent);
    assert_eq!(conn.connect_ms.count, r.requests.sent);
    assert_eq!(conn.closed_idle, r.requests.sent - 10);
    let kept = run(IDLE, &["load.think=30s"], 400);
    let conn = kept.connections.expect("simulated");
    assert!(kept.requests.sent >= 120, "{} sent", kept.requests.sent);
    assert_eq!(conn.connect_ms.count, 10);
    assert_eq!(conn.closed_idle, 0);
}

#[test]
fn a_parked_clients_connection_closes_one_keep_alive_timeout_after_its_last_response() {
    // 10 clients send every ~30 s, so each check of the poller finds the connection busy or
    // idle for less than 60 s and moves on. 5 clients are parked at 100 s, after their
    // responses at ~90 s: their connections close 60 s later, the others' never.
    let s = scenario::parse("idle", IDLE, &["load.think=30s".to_string()]).expect("valid preset");
    let mut e = Engine::new(&s, Strategy::Sequential);
    let closed = |e: &Engine| e.snapshot().net.expect("simulated").stats.closed_idle;
    e.run_until(Nanos::from_secs(100));
    assert_eq!(closed(&e), 0);
    e.apply(Command::SetClients(5))
        .expect("a valid client count");
    e.run_until(Nanos::from_millis(150_030));
    assert_eq!(closed(&e), 0, "idle for less than 60 s");
    e.run_until(Nanos::from_millis(150_100));
    assert_eq!(closed(&e), 5, "idle for 60 s since ~90.04 s");
    e.run_until(Nanos::from_secs(400));
    assert_eq!(closed(&e), 5, "the active clients' connections stay open");
}

#[test]
fn a_storm_of_rejections_names_the_semaphore_and_the_cores_that_bound_it() {
    // tomcat-ceiling under `semaphore`: 400 clients on 25 permits a service. The user
    // service's bulkhead rejects most calls, and reporting the failures fills the 8 cores.
    let s = scenario::load("tomcat-ceiling", &[]).expect("built-in preset");
    let engine = report::play(&s, Strategy::Semaphore, Nanos::from_secs(10));
    let r = RunReport::new(&s, &engine);
    let cpu = r.cpu.as_ref().expect("a simulated run has its cores");
    assert!(cpu.utilisation > 0.95, "{}", cpu.utilisation);
    assert_eq!(report::limited_by(&s, &r), "user rejects, cores 100%");
    // Under `sequential` nothing is rejected and the cores idle: Tomcat is the limit.
    let engine = report::play(&s, Strategy::Sequential, Nanos::from_secs(10));
    let r = RunReport::new(&s, &engine);
    assert_eq!(report::limited_by(&s, &r), "tomcat full, queue 200");
}

#[test]
fn overflowed_handshakes_end_in_one_outcome_each_reset_when_forgotten_or_given_up_on() {
    // Connection: close for 150 s: clients whose ACK overflowed retransmit until they get in,
    // or until the server forgets the handshake at 63 s and resets their next retransmit
    // (Refused); with a 5 s client timeout they give up first (Timeout) and the retransmits
    // still scheduled find nobody. Either way every request sent ends once.
    for (sets, refused, timeouts) in [
        (&["load.keep_alive=false"][..], true, false),
        (
            &["load.keep_alive=false", "load.timeout=\"5s\""][..],
            false,
            true,
        ),
    ] {
        let r = run(BACKLOG, sets, 150);
        let q = &r.requests;
        let ended = q.success + q.partial + q.failed + q.timeout + q.refused;
        assert_eq!(q.sent, ended + q.in_flight, "{sets:?}: {q:?}");
        assert!(
            q.in_flight <= 50,
            "{sets:?}: one request per client at most"
        );
        assert_eq!(q.refused > 0, refused, "{sets:?}: {q:?}");
        assert_eq!(q.timeout > 0, timeouts, "{sets:?}: {q:?}");
        let conn = r.connections.expect("simulated");
        assert!(conn.ack_overflows > 0, "{sets:?}: {conn:?}");
    }
}

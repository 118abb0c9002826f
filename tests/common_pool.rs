//! The common pool under closed load, as `ForkJoinPool` schedules external submissions: each
//! Tomcat thread's calls land in the submission queue its probe selects, and a worker stays
//! on the queue it took from, so the clients whose threads hash elsewhere are never answered.
//!
//! The endpoint makes three parallel calls of 20, 50 and 100 ms (170 ms of work per request);
//! 40 closed clients with no think time; 200 Tomcat threads, so every client's requests are
//! served by the same Tomcat thread (the only idle one when its response goes out).

use threadlab::scenario::{self, Strategy};
use threadlab::sim::{ClientsSnapshot, Engine};
use threadlab::time::Nanos;

const CLIENTS: u32 = 40;

fn preset(jdk: u32, parallelism: u32, seed: u64) -> String {
    format!(
        r#"
[scenario]
name = "common pool under closed load"
seed = {seed}
duration = "30s"
cores = 2
jdk = {jdk}

[load]
mode = "closed"
clients = {CLIENTS}
think = "0ms"

[server]
threads = 200

[[services]]
name = "a"
latency = "20ms"

[[services]]
name = "b"
latency = "50ms"

[[services]]
name = "c"
latency = "100ms"

[endpoint]
calls = ["a", "b", "c"]

[strategy]
use = "shared"

[strategy.shared]
threads = {parallelism}
"#
    )
}

/// What 30 s of the preset gave: the per-client figures and the throughput.
struct Played {
    clients: ClientsSnapshot,
    throughput: f64,
}

impl Played {
    fn never_answered(&self) -> u32 {
        self.clients.never_answered
    }
}

fn play(jdk: u32, parallelism: u32, seed: u64) -> Played {
    let toml = preset(jdk, parallelism, seed);
    let scenario = scenario::parse("test", &toml, &[]).expect("valid test preset");
    let mut e = Engine::new(&scenario, Strategy::Shared);
    e.run_until(Nanos::from_secs(30));
    let snap = e.snapshot();
    let clients = snap
        .net
        .and_then(|net| net.clients)
        .expect("a closed load has per-client figures");
    assert_eq!(clients.count, CLIENTS);
    Played {
        clients,
        throughput: snap.goodput_rps,
    }
}

#[test]
fn jdk_25_parallelism_1_serves_one_queue_of_clients_and_starves_the_rest() {
    let p = play(25, 1, 1);
    assert!(
        (5.6..=6.2).contains(&p.throughput),
        "throughput {:.2} req/s",
        p.throughput
    );
    assert!(
        p.never_answered() >= 20,
        "{} never answered: {:?}",
        p.never_answered(),
        p.clients
    );
}

#[test]
fn jdk_17_parallelism_7_starves_the_queues_no_worker_settled_on() {
    // 8 submission queues of about 5 threads each; the 7 workers settle on the queues their
    // first scans found and drain them forever, so the queues none chose are never served.
    let p = play(17, 7, 1);
    assert!(
        (40.0..=41.2).contains(&p.throughput),
        "throughput {:.2} req/s",
        p.throughput
    );
    assert!(
        (10..=25).contains(&p.never_answered()),
        "{} never answered: {:?}",
        p.never_answered(),
        p.clients
    );
}

#[test]
fn jdk_25_leaves_shared_queues_so_parallelism_7_starves_fewer_clients_than_jdk_17() {
    let (old, new) = (play(17, 7, 1), play(25, 7, 1));
    assert!(
        new.never_answered() < old.never_answered(),
        "JDK 25 {} vs JDK 17 {}",
        new.never_answered(),
        old.never_answered()
    );
}

#[test]
fn which_clients_starve_depends_only_on_the_seed() {
    let (a, b) = (play(25, 1, 3), play(25, 1, 3));
    assert_eq!(a.clients, b.clients);
    // Another seed, other probes: another share of the clients is served.
    let others: Vec<u32> = (4..=8).map(|s| play(25, 1, s).never_answered()).collect();
    assert!(
        others.iter().any(|&n| n != a.never_answered()),
        "{} vs {others:?}",
        a.never_answered()
    );
}

/// Tomcat threads back the instant their response is done (no time on the way back to the
/// executor), so a client's next request always finds its own thread idle.
const BACK_AT_ONCE: &str = r#"server.return_to_pool="0s""#;

/// 10 clients on JDK 25 with parallelism 1 and `min_spare` prestarted Tomcat threads: the
/// clients' figures and the most Tomcat threads alive.
fn ten_clients(min_spare: u32, seed: u64, more: &[&str]) -> (ClientsSnapshot, u32) {
    let mut overrides = vec![
        "load.clients=10".to_string(),
        format!("server.min_spare={min_spare}"),
    ];
    overrides.extend(more.iter().map(|s| s.to_string()));
    let scenario = scenario::parse("test", &preset(25, 1, seed), &overrides).expect("valid");
    let mut e = Engine::new(&scenario, Strategy::Shared);
    e.run_until(Nanos::from_secs(30));
    let snap = e.snapshot();
    let clients = snap.net.and_then(|net| net.clients).expect("closed");
    assert_eq!(clients.count, 10);
    let tomcat = snap.pools.first().expect("the server pool").stats;
    (clients, tomcat.largest_pool_size)
}

#[test]
fn a_thread_per_client_starves_clients_and_spare_handler_threads_answer_them_all() {
    // As the JDK 25 pool does when run bare: with as many handler threads as clients, and
    // threads back in the pool the instant they answer, each client keeps its thread, so
    // two threads sharing the queue the worker is on keep it there for ever. With spare
    // threads, idle ones take the next request in FIFO order, a client's calls change
    // queues with its thread, the worker's queue empties, and the waits spread (every
    // client answered, mean N / X).
    for seed in 1..=4 {
        let (bound, threads) = ten_clients(10, seed, &[BACK_AT_ONCE]);
        assert_eq!(threads, 10, "seed {seed}");
        assert!(bound.never_answered > 0, "seed {seed}: {bound:?}");
        assert_eq!(bound.longest_wait, Nanos::from_secs(30), "seed {seed}");
        let (rotating, _) = ten_clients(20, seed, &[]);
        assert_eq!(rotating.never_answered, 0, "seed {seed}: {rotating:?}");
        assert!(
            rotating.longest_wait < Nanos::from_secs(20),
            "seed {seed}: {rotating:?}"
        );
    }
}

#[test]
fn a_request_that_comes_back_before_its_thread_starts_a_spare_one_and_the_clients_rotate() {
    // Tomcat's `TaskQueue.offer` counts a handler thread as busy until `afterExecute`, some
    // 15 us after its last read of the connection: a client's next request arriving then
    // finds no idle thread among 10, and an 11th starts. From then on idle threads take
    // requests in FIFO order, the clients' calls change queues, and in most seeds every
    // client is answered, where threads back at once starve some client in every seed.
    let mut all_answered = 0;
    for seed in 1..=8 {
        let (clients, threads) = ten_clients(10, seed, &[]);
        assert_eq!(threads, 11, "seed {seed}: one spare thread");
        if clients.never_answered == 0 {
            all_answered += 1;
        }
        let (bound, _) = ten_clients(10, seed, &[BACK_AT_ONCE]);
        assert!(bound.never_answered > 0, "seed {seed}: {bound:?}");
    }
    assert!(
        all_answered >= 4,
        "{all_answered} of 8 seeds answered everyone"
    );
}

/// The `forkjoin-trap` dashboard (calls of 200, 500 and 1000 ms) for 10 closed clients on
/// JDK 25 with two cores (parallelism 1) and `min_spare` prestarted Tomcat threads: the
/// clients' figures and the requests answered in 30 s.
fn dashboards(min_spare: u32, seed: u64) -> (ClientsSnapshot, f64) {
    let overrides = [
        BACK_AT_ONCE.to_string(),
        "scenario.jdk=25".to_string(),
        "scenario.cores=2".to_string(),
        format!("scenario.seed={seed}"),
        r#"load.mode="closed""#.to_string(),
        "load.clients=10".to_string(),
        format!("server.min_spare={min_spare}"),
    ];
    let scenario = scenario::load("forkjoin-trap", &overrides).expect("valid overrides");
    let mut e = Engine::new(&scenario, Strategy::Shared);
    e.run_until(Nanos::from_secs(30));
    let snap = e.snapshot();
    let clients = snap.net.and_then(|net| net.clients).expect("closed");
    assert_eq!(clients.count, 10);
    (clients, snap.goodput_rps * 30.0)
}

#[test]
fn one_worker_answers_a_dashboard_per_1_7_s_so_the_tenth_client_waits_at_least_17_s() {
    // Whatever order the worker takes the queues in, it runs one call at a time: a dashboard
    // is 1.7 s of its time, 30 s hold floor(30 / 1.7) = 17 answers, and the ten clients'
    // first answers need 10 x 1.7 = 17 s of it, so some client waits at least 17 s (a
    // longest wait near 10 s cannot come from this load on one worker).
    for seed in 1..=4 {
        for min_spare in [10, 20] {
            let (clients, answered) = dashboards(min_spare, seed);
            assert!(
                (answered - 17.0).abs() < 1e-6,
                "seed {seed}, min_spare {min_spare}: {answered} answered"
            );
            assert!(
                clients.longest_wait >= Nanos::from_secs(17),
                "seed {seed}, min_spare {min_spare}: {clients:?}"
            );
        }
    }
}

#[test]
fn jdk_25_dashboards_whose_threads_share_the_workers_queue_keep_it_and_starve_the_rest() {
    // `ForkJoinPool.runWorker` (JDK 25): a lone worker leaves a submission queue only when
    // the slot at its base is empty. With a Tomcat thread per client (10 threads, 10
    // clients, each back in the pool the instant it answers) two threads that share the worker's queue refill it while the other's calls
    // run, so for every seed some clients are never answered.
    for seed in 1..=8 {
        let (clients, _) = dashboards(10, seed);
        assert!(clients.never_answered > 0, "seed {seed}: {clients:?}");
        assert_eq!(clients.longest_wait, Nanos::from_secs(30), "seed {seed}");
    }
}

//! Sweep wall time. `cargo bench --bench sweep`.
//!
//! `grid_100_points`: a 10 x 10 grid of `tomcat-ceiling` (server.threads 50..500 by 50 x
//! load.clients 100..1000 by 100, 60 simulated seconds each, sequential) on a rayon pool of 1
//! and of 2 threads; the ratio of the two is the parallel speed-up.

use threadlab::scenario::Strategy;
use threadlab::sweep::{self, Plan};
use threadlab::time::Nanos;

fn main() {
    divan::main();
}

fn plan() -> Plan {
    let vary = |flag: &str| sweep::parse_vary(flag).expect("valid --vary");
    Plan {
        preset: "tomcat-ceiling".into(),
        set: Vec::new(),
        seed: None,
        duration: Some(Nanos::from_secs(60)),
        axes: vec![
            vary("server.threads=50..500:50"),
            vary("load.clients=100..1000:100"),
        ],
        strategies: vec![Strategy::Sequential],
    }
}

#[divan::bench(args = [1, 2], sample_count = 5)]
fn grid_100_points(bencher: divan::Bencher, threads: usize) {
    let plan = plan();
    let points = plan.points().expect("valid grid");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    bencher.bench(|| pool.install(|| divan::black_box(sweep::run(&plan, &points, None))));
}

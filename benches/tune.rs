//! Tune wall time. `cargo bench --bench tune`.
//!
//! `one_setting_64_points`: `tune bulkhead-containment` over the recommendations pool's size
//! (core = max = 1..=64, a 1.5 s timeout, goals p99 <= 1600 ms and goodput >= 99 %) on a rayon
//! pool of 2 threads: every one of the 64 points played (`--exhaustive`), then the winner
//! verified on 3 seeds, as the command does; and the same tune refined from a coarse grid
//! (the command's default).

use threadlab::sweep;
use threadlab::tune::{self, Goal, Minimise, TunePlan};

fn main() {
    divan::main();
}

fn plan(exhaustive: bool) -> TunePlan {
    TunePlan {
        preset: "bulkhead-containment".into(),
        set: vec!["services.recommendations.timeout=1500ms".into()],
        seed: None,
        duration: None,
        strategy: None,
        axes: vec![
            sweep::parse_vary("strategy.bulkhead.recs.core,strategy.bulkhead.recs.max=1..64:1")
                .expect("valid --vary"),
        ],
        goals: vec![
            Goal::parse("p99<=1600ms").expect("goal"),
            Goal::parse("goodput>=99%").expect("goal"),
        ],
        cost: Minimise::Settings,
        exhaustive,
        verify_seeds: 3,
    }
}

#[divan::bench(args = [true, false], sample_count = 5)]
fn one_setting_64_points(bencher: divan::Bencher, exhaustive: bool) {
    let plan = plan(exhaustive);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a thread pool");
    bencher.bench(|| {
        pool.install(|| {
            let tuned = tune::run(&plan, None);
            assert!(tuned.winner.is_some());
            divan::black_box(tuned)
        })
    });
}

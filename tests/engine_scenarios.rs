//! Whole scenarios played by the engine, checked against the JVM's behaviour and theory.

use threadlab::metrics::Outcome;
use threadlab::scenario::{self, Strategy};
use threadlab::sim::Engine;
use threadlab::time::Nanos;

fn ironthread(strategy: Strategy) -> Engine {
    let s = scenario::load("ironthread", &[]).expect("built-in preset");
    let mut e = Engine::new(&s, strategy);
    e.run_until(s.duration);
    e
}

#[test]
fn ironthread_sequential_takes_1700ms_every_run() {
    let e = ironthread(Strategy::Sequential);
    let runs = e.run_lines();
    assert_eq!(runs.len(), 5);
    for r in &runs {
        println!("{r:?}");
        assert_eq!(r.time, Nanos::from_millis(1700));
        assert!(r.thread.starts_with("http-nio-8080-exec-"));
    }
}

#[test]
fn ironthread_bulkhead_takes_1000ms_and_names_threads_by_pool_rules() {
    let e = ironthread(Strategy::Bulkhead);
    let runs = e.run_lines();
    for r in &runs {
        println!("{r:?}");
        assert_eq!(r.time, Nanos::from_millis(1000));
    }
    let threads: Vec<&str> = runs.iter().map(|r| r.thread.as_str()).collect();
    assert_eq!(
        threads,
        [
            "IronThread-3",
            "IronThread-6",
            "IronThread-9",
            "IronThread-2",
            "IronThread-5"
        ]
    );
    assert!(runs.iter().any(|r| r.outcome == Outcome::Partial));
}

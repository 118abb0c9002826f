//! Engine invariants on random valid scenarios: random overrides of the built-in presets (a
//! fixed seed, so a failure replays), each checked for what must hold whatever the input.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use threadlab::report::{self, RunReport};
use threadlab::scenario::{self, MAX_QUEUE, MAX_THREADS, Scenario, Strategy};
use threadlab::sim::Engine;
use threadlab::time::Nanos;

const CASES: usize = 16;

/// A random but valid variation of a random built-in preset.
fn random_scenario(rng: &mut StdRng) -> Option<(Scenario, Strategy)> {
    let presets: Vec<&str> = scenario::builtin_names().collect();
    let preset = presets[rng.random_range(0..presets.len())];
    let mut sets = vec![format!(
        "scenario.seed={}",
        rng.random_range(0..1_000_000u64)
    )];
    match rng.random_range(0..4) {
        0 => sets.extend([
            "load.mode=closed".to_owned(),
            format!("load.clients={}", rng.random_range(1..200)),
        ]),
        1 => sets.extend([
            "load.mode=open".to_owned(),
            format!("load.rate={}", rng.random_range(1..2_000)),
        ]),
        2 => sets.extend([
            "load.mode=batch".to_owned(),
            format!("load.count={}", rng.random_range(1..500)),
        ]),
        _ => {}
    }
    if rng.random_bool(0.5) {
        sets.push(format!("server.threads={}", rng.random_range(1..400)));
    }
    let strategy = Strategy::ALL[rng.random_range(0..Strategy::ALL.len())];
    let s = scenario::load(preset, &sets).ok()?;
    Some((s, strategy))
}

fn play(s: &Scenario, strategy: Strategy) -> (Engine, RunReport) {
    let duration = s.duration.min(Nanos::from_secs(1));
    let engine = report::play(s, strategy, duration);
    let r = RunReport::new(s, &engine);
    (engine, r)
}

fn cases() -> impl Iterator<Item = (Scenario, Strategy)> {
    let mut rng = StdRng::seed_from_u64(11);
    std::iter::from_fn(move || Some(random_scenario(&mut rng)))
        .flatten()
        .take(CASES)
}

#[test]
fn outcomes_add_up_and_no_request_is_lost() {
    for (s, strategy) in cases() {
        let (_, r) = play(&s, strategy);
        let q = &r.requests;
        let what = format!("{} {strategy}: {q:?}", s.source);
        assert_eq!(q.sent, q.completed + q.in_flight, "{what}");
        assert_eq!(
            q.completed,
            q.success + q.partial + q.failed + q.timeout + q.refused,
            "{what}"
        );
    }
}

#[test]
fn the_same_scenario_and_seed_give_the_same_report() {
    for (s, strategy) in cases().take(6) {
        let a = report::to_json(&play(&s, strategy).1).expect("json");
        let b = report::to_json(&play(&s, strategy).1).expect("json");
        assert_eq!(a, b, "{} {strategy}", s.source);
    }
}

#[test]
fn simulated_time_never_goes_backwards() {
    for (s, strategy) in cases().take(6) {
        let mut engine = Engine::new(&s, strategy);
        let limit = Nanos::from_secs(1);
        let mut last = engine.now();
        while engine.now() <= limit && engine.step() {
            assert!(engine.now() >= last, "{} {strategy}", s.source);
            last = engine.now();
        }
    }
}

#[test]
fn pool_sizes_stay_within_their_configured_bounds() {
    for (s, strategy) in cases() {
        let (_, r) = play(&s, strategy);
        for pool in &r.pools {
            let max = pool.max.unwrap_or(u32::MAX);
            assert!(pool.largest_pool_size <= max, "{} {pool:?}", s.source);
            assert!(pool.core <= MAX_THREADS, "{} {pool:?}", s.source);
            if let Some(capacity) = pool.queue_capacity {
                assert!(pool.max_queue <= capacity, "{} {pool:?}", s.source);
                assert!(capacity <= MAX_QUEUE, "{} {pool:?}", s.source);
            }
        }
    }
}

//! Rules of [`super::strategy`]: ThreadPoolExecutor's constructor checks, one bulkhead per
//! service, and resilience4j's default pool for services no bulkhead lists.

use crate::scenario::test_support::{POOL_A, assert_mentions, rejection, scenario};
use crate::scenario::{BulkheadPool, RejectionPolicy, ServiceId, Strategy};
use crate::time::Nanos;

#[test]
fn strategy_defaults_to_bulkhead_and_unknown_names_list_the_strategies() {
    assert_eq!(scenario(&[]).strategy.default, Strategy::Bulkhead);
    assert_eq!(
        scenario(&["strategy.use=shared"]).strategy.default,
        Strategy::Shared
    );
    let message = rejection(&["strategy.use=parallel"]);
    assert_mentions(
        &message,
        &[
            "strategy.use = \"parallel\"",
            "sequential, shared, bulkhead, unbounded",
        ],
    );
}

#[test]
fn shared_threads_must_be_1_to_100000() {
    assert_eq!(
        scenario(&["strategy.shared.threads=4"]).shared_parallelism(),
        4
    );
    assert_eq!(scenario(&[]).strategy.shared_threads, None);
    let message = rejection(&["strategy.shared.threads=0"]);
    assert_mentions(&message, &["strategy.shared.threads = 0", "1..=100000"]);
}

#[test]
fn services_no_bulkhead_lists_get_resilience4j_default_pools() {
    let s = scenario(&["scenario.cores=4"]);
    let expected = |name: &str, id| BulkheadPool {
        name: format!("bulkhead-{name}"),
        services: vec![ServiceId(id)],
        core: 3,
        max: 4,
        queue: 100,
        rejection: RejectionPolicy::Abort,
        keep_alive: Nanos::from_millis(20),
    };
    assert_eq!(
        s.strategy.bulkheads,
        vec![expected("user", 0), expected("orders", 1)]
    );
}

#[test]
fn default_pool_on_one_core_keeps_one_thread() {
    let pool = &scenario(&["scenario.cores=1"]).strategy.bulkheads[0];
    assert_eq!((pool.core, pool.max), (1, 1));
}

#[test]
fn listed_bulkhead_is_kept_and_only_the_rest_get_default_pools() {
    let s = scenario(&[POOL_A]);
    let names: Vec<&str> = s
        .strategy
        .bulkheads
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["A", "bulkhead-orders"]);
    let a = &s.strategy.bulkheads[0];
    assert_eq!(
        (a.core, a.max, a.queue, a.keep_alive),
        (10, 20, 100, Nanos::from_secs(60))
    );
    assert_eq!(a.rejection, RejectionPolicy::Abort);
}

#[test]
fn max_below_core_is_rejected_with_both_values() {
    let message = rejection(&[POOL_A, "strategy.bulkhead.A.max=5"]);
    assert_mentions(
        &message,
        &[
            "strategy.bulkhead[0].max = 5",
            "below core = 10",
            "IllegalArgumentException",
        ],
    );
}

#[test]
fn absent_max_means_a_fixed_pool_of_core_threads() {
    let pool = r#"strategy.bulkhead=[{ name = "A", services = ["user"], core = 6 }]"#;
    let a = &scenario(&[pool]).strategy.bulkheads[0];
    assert_eq!((a.core, a.max), (6, 6));
}

#[test]
fn zero_max_is_rejected_even_when_defaulted_from_core() {
    let message = rejection(&[POOL_A, "strategy.bulkhead.A.max=0"]);
    assert_mentions(&message, &["strategy.bulkhead[0].max = 0", "1..=100000"]);
    let pool = r#"strategy.bulkhead=[{ name = "A", services = ["user"], core = 0 }]"#;
    assert_mentions(
        &rejection(&[pool]),
        &["strategy.bulkhead[0].max = 0 (defaulted to core)"],
    );
}

#[test]
fn core_zero_is_allowed_and_core_above_100000_is_not() {
    assert_eq!(
        scenario(&[POOL_A, "strategy.bulkhead.A.core=0"])
            .strategy
            .bulkheads[0]
            .core,
        0
    );
    let message = rejection(&[POOL_A, "strategy.bulkhead.A.core=100001"]);
    assert_mentions(
        &message,
        &["strategy.bulkhead[0].core = 100001", "0..=100000"],
    );
}

#[test]
fn queue_must_be_0_to_ten_million() {
    assert_eq!(
        scenario(&[POOL_A, "strategy.bulkhead.A.queue=0"])
            .strategy
            .bulkheads[0]
            .queue,
        0
    );
    let message = rejection(&[POOL_A, "strategy.bulkhead.A.queue=-1"]);
    assert_mentions(
        &message,
        &["strategy.bulkhead[0].queue = -1", "0..=10000000"],
    );
}

#[test]
fn unknown_rejection_policy_lists_the_policies() {
    let message = rejection(&[POOL_A, "strategy.bulkhead.A.rejection=retry"]);
    assert_mentions(
        &message,
        &[
            "strategy.bulkhead[0].rejection = \"retry\"",
            "abort, caller-runs, discard, discard-oldest, fallback",
        ],
    );
    let caller_runs = scenario(&[POOL_A, "strategy.bulkhead.A.rejection=caller-runs"]);
    assert_eq!(
        caller_runs.strategy.bulkheads[0].rejection,
        RejectionPolicy::CallerRuns
    );
}

#[test]
fn discard_oldest_with_a_synchronous_queue_is_rejected_with_the_reason() {
    let sets = [
        POOL_A,
        "strategy.bulkhead.A.queue=0",
        "strategy.bulkhead.A.rejection=discard-oldest",
    ];
    let message = rejection(&sets);
    assert_mentions(
        &message,
        &[
            "strategy.bulkhead[0].rejection = \"discard-oldest\"",
            "queue = 0",
            "StackOverflowError",
        ],
    );
}

#[test]
fn bulkhead_services_must_be_known_and_listed_once() {
    let unknown = rejection(&[POOL_A, "strategy.bulkhead.A.services=[\"users\"]"]);
    assert_mentions(
        &unknown,
        &[
            "strategy.bulkhead[0].services[0] = \"users\"",
            "services are user, orders",
        ],
    );
    let twice = rejection(&[POOL_A, "strategy.bulkhead.A.services=[\"user\", \"user\"]"]);
    assert_mentions(
        &twice,
        &[
            "strategy.bulkhead[0].services[1] = \"user\"",
            "already listed in strategy.bulkhead[0]",
        ],
    );
    let empty = rejection(&[POOL_A, "strategy.bulkhead.A.services=[]"]);
    assert_mentions(&empty, &["strategy.bulkhead[0].services = []", "is empty"]);
}

#[test]
fn a_service_belongs_to_at_most_one_bulkhead() {
    let two = r#"strategy.bulkhead=[{ name = "A", services = ["user"] }, { name = "B", services = ["orders", "user"] }]"#;
    let message = rejection(&[two]);
    assert_mentions(
        &message,
        &[
            "strategy.bulkhead[1].services[1] = \"user\"",
            "already listed in strategy.bulkhead[0]",
            "at most one bulkhead",
        ],
    );
}

#[test]
fn bulkhead_names_must_be_unique_and_non_empty() {
    let two = r#"strategy.bulkhead=[{ name = "A", services = ["user"] }, { name = "A", services = ["orders"] }]"#;
    assert_mentions(
        &rejection(&[two]),
        &["strategy.bulkhead[1].name = \"A\"", "must be unique"],
    );
    let empty = rejection(&[POOL_A, "strategy.bulkhead.A.name=\"\""]);
    assert_mentions(&empty, &["strategy.bulkhead[0].name = \"\"", "is empty"]);
}

#[test]
fn keep_alive_may_be_zero_but_must_be_a_duration() {
    let zero = scenario(&[POOL_A, "strategy.bulkhead.A.keep_alive=0s"]);
    assert_eq!(zero.strategy.bulkheads[0].keep_alive, Nanos::ZERO);
    let message = rejection(&[POOL_A, "strategy.bulkhead.A.keep_alive=soon"]);
    assert_mentions(
        &message,
        &[
            "strategy.bulkhead[0].keep_alive = \"soon\"",
            "h, m, s, ms, us or ns",
        ],
    );
}

#[test]
fn a_rejection_that_falls_back_needs_every_service_of_the_pool_to_have_a_fallback() {
    let message = rejection(&[POOL_A, "strategy.bulkhead.A.rejection=fallback"]);
    assert_mentions(
        &message,
        &[
            "strategy.bulkhead[0].rejection = \"fallback\"",
            "services.user.fallback",
        ],
    );
    let with_fallback = scenario(&[
        POOL_A,
        "strategy.bulkhead.A.rejection=fallback",
        "services.user.fallback=\"guest\"",
    ]);
    assert_eq!(
        with_fallback.strategy.bulkheads[0].rejection,
        RejectionPolicy::Fallback
    );
}

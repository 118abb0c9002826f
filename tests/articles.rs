//! Every built-in preset reproduces the figures it lists, and the README's table of them is
//! exactly what `threadlab articles` prints.

use threadlab::report::figures::{FigureResult, evaluate, table};
use threadlab::scenario;

/// Every built-in preset's figures, played once for all the tests of this file.
fn all() -> &'static [FigureResult] {
    static RESULTS: std::sync::OnceLock<Vec<FigureResult>> = std::sync::OnceLock::new();
    RESULTS.get_or_init(|| {
        use rayon::prelude::*;
        let names: Vec<&str> = scenario::builtin_names().collect();
        names
            .par_iter()
            .map(|name| evaluate(name).expect("figures evaluate"))
            .collect::<Vec<_>>()
            .into_iter()
            .flatten()
            .collect()
    })
}

/// The figures of one preset hold, and it has some.
fn pins(preset: &str) {
    let results: Vec<&FigureResult> = all().iter().filter(|r| r.preset == preset).collect();
    assert!(!results.is_empty(), "{preset} lists no figures");
    for r in results {
        assert!(
            r.holds(),
            "{}: {:?} gave {} where the preset expects {} (±{:.0}%)",
            r.preset,
            r.what,
            r.measured,
            r.expect,
            r.tolerance * 100.0
        );
    }
}

macro_rules! preset_figures {
    ($($test:ident => $preset:literal),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                pins($preset);
            }
        )*
    };
}

preset_figures! {
    ironthread_figures_hold => "ironthread",
    tomcat_ceiling_figures_hold => "tomcat-ceiling",
    executor_vs_threads_figures_hold => "executor-vs-threads",
    bounded_pool_figures_hold => "bounded-pool",
    forkjoin_trap_figures_hold => "forkjoin-trap",
    bulkhead_containment_figures_hold => "bulkhead-containment",
    virtual_threads_figures_hold => "virtual-threads",
    pinning_figures_hold => "pinning",
    connection_pool_figures_hold => "connection-pool",
    overload_figures_hold => "overload",
    metastable_figures_hold => "metastable",
    circuit_breaker_figures_hold => "circuit-breaker",
}

fn figure<'a>(results: &'a [FigureResult], preset: &str, what: &str) -> &'a FigureResult {
    results
        .iter()
        .find(|r| r.preset == preset && r.what.starts_with(what))
        .unwrap_or_else(|| panic!("{preset}: no figure {what:?}"))
}

#[test]
fn the_headline_ratios_hold_and_the_readme_shows_the_table() {
    let results = all();
    // Executor vs threads: 128 : 40 : 16 within 15 %.
    let seq = figure(results, "executor-vs-threads", "1,000 method calls").measured;
    let per_task = figure(results, "executor-vs-threads", "a new Thread").measured;
    let pool = figure(results, "executor-vs-threads", "a fixed pool").measured;
    for (got, want) in [(seq / pool, 128.0 / 16.0), (per_task / pool, 40.0 / 16.0)] {
        assert!((got - want).abs() / want < 0.15, "ratio {got} vs {want}");
    }

    // Virtual threads, platform: the 2,000 req/s ceiling and mean latency = N / X.
    let x = figure(results, "virtual-threads", "platform threads: throughput").measured;
    let r = figure(results, "virtual-threads", "platform threads: mean").measured;
    assert!((x - 2000.0).abs() / 2000.0 < 0.02, "{x}");
    let n_over_x = 2000.0 / x * 1000.0;
    assert!(
        (r - n_over_x).abs() / n_over_x < 0.02,
        "R {r} vs N/X {n_over_x}"
    );

    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    assert!(
        readme.contains(&table(results)),
        "README.md's table differs from `threadlab articles`; paste its output"
    );
}

//! How the cores are shared: time-sliced as Linux's fair scheduler shares them (a burst runs
//! a slice at a time while others wait, round robin, a forced switch costing CPU), or each
//! burst to completion in FIFO order; each against hand-computed completion times.

mod support;

use support::{ms, parse, rows};
use threadlab::scenario::{CpuScheduling, Strategy};
use threadlab::sim::Engine;
use threadlab::time::Nanos;

/// `count` requests at once on `cores` cores, each making one call of `cpu` of CPU and no
/// wait; `scheduling` is the lines about the scheduler in `[scenario]`.
fn cpu_bound(count: u32, cores: u32, cpu: &str, scheduling: &str) -> Engine {
    let toml = format!(
        r#"
[scenario]
name = "cpu"
cores = {cores}
{scheduling}
[load]
mode = "batch"
count = {count}
[[services]]
name = "work"
latency = "0ms"
cpu = "{cpu}"
[endpoint]
calls = ["work"]
[strategy]
use = "sequential"
"#
    );
    let mut e = Engine::new(&parse(&toml), Strategy::Sequential);
    e.run_until(Nanos::from_secs(10));
    e
}

/// Bursts sent to the back of the run queue so far.
fn preemptions(e: &Engine) -> u64 {
    e.snapshot()
        .cpu
        .expect("a simulated run has cores")
        .preemptions
}

/// Each request's response time, by request id.
fn times(e: &Engine) -> Vec<Nanos> {
    rows(e).iter().map(|r| r.time).collect()
}

#[test]
fn run_to_completion_serves_each_burst_whole_in_turn() {
    // 1 core, two bursts of 3 ms: the first ends at 3 ms, the second at 6 ms.
    let e = cpu_bound(2, 1, "3ms", "cpu_scheduling = \"run-to-completion\"");
    assert_eq!(times(&e), [ms(3), ms(6)]);
}

#[test]
fn time_slices_interleave_the_bursts_so_both_finish_late() {
    // 1 core, 1 ms slices, free switches: A 0-1, B 1-2, A 2-3, B 3-4, A 4-5 (done), B 5-6.
    let e = cpu_bound(2, 1, "3ms", "slice = \"1ms\"\ncontext_switch = \"0s\"");
    assert_eq!(times(&e), [ms(5), ms(6)]);
    // 4 preemptions: A at 1, 3; B at 2, 4 (at 5 A is done and nobody waits behind B).
    assert_eq!(preemptions(&e), 4);
}

#[test]
fn a_forced_switch_costs_the_thread_switched_in() {
    // As above with 10 us per forced switch, charged to the incoming burst: A 0-1 (2 left);
    // B 3.01 -> 1-2 (2.01 left); A 2.01 -> 2-3 (1.01); B 2.02 -> 3-4 (1.02); A 1.02 -> 4-5
    // (0.02); B 1.03 -> 5-6 (0.03); A 0.03 -> 6-6.03, done; B takes the core as A ends (no
    // forced switch): 6.03-6.06.
    let e = cpu_bound(2, 1, "3ms", "slice = \"1ms\"\ncontext_switch = \"10us\"");
    assert_eq!(
        times(&e),
        [Nanos::from_micros(6_030), Nanos::from_micros(6_060)]
    );
}

#[test]
fn a_burst_within_its_slice_or_alone_on_a_core_is_never_cut() {
    // Bursts shorter than the slice run whole, as with run-to-completion: 0.5 ms each on 1
    // core end at 0.5 and 1 ms. A long burst alone on its core runs on slice after slice.
    let short = cpu_bound(2, 1, "500us", "slice = \"1ms\"\ncontext_switch = \"10us\"");
    assert_eq!(times(&short), [Nanos::from_micros(500), ms(1)]);
    assert_eq!(preemptions(&short), 0);
    let alone = cpu_bound(2, 2, "5ms", "slice = \"1ms\"\ncontext_switch = \"10us\"");
    assert_eq!(times(&alone), [ms(5), ms(5)]);
    assert_eq!(preemptions(&alone), 0);
}

#[test]
fn the_default_slice_is_the_kernels_for_the_cores() {
    // sysctl_sched_base_slice = 0.75 ms x (1 + ilog2(min(cores, 8))).
    let slice = |cores| CpuScheduling::kernel_slice(cores).as_millis_f64() * 1000.0;
    assert_eq!(
        [1, 2, 3, 4, 8, 64].map(slice),
        [750.0, 1_500.0, 1_500.0, 2_250.0, 3_000.0, 3_000.0]
    );
    // Three 2 ms bursts on 1 core with the default (0.75 ms slices, 2 us switches): the
    // tails finish together near 6 ms, not at 2, 4 and 6 ms.
    let e = cpu_bound(3, 1, "2ms", "");
    let t = times(&e);
    assert!(
        t.iter()
            .all(|&x| x > ms(5) && x < Nanos::from_micros(6_100)),
        "{t:?}"
    );
}

#[test]
fn a_virtual_threads_burst_keeps_its_carrier_until_it_ends() {
    // The same two 3 ms bursts on 1 core, made on virtual threads (the unbounded strategy):
    // no time sharing between virtual threads, so they end at 3 and 6 ms as run to completion.
    let toml = r#"
[scenario]
name = "cpu"
cores = 1
slice = "1ms"
[load]
mode = "batch"
count = 2
[[services]]
name = "work"
latency = "0ms"
cpu = "3ms"
[endpoint]
calls = ["work"]
[strategy]
use = "unbounded"
"#;
    let mut e = Engine::new(&parse(toml), Strategy::Unbounded);
    e.run_until(Nanos::from_secs(10));
    assert_eq!(times(&e), [ms(3), ms(6)]);
    assert_eq!(preemptions(&e), 0);
}

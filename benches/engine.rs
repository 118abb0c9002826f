//! Engine throughput. `cargo bench --bench engine`.
//!
//! - `mmc_customers`: the `erlang-c` preset (Poisson 1800/s, exponential 100 ms, 200 threads)
//!   for 600 simulated seconds; divan reports customers per second.
//! - `closed_2000_unbounded`: 60 simulated seconds of 2,000 closed-loop clients on the
//!   `unbounded` strategy at 100 ms per call; divan reports the wall time.
//! - `trace_tomcat_ceiling_60s`: writing the Perfetto trace of 60 simulated seconds of
//!   `tomcat-ceiling` (played once, outside the timing); divan reports the wall time.
//! - `mmc_customers_traced`: `mmc_customers` recording thread timelines, against which the
//!   untraced run shows what recording costs.
//! - `heap_baseline`: a bare binary-heap event loop with the same pending-event count as the
//!   M/M/c run, the yardstick the engine's cost is compared against.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use divan::Bencher;
use divan::counter::ItemsCount;
use threadlab::report::play;
use threadlab::scenario::{self, Strategy};
use threadlab::time::Nanos;

fn main() {
    divan::main();
}

const MMC_SECONDS: u64 = 600;

#[divan::bench(sample_count = 5)]
fn mmc_customers(bencher: Bencher) {
    let s = scenario::load("erlang-c", &[]).expect("built-in preset");
    let customers = (1800 * MMC_SECONDS) as usize;
    bencher.counter(ItemsCount::new(customers)).bench(|| {
        let e = play(&s, Strategy::Sequential, Nanos::from_secs(MMC_SECONDS));
        divan::black_box(e.snapshot().outcomes.total())
    });
}

#[divan::bench(sample_count = 3)]
fn mmc_customers_traced(bencher: Bencher) {
    let s = scenario::load("erlang-c", &[]).expect("built-in preset");
    let customers = (1800 * MMC_SECONDS) as usize;
    bencher.counter(ItemsCount::new(customers)).bench(|| {
        let e = threadlab::report::perfetto::play_traced(
            &s,
            Strategy::Sequential,
            Nanos::from_secs(MMC_SECONDS),
        );
        divan::black_box(e.snapshot().outcomes.total())
    });
}

#[divan::bench(sample_count = 5)]
fn trace_tomcat_ceiling_60s(bencher: Bencher) {
    let s = scenario::load("tomcat-ceiling", &[]).expect("built-in preset");
    let e =
        threadlab::report::perfetto::play_traced(&s, Strategy::Sequential, Nanos::from_secs(60));
    bencher.bench(|| {
        let mut out = Vec::with_capacity(64 << 20);
        let summary = threadlab::report::perfetto::write_trace(&mut out, &[("", &e)])
            .expect("written to memory");
        divan::black_box((summary, out.len()))
    });
}

const CLOSED: &str = r#"
[scenario]
name = "closed 2000"
duration = "60s"
cores = 8
[load]
mode = "closed"
clients = 2000
[server]
threads = "virtual"
[[services]]
name = "db"
latency = "100ms"
[endpoint]
calls = ["db"]
"#;

#[divan::bench(sample_count = 5)]
fn closed_2000_unbounded(bencher: Bencher) {
    let s = scenario::parse("bench", CLOSED, &[]).expect("valid scenario");
    bencher.bench(|| {
        let e = play(&s, Strategy::Unbounded, Nanos::from_secs(60));
        divan::black_box(e.snapshot().outcomes.total())
    });
}

#[divan::bench(sample_count = 5)]
fn heap_baseline(bencher: Bencher) {
    // Two events per customer, ~400 pending, like the M/M/c run.
    let events = (2 * 1800 * MMC_SECONDS) as usize;
    bencher.counter(ItemsCount::new(events / 2)).bench(|| {
        let mut heap = BinaryHeap::new();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for seq in 0..400u64 {
            heap.push(Reverse((seq * 1000, seq, seq)));
        }
        for seq in 400..400 + events as u64 {
            let Some(Reverse((t, _, v))) = heap.pop() else {
                break;
            };
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            heap.push(Reverse((t + x % 200_000_000, seq, v)));
        }
        divan::black_box(heap.len())
    });
}

//! `[jvm]`: the JVM's own costs, each off unless its table is there. A fresh JVM's CPU work
//! costs more until the code is compiled (`[jvm.warmup]`, with Tomcat's threads created as
//! its pool grows); the young generation fills with what requests and calls allocate and is
//! collected (`[jvm.gc]`): a stop-the-world pause stops every Java thread, a concurrent
//! collector takes CPU instead; Tomcat's Acceptor and Poller are Java threads on the same
//! cores as the handlers (`[jvm.connector_threads]`).
//!
//! Every default is what the real embedded Tomcat of `rigs/tomcat` measured on JDK 17 and two
//! cores (`rigs/tomcat/results/README.md`, experiments 2 and 3).

use crate::time::Nanos;

/// What an error costs the JVM besides `server.cpu_per_error` (a 500's stack trace and
/// error page).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Errors {
    /// CPU to log a rejected submission whose exception was caught (its stack trace built
    /// and written): the rig's 98 us of handler CPU per logged exception (`/bulkhead`,
    /// closed loop, warm).
    pub logged_rejection: Nanos,
}

/// Tomcat's connector threads as what they are, Java threads on the scenario's cores
/// (`NioEndpoint`'s Acceptor and Poller): the Acceptor's turn (`server.accept_cost`) waits
/// for a core like any burst, and the Poller's work is CPU on the cores beside the handlers.
/// The defaults are the rig's (`rigs/tomcat/results/README.md`, "Tomcat's connector threads"):
/// the Poller's thread CPU over the requests served, on 2 cores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectorThreads {
    /// The Poller's CPU per request it hands to the executor (a read event selected and
    /// dispatched to a `SocketProcessor`): the rig's 10.6-19.8 us on kept-alive connections
    /// under a CPU-bound load.
    pub poll: Nanos,
    /// The Poller's CPU per new connection the Acceptor hands it (the registration event
    /// and the socket's first interest): the rig's 38-75 us (median 62) a request with a new
    /// connection each, at 180-300 a second, less the 15 us of its poll.
    pub register: Nanos,
}

/// The JVM's own costs; the default has none (every figure as without a `[jvm]` table).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Jvm {
    pub warmup: Option<Warmup>,
    pub gc: Option<Gc>,
    pub errors: Option<Errors>,
    pub connector_threads: Option<ConnectorThreads>,
}

impl Jvm {
    /// Whether any of the JVM's costs is on.
    pub fn any(&self) -> bool {
        self.warmup.is_some()
            || self.gc.is_some()
            || self.errors.is_some()
            || self.connector_threads.is_some()
    }
}

/// A fresh JVM: CPU work (the handler's, its calls', an error page's) costs
/// [`Warmup::multiplier`] times its warm cost, falling with the requests served.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Warmup {
    /// The first request's multiplier (the rig's `/spin`: 3.84 x its warm CPU on request 1).
    pub first: f64,
    /// The slow part of the extra cost (Tomcat's own code and the rest of the request,
    /// compiled later): 0.15 x at the start ...
    pub tail: f64,
    /// ... falling by e every this many requests served (the rig: 1.12 x over requests 11-20,
    /// 1.04 x over 21-50, within 2 % from the 51st).
    pub tail_requests: f64,
    /// The time and CPU Tomcat spends starting each new thread of its pool beyond
    /// `min_spare` (the rig's cold burst: ~90 threads in ~65 ms, 0.7 ms a thread).
    pub thread_start: Nanos,
}

/// How many requests the fast part of the warm-up lasts (e-folding): the hot loop is
/// compiled on stack within the first request (the rig: 3.84 x on request 1, 1.29 x on 2).
const FAST_REQUESTS: f64 = 0.35;

impl Warmup {
    /// The multiplier of CPU work of a request that starts after `served` requests were
    /// answered: `1 + (first - 1 - tail) e^(-served / 0.35) + tail e^(-served / tail_requests)`.
    pub fn multiplier(&self, served: u64) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        let n = served as f64;
        let fast = (self.first - 1.0 - self.tail).max(0.0);
        1.0 + fast * (-n / FAST_REQUESTS).exp() + self.tail * (-n / self.tail_requests).exp()
    }

    /// `cost` on a JVM that has served `served` requests.
    pub fn scale(&self, cost: Nanos, served: u64) -> Nanos {
        if cost == Nanos::ZERO {
            return cost;
        }
        #[allow(
            clippy::cast_precision_loss,
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss
        )]
        Nanos((cost.0 as f64 * self.multiplier(served)).round() as u64)
    }
}

/// The garbage collector (`-XX:+UseParallelGC`, `-XX:+UseG1GC`, `-XX:+UseZGC`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Collector {
    Parallel,
    G1,
    /// JDK 17's ZGC: no generations, a concurrent cycle with three pauses of tens of
    /// microseconds.
    Zgc,
}

impl Collector {
    pub fn name(self) -> &'static str {
        match self {
            Collector::Parallel => "parallel",
            Collector::G1 => "g1",
            Collector::Zgc => "zgc",
        }
    }
}

/// One collection's cost, as [`Gc::collection`] computes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Collection {
    /// Every Java thread stops this long.
    pub pause: Nanos,
    /// CPU the collector's threads spend beside the running threads (a concurrent cycle).
    pub concurrent_cpu: Nanos,
}

/// The heap and what fills it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gc {
    pub collector: Collector,
    /// `-Xmx`, bytes.
    pub heap: u64,
    /// `-Xmn`, bytes (default a third of the heap, the Parallel collector's `NewRatio` 2).
    pub young_gen: u64,
    /// Bytes a request's handler allocates.
    pub alloc_per_request: u64,
    /// Bytes each call allocates (on the thread that runs it).
    pub alloc_per_call: u64,
    /// The share of what was allocated that is still live at a collection (copied).
    pub survival: f64,
}

const MIB: f64 = 1024.0 * 1024.0;

impl Gc {
    /// Bytes allocated between two collections: eden, 8/10 of the young generation (the
    /// JVM's `SurvivorRatio` 8 keeps two survivor spaces of a tenth each); ZGC, which has no
    /// young generation in JDK 17, starts a cycle every quarter of the heap (the rig's
    /// 512 MiB heap cycled every ~125 MiB allocated).
    pub fn budget(&self) -> u64 {
        match self.collector {
            Collector::Parallel | Collector::G1 => self.young_gen / 10 * 8,
            Collector::Zgc => self.heap / 4,
        }
        .max(1)
    }

    /// A collection's pause and CPU on `cores` cores. The pause follows what survives: a
    /// fixed part (roots, the safepoint) plus the copying of the survivors, shared by the
    /// GC threads (`ParallelGCThreads`: one per core up to 8). Fitted to the rig's
    /// `-Xmn64m`, 256 KiB a request with 4 KiB kept (0.8 MiB survive a collection): Parallel
    /// 3.3 ms and G1 4.7 ms a pause on 2 cores. ZGC stops only for its three short pauses
    /// (0.06 ms in all) and marks and relocates concurrently: 0.21 ms of CPU per MiB of the
    /// cycle's allocation (the rig: 27 ms a cycle, 0.8 % of 2 cores at 300 requests a second).
    pub fn collection(&self, cores: u32) -> Collection {
        #[allow(clippy::cast_precision_loss)]
        let survived_mib = self.budget() as f64 * self.survival / MIB;
        let threads = f64::from(cores.clamp(1, 8));
        let ms = |ms: f64| {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Nanos((ms * 1e6).round() as u64)
        };
        match self.collector {
            Collector::Parallel => Collection {
                pause: ms(1.0 + 2.85 * survived_mib * 2.0 / threads),
                concurrent_cpu: Nanos::ZERO,
            },
            Collector::G1 => Collection {
                pause: ms(1.5 + 3.9 * survived_mib * 2.0 / threads),
                concurrent_cpu: Nanos::ZERO,
            },
            Collector::Zgc => {
                #[allow(clippy::cast_precision_loss)]
                let cycle_mib = self.budget() as f64 / MIB;
                Collection {
                    pause: ms(0.06),
                    concurrent_cpu: ms(0.21 * cycle_mib),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::check::Checker;
    use super::super::jvm_check::size;
    use super::*;

    #[test]
    fn the_warmup_multiplier_falls_as_the_rig_measured() {
        let w = Warmup {
            first: 3.84,
            tail: 0.15,
            tail_requests: 30.0,
            thread_start: Nanos::ZERO,
        };
        // Hand-computed: 1 + 2.69 e^(-n/0.35) + 0.15 e^(-n/30).
        let expected = [(0, 3.84), (1, 1.300), (4, 1.131), (30, 1.055), (100, 1.005)];
        for (served, m) in expected {
            let got = w.multiplier(served);
            assert!(
                (got - m).abs() < 0.002,
                "request {served}: {got} against {m}"
            );
        }
        assert_eq!(w.scale(Nanos::from_millis(2), 0), Nanos::from_micros(7680));
    }

    #[test]
    fn eden_is_eight_tenths_of_the_young_generation_and_zgc_a_quarter_of_the_heap() {
        let mut gc = Gc {
            collector: Collector::Parallel,
            heap: 512 << 20,
            young_gen: 64 << 20,
            alloc_per_request: 256 << 10,
            alloc_per_call: 0,
            survival: 0.016,
        };
        // 64 MiB x 0.8 / 256 KiB = 204.8 requests a collection (the rig: 201).
        assert_eq!(gc.budget() / gc.alloc_per_request, 204);
        // 1 ms + 2.85 ms x 0.8192 MiB survived = 3.33 ms on 2 cores (the rig: 3.3).
        assert_eq!(gc.collection(2).pause, Nanos(3_334_720));
        gc.collector = Collector::Zgc;
        assert_eq!(gc.budget(), 128 << 20);
        assert_eq!(gc.collection(2).pause, Nanos::from_micros(60));
        assert_eq!(gc.collection(2).concurrent_cpu, Nanos(26_880_000));
    }

    #[test]
    fn sizes_name_their_field_and_range() {
        let check = Checker { origin: "p.toml" };
        assert_eq!(size(&check, "f", "64MiB", 0, 1 << 30).ok(), Some(64 << 20));
        assert_eq!(size(&check, "f", "1.5KiB", 0, 1 << 20).ok(), Some(1536));
        let err = size(&check, "jvm.gc.heap", "64MB", 0, 1 << 30).expect_err("MB is not a unit");
        assert!(err.to_string().contains("jvm.gc.heap"), "{err}");
        let err = size(&check, "jvm.gc.heap", "2GiB", 0, 1 << 30).expect_err("over the range");
        assert!(err.to_string().contains("0B..=1GiB"), "{err}");
    }
}

//! The validated, typed scenario the engine plays. Built once from a preset by
//! [`super::load`]; every value here is already inside its allowed range.

use crate::time::Nanos;

/// One whole scenario: services, the endpoint that calls them, the server, the load and the
/// strategy pools.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// Where it came from: a built-in preset name or a file path (for messages).
    pub source: String,
    pub name: String,
    pub about: String,
    pub seed: u64,
    /// Default simulated time for `run`.
    pub duration: Nanos,
    /// Simulated CPU cores (`Runtime.availableProcessors()`).
    pub cores: u32,
    pub jdk: Jdk,
    pub load: Load,
    pub server: Server,
    /// Indexed by [`ServiceId`].
    pub services: Vec<Service>,
    pub endpoint: Endpoint,
    pub strategy: StrategyConfig,
    /// CPU time the submitting thread spends creating each new platform thread for a call
    /// (`new Thread(r).start()`); 0 ignores creation cost.
    pub spawn_cost: Nanos,
    /// How the cores are shared among the threads that have CPU work.
    pub cpu_scheduling: CpuScheduling,
    /// Pools of connections or permits (HikariCP), indexed by [`ResourceId`].
    pub resources: Vec<Resource>,
    /// Published figures this preset reproduces (`threadlab articles`).
    pub figures: Vec<ArticleFigure>,
    /// Faults injected at given times (`[[faults]]`), as the fault menu would.
    pub faults: Vec<ScheduledFault>,
    /// A scripted sequence for talks (`threadlab tour`).
    pub tour: Vec<TourStep>,
    /// The JVM's own costs (`[jvm]`): none by default.
    pub jvm: super::jvm::Jvm,
}

/// How the cores are shared among runnable threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuScheduling {
    /// Each burst runs to its end once it has a core, in FIFO order: simple to follow, and
    /// how a class first draws a CPU queue.
    RunToCompletion,
    /// Linux's fair scheduler (EEVDF since 6.6, CFS before): a burst runs at most `slice`
    /// while other threads wait for a core, then goes to the back of the run queue; the
    /// thread switched in pays `switch` of CPU first.
    TimeSliced { slice: Nanos, switch: Nanos },
}

impl CpuScheduling {
    /// The kernel's default slice on `cores` CPUs: `sysctl_sched_base_slice` = 0.75 ms x
    /// (1 + ilog2(min(cores, 8))) (`kernel/sched/fair.c`, `get_update_sysctl_factor` with
    /// `SCHED_TUNABLESCALING_LOG`): 0.75 ms on 1 core, 1.5 ms on 2, 2.25 ms on 4, 3 ms on 8 or
    /// more.
    pub fn kernel_slice(cores: u32) -> Nanos {
        let factor = 1 + cores.clamp(1, 8).ilog2();
        Nanos::from_micros(750 * u64::from(factor))
    }
}

/// One step of a talk's tour: at a simulated time, press keys and show a caption, then wait
/// for the speaker.
#[derive(Debug, Clone, PartialEq)]
pub struct TourStep {
    pub at: Nanos,
    pub keys: Vec<TourKey>,
    pub caption: String,
    /// The panel the caption talks about: the caption is drawn away from it.
    pub panel: TourPanel,
    /// Conditions on the run report that hold when the caption shows, each
    /// `path op number` (`pools.recs.busy == 30`); `threadlab`'s tests check them.
    pub expect: Vec<String>,
}

/// The panel a tour caption talks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TourPanel {
    #[default]
    Pools,
    Outcomes,
    Latency,
    Compare,
    Theory,
    /// The Resilience panel (retries, breakers, goodput and attempts a second).
    Resilience,
    Log,
}

impl TourPanel {
    /// Every panel with the name a preset writes for it.
    pub const NAMES: [(&'static str, TourPanel); 7] = [
        ("pools", TourPanel::Pools),
        ("outcomes", TourPanel::Outcomes),
        ("latency", TourPanel::Latency),
        ("compare", TourPanel::Compare),
        ("theory", TourPanel::Theory),
        ("resilience", TourPanel::Resilience),
        ("log", TourPanel::Log),
    ];

    /// The panel a preset names `name` (`"log"`), if any.
    pub fn named(name: &str) -> Option<TourPanel> {
        Self::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, p)| p)
    }

    /// The panel sits low on the screen, so its caption goes at the top.
    pub fn is_low(self) -> bool {
        matches!(
            self,
            TourPanel::Theory | TourPanel::Resilience | TourPanel::Log
        )
    }
}

/// A key a tour step presses: a character, or a named key written `<Tab>`, `<BackTab>`,
/// `<Up>`, `<Down>`, `<Enter>`, `<Esc>`, `<Space>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TourKey {
    Char(char),
    Tab,
    BackTab,
    Up,
    Down,
    Left,
    Right,
    Home,
    Enter,
    Esc,
}

/// The keys written between angle brackets, with the key each names.
const NAMED_KEYS: [(&str, TourKey); 10] = [
    ("Tab", TourKey::Tab),
    ("BackTab", TourKey::BackTab),
    ("Up", TourKey::Up),
    ("Down", TourKey::Down),
    ("Left", TourKey::Left),
    ("Right", TourKey::Right),
    ("Home", TourKey::Home),
    ("Enter", TourKey::Enter),
    ("Esc", TourKey::Esc),
    ("Space", TourKey::Char(' ')),
];

/// Why a text is not keys ([`parse_keys`]): what is wrong, and which names are allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeysError {
    /// A name in angle brackets that names no key (shown elided to 20 characters).
    #[error("unknown key <{}>: allowed characters and {}", super::elide(.0, 20), key_names())]
    UnknownKey(String),
    #[error("a control character ({0:?}) is not a key: write <Enter>, <Tab>, <Esc>")]
    ControlCharacter(char),
}

/// The named keys as written: `<Tab> <BackTab> ...`.
fn key_names() -> String {
    let names: Vec<String> = NAMED_KEYS.iter().map(|(n, _)| format!("<{n}>")).collect();
    names.join(" ")
}

/// `"1c"`, `"<Tab>+"`: characters, and named keys in angle brackets (any case), as a tour's
/// `keys`, a key script (`--keys`) and `screenshot --keys` write them.
pub fn parse_keys(text: &str) -> Result<Vec<TourKey>, KeysError> {
    let mut keys = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        // `<` begins a named key when a name without another `<` follows it up to `>`:
        // `<<Tab>` is the key `<`, then Tab.
        if c == '<'
            && let Some(end) = rest.find('>')
            && end > 1
            && !rest[1..end].contains('<')
        {
            let name = &rest[1..end];
            let Some(&(_, key)) = NAMED_KEYS
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
            else {
                return Err(KeysError::UnknownKey(name.to_owned()));
            };
            keys.push(key);
            rest = &rest[end + 1..];
        } else if c.is_control() {
            return Err(KeysError::ControlCharacter(c));
        } else {
            keys.push(TourKey::Char(c));
            rest = &rest[c.len_utf8()..];
        }
    }
    Ok(keys)
}

impl Server {
    /// What to tell the user about a setting Tomcat ignores, as it would be ignored.
    pub fn notes(&self) -> Vec<String> {
        self.accept_count_ignored
            .map(|asked| {
                format!(
                    "server.accept_count = {asked} is ignored as Tomcat ignores it \
                     (AbstractEndpoint.setAcceptCount takes only a positive value): \
                     the listen backlog stays {}",
                    self.accept_count
                )
            })
            .into_iter()
            .collect()
    }
}

impl Scenario {
    /// Whether the clients give up or retry, the server sheds, or a service has a breaker, a
    /// rate limiter or a retry: the run's report then says what they did (retries, requests
    /// given up, work done for clients that had left, breaker transitions).
    pub fn resilience_in_play(&self) -> bool {
        self.load.timeout.is_some()
            || self.load.retry.is_some()
            || self.load.breaker.is_some()
            || self.server.queue_timeout.is_some()
            || self.server.adaptive_lifo.is_some()
            || self.server.rate_limit.is_some()
            || self.services.iter().any(|s| {
                s.breaker.is_some()
                    || s.rate_limit.is_some()
                    || s.retry.is_some()
                    || s.adaptive_limit.is_some()
            })
    }

    pub fn service(&self, id: ServiceId) -> &Service {
        &self.services[id.0]
    }

    /// The common pool's parallelism: `[strategy.shared] threads` when set (the
    /// `java.util.concurrent.ForkJoinPool.common.parallelism` property), else
    /// `max(1, cores - 1)` (ForkJoinPool's common-pool constructor).
    pub fn shared_parallelism(&self) -> u32 {
        self.strategy
            .shared_threads
            .unwrap_or_else(|| self.cores.saturating_sub(1).max(1))
    }
}

/// JDK release: behaviour differs by version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Jdk {
    V17,
    V21,
    V25,
}

impl Jdk {
    pub fn number(self) -> u32 {
        match self {
            Jdk::V17 => 17,
            Jdk::V21 => 21,
            Jdk::V25 => 25,
        }
    }

    /// Up to JDK 21 `CompletableFuture` runs async work on a new thread per task when the
    /// common pool's parallelism is below 2 (`ThreadPerTaskExecutor`); from JDK 22 it uses
    /// `ForkJoinPool.asyncCommonPool()`, which lifts a parallelism of 0 to 2 and keeps 1 as 1.
    /// Parallelism here is at least 1 (validated), so below 2 means one worker for every
    /// async call.
    pub fn thread_per_task_below_parallelism_2(self) -> bool {
        self <= Jdk::V21
    }
}

/// Index of a service in [`Scenario::services`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ServiceId(pub usize);

/// A downstream service the endpoint calls.
#[derive(Debug, Clone, PartialEq)]
pub struct Service {
    pub name: String,
    pub latency: Latency,
    /// Probability in [0, 1] that a call fails, decided when its latency ends.
    pub failure: f64,
    /// A fallback value: a failed or timed-out call degrades the request to `Partial`.
    pub fallback: Option<String>,
    /// `orTimeout`: the caller's future completes exceptionally; the worker stays busy.
    pub timeout: Option<Nanos>,
    pub hang: Option<Hang>,
    /// CPU time a call needs (on one core) before it waits.
    pub cpu: Nanos,
    /// A connection pool the call must borrow from for its whole wait.
    pub uses: Option<ResourceId>,
    /// The call blocks inside `synchronized`: on JDK 21-23 a virtual thread stays pinned to
    /// its carrier (a core) for the whole call (JEP 444); JDK 24+ unmounts (JEP 491).
    pub pinned: bool,
    /// A circuit breaker around its calls.
    pub breaker: Option<super::BreakerConfig>,
    /// A rate limiter in front of its calls.
    pub rate_limit: Option<super::RateLimiterConfig>,
    /// resilience4j's `Retry` around each call: a failed attempt is made again.
    pub retry: Option<super::Retry>,
    /// An adaptive concurrency limit in front of its calls (Netflix's concurrency-limits).
    pub adaptive_limit: Option<AdaptiveLimitConfig>,
}

/// `[services.adaptive_limit]`: Netflix concurrency-limits' `SimpleLimiter` with its limit
/// algorithm, under the library's names (`flow::guard_kinds::adaptive_limit`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdaptiveLimitConfig {
    pub algorithm: LimitAlgorithm,
    /// `initialLimit`, `minLimit`, `maxLimit` (Gradient2's `maxConcurrency`).
    pub initial: u32,
    pub min: u32,
    pub max: u32,
}

/// How the limit moves with each call's end.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LimitAlgorithm {
    /// `AIMDLimit`: +1 while busy, `* backoff_ratio` on a drop or an RTT over `timeout`.
    Aimd { backoff_ratio: f64, timeout: Nanos },
    /// `Gradient2Limit`: the long-window RTT over the last one, smoothed.
    Gradient2 {
        smoothing: f64,
        tolerance: f64,
        long_window: u32,
        queue_size: u32,
    },
}

impl Service {
    /// A service with a name and a latency and nothing else: no failure, fallback, timeout,
    /// hang, CPU, resource, guard or retry.
    pub fn plain(name: &str, latency: Latency) -> Service {
        Service {
            name: name.to_owned(),
            latency,
            failure: 0.0,
            fallback: None,
            timeout: None,
            hang: None,
            cpu: crate::time::Nanos::ZERO,
            uses: None,
            pinned: false,
            breaker: None,
            rate_limit: None,
            retry: None,
            adaptive_limit: None,
        }
    }
}

/// Index of a resource in [`Scenario::resources`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResourceId(pub usize);

/// A bounded pool of connections like HikariCP: `size` connections, handed to waiters in
/// FIFO order; a waiter that gets none within `timeout` fails
/// (`SQLTransientConnectionException`).
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    pub name: String,
    pub size: u32,
    pub timeout: Nanos,
}

/// A figure from an article and how to read it from a run of this preset.
#[derive(Debug, Clone, PartialEq)]
pub struct ArticleFigure {
    /// What it measures, e.g. "blocking dashboard".
    pub what: String,
    /// The article's figure as published, e.g. "~1708 ms".
    pub article: String,
    pub strategy: Strategy,
    /// A path into `run --format json`, e.g. `latency_ms.mean`, `throughput_rps`,
    /// `pools.IronThread.largest_pool_size` (array elements by name).
    pub metric: String,
    /// What threadlab should give.
    pub expect: f64,
    /// Allowed relative difference.
    pub tolerance: f64,
    /// Overrides for this figure's run (`--set` syntax).
    pub sets: Vec<String>,
    /// Simulated time for this figure's run (the preset's duration when absent).
    pub duration: Option<Nanos>,
}

/// A fault injected into a service while a run goes on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fault {
    /// Every call takes `factor` times its drawn latency.
    Slow { factor: f64 },
    /// Every call hangs for `duration`.
    Hang { duration: Nanos },
    /// Calls fail with this probability.
    Fail { probability: f64 },
}

/// `[[faults]]`: a fault the run injects into a service at `at`, healed at `until`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScheduledFault {
    pub at: Nanos,
    pub until: Option<Nanos>,
    pub service: ServiceId,
    pub fault: Fault,
}

/// With `probability`, a call takes `duration` instead of its drawn latency.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hang {
    pub probability: f64,
    pub duration: Nanos,
}

/// A latency distribution.
#[derive(Debug, Clone, PartialEq)]
pub enum Latency {
    Fixed(Nanos),
    Uniform {
        min: Nanos,
        max: Nanos,
    },
    Exponential {
        mean: Nanos,
    },
    /// Normal, truncated at zero (negative draws are redrawn).
    Normal {
        mean: Nanos,
        sd: Nanos,
    },
    /// Log-normal given by its median and 99th percentile.
    LogNormal {
        p50: Nanos,
        p99: Nanos,
    },
    /// Uniform choice among the listed values.
    Empirical(Vec<Nanos>),
    /// A quantile table: (share in [0, 1], value) rows, shares rising from 0 to 1, values
    /// never falling; a draw interpolates linearly between the rows around a uniform.
    Quantiles(Vec<(f64, Nanos)>),
}

impl Latency {
    /// The distribution's mean (the value theory uses for S).
    pub fn mean(&self) -> Nanos {
        match self {
            Latency::Fixed(d) => *d,
            Latency::Uniform { min, max } => Nanos(
                u64::try_from((u128::from(min.0) + u128::from(max.0)) / 2).unwrap_or(u64::MAX),
            ),
            Latency::Exponential { mean } | Latency::Normal { mean, .. } => *mean,
            Latency::LogNormal { p50, p99 } => {
                let (mu, sigma) = lognormal_params(*p50, *p99);
                Nanos::from_secs_f64((mu + sigma * sigma / 2.0).exp() / 1e9)
            }
            Latency::Empirical(values) => {
                let sum: u128 = values.iter().map(|v| u128::from(v.0)).sum();
                let n = values.len().max(1) as u128;
                Nanos(u64::try_from(sum / n).unwrap_or(u64::MAX))
            }
            // Each row's span holds its share of the draws, spread evenly between its ends.
            Latency::Quantiles(rows) => Nanos::from_secs_f64(
                rows.windows(2)
                    .map(|w| {
                        (w[1].0 - w[0].0) * (w[0].1.as_secs_f64() + w[1].1.as_secs_f64()) / 2.0
                    })
                    .sum(),
            ),
        }
    }
}

/// Location and scale (of ln nanoseconds) of a log-normal with the given p50 and p99.
pub fn lognormal_params(p50: Nanos, p99: Nanos) -> (f64, f64) {
    /// The standard normal's 99th percentile.
    const Z99: f64 = 2.326_347_874_040_841;
    let mu = (p50.0 as f64).ln();
    let sigma = ((p99.0 as f64).ln() - mu) / Z99;
    (mu, sigma)
}

/// The endpoint: stages run in order; the calls inside a stage fan out.
#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    pub stages: Vec<Vec<ServiceId>>,
}

impl Endpoint {
    pub fn call_count(&self) -> usize {
        self.stages.iter().map(Vec::len).sum()
    }

    /// The service of call `call`, calls being numbered across the stages from 0.
    pub fn service_of_call(&self, call: usize) -> Option<ServiceId> {
        let mut rest = call;
        for stage in &self.stages {
            if let Some(&id) = stage.get(rest) {
                return Some(id);
            }
            rest -= stage.len();
        }
        None
    }
}

/// How requests arrive.
#[derive(Debug, Clone, PartialEq)]
pub struct Load {
    pub mode: LoadMode,
    /// Client-side timeout: a later response counts as `Timeout`.
    pub timeout: Option<Nanos>,
    /// How the clients reach the server over TCP.
    pub link: Link,
    /// Changes of the load during the run, in time order (open and closed loads).
    pub phases: Vec<Phase>,
    /// The client sends a failed request again (`[load.retry]`).
    pub retry: Option<super::Retry>,
    /// The client's own circuit breaker (`[load.breaker]`): while open, it sends nothing.
    pub breaker: Option<super::BreakerConfig>,
}

/// The load changes at `at`: a new arrival rate or a new number of clients, as the live keys
/// would set it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Phase {
    pub at: Nanos,
    pub change: PhaseChange,
}

impl Load {
    /// The open-load phases: when each sets which rate.
    pub fn rate_phases(&self) -> impl Iterator<Item = (Nanos, f64)> + '_ {
        self.phases.iter().filter_map(|p| match p.change {
            PhaseChange::Rate(r) => Some((p.at, r)),
            PhaseChange::Clients(_) => None,
        })
    }

    /// The closed-load phases: when each sets how many clients.
    pub fn client_phases(&self) -> impl Iterator<Item = (Nanos, u32)> + '_ {
        self.phases.iter().filter_map(|p| match p.change {
            PhaseChange::Clients(n) => Some((p.at, n)),
            PhaseChange::Rate(_) => None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PhaseChange {
    /// An open load's rate, per second.
    Rate(f64),
    /// A closed load's clients.
    Clients(u32),
}

/// Who the clients are, for the keep-alive fast path's race: how long a client takes from
/// reading a response to sending its next request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientKind {
    /// A load generator on an event loop (wrk, oha): about 10 us.
    Wrk,
    /// A blocking Java client, one thread per connection: about 100 us.
    Blocking,
    /// `load.turnaround` as the preset gives it.
    Custom,
}

impl ClientKind {
    pub const NAMED: [ClientKind; 2] = [ClientKind::Wrk, ClientKind::Blocking];

    pub fn name(self) -> &'static str {
        match self {
            ClientKind::Wrk => "wrk",
            ClientKind::Blocking => "blocking",
            ClientKind::Custom => "custom",
        }
    }

    /// Time between two of the kind's connections when it opens many at once (its first
    /// requests, a phase's new clients): wrk's thread connects them one after another in a
    /// loop (`socket` + non-blocking `connect`, which on loopback runs the handshake), a
    /// blocking client starts a thread per connection. Measured on a 2-core Linux 6.18 box
    /// against Tomcat 10.1: a C loop like wrk's took 19-43 us a connection, a Java client
    /// 530-800 us a thread. A custom client opens them all at once.
    pub fn connect_spacing(self) -> Nanos {
        match self {
            ClientKind::Wrk => Nanos::from_micros(30),
            ClientKind::Blocking => Nanos::from_micros(500),
            ClientKind::Custom => Nanos::ZERO,
        }
    }

    /// The kind's mean turnaround (a custom one's is the preset's).
    pub fn turnaround(self) -> Nanos {
        match self {
            ClientKind::Wrk => Nanos::from_micros(10),
            ClientKind::Blocking => Nanos::from_micros(100),
            ClientKind::Custom => Nanos::ZERO,
        }
    }
}

/// The clients' side of TCP: connections, round trips, timeouts and SYN retransmits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Link {
    /// Closed clients keep their connection between requests (HTTP/1.1 keep-alive).
    pub keep_alive: bool,
    /// Round trip between a client and the server; one way is half of it.
    pub rtt: Nanos,
    /// Mean time a client takes from reading a response to sending the next request.
    pub turnaround: Nanos,
    /// Who the client is: where `turnaround` comes from.
    pub client: ClientKind,
    /// Time between the starts of clients that begin together (see
    /// [`ClientKind::connect_spacing`]).
    pub connect_spacing: Nanos,
    pub timeout_mode: TimeoutMode,
    /// The client's connect timeout; `None` leaves it to the kernel's SYN retries.
    pub connect_timeout: Option<Nanos>,
    /// `tcp_syn_retries`: SYN retransmits before `connect()` fails with `ETIMEDOUT`.
    pub syn_retries: u32,
    /// `tcp_syn_linear_timeouts` (Linux 6.5+): the first retransmits keep the initial RTO
    /// of 1 s; each further one doubles it. They add to `syn_retries`.
    pub syn_linear_timeouts: u32,
}

impl Default for Link {
    /// A loopback client on Linux 6.5+ with the kernel's defaults.
    fn default() -> Self {
        Link {
            keep_alive: true,
            rtt: Nanos::from_micros(40),
            turnaround: ClientKind::Wrk.turnaround(),
            client: ClientKind::Wrk,
            // With the default instant acceptor, clients start together.
            connect_spacing: Nanos::ZERO,
            timeout_mode: TimeoutMode::Abort,
            connect_timeout: None,
            syn_retries: 6,
            syn_linear_timeouts: 4,
        }
    }
}

/// What a client does when its timeout passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutMode {
    /// It gives up: counts a timeout, closes its connection and sends its next request on a
    /// new one (Java's `HttpClient`, k6, Gatling, JMeter).
    Abort,
    /// It keeps waiting; the late response counts as a timeout and is left out of the
    /// latency figures (wrk's `--timeout`).
    Count,
}

#[derive(Debug, Clone, PartialEq)]
pub enum LoadMode {
    /// `count` requests one after another (single-request latency).
    Runs { count: u32 },
    /// Poisson arrivals at `rate` per second, optionally ramping linearly to `ramp.to` over
    /// `ramp.over`.
    Open { rate: f64, ramp: Option<Ramp> },
    /// `clients` each send a request, wait for its response, think, and send the next.
    Closed { clients: u32, think: Nanos },
    /// `count` requests all arriving at t = 0.
    Batch { count: u32 },
    /// Requests replayed from a CSV file: arrival times and per-service latencies.
    Trace { rows: Vec<TraceRow> },
}

impl LoadMode {
    /// Closed clients, each waiting for its answer before it sends again.
    pub fn is_closed(&self) -> bool {
        matches!(self, LoadMode::Closed { .. })
    }

    /// How many requests a finite load (`runs`, `batch`, `trace`) sends; None for a load
    /// that goes on.
    pub fn finite_count(&self) -> Option<u64> {
        match self {
            LoadMode::Runs { count } | LoadMode::Batch { count } => Some(u64::from(*count)),
            LoadMode::Trace { rows } => Some(rows.len() as u64),
            LoadMode::Open { .. } | LoadMode::Closed { .. } => None,
        }
    }

    /// The latency a replayed request's call of `service` takes, as its trace row recorded
    /// it: the `id`-th request replays the `id`-th row. None outside a trace, past its rows,
    /// or where the row leaves the service to its distribution.
    pub fn recorded_latency(&self, id: u64, service: ServiceId) -> Option<Nanos> {
        let LoadMode::Trace { rows } = self else {
            return None;
        };
        let row = rows.get(usize::try_from(id.checked_sub(1)?).ok()?)?;
        row.latencies.get(service.0).copied().flatten()
    }
}

/// One replayed request: when it arrives and, per service, the latency its calls take
/// (`None`: drawn from the service's distribution).
#[derive(Debug, Clone, PartialEq)]
pub struct TraceRow {
    pub at: Nanos,
    /// Indexed by [`ServiceId`].
    pub latencies: Vec<Option<Nanos>>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ramp {
    pub to: f64,
    pub over: Nanos,
}

/// Tomcat's `acceptCount` when none (or one of 0 or less, which it ignores) is set.
pub const TOMCAT_ACCEPT_COUNT: u32 = 100;

/// The web server's request pool (Tomcat's connector).
#[derive(Debug, Clone, PartialEq)]
pub struct Server {
    pub threads: ServerThreads,
    /// `minSpareThreads`: prestarted, never culled.
    pub min_spare: u32,
    pub max_connections: u32,
    /// `acceptCount`, the listen backlog. Tomcat takes only a positive value
    /// (`AbstractEndpoint.setAcceptCount`), so 0 or less leaves its default, 100.
    pub accept_count: u32,
    /// The `accept_count` the preset gave when Tomcat ignores it (0 or less).
    pub accept_count_ignored: Option<i64>,
    /// `maxQueueSize`; `None` is unbounded.
    pub max_queue: Option<u32>,
    /// `threadsMaxIdleTime`: threads above `min_spare` die after this long idle.
    pub keep_alive: Nanos,
    /// The handler returns a `CompletableFuture` and its thread is released while it waits.
    pub async_: bool,
    pub connector: Connector,
    /// A request that waited longer than this in the executor's queue is answered 503 when
    /// a thread takes it, without running the endpoint.
    pub queue_timeout: Option<Nanos>,
    /// Adaptive LIFO: while more than this many requests wait in the executor's queue, a
    /// free thread takes the newest (`None`: always the oldest, Tomcat's FIFO).
    pub adaptive_lifo: Option<u32>,
    /// A rate limiter on the endpoint: a request it refuses is answered 429 unserved.
    pub rate_limit: Option<super::RateLimiterConfig>,
}

/// Tomcat's NIO connector: keep-alive connections and what requests cost its CPU.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Connector {
    /// `maxKeepAliveRequests`: `None` is unlimited.
    pub max_keep_alive_requests: Option<u32>,
    /// `keepAliveTimeout`: an idle kept-alive connection is closed after it.
    pub keep_alive_timeout: Nanos,
    /// CPU per request besides its calls (parse, write, recycle), on the cores.
    pub cpu_per_request: Nanos,
    /// Mean time from writing a response to reading the socket again (`Http11Processor`'s
    /// loop): a next request that arrived by then is served by the same thread at once.
    pub post_response: Nanos,
    /// CPU a connection closed by a full `maxQueueSize` costs (accept, poll, close).
    pub cpu_per_rejected_connection: Nanos,
    /// CPU a failed request costs besides `cpu_per_request`: the exception reaches the
    /// container, which logs its stack trace and renders the error page (a 500).
    pub cpu_per_error: Nanos,
    /// The Acceptor thread's time per connection (`Acceptor.run`: `countUpOrAwaitConnection`,
    /// `serverSocketAccept`, then `NioEndpoint.setSocketOptions`: socket options, a
    /// `NioChannel` from the cache, registration with the Poller). One thread: connections
    /// are taken one at a time, and a burst faster than it fills the accept queue. Its own
    /// thread's time, counted on the cores only with `[jvm.connector_threads]`.
    pub accept_cost: Nanos,
    /// How long a handler thread takes, after its last read of the connection, to wait for
    /// work again (registering the socket with the Poller, recycling the processor,
    /// `afterExecute`). Meanwhile `TaskQueue.offer` counts it as busy, so a request arriving
    /// then starts a new thread below `maxThreads`.
    pub return_to_pool: Nanos,
}

impl Default for Connector {
    fn default() -> Self {
        Connector {
            max_keep_alive_requests: Some(100),
            keep_alive_timeout: Nanos::from_secs(60),
            cpu_per_request: Nanos::from_micros(30),
            post_response: Nanos::from_micros(100),
            cpu_per_rejected_connection: Nanos::from_micros(250),
            cpu_per_error: Nanos::from_micros(350),
            accept_cost: Nanos::ZERO,
            return_to_pool: Nanos::from_micros(15),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerThreads {
    /// `maxThreads` platform threads.
    Platform(u32),
    /// A new virtual thread per request, no cap.
    Virtual,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    Sequential,
    Shared,
    Bulkhead,
    Unbounded,
    /// resilience4j's `SemaphoreBulkhead`: each call runs on the caller's thread once it has
    /// one of its service's permits.
    Semaphore,
}

impl Strategy {
    pub const ALL: [Strategy; 5] = [
        Strategy::Sequential,
        Strategy::Shared,
        Strategy::Bulkhead,
        Strategy::Unbounded,
        Strategy::Semaphore,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Sequential => "sequential",
            Strategy::Shared => "shared",
            Strategy::Bulkhead => "bulkhead",
            Strategy::Unbounded => "unbounded",
            Strategy::Semaphore => "semaphore",
        }
    }

    /// The strategy called `name` ([`Strategy::name`]).
    pub fn from_name(name: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The handler makes the endpoint's calls itself, one after another (no executor), and
    /// the request fails at the first call that fails without fallback.
    pub fn calls_inline(self) -> bool {
        matches!(self, Strategy::Sequential | Strategy::Semaphore)
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The `[strategy]` table.
#[derive(Debug, Clone, PartialEq)]
pub struct StrategyConfig {
    /// The strategy `run` uses unless told otherwise.
    pub default: Strategy,
    /// `[strategy.shared] threads`: the common pool's parallelism when set.
    pub shared_threads: Option<u32>,
    /// Bulkhead pools. After validation every service the endpoint calls belongs to exactly
    /// one pool (services the preset left out get a default pool of their own).
    pub bulkheads: Vec<BulkheadPool>,
    /// What `unbounded` starts per call: a virtual thread, or a new platform thread.
    pub unbounded_threads: UnboundedThreads,
    /// `[strategy.semaphore]`: the permits of each service's semaphore bulkhead.
    pub semaphore: SemaphoreConfig,
}

/// resilience4j's `BulkheadConfig` for a `SemaphoreBulkhead`, one per service (an instance
/// per backend, as resilience4j is usually configured).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SemaphoreConfig {
    /// `maxConcurrentCalls`: calls of one service running at once.
    pub permits: u32,
    /// `maxWaitDuration`: how long a caller waits for a permit before
    /// `BulkheadFullException`; zero fails at once.
    pub max_wait: Nanos,
}

impl Default for SemaphoreConfig {
    /// resilience4j's defaults: 25 concurrent calls, no wait.
    fn default() -> Self {
        SemaphoreConfig {
            permits: 25,
            max_wait: Nanos::ZERO,
        }
    }
}

/// The thread `unbounded` starts for every call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnboundedThreads {
    /// `Executors.newVirtualThreadPerTaskExecutor()`.
    #[default]
    Virtual,
    /// `new Thread(task).start()`: a platform thread per call, paying `spawn_cost`.
    Platform,
}

/// A ThreadPoolExecutor dedicated to some services.
#[derive(Debug, Clone, PartialEq)]
pub struct BulkheadPool {
    /// Also the thread name prefix: threads are `name-1`, `name-2`, ...
    pub name: String,
    pub services: Vec<ServiceId>,
    pub core: u32,
    pub max: u32,
    /// 0 is a hand-off (SynchronousQueue).
    pub queue: u32,
    pub rejection: RejectionPolicy,
    pub keep_alive: Nanos,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RejectionPolicy {
    /// `AbortPolicy`: `supplyAsync` throws on the submitting thread.
    Abort,
    /// `CallerRunsPolicy`: the submitting thread runs the call itself.
    CallerRuns,
    /// `DiscardPolicy`: the call is dropped; its future never completes.
    Discard,
    /// `DiscardOldestPolicy`: the head of the queue is dropped and submission retried.
    DiscardOldest,
    /// `AbortPolicy` with the caller catching `RejectedExecutionException` around
    /// `supplyAsync` and completing the call with the service's fallback.
    Fallback,
}

impl RejectionPolicy {
    pub const ALL: [RejectionPolicy; 5] = [
        RejectionPolicy::Abort,
        RejectionPolicy::CallerRuns,
        RejectionPolicy::Discard,
        RejectionPolicy::DiscardOldest,
        RejectionPolicy::Fallback,
    ];

    /// Whether the policy needs a queue of at least one: discard-oldest drops its head (with a
    /// `SynchronousQueue` it would re-execute the task, rejected again, until
    /// `StackOverflowError`).
    pub fn needs_queue(self) -> bool {
        self == RejectionPolicy::DiscardOldest
    }

    pub fn name(self) -> &'static str {
        match self {
            RejectionPolicy::Abort => "abort",
            RejectionPolicy::CallerRuns => "caller-runs",
            RejectionPolicy::Discard => "discard",
            RejectionPolicy::DiscardOldest => "discard-oldest",
            RejectionPolicy::Fallback => "fallback",
        }
    }
}

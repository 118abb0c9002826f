//! The preset file as written: serde structs that mirror the README's "The preset format"
//! field for field. Every table denies unknown fields so a typo (`max_thread = 20`) is an
//! error, not a silent default.
//! Integers are `i64` and choices are strings so that range and spelling are checked in
//! [`super::validate`], which can name the field, the value and what is allowed.

use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// A whole preset file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPreset {
    pub scenario: RawScenario,
    pub load: RawLoad,
    #[serde(default)]
    pub server: RawServer,
    pub services: Vec<RawService>,
    pub endpoint: RawEndpoint,
    #[serde(default)]
    pub strategy: RawStrategy,
    #[serde(default)]
    pub resources: Vec<RawResource>,
    #[serde(default)]
    pub figures: Vec<RawFigure>,
    #[serde(default)]
    pub tour: Vec<RawTourStep>,
    #[serde(default)]
    pub faults: Vec<RawFault>,
    /// `[jvm]`: the JVM's own costs (warm-up, garbage collection); none when absent.
    #[serde(default)]
    pub jvm: Option<RawJvm>,
}

/// `[[tour]]`: at a simulated time, press keys and show a caption.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTourStep {
    pub at: DurationText,
    #[serde(default)]
    pub keys: String,
    pub caption: String,
    /// The panel the caption talks about, which it must not cover.
    #[serde(default)]
    pub panel: Option<String>,
    /// What must be true on screen when the caption shows (`"requests.timeout > 0"`).
    #[serde(default)]
    pub expect: Vec<String>,
}

/// `[[resources]]`: a connection pool like HikariCP.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawResource {
    pub name: String,
    /// `maximumPoolSize`; HikariCP's default is 10.
    #[serde(default = "ten")]
    pub size: i64,
    /// `connectionTimeout`; HikariCP's default is 30 s.
    #[serde(default = "thirty_seconds")]
    pub timeout: DurationText,
}

/// `[[figures]]`: a published figure and where threadlab reads it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFigure {
    pub what: String,
    pub article: String,
    pub strategy: String,
    pub metric: String,
    pub expect: f64,
    #[serde(default = "two_percent")]
    pub tolerance: f64,
    #[serde(default)]
    pub set: Vec<String>,
    pub duration: Option<DurationText>,
}

/// `[[faults]]`: `service`, `at`, optional `until`, and one of `fail`, `hang`, `slow`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFault {
    pub service: String,
    pub at: DurationText,
    pub until: Option<DurationText>,
    /// Calls fail with this probability.
    pub fail: Option<f64>,
    /// Every call hangs this long.
    pub hang: Option<DurationText>,
    /// Every call takes this many times its latency.
    pub slow: Option<f64>,
}

/// `[scenario]`
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    pub name: String,
    #[serde(default)]
    pub about: String,
    #[serde(default = "one")]
    pub seed: i64,
    #[serde(default = "sixty_seconds")]
    pub duration: DurationText,
    #[serde(default = "eight")]
    pub cores: i64,
    #[serde(default = "jdk_21")]
    pub jdk: i64,
    #[serde(default = "zero_ms")]
    pub spawn_cost: DurationText,
    /// How the cores are shared: `"time-sliced"` (Linux's scheduler) or
    /// `"run-to-completion"` (each burst in turn, FIFO).
    #[serde(default = "time_sliced")]
    pub cpu_scheduling: String,
    /// The time slice; by default the kernel's `sched_base_slice` for `cores`.
    pub slice: Option<DurationText>,
    /// The CPU a context switch costs.
    #[serde(default = "context_switch")]
    pub context_switch: DurationText,
}

/// `[load]`. Fields of other modes are ignored, so `--set load.mode=open` can switch a preset
/// without having to remove its `count`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLoad {
    pub mode: String,
    pub count: Option<i64>,
    pub rate: Option<f64>,
    pub ramp: Option<RawRamp>,
    pub clients: Option<i64>,
    #[serde(default = "zero_ms")]
    pub think: DurationText,
    pub timeout: Option<DurationText>,
    /// `trace`: a CSV file, relative to the preset's folder.
    pub file: Option<String>,
    /// What a client does at its timeout: `"abort"` (close the connection, count a timeout,
    /// send the next request) or `"count"` (wrk: keep waiting, leave the late response out
    /// of the latency figures and count it as a timeout).
    #[serde(default = "abort")]
    pub timeout_mode: String,
    /// Closed clients keep their connection between requests (HTTP/1.1 keep-alive), as wrk,
    /// browsers and pooled HTTP clients do; `false` opens one per request.
    #[serde(default = "yes")]
    pub keep_alive: bool,
    /// The client's round trip to the server; one way is half of it.
    #[serde(default = "forty_us")]
    pub rtt: DurationText,
    /// Who the client is (`wrk`, `blocking`): its measured turnaround.
    pub client: Option<String>,
    /// The client's mean time from reading a response to sending its next request, when no
    /// `client` names it.
    pub turnaround: Option<DurationText>,
    /// Time between the starts of clients that begin together; none: the `client` kind's.
    pub connect_spacing: Option<DurationText>,
    /// The client's own connect timeout; none leaves it to the kernel's SYN retries.
    pub connect_timeout: Option<DurationText>,
    /// The client kernel's `net.ipv4.tcp_syn_retries`.
    #[serde(default = "six")]
    pub syn_retries: i64,
    /// The client kernel's `net.ipv4.tcp_syn_linear_timeouts` (Linux 6.5+; 0 before).
    #[serde(default = "four")]
    pub syn_linear_timeouts: i64,
    /// `[[load.phases]]`: the load changes at these times.
    #[serde(default)]
    pub phases: Vec<RawPhase>,
    /// `[load.retry]`: the client sends a failed request again.
    pub retry: Option<RawRetry>,
    /// `[load.breaker]`: the client's own circuit breaker, which stops it sending.
    pub breaker: Option<RawBreaker>,
}

/// `[load.retry]` and `[services.retry]`, with resilience4j `Retry`'s defaults (3 attempts,
/// 500 ms apart).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRetry {
    #[serde(default = "three")]
    pub attempts: i64,
    #[serde(default = "half_second")]
    pub backoff: DurationText,
    #[serde(default = "unit")]
    pub multiplier: f64,
    /// `"none"` or `"full"`.
    #[serde(default = "none")]
    pub jitter: String,
    /// resilience4j's `randomizationFactor` (0..1), instead of `jitter`.
    pub randomization: Option<f64>,
    pub max_backoff: Option<DurationText>,
    /// Retries as a share of first attempts.
    pub budget: Option<f64>,
    /// How long a deposit in the budget counts (Finagle's `ttl`).
    pub budget_window: Option<DurationText>,
    /// Which outcomes are retried: `"timeout"`, `"failure"`, `"refused"`, `"not_permitted"`.
    #[serde(default = "every_outcome")]
    pub on: Vec<String>,
}

/// `[[load.phases]]`: `at = "30s"` and `rate = 180.0` (open) or `clients = 100` (closed).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPhase {
    pub at: DurationText,
    pub rate: Option<f64>,
    pub clients: Option<i64>,
}

/// `ramp = { to = 3000.0, over = "60s" }`
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRamp {
    pub to: f64,
    pub over: DurationText,
}

/// `[server]`: Tomcat's connector and executor.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawServer {
    pub threads: RawThreads,
    pub min_spare: i64,
    pub max_connections: i64,
    pub accept_count: i64,
    pub max_queue: Option<i64>,
    pub keep_alive: DurationText,
    #[serde(rename = "async")]
    pub async_: bool,
    /// `maxKeepAliveRequests`: requests per connection before Tomcat closes it; -1 unlimited.
    pub max_keep_alive_requests: i64,
    /// `keepAliveTimeout`: an idle kept-alive connection is closed after this long.
    pub keep_alive_timeout: DurationText,
    /// CPU a request costs the server besides its calls (parse, write, recycle).
    pub cpu_per_request: DurationText,
    /// The handler thread's mean time from writing a response to reading the socket again:
    /// a next request that arrived by then is served at once (the keep-alive fast path).
    pub post_response: DurationText,
    /// CPU a connection closed by a full `maxQueueSize` costs (accept, poll, close).
    pub cpu_per_rejected_connection: DurationText,
    /// CPU a failed request costs besides `cpu_per_request` (stack trace logged, error page).
    pub cpu_per_error: DurationText,
    /// The Acceptor thread's time per connection: latch, `accept()`, socket options and
    /// registration with the Poller.
    pub accept_cost: DurationText,
    /// A handler thread's time from its last read of the connection to waiting for work
    /// again; a request arriving meanwhile finds no idle thread.
    pub return_to_pool: DurationText,
    /// A request that waited longer than this in the executor's queue is answered 503 at
    /// once instead of being served (shedding the work of clients that already left).
    pub queue_timeout: Option<DurationText>,
    /// Adaptive LIFO: while more than this many requests wait in the executor's queue, a
    /// free thread takes the newest.
    pub adaptive_lifo: Option<i64>,
    /// `[server.rate_limit]`: resilience4j's `RateLimiter` on the endpoint (at the door).
    pub rate_limit: Option<RawRateLimit>,
}

/// Tomcat's defaults: maxThreads 200, minSpareThreads 10, maxConnections 8192, acceptCount
/// 100, maxIdleTime 60 s, maxKeepAliveRequests 100, keepAliveTimeout = connectionTimeout
/// 60 s (`AbstractEndpoint`); the CPU costs are a loopback client's on a 2-core box.
impl Default for RawServer {
    fn default() -> Self {
        RawServer {
            threads: RawThreads::Count(200),
            min_spare: 10,
            max_connections: 8192,
            accept_count: i64::from(super::model::TOMCAT_ACCEPT_COUNT),
            max_queue: None,
            keep_alive: sixty_seconds(),
            async_: false,
            max_keep_alive_requests: 100,
            keep_alive_timeout: sixty_seconds(),
            cpu_per_request: DurationText::new("30us"),
            post_response: DurationText::new("100us"),
            cpu_per_rejected_connection: DurationText::new("250us"),
            cpu_per_error: DurationText::new("350us"),
            accept_cost: DurationText::new("0s"),
            return_to_pool: DurationText::new("15us"),
            queue_timeout: None,
            adaptive_lifo: None,
            rate_limit: None,
        }
    }
}

/// `threads = 200` or `threads = "virtual"`.
#[derive(Debug, Clone, PartialEq)]
pub enum RawThreads {
    Count(i64),
    Named(String),
}

/// `[[services]]`
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawService {
    pub name: String,
    pub latency: RawLatency,
    #[serde(default)]
    pub failure: f64,
    pub fallback: Option<String>,
    pub timeout: Option<DurationText>,
    pub hang: Option<RawHang>,
    pub cpu: Option<DurationText>,
    pub uses: Option<String>,
    #[serde(default)]
    pub pinned: bool,
    /// `[services.breaker]`: resilience4j's `CircuitBreaker` around its calls.
    pub breaker: Option<RawBreaker>,
    /// `[services.rate_limit]`: resilience4j's `RateLimiter` in front of its calls.
    pub rate_limit: Option<RawRateLimit>,
    /// `[services.retry]`: resilience4j's `Retry` around each of its calls.
    pub retry: Option<RawRetry>,
    /// `[services.adaptive_limit]`: Netflix concurrency-limits' adaptive limit in front of
    /// its calls.
    pub adaptive_limit: Option<RawAdaptiveLimit>,
}

/// `[services.adaptive_limit]`, with the library's defaults (its builders').
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawAdaptiveLimit {
    /// `"aimd"` (`AIMDLimit`) or `"gradient2"` (`Gradient2Limit`).
    pub algorithm: String,
    pub initial: i64,
    pub min: i64,
    pub max: i64,
    /// AIMD: the cut on a drop (`backoffRatio`), and the RTT that counts as one (`timeout`).
    pub backoff_ratio: f64,
    pub timeout: DurationText,
    /// Gradient2: `smoothing`, `rttTolerance`, `longWindow` (samples), `queueSize`.
    pub smoothing: f64,
    pub tolerance: f64,
    pub long_window: i64,
    pub queue_size: i64,
}

impl Default for RawAdaptiveLimit {
    fn default() -> Self {
        RawAdaptiveLimit {
            algorithm: "gradient2".to_owned(),
            initial: 20,
            min: 20,
            max: 200,
            backoff_ratio: 0.9,
            timeout: five_seconds(),
            smoothing: 0.2,
            tolerance: 1.5,
            long_window: 600,
            queue_size: 4,
        }
    }
}

/// `[services.breaker]`, with resilience4j's defaults (`CircuitBreakerConfig.ofDefaults()`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawBreaker {
    /// `"count"` or `"time"` (`slidingWindowType`).
    pub window_type: String,
    /// Calls, or seconds (`slidingWindowSize`).
    pub window_size: i64,
    /// Percent (`failureRateThreshold`).
    pub failure_rate: f64,
    /// Percent (`slowCallRateThreshold`).
    pub slow_call_rate: f64,
    pub slow_call_duration: DurationText,
    pub minimum_calls: i64,
    pub wait_in_open: DurationText,
    pub permitted_in_half_open: i64,
    pub max_wait_in_half_open: Option<DurationText>,
    pub automatic_transition: bool,
}

impl Default for RawBreaker {
    fn default() -> Self {
        RawBreaker {
            window_type: "count".to_owned(),
            window_size: 100,
            failure_rate: 50.0,
            slow_call_rate: 100.0,
            slow_call_duration: sixty_seconds(),
            minimum_calls: 100,
            wait_in_open: sixty_seconds(),
            permitted_in_half_open: 10,
            max_wait_in_half_open: None,
            automatic_transition: false,
        }
    }
}

/// `[services.rate_limit]`, with resilience4j's defaults except the refresh period (its
/// 500 ns default would be 2 million cycles a second; 1 s is the usual setting).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRateLimit {
    /// Permits per period (`limitForPeriod`).
    pub limit: i64,
    #[serde(default = "one_second")]
    pub period: DurationText,
    /// The longest a caller waits for a permit (`timeoutDuration`).
    #[serde(default = "five_seconds")]
    pub timeout: DurationText,
}

/// `hang = { probability = 0.1, duration = "30s" }`
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHang {
    pub probability: f64,
    pub duration: DurationText,
}

/// `latency = "200ms"` or an inline table with a `dist` tag.
#[derive(Debug, Clone, PartialEq)]
pub enum RawLatency {
    Fixed(DurationText),
    Dist(RawDist),
}

/// `{ dist = "uniform", min = "100ms", max = "300ms" }` and the other distributions.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "dist", rename_all = "lowercase", deny_unknown_fields)]
pub enum RawDist {
    Uniform {
        min: DurationText,
        max: DurationText,
    },
    Exponential {
        mean: DurationText,
    },
    Normal {
        mean: DurationText,
        sd: DurationText,
    },
    LogNormal {
        p50: DurationText,
        p99: DurationText,
    },
    Empirical {
        values: Vec<DurationText>,
    },
    /// A measured distribution as its quantile table: `values[i]` at `percentiles[i]`, drawn
    /// by linear interpolation between neighbouring rows.
    Quantiles {
        percentiles: Vec<f64>,
        values: Vec<DurationText>,
    },
}

/// `[endpoint]`: exactly one of `calls` (one stage) and `stages`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEndpoint {
    pub calls: Option<Vec<String>>,
    pub stages: Option<Vec<Vec<String>>>,
    /// Each listed call is made this many times in its stage.
    pub fan_out: Option<i64>,
}

/// `[strategy]`
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStrategy {
    #[serde(rename = "use", default = "bulkhead")]
    pub use_: String,
    pub shared: Option<RawShared>,
    #[serde(default)]
    pub bulkhead: Vec<RawBulkhead>,
    pub unbounded: Option<RawUnbounded>,
    pub semaphore: Option<RawSemaphore>,
}

/// `[strategy.semaphore]`: resilience4j's `SemaphoreBulkhead`, one per service.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSemaphore {
    /// `maxConcurrentCalls` (resilience4j's default 25).
    #[serde(default = "twenty_five")]
    pub permits: i64,
    /// `maxWaitDuration` (resilience4j's default 0).
    #[serde(default = "zero_duration")]
    pub max_wait: DurationText,
}

impl Default for RawStrategy {
    fn default() -> Self {
        RawStrategy {
            use_: bulkhead(),
            shared: None,
            bulkhead: Vec::new(),
            unbounded: None,
            semaphore: None,
        }
    }
}

/// `[strategy.unbounded]`
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawUnbounded {
    /// "virtual" (default) or "platform".
    pub threads: String,
}

/// `[strategy.shared]`
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawShared {
    pub threads: Option<i64>,
}

/// `[[strategy.bulkhead]]`: one ThreadPoolExecutor.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBulkhead {
    pub name: String,
    pub services: Vec<String>,
    #[serde(default = "ten")]
    pub core: i64,
    /// Defaults to `core`: a fixed-size pool like `Executors.newFixedThreadPool`.
    pub max: Option<i64>,
    #[serde(default = "hundred")]
    pub queue: i64,
    #[serde(default = "abort")]
    pub rejection: String,
    #[serde(default = "sixty_seconds")]
    pub keep_alive: DurationText,
}

/// A duration string, parsed in validation so its errors name the field and the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DurationText(pub String);

impl DurationText {
    pub fn new(text: &str) -> Self {
        DurationText(text.to_owned())
    }
}

impl<'de> Deserialize<'de> for DurationText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DurationVisitor;
        impl Visitor<'_> for DurationVisitor {
            type Value = DurationText;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a duration string with a unit, like \"250ms\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DurationText, E> {
                Ok(DurationText::new(v))
            }
        }
        deserializer.deserialize_str(DurationVisitor)
    }
}

impl<'de> Deserialize<'de> for RawThreads {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ThreadsVisitor;
        impl Visitor<'_> for ThreadsVisitor {
            type Value = RawThreads;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a thread count or \"virtual\"")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawThreads, E> {
                Ok(RawThreads::Count(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawThreads, E> {
                Ok(RawThreads::Count(i64::try_from(v).unwrap_or(i64::MAX)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawThreads, E> {
                Ok(RawThreads::Named(v.to_owned()))
            }
        }
        deserializer.deserialize_any(ThreadsVisitor)
    }
}

impl<'de> Deserialize<'de> for RawLatency {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct LatencyVisitor;
        impl<'de> Visitor<'de> for LatencyVisitor {
            type Value = RawLatency;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a duration string like \"200ms\" or a table like { dist = \"uniform\", min = \"100ms\", max = \"300ms\" }")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawLatency, E> {
                Ok(RawLatency::Fixed(DurationText::new(v)))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawLatency, A::Error> {
                RawDist::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(RawLatency::Dist)
            }
        }
        deserializer.deserialize_any(LatencyVisitor)
    }
}

fn one() -> i64 {
    1
}
fn eight() -> i64 {
    8
}
fn ten() -> i64 {
    10
}
fn twenty_five() -> i64 {
    25
}
fn zero_duration() -> DurationText {
    DurationText::new("0ms")
}
fn hundred() -> i64 {
    100
}
fn jdk_21() -> i64 {
    21
}
fn sixty_seconds() -> DurationText {
    DurationText::new("60s")
}
fn thirty_seconds() -> DurationText {
    DurationText::new("30s")
}
fn two_percent() -> f64 {
    0.02
}
fn time_sliced() -> String {
    "time-sliced".to_owned()
}

fn context_switch() -> DurationText {
    DurationText::new("2us")
}

fn zero_ms() -> DurationText {
    DurationText::new("0ms")
}
fn forty_us() -> DurationText {
    DurationText::new("40us")
}
fn yes() -> bool {
    true
}
fn six() -> i64 {
    6
}
fn four() -> i64 {
    4
}
fn bulkhead() -> String {
    "bulkhead".to_owned()
}
fn one_second() -> DurationText {
    DurationText::new("1s")
}
fn five_seconds() -> DurationText {
    DurationText::new("5s")
}
fn three() -> i64 {
    3
}
fn half_second() -> DurationText {
    DurationText::new("500ms")
}
fn unit() -> f64 {
    1.0
}
fn none() -> String {
    "none".to_owned()
}
fn every_outcome() -> Vec<String> {
    ["timeout", "failure", "refused", "not_permitted"]
        .map(str::to_owned)
        .to_vec()
}
fn abort() -> String {
    "abort".to_owned()
}

/// `[jvm]` as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawJvm {
    pub warmup: Option<RawWarmup>,
    pub gc: Option<RawGc>,
    pub errors: Option<RawErrors>,
    pub connector_threads: Option<RawConnectorThreads>,
}

/// `[jvm.connector_threads]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawConnectorThreads {
    pub poll_cost: DurationText,
    pub register_cost: DurationText,
}

impl Default for RawConnectorThreads {
    fn default() -> Self {
        RawConnectorThreads {
            poll_cost: DurationText::new("15us"),
            register_cost: DurationText::new("45us"),
        }
    }
}

/// `[jvm.errors]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawErrors {
    pub logged_rejection: DurationText,
}

impl Default for RawErrors {
    fn default() -> Self {
        RawErrors {
            logged_rejection: DurationText::new("98us"),
        }
    }
}

/// `[jvm.warmup]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawWarmup {
    pub first: f64,
    pub tail: f64,
    pub tail_requests: f64,
    pub thread_start: DurationText,
}

impl Default for RawWarmup {
    fn default() -> Self {
        RawWarmup {
            first: 3.84,
            tail: 0.15,
            tail_requests: 30.0,
            thread_start: DurationText::new("700us"),
        }
    }
}

/// `[jvm.gc]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawGc {
    pub collector: String,
    pub heap: String,
    pub young_gen: Option<String>,
    pub alloc_per_request: String,
    pub alloc_per_call: String,
    pub survival: f64,
}

impl Default for RawGc {
    fn default() -> Self {
        RawGc {
            collector: "g1".to_owned(),
            heap: "512MiB".to_owned(),
            young_gen: None,
            alloc_per_request: "256KiB".to_owned(),
            alloc_per_call: "0B".to_owned(),
            survival: 0.016,
        }
    }
}

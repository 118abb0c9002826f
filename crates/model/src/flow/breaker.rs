//! A service's circuit breaker, decided once for both engines: resilience4j's
//! `CircuitBreakerStateMachine` with its `CircuitBreakerMetrics` over a
//! `FixedSizeSlidingWindowMetrics` (count window) or a `SlidingTimeWindowMetrics` (time window).
//!
//! CLOSED permits every call and records each result; once the window holds the minimum number
//! of calls, a failure rate or a slow-call rate at or above its threshold (`>=`) opens it. OPEN
//! refuses calls (`CallNotPermittedException`) until its wait is over; the first call after it
//! moves it to HALF_OPEN (or a timer does, with `automaticTransitionFromOpenToHalfOpenEnabled`).
//! HALF_OPEN permits exactly `permittedNumberOfCallsInHalfOpenState` calls and judges their
//! results in a window of its own: at or above a threshold it opens again, below both it closes.
//!
//! Only the parts the model needs: no DISABLED, METRICS_ONLY or FORCED_OPEN state, every failure
//! is recorded (no ignore or record predicates), and the wait in OPEN is constant.

use std::any::Any;
use std::collections::VecDeque;

use crate::scenario::{BreakerConfig, BreakerWindow, Scenario, ServiceId};
use crate::time::Nanos;

use super::CallResult;
use super::call_guard::{Admit, CallGuard, GuardAsk, GuardRefusal, GuardRow, Heard, RetriedAs};

/// `CircuitBreaker.State`, the three the model uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakerState {
    Closed,
    Open,
    HalfOpen,
}

impl BreakerState {
    /// Its name in reports and on screen: `closed`, `open`, `half-open`.
    pub fn name(self) -> &'static str {
        match self {
            BreakerState::Closed => "closed",
            BreakerState::Open => "open",
            BreakerState::HalfOpen => "half-open",
        }
    }
}

/// What `tryAcquirePermission` answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakerAcquire {
    /// The call runs; its result must be given to [`CircuitBreaker::on_result`].
    Permitted,
    /// `CallNotPermittedException`: the call does not run.
    NotPermitted,
}

/// One service's circuit breaker.
#[derive(Debug, Clone)]
pub struct CircuitBreaker {
    config: BreakerConfig,
    phase: BreakerPhase,
    /// The window of the current state. OPEN keeps the window of the state it came from (as
    /// `transitionToOpenState` hands over `getMetrics()`), so the rates stay readable.
    window: CallWindow,
    opened: u64,
    not_permitted: u64,
    transitions: Vec<(Nanos, BreakerState, BreakerState)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BreakerPhase {
    Closed,
    /// Calls are refused until `until` is past.
    Open {
        until: Nanos,
    },
    /// `permits` calls may still start; with a maximum wait, it opens again at `deadline`.
    HalfOpen {
        permits: u32,
        deadline: Option<Nanos>,
    },
}

impl CircuitBreaker {
    /// A closed breaker created at `now`. A window, a count of permitted half-open calls or a
    /// minimum of 0 (which resilience4j's builder rejects) is taken as 1.
    pub fn new(config: BreakerConfig, now: Nanos) -> Self {
        let config = BreakerConfig {
            window: match config.window {
                BreakerWindow::Count(n) => BreakerWindow::Count(n.max(1)),
                BreakerWindow::Time(s) => BreakerWindow::Time(s.max(1)),
            },
            minimum_calls: config.minimum_calls.max(1),
            permitted_in_half_open: config.permitted_in_half_open.max(1),
            ..config
        };
        CircuitBreaker {
            window: CallWindow::for_closed(&config, now),
            config,
            phase: BreakerPhase::Closed,
            opened: 0,
            not_permitted: 0,
            transitions: Vec::new(),
        }
    }

    /// `tryAcquirePermission` at `now`. OPEN moves to HALF_OPEN on the first call strictly
    /// after its wait (`clock.instant().isAfter(retryAfterWaitDuration)`), and that call takes
    /// the first half-open permit.
    pub fn try_acquire(&mut self, now: Nanos) -> BreakerAcquire {
        self.poll(now);
        if let BreakerPhase::Open { until } = self.phase
            && now > until
        {
            self.half_open_at(now);
        }
        match &mut self.phase {
            BreakerPhase::Closed => BreakerAcquire::Permitted,
            BreakerPhase::HalfOpen { permits, .. } if *permits > 0 => {
                *permits -= 1;
                BreakerAcquire::Permitted
            }
            BreakerPhase::Open { .. } | BreakerPhase::HalfOpen { .. } => {
                self.not_permitted += 1;
                BreakerAcquire::NotPermitted
            }
        }
    }

    /// A permitted call ended at `now` after `duration`, failed or not (`onError` /
    /// `onSuccess`). It is recorded in the current state's window whatever state permitted it;
    /// in OPEN it is recorded but moves nothing (`OpenState.onError` only records, so a call
    /// that started before the breaker opened still counts in the rates shown).
    pub fn on_result(&mut self, now: Nanos, failed: bool, duration: Nanos) {
        self.poll(now);
        let slow = duration > self.config.slow_call_duration;
        self.window.record(now, failed, slow);
        let verdict = self.window.verdict(&self.config);
        match (self.phase, verdict) {
            (BreakerPhase::Closed | BreakerPhase::HalfOpen { .. }, WindowVerdict::Exceeded) => {
                self.open_at(now)
            }
            (BreakerPhase::HalfOpen { .. }, WindowVerdict::Below) => self.close_at(now),
            _ => {}
        }
    }

    /// The timers resilience4j runs on its scheduler, due at or before `now`: with automatic
    /// transition, OPEN moves to HALF_OPEN at the end of its wait; with a maximum wait in
    /// HALF_OPEN, HALF_OPEN moves to OPEN when it is over. A transition is dated at its timer,
    /// not at `now`, so calling this late changes nothing but the moment it is noticed. It also
    /// slides a time window to `now`, so the rates read afterwards are those at `now`.
    ///
    /// [`try_acquire`](Self::try_acquire) and [`on_result`](Self::on_result) call it first;
    /// the engine calls it at [`poll_timeout`](Self::poll_timeout) so the transition shows
    /// while no call comes.
    pub fn poll(&mut self, now: Nanos) {
        while let Some(at) = self.poll_timeout().filter(|at| *at <= now) {
            match self.phase {
                BreakerPhase::Open { .. } => self.half_open_at(at),
                BreakerPhase::HalfOpen { .. } => self.open_at(at),
                BreakerPhase::Closed => break,
            }
        }
        self.window.slide(now);
    }

    /// When [`poll`](Self::poll) has a timer to run: the end of the wait in OPEN with
    /// automatic transition, or the end of the maximum wait in HALF_OPEN.
    pub fn poll_timeout(&self) -> Option<Nanos> {
        match self.phase {
            BreakerPhase::Open { until } if self.config.automatic_transition => Some(until),
            BreakerPhase::HalfOpen { deadline, .. } => deadline,
            _ => None,
        }
    }

    pub fn state(&self) -> BreakerState {
        match self.phase {
            BreakerPhase::Closed => BreakerState::Closed,
            BreakerPhase::Open { .. } => BreakerState::Open,
            BreakerPhase::HalfOpen { .. } => BreakerState::HalfOpen,
        }
    }

    /// `getFailureRate()` of the current state's window, in percent; `None` (resilience4j's
    /// -1) while it holds fewer calls than its minimum. A time window is as of the last
    /// instant given to this breaker.
    pub fn failure_rate(&self) -> Option<f64> {
        self.window.rates().map(|(failure, _)| f64::from(failure))
    }

    /// `getSlowCallRate()`, like [`failure_rate`](Self::failure_rate).
    pub fn slow_call_rate(&self) -> Option<f64> {
        self.window.rates().map(|(_, slow)| f64::from(slow))
    }

    /// Results in the current state's window (`getNumberOfBufferedCalls()`).
    pub fn buffered_calls(&self) -> u32 {
        self.window.total.calls
    }

    /// How many times the breaker opened.
    pub fn opened(&self) -> u64 {
        self.opened
    }

    /// Calls refused since creation (resilience4j's `getNumberOfNotPermittedCalls()` counts
    /// them per state; this never resets).
    pub fn not_permitted(&self) -> u64 {
        self.not_permitted
    }

    /// Every state transition in order: when, from, to.
    pub fn transitions(&self) -> &[(Nanos, BreakerState, BreakerState)] {
        &self.transitions
    }

    fn open_at(&mut self, at: Nanos) {
        self.opened += 1;
        self.transition(
            at,
            BreakerPhase::Open {
                until: at + self.config.wait_in_open,
            },
        );
    }

    fn half_open_at(&mut self, at: Nanos) {
        let n = self.config.permitted_in_half_open;
        self.window = CallWindow::count(n, n.min(self.config.minimum_calls));
        // `HalfOpenState` schedules the move only for a wait of at least 1 ms.
        let deadline = self
            .config
            .max_wait_in_half_open
            .filter(|wait| *wait >= Nanos::from_millis(1))
            .map(|wait| at + wait);
        self.transition(
            at,
            BreakerPhase::HalfOpen {
                permits: n,
                deadline,
            },
        );
    }

    fn close_at(&mut self, at: Nanos) {
        self.window = CallWindow::for_closed(&self.config, at);
        self.transition(at, BreakerPhase::Closed);
    }

    fn transition(&mut self, at: Nanos, phase: BreakerPhase) {
        let from = self.state();
        self.phase = phase;
        self.transitions.push((at, from, self.state()));
    }
}

/// What `CircuitBreakerMetrics.checkIfThresholdsExceeded` found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WindowVerdict {
    BelowMinimumCalls,
    Below,
    Exceeded,
}

/// Calls, failed calls and slow calls (`AbstractAggregation`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Tally {
    calls: u32,
    failed: u32,
    slow: u32,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.calls += other.calls;
        self.failed += other.failed;
        self.slow += other.slow;
    }

    fn remove(&mut self, other: Tally) {
        self.calls -= other.calls;
        self.failed -= other.failed;
        self.slow -= other.slow;
    }
}

#[derive(Debug, Clone)]
struct CallWindow {
    kind: WindowKind,
    /// The sum of the window's entries (`TotalAggregation`).
    total: Tally,
    /// `min(minimumNumberOfCalls, size)` for a count window, the minimum itself for a time
    /// window.
    minimum: u32,
}

#[derive(Debug, Clone)]
enum WindowKind {
    /// The last `size` results, oldest first.
    Count { size: u32, results: VecDeque<Tally> },
    /// One tally per second since the run began, oldest first, for the last `seconds`
    /// seconds (resilience4j buckets by epoch second; a run starts on a second).
    Time {
        seconds: u32,
        buckets: VecDeque<(u64, Tally)>,
    },
}

impl CallWindow {
    fn for_closed(config: &BreakerConfig, now: Nanos) -> Self {
        match config.window {
            BreakerWindow::Count(size) => Self::count(size, config.minimum_calls.min(size)),
            BreakerWindow::Time(seconds) => {
                let mut window = CallWindow {
                    kind: WindowKind::Time {
                        seconds,
                        buckets: VecDeque::new(),
                    },
                    total: Tally::default(),
                    minimum: config.minimum_calls,
                };
                window.slide(now);
                window
            }
        }
    }

    fn count(size: u32, minimum: u32) -> Self {
        CallWindow {
            kind: WindowKind::Count {
                size,
                results: VecDeque::new(),
            },
            total: Tally::default(),
            minimum,
        }
    }

    fn record(&mut self, now: Nanos, failed: bool, slow: bool) {
        let one = Tally {
            calls: 1,
            failed: u32::from(failed),
            slow: u32::from(slow),
        };
        self.slide(now);
        self.total.add(one);
        match &mut self.kind {
            WindowKind::Count { size, results } => {
                results.push_back(one);
                if results.len() > *size as usize
                    && let Some(oldest) = results.pop_front()
                {
                    self.total.remove(oldest);
                }
            }
            WindowKind::Time { buckets, .. } => {
                let second = second_of(now);
                match buckets.back_mut() {
                    Some((s, tally)) if *s == second => tally.add(one),
                    _ => buckets.push_back((second, one)),
                }
            }
        }
    }

    /// Drops the seconds that left a time window at `now`: it keeps
    /// `(now_second - seconds, now_second]`.
    fn slide(&mut self, now: Nanos) {
        if let WindowKind::Time { seconds, buckets } = &mut self.kind {
            let now_second = second_of(now);
            while let Some(&(second, tally)) = buckets.front() {
                if second + u64::from(*seconds) > now_second {
                    break;
                }
                buckets.pop_front();
                self.total.remove(tally);
            }
        }
    }

    /// Failure and slow-call rates in percent, computed in `float` as `SnapshotImpl` does;
    /// `None` below the minimum number of calls.
    fn rates(&self) -> Option<(f32, f32)> {
        let Tally {
            calls,
            failed,
            slow,
        } = self.total;
        if calls == 0 || calls < self.minimum {
            return None;
        }
        // Counts stay far below 2^24, where f32 is exact.
        let rate = |n: u32| n as f32 * 100.0 / calls as f32;
        Some((rate(failed), rate(slow)))
    }

    fn verdict(&self, config: &BreakerConfig) -> WindowVerdict {
        match self.rates() {
            None => WindowVerdict::BelowMinimumCalls,
            Some((failure, slow))
                if failure >= config.failure_rate_threshold as f32
                    || slow >= config.slow_call_rate_threshold as f32 =>
            {
                WindowVerdict::Exceeded
            }
            Some(_) => WindowVerdict::Below,
        }
    }
}

fn second_of(now: Nanos) -> u64 {
    now.as_nanos() / 1_000_000_000
}

/// `CallNotPermittedException`: the breaker is open.
pub static NOT_PERMITTED: GuardRefusal = GuardRefusal {
    guard: "circuit breaker",
    exception: "CallNotPermittedException",
    label: "not permitted (breaker open)",
    retried_as: RetriedAs::NotPermitted,
    counts_rejected: false,
};

/// `service`'s circuit breaker (`[services.breaker]`), if it has one.
pub fn guard(scenario: &Scenario, service: ServiceId) -> Option<Box<dyn CallGuard>> {
    let config = scenario.services.get(service.0)?.breaker?;
    Some(Box::new(CircuitBreaker::new(config, Nanos::ZERO)))
}

/// The outermost guard: it hears every attempt it permitted (a failure unless `Ok`, and how
/// long it took), a later guard's refusal too.
impl CallGuard for CircuitBreaker {
    fn hears(&self) -> bool {
        true
    }

    fn admit(&mut self, ask: GuardAsk) -> Admit {
        match self.try_acquire(ask.now) {
            BreakerAcquire::Permitted => Admit::Go,
            BreakerAcquire::NotPermitted => Admit::Refuse(&NOT_PERMITTED),
        }
    }

    fn hear(&mut self, heard: Heard) {
        let failed = heard.result != CallResult::Ok;
        self.on_result(heard.now, failed, heard.latency);
    }

    fn gave_up(&mut self) -> &'static GuardRefusal {
        &NOT_PERMITTED
    }

    fn polls(&self) -> bool {
        true
    }

    fn next_poll(&self) -> Option<Nanos> {
        self.poll_timeout()
    }

    fn poll(&mut self, now: Nanos) {
        CircuitBreaker::poll(self, now);
    }

    fn row(&self) -> GuardRow {
        let mut figures = vec![("opened", self.opened as f64)];
        figures.extend(self.failure_rate().map(|r| ("failure rate %", r)));
        GuardRow {
            guard: NOT_PERMITTED.guard,
            state: self.state().name().to_string(),
            figures,
            refused: self.not_permitted,
            reported_apart: true,
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use BreakerState::{Closed, HalfOpen, Open};

    const FAST: Nanos = Nanos::from_millis(10);

    fn ms(ms: u64) -> Nanos {
        Nanos::from_millis(ms)
    }

    /// Count window 10, minimum 5, 50 % failures, 1 s open, 3 calls in half-open.
    fn ten_five_half() -> BreakerConfig {
        BreakerConfig {
            window: BreakerWindow::Count(10),
            failure_rate_threshold: 50.0,
            minimum_calls: 5,
            wait_in_open: Nanos::from_secs(1),
            permitted_in_half_open: 3,
            ..BreakerConfig::default()
        }
    }

    /// Runs one permitted call per millisecond from `start`, failing where `fails` says.
    fn calls(b: &mut CircuitBreaker, start: u64, fails: &[bool]) {
        for (i, &failed) in fails.iter().enumerate() {
            let now = ms(start + i as u64);
            assert_eq!(b.try_acquire(now), BreakerAcquire::Permitted, "call {i}");
            b.on_result(now, failed, FAST);
        }
    }

    #[test]
    fn defaults_are_resilience4j_defaults() {
        let c = BreakerConfig::default();
        assert_eq!(c.window, BreakerWindow::Count(100));
        assert_eq!(
            (c.failure_rate_threshold, c.slow_call_rate_threshold),
            (50.0, 100.0)
        );
        assert_eq!(c.slow_call_duration, Nanos::from_secs(60));
        assert_eq!(c.wait_in_open, Nanos::from_secs(60));
        assert_eq!((c.minimum_calls, c.permitted_in_half_open), (100, 10));
        assert_eq!(
            (c.max_wait_in_half_open, c.automatic_transition),
            (None, false)
        );
    }

    #[test]
    fn no_rate_below_the_minimum_calls_even_at_full_failure() {
        let mut b = CircuitBreaker::new(ten_five_half(), Nanos::ZERO);
        calls(&mut b, 0, &[true; 4]);
        assert_eq!(b.state(), Closed);
        assert_eq!(b.failure_rate(), None);
        calls(&mut b, 4, &[false]);
        // The fifth result makes 4 of 5 = 80 %.
        assert_eq!(b.state(), Open);
        assert_eq!(b.transitions(), &[(ms(4), Closed, Open)]);
    }

    #[test]
    fn opens_on_the_result_that_reaches_the_threshold_exactly() {
        let mut b = CircuitBreaker::new(ten_five_half(), Nanos::ZERO);
        calls(&mut b, 0, &[false, false, false, true, true]);
        // 2 of 5 = 40 %.
        assert_eq!(b.failure_rate(), Some(40.0));
        assert_eq!(b.state(), Closed);
        calls(&mut b, 5, &[true]);
        // 3 of 6 = 50 % >= 50 %.
        assert_eq!(b.state(), Open);
        assert_eq!(b.failure_rate(), Some(50.0));
        assert_eq!(b.opened(), 1);
        assert_eq!(b.transitions(), &[(ms(5), Closed, Open)]);
    }

    #[test]
    fn a_count_window_forgets_the_oldest_result() {
        let mut config = ten_five_half();
        config.failure_rate_threshold = 60.0;
        let mut b = CircuitBreaker::new(config, Nanos::ZERO);
        // 2 failures then 8 successes: below 60 % from the fifth result on.
        calls(
            &mut b,
            0,
            &[
                true, true, false, false, false, false, false, false, false, false,
            ],
        );
        assert_eq!(b.failure_rate(), Some(20.0));
        assert_eq!(b.buffered_calls(), 10);
        // An eleventh result pushes out the first failure: 1 of 10.
        calls(&mut b, 10, &[false]);
        assert_eq!((b.buffered_calls(), b.failure_rate()), (10, Some(10.0)));
    }

    #[test]
    fn the_minimum_is_capped_by_a_smaller_count_window() {
        let config = BreakerConfig {
            window: BreakerWindow::Count(4),
            minimum_calls: 100,
            ..ten_five_half()
        };
        let mut b = CircuitBreaker::new(config, Nanos::ZERO);
        calls(&mut b, 0, &[false, false, true]);
        assert_eq!(b.failure_rate(), None);
        calls(&mut b, 3, &[true]);
        // min(100, 4) = 4 calls: 2 of 4 = 50 %.
        assert_eq!(b.state(), Open);
    }

    /// Opens at 5 ms (see above) and is waiting until 1.005 s.
    fn opened_at_5ms() -> CircuitBreaker {
        let mut b = CircuitBreaker::new(ten_five_half(), Nanos::ZERO);
        calls(&mut b, 0, &[false, false, false, true, true, true]);
        assert_eq!(b.state(), Open);
        b
    }

    #[test]
    fn open_refuses_and_counts_until_strictly_after_its_wait() {
        let mut b = opened_at_5ms();
        assert_eq!(b.try_acquire(ms(6)), BreakerAcquire::NotPermitted);
        assert_eq!(b.try_acquire(ms(1004)), BreakerAcquire::NotPermitted);
        // `isAfter`: at the very instant the wait ends, still refused.
        assert_eq!(b.try_acquire(ms(1005)), BreakerAcquire::NotPermitted);
        assert_eq!(b.not_permitted(), 3);
        assert_eq!(b.state(), Open);
        // Without automatic transition nothing moves without a call.
        b.poll(Nanos::from_secs(10));
        assert_eq!(b.state(), Open);
        assert_eq!(b.poll_timeout(), None);
        let t = ms(1005) + Nanos(1);
        assert_eq!(b.try_acquire(t), BreakerAcquire::Permitted);
        assert_eq!(b.state(), HalfOpen);
        assert_eq!(b.transitions()[1], (t, Open, HalfOpen));
        assert_eq!(b.not_permitted(), 3);
    }

    #[test]
    fn a_result_arriving_while_open_is_recorded_but_moves_nothing() {
        let mut b = opened_at_5ms();
        // A call permitted before the breaker opened ends well: 3 of 7.
        b.on_result(ms(8), false, FAST);
        assert_eq!(b.state(), Open);
        assert_eq!(b.buffered_calls(), 7);
        assert!((b.failure_rate().unwrap_or(0.0) - 300.0 / 7.0).abs() < 1e-4);
        // Three more failures: 6 of 10, still open and waiting until 1.005 s as before.
        for t in 9..12 {
            b.on_result(ms(t), true, FAST);
        }
        assert_eq!(b.failure_rate(), Some(60.0));
        assert_eq!(b.opened(), 1);
        assert_eq!(b.try_acquire(ms(1005)), BreakerAcquire::NotPermitted);
    }

    #[test]
    fn half_open_permits_exactly_three_then_closes_after_three_successes() {
        let mut b = opened_at_5ms();
        let t = Nanos::from_secs(2);
        for _ in 0..3 {
            assert_eq!(b.try_acquire(t), BreakerAcquire::Permitted);
        }
        assert_eq!(b.try_acquire(t), BreakerAcquire::NotPermitted);
        assert_eq!(b.not_permitted(), 1);
        assert_eq!(b.failure_rate(), None);
        b.on_result(t + ms(1), false, FAST);
        b.on_result(t + ms(2), false, FAST);
        // min(5, 3) = 3 results are needed.
        assert_eq!(b.state(), HalfOpen);
        b.on_result(t + ms(3), false, FAST);
        assert_eq!(b.state(), Closed);
        // A fresh closed window.
        assert_eq!((b.buffered_calls(), b.failure_rate()), (0, None));
        assert_eq!(
            b.transitions(),
            &[
                (ms(5), Closed, Open),
                (t, Open, HalfOpen),
                (t + ms(3), HalfOpen, Closed)
            ]
        );
    }

    #[test]
    fn half_open_reopens_after_two_of_three_failed() {
        let mut b = opened_at_5ms();
        let t = Nanos::from_secs(2);
        calls(&mut b, 2000, &[true, true]);
        assert_eq!(b.state(), HalfOpen);
        calls(&mut b, 2002, &[false]);
        // 2 of 3 = 66.7 % >= 50 %: open again, for another second from now.
        assert_eq!(b.state(), Open);
        assert_eq!(b.opened(), 2);
        assert_eq!(
            b.transitions()[1..],
            [(t, Open, HalfOpen), (ms(2002), HalfOpen, Open)]
        );
        assert_eq!(b.try_acquire(ms(3002)), BreakerAcquire::NotPermitted);
        assert_eq!(b.try_acquire(ms(3003)), BreakerAcquire::Permitted);
    }

    #[test]
    fn the_slow_call_rate_opens_it_and_slow_means_strictly_longer() {
        let config = BreakerConfig {
            window: BreakerWindow::Count(10),
            failure_rate_threshold: 100.0,
            slow_call_rate_threshold: 50.0,
            slow_call_duration: ms(100),
            minimum_calls: 5,
            ..BreakerConfig::default()
        };
        let mut b = CircuitBreaker::new(config, Nanos::ZERO);
        for (i, took) in [100, 101, 20, 101, 100].into_iter().enumerate() {
            assert_eq!(b.try_acquire(ms(i as u64)), BreakerAcquire::Permitted);
            b.on_result(ms(i as u64), false, ms(took));
        }
        // 2 slow of 5 (100 ms is not slow).
        assert_eq!(b.slow_call_rate(), Some(40.0));
        assert_eq!(b.failure_rate(), Some(0.0));
        assert_eq!(b.state(), Closed);
        b.on_result(ms(5), false, ms(150));
        // 3 of 6 = 50 %.
        assert_eq!(b.state(), Open);
        assert_eq!(b.slow_call_rate(), Some(50.0));
    }

    fn ten_seconds() -> BreakerConfig {
        BreakerConfig {
            window: BreakerWindow::Time(10),
            ..ten_five_half()
        }
    }

    #[test]
    fn a_time_window_keeps_the_last_ten_whole_seconds() {
        // Three failures in second 0; two successes in second 9: 3 of 5 = 60 %.
        let mut inside = CircuitBreaker::new(ten_seconds(), Nanos::ZERO);
        calls(&mut inside, 500, &[true, true, true]);
        calls(&mut inside, 9_990, &[false]);
        assert_eq!(inside.state(), Closed);
        calls(&mut inside, 9_991, &[false]);
        assert_eq!(inside.state(), Open);

        // The same, but the successes come in second 10: second 0 has left the window.
        let mut after = CircuitBreaker::new(ten_seconds(), Nanos::ZERO);
        calls(&mut after, 500, &[true, true, true]);
        calls(&mut after, 10_000, &[false, false]);
        assert_eq!(after.state(), Closed);
        assert_eq!(after.buffered_calls(), 2);
        assert_eq!(after.failure_rate(), None);
    }

    #[test]
    fn a_time_window_slides_when_polled() {
        let mut b = CircuitBreaker::new(ten_seconds(), Nanos::ZERO);
        calls(&mut b, 0, &[false, false]);
        calls(&mut b, 3_000, &[false, true, true]);
        assert_eq!(b.failure_rate(), Some(40.0));
        b.poll(ms(10_999));
        assert_eq!(b.buffered_calls(), 3);
        b.poll(ms(13_000));
        assert_eq!(b.buffered_calls(), 0);
    }

    #[test]
    fn automatic_transition_half_opens_at_the_end_of_the_wait() {
        let config = BreakerConfig {
            automatic_transition: true,
            ..ten_five_half()
        };
        let mut b = CircuitBreaker::new(config, Nanos::ZERO);
        calls(&mut b, 0, &[true; 5]);
        assert_eq!(b.poll_timeout(), Some(ms(1004)));
        b.poll(ms(1003));
        assert_eq!(b.state(), Open);
        // Noticed late, dated at its timer.
        b.poll(ms(1500));
        assert_eq!(b.state(), HalfOpen);
        assert_eq!(b.transitions()[1], (ms(1004), Open, HalfOpen));
        assert_eq!(b.poll_timeout(), None);
    }

    #[test]
    fn max_wait_in_half_open_opens_it_again() {
        let config = BreakerConfig {
            max_wait_in_half_open: Some(Nanos::from_secs(5)),
            ..ten_five_half()
        };
        let mut b = CircuitBreaker::new(config, Nanos::ZERO);
        calls(&mut b, 0, &[true; 5]);
        let t = Nanos::from_secs(2);
        assert_eq!(b.try_acquire(t), BreakerAcquire::Permitted);
        b.on_result(t, false, FAST);
        // One result of three: still waiting for the other two.
        assert_eq!(b.poll_timeout(), Some(Nanos::from_secs(7)));
        b.poll(Nanos::from_secs(7) - Nanos(1));
        assert_eq!(b.state(), HalfOpen);
        assert_eq!(
            b.try_acquire(Nanos::from_secs(7)),
            BreakerAcquire::NotPermitted
        );
        assert_eq!(b.state(), Open);
        assert_eq!(b.opened(), 2);
        assert_eq!(
            b.transitions()[1..],
            [(t, Open, HalfOpen), (Nanos::from_secs(7), HalfOpen, Open)]
        );
        // The new wait runs from 7 s.
        assert_eq!(
            b.try_acquire(Nanos::from_secs(8)),
            BreakerAcquire::NotPermitted
        );
        assert_eq!(
            b.try_acquire(Nanos::from_secs(8) + Nanos(1)),
            BreakerAcquire::Permitted
        );
    }
}

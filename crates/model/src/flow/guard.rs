//! The guards in front of each service's calls, consulted the same way by both engines: each
//! service's list of [`CallGuard`]s, built by `flow::guard_kinds` in decoration order
//! (resilience4j's Spring Boot order, `CircuitBreaker(RateLimiter(TimeLimiter(Bulkhead(call))))`:
//! the breaker, the rate limiter, the adaptive limit, the semaphore bulkhead). An attempt asks
//! them in turn; a refusal is an exception the guards that admitted it before hear as a
//! failure (a breaker records a limiter's `RequestNotPermitted`). Besides the lists: the
//! endpoint's rate limiter at the door and the clients' own breaker.

use crate::scenario::{Scenario, ServiceId, Strategy};
use crate::time::Nanos;

use super::CallResult;
use super::breaker::{BreakerAcquire, BreakerState, CircuitBreaker};
use super::call_guard::{
    Admit, Admitting, CallGuard, GuardAsk, GuardRow, GuardSet, Heard, Made, Passage, Waiter,
};
use super::ratelimit::{RateAcquire, RateLimiter};

/// A breaker as a snapshot shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct BreakerSnapshot {
    pub state: BreakerState,
    /// Percent of the window's calls that failed; `None` below its minimum number of calls.
    pub failure_rate: Option<f64>,
    pub slow_call_rate: Option<f64>,
    /// Times it opened.
    pub opened: u64,
    /// Calls it failed at once.
    pub not_permitted: u64,
    /// Every transition: (when, from, to).
    pub transitions: Vec<(Nanos, BreakerState, BreakerState)>,
}

/// Each service's guards, indexed like the scenario's services, and the endpoint's rate
/// limiter (`[server.rate_limit]`, load shedding at the door).
#[derive(Debug)]
pub struct CallGuards {
    services: Vec<Vec<Box<dyn CallGuard>>>,
    /// What each guard says of itself, once (it never changes), beside `services`.
    facts: Vec<Vec<Facts>>,
    /// Bit `i`: some guard applies to the calls of `Strategy::ALL[i]`.
    applies: u32,
    /// The guards with timed transitions: (service, place).
    polling: Vec<(usize, usize)>,
    door: Option<RateLimiter>,
    /// The clients' own breaker (`[load.breaker]`), around the whole request.
    client: Option<CircuitBreaker>,
}

/// What a guard says of itself: the strategies it applies to (bit `i`: `Strategy::ALL[i]`),
/// whether it hears the attempts it admitted.
#[derive(Debug, Clone, Copy)]
struct Facts {
    applies: u32,
    hears: bool,
}

/// The bit of `strategy` in a mask over `Strategy::ALL`.
fn bit(strategy: Strategy) -> u32 {
    Strategy::ALL
        .iter()
        .position(|s| *s == strategy)
        .map_or(0, |i| 1 << i)
}

/// What the endpoint's rate limiter says to a request a handler thread has taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// Served after `wait` (the handler holds its thread meanwhile; zero: at once).
    Enter { wait: Nanos },
    /// No permit within the timeout: answered 429 at once, unserved.
    Refused,
}

impl CallGuards {
    pub fn new(scenario: &Scenario) -> Self {
        let services = (0..scenario.services.len())
            .map(|i| super::guard_kinds::build(scenario, ServiceId(i)))
            .collect();
        let mut guards = CallGuards::of_lists(services);
        guards.client = scenario
            .load
            .breaker
            .map(|c| CircuitBreaker::new(c, Nanos::ZERO));
        guards.door = scenario
            .server
            .rate_limit
            .map(|c| RateLimiter::new(c, Nanos::ZERO));
        guards
    }

    /// Guards given as lists, one per service (no door, no clients' breaker).
    pub fn of_lists(services: Vec<Vec<Box<dyn CallGuard>>>) -> Self {
        let facts: Vec<Vec<Facts>> = services
            .iter()
            .map(|list| {
                let facts = |g: &dyn CallGuard| Facts {
                    applies: Strategy::ALL
                        .iter()
                        .filter(|s| g.applies(**s))
                        .fold(0, |mask, s| mask | bit(*s)),
                    hears: g.hears(),
                };
                list.iter().map(|g| facts(g.as_ref())).collect()
            })
            .collect();
        let applies = facts.iter().flatten().fold(0, |mask, f| mask | f.applies);
        let polling = services
            .iter()
            .enumerate()
            .flat_map(|(s, list)| {
                let polls = list.iter().enumerate().filter(|(_, g)| g.polls());
                polls.map(move |(i, _)| (s, i))
            })
            .collect();
        CallGuards {
            services,
            facts,
            applies,
            polling,
            door: None,
            client: None,
        }
    }

    /// Whether a call made under `strategy` has any guard to ask (none: nothing to ask).
    #[inline]
    pub fn any_for(&self, strategy: Strategy) -> bool {
        self.applies & bit(strategy) != 0
    }

    /// Whether a guard has timed transitions (none: nothing to poll).
    #[inline]
    pub fn polls(&self) -> bool {
        !self.polling.is_empty()
    }

    /// A client is about to send an attempt at `now`: false when its own breaker is open
    /// (the request fails at once, unsent).
    pub fn client_sends(&mut self, now: Nanos) -> bool {
        self.client
            .as_mut()
            .is_none_or(|b| b.try_acquire(now) == BreakerAcquire::Permitted)
    }

    /// A client saw its attempt's outcome at `now`, `duration` after sending it.
    pub fn client_saw(&mut self, now: Nanos, failed: bool, duration: Nanos) {
        if let Some(b) = self.client.as_mut() {
            b.on_result(now, failed, duration);
        }
    }

    /// The clients' breaker, as a snapshot shows it.
    pub fn client_breaker(&self) -> Option<BreakerSnapshot> {
        self.client.as_ref().map(snapshot_of)
    }

    /// A handler thread took a request at `now`: the endpoint's limiter, if there is one.
    #[inline]
    pub fn enter(&mut self, now: Nanos) -> Door {
        match self.door.as_mut().map(|l| l.acquire(now)) {
            Some(RateAcquire::Refused) => Door::Refused,
            Some(RateAcquire::Granted { wait }) => Door::Enter { wait },
            None => Door::Enter { wait: Nanos::ZERO },
        }
    }

    /// The attempt whose way through `service`'s guards is `passage` goes through them as
    /// `how` says (an engine's one entry: [`CallGuards::admit`], `resume`, `granted` or
    /// `gave_up`).
    pub fn pass(
        &mut self,
        how: Admitting,
        service: ServiceId,
        passage: &mut Passage,
        ask: GuardAsk,
    ) -> Made {
        match how {
            Admitting::Make => self.admit(service, passage, ask),
            Admitting::Resume => self.resume(service, passage, ask),
            Admitting::Granted => self.granted(service, passage, ask),
            Admitting::GaveUp => self.gave_up(service, passage, ask.now),
        }
    }

    /// An attempt of a call of `service` is made at `ask.now`: its passage starts at the first
    /// guard.
    pub fn admit(&mut self, service: ServiceId, passage: &mut Passage, ask: GuardAsk) -> Made {
        *passage = Passage {
            since: ask.now,
            ..Passage::default()
        };
        self.resume(service, passage, ask)
    }

    /// The attempt asks the guards after the one it waited for ([`Made::Wait`]), in turn.
    pub fn resume(&mut self, service: ServiceId, passage: &mut Passage, ask: GuardAsk) -> Made {
        let strategy = bit(ask.strategy);
        loop {
            let i = usize::from(passage.next);
            let Some(facts) = self.facts.get(service.0).and_then(|l| l.get(i)).copied() else {
                break;
            };
            if facts.applies & strategy == 0 {
                passage.next += 1;
                continue;
            }
            let list = self.services.get_mut(service.0);
            let Some(guard) = list.and_then(|l| l.get_mut(i)) else {
                break;
            };
            let (admit, hears) = (guard.admit(ask), facts.hears);
            match admit {
                Admit::Refuse(refusal) => return self.refused(service, passage, refusal, ask.now),
                // It stays at this guard until a permit comes to it or it gives up.
                Admit::Queue { max_wait } => return Made::Queued(max_wait),
                Admit::Go | Admit::Hold | Admit::After(_) => {}
            }
            if hears {
                passage.hear = passage.hear.with(i);
            }
            if admit == Admit::Hold {
                passage.holds = passage.holds.with(i);
            }
            passage.next += 1;
            if let Admit::After(wait) = admit {
                return Made::Wait(wait);
            }
        }
        Made::Go(passage.holds)
    }

    /// The guard the attempt queued at released a permit to it: it holds it, and asks the
    /// guards after it.
    pub fn granted(&mut self, service: ServiceId, passage: &mut Passage, ask: GuardAsk) -> Made {
        let i = usize::from(passage.next);
        if let Some(facts) = self.facts.get(service.0).and_then(|l| l.get(i)) {
            if facts.hears {
                passage.hear = passage.hear.with(i);
            }
            passage.holds = passage.holds.with(i);
        }
        passage.next += 1;
        self.resume(service, passage, ask)
    }

    /// The attempt queued at a guard waited its longest at `now`: it fails with that guard's
    /// refusal.
    pub fn gave_up(&mut self, service: ServiceId, passage: &mut Passage, now: Nanos) -> Made {
        let guard = self
            .services
            .get_mut(service.0)
            .and_then(|l| l.get_mut(usize::from(passage.next)));
        match guard {
            Some(guard) => {
                let refusal = guard.gave_up();
                self.refused(service, passage, refusal, now)
            }
            None => Made::Go(passage.holds),
        }
    }

    /// A guard refused the attempt at `now`: the guards that admitted it hear the refusal.
    /// A guard that holds permits comes after every guard that can refuse (the registry's
    /// order), so nothing is held yet.
    fn refused(
        &mut self,
        service: ServiceId,
        passage: &mut Passage,
        refusal: &'static super::GuardRefusal,
        now: Nanos,
    ) -> Made {
        debug_assert!(passage.holds.is_empty(), "a holding guard refuses last");
        let result = CallResult::Refused(refusal);
        self.hear(service, passage, now, result);
        Made::Failed(result)
    }

    /// The future of an attempt of `service` completed at `now` with `result` (or a guard
    /// refused it): the guards that admitted it and hear hear it. False when none does, so
    /// there is nothing new to wait for.
    pub fn hear(
        &mut self,
        service: ServiceId,
        passage: &mut Passage,
        now: Nanos,
        result: CallResult,
    ) -> bool {
        let hear = std::mem::take(&mut passage.hear);
        if hear.is_empty() {
            return false;
        }
        let heard = Heard {
            now,
            latency: now.saturating_sub(passage.since),
            result,
        };
        if let Some(list) = self.services.get_mut(service.0) {
            for i in hear.iter() {
                if let Some(guard) = list.get_mut(i) {
                    guard.hear(heard);
                }
            }
        }
        true
    }

    /// A call of `service` that held the permits `holds` ended: each goes back, to the oldest
    /// caller of its guard that `still_waits` says still waits, if any (each one returned, at
    /// the guard's place: its waiter, which holds the permit now).
    pub fn release(
        &mut self,
        service: ServiceId,
        holds: GuardSet,
        mut still_waits: impl FnMut(Waiter) -> bool,
    ) -> [Option<Waiter>; GuardSet::MAX] {
        let mut handed = [None; GuardSet::MAX];
        if let Some(list) = self.services.get_mut(service.0) {
            for i in holds.iter() {
                handed[i] = list.get_mut(i).and_then(|g| g.release(&mut still_waits));
            }
        }
        handed
    }

    /// When a guard next changes state by itself (a breaker's automatic transition, its
    /// half-open's maximum wait), if one will.
    pub fn next_poll(&self) -> Option<Nanos> {
        self.polling
            .iter()
            .filter_map(|&(s, i)| self.services.get(s)?.get(i)?.next_poll())
            .min()
    }

    /// Brings every guard's timed transitions up to `now`.
    pub fn poll(&mut self, now: Nanos) {
        for &(s, i) in &self.polling {
            if let Some(g) = self.services.get_mut(s).and_then(|l| l.get_mut(i)) {
                g.poll(now);
            }
        }
    }

    /// `service`'s guards, as a snapshot shows them.
    pub fn rows(&self, service: ServiceId) -> Vec<GuardRow> {
        self.services
            .get(service.0)
            .map_or_else(Vec::new, |l| l.iter().map(|g| g.row()).collect())
    }

    /// `service`'s guard of type `G`, if it has one.
    fn find<G: 'static>(&self, service: ServiceId) -> Option<&G> {
        self.services
            .get(service.0)?
            .iter()
            .find_map(|g| g.as_any().downcast_ref::<G>())
    }

    /// `service`'s breaker, as a snapshot shows it.
    pub fn breaker(&self, service: ServiceId) -> Option<BreakerSnapshot> {
        self.find::<CircuitBreaker>(service).map(snapshot_of)
    }

    /// Calls `service`'s rate limiter refused.
    pub fn rate_limited(&self, service: ServiceId) -> u64 {
        self.find::<RateLimiter>(service)
            .map_or(0, RateLimiter::refused)
    }
}

fn snapshot_of(b: &CircuitBreaker) -> BreakerSnapshot {
    BreakerSnapshot {
        state: b.state(),
        failure_rate: b.failure_rate(),
        slow_call_rate: b.slow_call_rate(),
        opened: b.opened(),
        not_permitted: b.not_permitted(),
        transitions: b.transitions().to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::breaker::NOT_PERMITTED;
    use crate::flow::ratelimit::RATE_LIMITED;
    use crate::scenario::{BreakerConfig, BreakerWindow, RateLimiterConfig};

    fn ms(n: u64) -> Nanos {
        Nanos::from_millis(n)
    }

    fn ask(now: Nanos) -> GuardAsk {
        GuardAsk {
            now,
            strategy: Strategy::Bulkhead,
            waiter: Waiter(0),
        }
    }

    const GO: Made = Made::Go(GuardSet::EMPTY);

    /// Service 0: a breaker that opens once 2 calls in its window of 2 failed, and a limiter
    /// of 1 permit per 100 ms whose callers wait at most `timeout`. Service 1: no guard.
    fn guards(timeout: Nanos) -> CallGuards {
        let breaker = BreakerConfig {
            window: BreakerWindow::Count(2),
            failure_rate_threshold: 50.0,
            minimum_calls: 2,
            wait_in_open: Nanos::from_secs(1),
            ..BreakerConfig::default()
        };
        let limiter = RateLimiterConfig {
            limit_for_period: 1,
            refresh_period: ms(100),
            timeout,
        };
        CallGuards::of_lists(vec![
            vec![
                Box::new(CircuitBreaker::new(breaker, Nanos::ZERO)),
                Box::new(RateLimiter::new(limiter, Nanos::ZERO)),
            ],
            Vec::new(),
        ])
    }

    /// A passage made through `g` for `service` at `now`, and the guards' answer.
    fn admit(g: &mut CallGuards, service: ServiceId, now: Nanos) -> (Made, Passage) {
        let mut passage = Passage::default();
        (g.admit(service, &mut passage, ask(now)), passage)
    }

    #[test]
    fn a_refused_call_gets_the_result_it_fails_with_and_a_passed_one_its_wait_and_hearers() {
        let mut g = guards(ms(50));
        let (guarded, free) = (ServiceId(0), ServiceId(1));
        assert_eq!(admit(&mut g, free, ms(0)).0, GO);
        let (made, passage) = admit(&mut g, guarded, ms(0));
        assert_eq!(made, GO);
        assert_eq!(
            passage.hear,
            GuardSet::EMPTY.with(0),
            "the breaker hears it"
        );
        // The cycle's one permit is taken: the next is 100 ms away, beyond the 50 ms wait.
        let (made, passage) = admit(&mut g, guarded, ms(0));
        assert_eq!(made, Made::Failed(CallResult::Refused(&RATE_LIMITED)));
        assert!(
            passage.hear.is_empty(),
            "the breaker heard the refusal at once"
        );
        assert_eq!(g.rate_limited(guarded), 1);
        // The breaker counted that refusal as a failure; a second failure opens it.
        let mut failed = Passage {
            hear: GuardSet::EMPTY.with(0),
            since: ms(0),
            ..Passage::default()
        };
        assert!(g.hear(guarded, &mut failed, ms(1), CallResult::Failed));
        assert_eq!(
            admit(&mut g, guarded, ms(2)).0,
            Made::Failed(CallResult::Refused(&NOT_PERMITTED))
        );
        assert_eq!(
            g.rate_limited(guarded),
            1,
            "an open breaker asks no limiter"
        );
        assert_eq!(admit(&mut g, free, ms(2)).0, GO);
    }

    #[test]
    fn the_breaker_hears_only_the_calls_it_permitted() {
        let mut g = guards(ms(500));
        let guarded = ServiceId(0);
        let mut unheard = Passage::default();
        assert!(!g.hear(guarded, &mut unheard, ms(5), CallResult::Failed));
        assert!(!g.hear(guarded, &mut unheard, ms(6), CallResult::TimedOut));
        let (made, mut first) = admit(&mut g, guarded, ms(10));
        assert_eq!(made, GO, "two unheard failures leave it closed");
        let (_, mut second) = admit(&mut g, guarded, ms(10));
        assert!(g.hear(guarded, &mut first, ms(20), CallResult::Failed));
        assert!(
            !g.hear(guarded, &mut first, ms(20), CallResult::Failed),
            "heard once"
        );
        assert!(g.hear(guarded, &mut second, ms(20), CallResult::TimedOut));
        assert_eq!(
            admit(&mut g, guarded, ms(21)).0,
            Made::Failed(CallResult::Refused(&NOT_PERMITTED))
        );
    }

    #[test]
    fn a_reserved_permit_within_the_timeout_is_a_wait_not_a_refusal() {
        let mut g = guards(ms(150));
        let guarded = ServiceId(0);
        assert_eq!(admit(&mut g, guarded, ms(0)).0, GO);
        let (made, mut passage) = admit(&mut g, guarded, ms(30));
        assert_eq!(made, Made::Wait(ms(70)));
        assert_eq!(g.rate_limited(guarded), 0);
        // Its wait over, it asks the guards after the limiter: none.
        assert_eq!(g.resume(guarded, &mut passage, ask(ms(100))), GO);
        assert_eq!(passage.since, ms(30));
    }

    #[test]
    fn a_queued_caller_holds_the_permit_a_call_gives_back_or_fails_when_its_wait_is_up() {
        let s = crate::scenario::load(
            "circuit-breaker",
            &[
                "strategy.semaphore.permits=1".into(),
                "strategy.semaphore.max_wait=50ms".into(),
            ],
        )
        .expect("preset");
        let mut g = CallGuards::new(&s);
        let svc = ServiceId(0);
        let semaphore = |now, w| GuardAsk {
            now,
            strategy: Strategy::Semaphore,
            waiter: Waiter(w),
        };
        let mut first = Passage::default();
        let Made::Go(holds) = g.admit(svc, &mut first, semaphore(ms(0), 1)) else {
            panic!("the first caller holds the permit");
        };
        assert!(!holds.is_empty());
        let (mut second, mut third) = (Passage::default(), Passage::default());
        assert_eq!(
            g.admit(svc, &mut second, semaphore(ms(1), 2)),
            Made::Queued(ms(50))
        );
        assert_eq!(
            g.admit(svc, &mut third, semaphore(ms(2), 3)),
            Made::Queued(ms(50))
        );
        // Under another strategy the bulkhead is not asked.
        assert_eq!(admit(&mut g, svc, ms(3)).0, GO);
        // The first call ends: its permit goes to the oldest caller still waiting.
        let handed = g.release(svc, holds, |_| true);
        assert_eq!(handed.iter().flatten().collect::<Vec<_>>(), [&Waiter(2)]);
        assert_eq!(
            g.granted(svc, &mut second, semaphore(ms(10), 2)),
            Made::Go(holds)
        );
        // The third waited its longest.
        let full = g.gave_up(svc, &mut third, ms(52));
        let Made::Failed(CallResult::Refused(refusal)) = full else {
            panic!("refused, not {full:?}");
        };
        assert_eq!(refusal.exception, "BulkheadFullException");
        assert!(
            g.rows(svc)
                .iter()
                .any(|r| r.guard == "bulkhead" && r.refused == 1)
        );
    }
}

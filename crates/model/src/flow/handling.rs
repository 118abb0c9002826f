//! A request's life on its handler thread, written once: a state machine that does no I/O.
//! Each engine feeds it what happened ([`Happened`]) and carries out what it says next
//! ([`Effect`]): the simulation as events on its virtual clock, the real engine as sleeps,
//! spins and awaits on its handler thread.
//!
//! ```text
//!             Taken ─┬─ waited past queue_timeout ── Unserved(Shed) ─────────┐
//!                    ├─ the limiter refuses ── Unserved(LimitedAtDoor) ──────┤
//!                    └─ Door (its reserved permit's wait, if any)            │
//!                        │ DoorOpen                                          │
//!                        ▼                                                   │
//!                       Cpu (cpu_per_request, if any)                        │
//!                        │ CpuDone                                           │
//!                        ▼                                                   ▼
//!    ┌──────────────▶ Stage(i) ── StageDone{failed} ── failed or last ──▶ Answer
//!    └── not failed, i + 1 ───┘                                     failed?  │
//!                                                  ErrorPage (cpu_per_error) │
//!                                                        │ ErrorPageDone     │
//!                                                        ▼                   ▼
//!                                                      Written ◀──── Write ──┘
//! ```
//!
//! What a stage does (each call's submission, guards, rejection, timeout, completion) is the
//! engines' part, built from the other `flow` decisions; the machine only hears when the
//! stage's futures have joined, or when the handler stops early (sequential code throws at the
//! first failure, an aborted submission fails the request): [`Happened::Answer`].

use crate::scenario::Scenario;
use crate::time::Nanos;

use crate::metrics::ResilienceCounts;

use super::{CallGuards, Door, Verdict};

/// What the machine needs of the scenario: its shape and the server's costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandlerPlan {
    /// Stages of the endpoint (each a set of calls joined with `allOf`).
    pub stages: usize,
    /// The handler's own CPU work on each request (parse, write, recycle).
    pub cpu_per_request: Nanos,
    /// The container's CPU for a failed request's error page, before its 500 is written.
    pub cpu_per_error: Nanos,
    /// `server.queue_timeout`: a request that waited longer in the executor's queue is shed.
    pub queue_timeout: Option<Nanos>,
}

impl HandlerPlan {
    pub fn of(scenario: &Scenario) -> Self {
        let server = &scenario.server;
        HandlerPlan {
            stages: scenario.endpoint.stages.len(),
            cpu_per_request: server.connector.cpu_per_request,
            cpu_per_error: server.connector.cpu_per_error,
            queue_timeout: server.queue_timeout,
        }
    }
}

/// Where the handler is with the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HandlerPhase {
    /// No handler thread has taken it yet.
    #[default]
    Queued,
    /// Its handler thread waits for the endpoint limiter's reserved permit.
    Door,
    /// Its handler answers it without serving it.
    Unserved,
    /// The handler's own CPU work on it.
    Cpu,
    /// The calls of a stage are in flight ([`Handling::stage`] says which).
    Stage,
    /// The container renders the error page of a failed request.
    ErrorPage,
    /// The server has finished with it: the response is being written, or was.
    Written,
}

/// What happened to the request, as an engine tells the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Happened {
    /// A handler thread took it after `waited` in the executor's queue.
    Taken { waited: Nanos },
    /// The endpoint limiter's reserved permit is due.
    DoorOpen,
    /// The handler's own CPU work is done.
    CpuDone,
    /// The current stage's futures have all completed; `failed`: the request has failed.
    StageDone { failed: bool },
    /// The handler stops serving and answers now (a failure ends the stage early).
    Answer { failed: bool },
    /// The error page is rendered.
    ErrorPageDone,
}

/// Why a request is answered without being served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unserved {
    /// It waited in the executor's queue past `queue_timeout`: 503.
    Shed,
    /// The endpoint's rate limiter gave no permit in time: 429.
    LimitedAtDoor,
}

impl Unserved {
    /// Fails `verdict` as this answer does (503 or 429), and counts it in `counts` (None:
    /// the request is not counted, as a real run's after its end).
    pub fn apply<T: Clone>(self, verdict: &mut Verdict<T>, counts: Option<&mut ResilienceCounts>) {
        match self {
            Unserved::Shed => verdict.shed(),
            Unserved::LimitedAtDoor => verdict.limit_at_door(),
        }
        if let Some(c) = counts {
            match self {
                Unserved::Shed => c.shed += 1,
                Unserved::LimitedAtDoor => c.limited_at_door += 1,
            }
        }
    }
}

/// What the engine does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// The handler thread waits this long for its permit, then [`Happened::DoorOpen`].
    WaitForDoor(Nanos),
    /// The handler thread runs this much CPU, then [`Happened::CpuDone`].
    Cpu(Nanos),
    /// The handler submits stage `i`'s calls, then [`Happened::StageDone`] once they join.
    Stage(usize),
    /// The request is answered unserved: the engine fails its verdict and counts it
    /// ([`Unserved::apply`]), then tells [`Happened::Answer`] with `failed`.
    Unserved(Unserved),
    /// The server has finished with the request: the container runs this much CPU on the
    /// error page, then [`Happened::ErrorPageDone`].
    ErrorPage(Nanos),
    /// The server has finished with the request: the response is written.
    Write,
    /// What happened came too late to matter (the request was answered meanwhile): nothing.
    Nothing,
}

/// One request's handler lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Handling {
    phase: HandlerPhase,
    /// The last stage it reached (0 before the first).
    reached: usize,
}

impl Handling {
    pub fn phase(self) -> HandlerPhase {
        self.phase
    }

    /// The stage in flight, or the last one reached (0 before the first): a call of it can
    /// still end after the response.
    pub fn stage(self) -> usize {
        self.reached
    }

    /// Hears what `happened` at `now` and says what the engine does next. `guards` holds the
    /// endpoint's rate limiter, consulted when a handler takes the request. Inlined into each
    /// engine's driver, where what happened is known and the match folds away.
    #[inline(always)]
    pub fn step(
        &mut self,
        plan: &HandlerPlan,
        guards: &mut CallGuards,
        happened: Happened,
        now: Nanos,
    ) -> Effect {
        match (self.phase, happened) {
            (HandlerPhase::Queued, Happened::Taken { waited }) => {
                if super::shed::sheds(plan.queue_timeout, waited) {
                    return self.unserved(Unserved::Shed);
                }
                match guards.enter(now) {
                    Door::Refused => self.unserved(Unserved::LimitedAtDoor),
                    Door::Enter { wait } if wait > Nanos::ZERO => {
                        self.phase = HandlerPhase::Door;
                        Effect::WaitForDoor(wait)
                    }
                    Door::Enter { .. } => self.handle(plan),
                }
            }
            (HandlerPhase::Door, Happened::DoorOpen) => self.handle(plan),
            (HandlerPhase::Cpu, Happened::CpuDone) => self.stage_from(plan, 0),
            (HandlerPhase::Stage, Happened::StageDone { failed })
                if !failed && self.reached + 1 < plan.stages =>
            {
                self.stage_from(plan, self.reached + 1)
            }
            (
                HandlerPhase::Queued
                | HandlerPhase::Door
                | HandlerPhase::Unserved
                | HandlerPhase::Cpu
                | HandlerPhase::Stage,
                Happened::StageDone { failed } | Happened::Answer { failed },
            ) => self.answer(plan, failed),
            (HandlerPhase::ErrorPage, Happened::ErrorPageDone) => {
                self.phase = HandlerPhase::Written;
                Effect::Write
            }
            _ => Effect::Nothing,
        }
    }

    /// The handler serves the request: its own CPU work, then the first stage.
    #[inline]
    fn handle(&mut self, plan: &HandlerPlan) -> Effect {
        if plan.cpu_per_request > Nanos::ZERO {
            self.phase = HandlerPhase::Cpu;
            Effect::Cpu(plan.cpu_per_request)
        } else {
            self.stage_from(plan, 0)
        }
    }

    /// Stage `i`, or the answer when there is none.
    #[inline]
    fn stage_from(&mut self, plan: &HandlerPlan, i: usize) -> Effect {
        if i < plan.stages {
            self.phase = HandlerPhase::Stage;
            self.reached = i;
            Effect::Stage(i)
        } else {
            self.answer(plan, false)
        }
    }

    #[inline]
    fn unserved(&mut self, why: Unserved) -> Effect {
        self.phase = HandlerPhase::Unserved;
        Effect::Unserved(why)
    }

    /// The server has finished with the request; a failed one gets its error page first.
    #[inline]
    fn answer(&mut self, plan: &HandlerPlan, failed: bool) -> Effect {
        if failed && plan.cpu_per_error > Nanos::ZERO {
            self.phase = HandlerPhase::ErrorPage;
            Effect::ErrorPage(plan.cpu_per_error)
        } else {
            self.phase = HandlerPhase::Written;
            Effect::Write
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::RateLimiterConfig;

    fn ms(n: u64) -> Nanos {
        Nanos::from_millis(n)
    }

    fn plan(stages: usize) -> HandlerPlan {
        HandlerPlan {
            stages,
            cpu_per_request: ms(1),
            cpu_per_error: ms(3),
            queue_timeout: Some(ms(500)),
        }
    }

    /// The guards of a scenario whose endpoint lets `door` requests a second in.
    fn guards(door: Option<u32>) -> CallGuards {
        let mut scenario = crate::scenario::load("ironthread", &[]).expect("preset");
        scenario.server.rate_limit = door.map(|limit| RateLimiterConfig {
            limit_for_period: limit,
            refresh_period: ms(1_000),
            timeout: ms(400),
        });
        CallGuards::new(&scenario)
    }

    /// Tells the machine each of `events` in turn, and returns the effects.
    fn walk(plan: &HandlerPlan, events: &[Happened]) -> Vec<Effect> {
        let mut h = Handling::default();
        let mut g = guards(None);
        events
            .iter()
            .map(|&i| h.step(plan, &mut g, i, Nanos::ZERO))
            .collect()
    }

    #[test]
    fn a_request_goes_through_its_cpu_and_every_stage_then_is_written() {
        let p = plan(2);
        let effects = walk(
            &p,
            &[
                Happened::Taken { waited: ms(10) },
                Happened::CpuDone,
                Happened::StageDone { failed: false },
                Happened::StageDone { failed: false },
            ],
        );
        assert_eq!(
            effects,
            [
                Effect::Cpu(ms(1)),
                Effect::Stage(0),
                Effect::Stage(1),
                Effect::Write
            ]
        );
    }

    #[test]
    fn the_stage_reached_is_kept_after_the_answer() {
        let p = plan(3);
        let mut h = Handling::default();
        let mut g = guards(None);
        assert_eq!(h.stage(), 0);
        h.step(&p, &mut g, Happened::Taken { waited: ms(0) }, ms(0));
        h.step(&p, &mut g, Happened::CpuDone, ms(1));
        h.step(&p, &mut g, Happened::StageDone { failed: false }, ms(2));
        assert_eq!((h.phase(), h.stage()), (HandlerPhase::Stage, 1));
        h.step(&p, &mut g, Happened::Answer { failed: false }, ms(3));
        assert_eq!((h.phase(), h.stage()), (HandlerPhase::Written, 1));
    }

    #[test]
    fn a_failed_stage_skips_the_rest_and_renders_the_error_page_first() {
        let p = plan(3);
        let effects = walk(
            &p,
            &[
                Happened::Taken { waited: ms(0) },
                Happened::CpuDone,
                Happened::StageDone { failed: true },
                Happened::StageDone { failed: false },
                Happened::ErrorPageDone,
                Happened::ErrorPageDone,
            ],
        );
        assert_eq!(
            effects,
            [
                Effect::Cpu(ms(1)),
                Effect::Stage(0),
                Effect::ErrorPage(ms(3)),
                Effect::Nothing,
                Effect::Write,
                Effect::Nothing
            ]
        );
    }

    #[test]
    fn a_request_past_the_queue_timeout_is_shed_unserved() {
        let p = plan(1);
        let effects = walk(
            &p,
            &[
                Happened::Taken { waited: ms(501) },
                Happened::CpuDone,
                Happened::Answer { failed: true },
            ],
        );
        assert_eq!(
            effects,
            [
                Effect::Unserved(Unserved::Shed),
                Effect::Nothing,
                Effect::ErrorPage(ms(3))
            ]
        );
    }

    #[test]
    fn without_costs_the_handler_goes_straight_to_its_stages_and_writes() {
        let p = HandlerPlan {
            cpu_per_request: Nanos::ZERO,
            cpu_per_error: Nanos::ZERO,
            ..plan(1)
        };
        let effects = walk(
            &p,
            &[
                Happened::Taken { waited: ms(0) },
                Happened::Answer { failed: true },
            ],
        );
        assert_eq!(effects, [Effect::Stage(0), Effect::Write]);
        let none = HandlerPlan { stages: 0, ..p };
        assert_eq!(
            walk(&none, &[Happened::Taken { waited: ms(0) }]),
            [Effect::Write]
        );
    }

    #[test]
    fn the_endpoints_limiter_lets_one_in_makes_the_next_wait_and_refuses_the_third() {
        let p = plan(1);
        let mut g = guards(Some(1));
        let taken = Happened::Taken { waited: ms(0) };
        let mut first = Handling::default();
        assert_eq!(first.step(&p, &mut g, taken, ms(0)), Effect::Cpu(ms(1)));
        let mut second = Handling::default();
        let wait = second.step(&p, &mut g, taken, ms(700));
        assert_eq!(wait, Effect::WaitForDoor(ms(300)));
        assert_eq!(second.phase(), HandlerPhase::Door);
        assert_eq!(
            second.step(&p, &mut g, Happened::DoorOpen, ms(1_000)),
            Effect::Cpu(ms(1))
        );
        let mut third = Handling::default();
        let refused = third.step(&p, &mut g, taken, ms(700));
        assert_eq!(refused, Effect::Unserved(Unserved::LimitedAtDoor));
        let answered = third.step(&p, &mut g, Happened::Answer { failed: true }, ms(700));
        assert_eq!(answered, Effect::ErrorPage(ms(3)));
    }

    #[test]
    fn an_unserved_answer_fails_the_request_and_is_counted_only_when_asked() {
        let mut counts = ResilienceCounts::default();
        let mut shed: Verdict<()> = Verdict::default();
        Unserved::Shed.apply(&mut shed, Some(&mut counts));
        let mut limited: Verdict<()> = Verdict::default();
        Unserved::LimitedAtDoor.apply(&mut limited, None);
        assert!(shed.failed() && limited.failed());
        assert_eq!((counts.shed, counts.limited_at_door), (1, 0));
        Unserved::LimitedAtDoor.apply(&mut limited, Some(&mut counts));
        assert_eq!((counts.shed, counts.limited_at_door), (1, 1));
    }

    #[test]
    fn news_that_comes_too_late_changes_nothing() {
        let mut h = Handling::default();
        let mut g = guards(None);
        let p = plan(1);
        assert_eq!(
            h.step(&p, &mut g, Happened::DoorOpen, ms(0)),
            Effect::Nothing
        );
        assert_eq!(h.phase(), HandlerPhase::Queued);
        h.step(&p, &mut g, Happened::Taken { waited: ms(0) }, ms(0));
        assert_eq!(
            h.step(&p, &mut g, Happened::ErrorPageDone, ms(0)),
            Effect::Nothing
        );
        assert_eq!(h.phase(), HandlerPhase::Cpu);
    }
}

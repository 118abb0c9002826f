//! What a request's handler knows so far: whether it failed and why, which fallbacks it
//! used, and which thread completed its last future. Both engines keep one per request and
//! ask it for the response.

use crate::metrics::Outcome;
use crate::scenario::{ServiceId, Strategy};

use super::{CallResult, Detail, FailReason};

/// A request's progress towards its response, generic over how an engine names a thread.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict<T> {
    fail: Option<FailReason>,
    /// The service whose fallback was used first (for the log), once one was.
    first_fallback: Option<ServiceId>,
    last_completer: Option<T>,
}

/// What completing one future did to the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    Ok,
    /// `exceptionally(e -> fallback)`: the request degrades to `Partial`.
    FellBack,
    /// No fallback: the request fails (if nothing failed it before).
    Failed,
}

impl<T> Default for Verdict<T> {
    fn default() -> Self {
        Verdict {
            fail: None,
            first_fallback: None,
            last_completer: None,
        }
    }
}

impl<T: Clone> Verdict<T> {
    /// True once a call failed without fallback or a submission was rejected.
    pub fn failed(&self) -> bool {
        self.fail.is_some()
    }

    /// The thread that completed the last future (where a continuation runs).
    pub fn last_completer(&self) -> Option<T> {
        self.last_completer.clone()
    }

    /// A call's future completed with `result` on `completer`.
    pub fn complete(
        &mut self,
        service: ServiceId,
        has_fallback: bool,
        result: CallResult,
        completer: T,
    ) -> Completion {
        self.last_completer = Some(completer);
        if result == CallResult::Ok {
            return Completion::Ok;
        }
        if has_fallback {
            self.first_fallback.get_or_insert(service);
            return Completion::FellBack;
        }
        if self.fail.is_none() {
            self.fail = Some(match result {
                CallResult::TimedOut => FailReason::CallTimedOut(service),
                CallResult::NoConnection => FailReason::NoConnection(service),
                CallResult::Rejected => FailReason::Rejected(service),
                CallResult::Refused(refusal) => FailReason::Refused(service, refusal),
                CallResult::Failed | CallResult::Ok => FailReason::CallFailed(service),
            });
        }
        Completion::Failed
    }

    /// `supplyAsync` threw `RejectedExecutionException` (abort policy).
    pub fn reject(&mut self, service: ServiceId) {
        self.fail = Some(FailReason::Rejected(service));
    }

    /// The request is answered 503 without being served (it waited too long in the queue).
    pub fn shed(&mut self) {
        self.fail = Some(FailReason::Shed);
    }

    /// The endpoint's rate limiter refused the request: answered 429 without being served.
    pub fn limit_at_door(&mut self) {
        self.fail = Some(FailReason::LimitedAtDoor);
    }

    /// The response's outcome and what the log says beside it.
    pub fn outcome(&self) -> (Outcome, Detail) {
        match (self.fail, self.first_fallback) {
            (Some(reason), _) => (Outcome::Failed, Detail::Failed(reason)),
            (None, Some(service)) => (Outcome::Partial, Detail::Fallback(service)),
            (None, None) => (Outcome::Success, Detail::None),
        }
    }

    /// The thread the run table shows: the handler when it made the calls itself and for a
    /// rejected submission, else the thread that completed the last future (where the
    /// continuation runs).
    pub fn responding_thread(&self, strategy: Strategy, handler: Option<T>) -> Option<T> {
        if strategy.calls_inline() || matches!(self.fail, Some(FailReason::Rejected(_))) {
            handler
        } else {
            self.last_completer.clone().or(handler)
        }
    }
}

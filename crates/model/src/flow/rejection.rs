//! What a pool's rejection policy does with a call it would not take: the one place its
//! policies are told apart. Both engines carry out the answer.

use crate::scenario::RejectionPolicy;

/// The fate of a rejected submission (`RejectedExecutionHandler.rejectedExecution`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejection {
    /// `AbortPolicy`: `RejectedExecutionException` (Spring: `TaskRejectedException`) is thrown
    /// out of `supplyAsync` on the submitting thread: the request fails at once. Calls already
    /// submitted keep running.
    FailsRequest,
    /// `AbortPolicy`, the exception caught around `supplyAsync`: the call's future completes
    /// at once on the submitting thread with the service's fallback, and the request answers
    /// `Partial` instead of failing.
    FallsBack,
    /// `CallerRunsPolicy`: the submitting thread runs the call itself. `supplyAsync` returns a
    /// completed future, so an `orTimeout` attached afterwards never fires.
    RunsOnCaller,
    /// `DiscardPolicy`, or `DiscardOldestPolicy` (`drop_oldest`: the head of the queue is
    /// dropped and the submission tried again, which with the head gone finds room). A dropped
    /// call's future never completes: only its `orTimeout` ends the wait.
    Discarded { drop_oldest: bool },
}

impl Rejection {
    pub fn of(policy: RejectionPolicy) -> Self {
        match policy {
            RejectionPolicy::Abort => Rejection::FailsRequest,
            RejectionPolicy::CallerRuns => Rejection::RunsOnCaller,
            RejectionPolicy::Discard => Rejection::Discarded { drop_oldest: false },
            RejectionPolicy::DiscardOldest => Rejection::Discarded { drop_oldest: true },
            RejectionPolicy::Fallback => Rejection::FallsBack,
        }
    }

    /// Whether the call's `orTimeout` still applies: its future is left pending.
    pub fn arms_timeout(self) -> bool {
        matches!(self, Rejection::Discarded { .. })
    }

    /// Whether the submitting thread goes on to the stage's next call (it does not when the
    /// request fails, or when it runs the call itself).
    pub fn submission_goes_on(self) -> bool {
        matches!(self, Rejection::FallsBack | Rejection::Discarded { .. })
    }
}

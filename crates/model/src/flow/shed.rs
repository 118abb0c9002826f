//! Shedding dead work: a request that waited in the executor's queue longer than a bound is
//! answered at once (503) instead of served. Under overload its client has most likely given
//! up already, so serving it would only delay the requests behind it (CoDel's sojourn-time
//! rule, applied per request as "Fail at Scale", ACM Queue 2015, describes for servers).

use crate::time::Nanos;

/// Whether a request that waited `waited` in the queue is shed under `queue_timeout`.
pub fn sheds(queue_timeout: Option<Nanos>, waited: Nanos) -> bool {
    queue_timeout.is_some_and(|bound| waited > bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_wait_beyond_the_bound_is_shed() {
        let bound = Some(Nanos::from_millis(500));
        assert!(!sheds(bound, Nanos::from_millis(500)));
        assert!(sheds(bound, Nanos::from_millis(501)));
        assert!(!sheds(None, Nanos::from_secs(3600)));
    }
}

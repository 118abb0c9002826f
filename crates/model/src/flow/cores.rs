//! What holds a core, decided once for both engines: a thread's CPU work runs on one of the
//! scenario's `cores` (time-sliced, a slice at a time), a virtual thread blocking inside
//! `synchronized` keeps its carrier (a core) for its whole wait on JDK 21-23, and creating a
//! platform thread costs its creator CPU (`spawn_cost`).

use crate::scenario::{CpuScheduling, Jdk, Scenario, Service};
use crate::time::Nanos;
use crate::topology::PoolSpec;

/// Whether a call of `service` made on a virtual thread (`on_virtual`) pins its carrier: it
/// blocks inside `synchronized`, which a virtual thread cannot unmount from before JDK 24
/// (JEP 491), so it keeps one of the cores for its whole wait.
pub fn pins_carrier(scenario: &Scenario, service: &Service, on_virtual: bool) -> bool {
    service.pinned && on_virtual && scenario.jdk < Jdk::V25
}

/// How much of `left` CPU work a thread runs before it gives its core up: time-sliced, a
/// platform thread runs a slice at a time (Linux's fair scheduler shares a core among
/// runnable threads); a virtual thread keeps its carrier until it blocks ("the scheduler does
/// not currently implement time sharing for virtual threads", JEP 444); run-to-completion,
/// the whole burst.
pub fn next_burst(scheduling: CpuScheduling, on_virtual: bool, left: Nanos) -> Nanos {
    match scheduling {
        CpuScheduling::TimeSliced { slice, .. } if !on_virtual => left.min(slice),
        _ => left,
    }
}

/// The CPU its creator spends on the thread a pool of `spec` just started for a submitted
/// task, `created` telling whether it started one: `new Thread(r).start()` of a platform
/// thread costs `spawn_cost`, and the task runs once the thread exists. A virtual thread
/// costs nothing measurable.
pub fn creation_cost(scenario: &Scenario, spec: &PoolSpec, created: bool) -> Nanos {
    if created && !spec.virtual_threads {
        scenario.spawn_cost
    } else {
        Nanos::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_platform_burst_under_time_slicing_is_cut_to_a_slice() {
        let sliced = CpuScheduling::TimeSliced {
            slice: Nanos::from_millis(3),
            switch: Nanos::from_micros(2),
        };
        let left = Nanos::from_millis(10);
        assert_eq!(next_burst(sliced, false, left), Nanos::from_millis(3));
        assert_eq!(next_burst(sliced, true, left), left);
        assert_eq!(
            next_burst(sliced, false, Nanos::from_millis(1)),
            Nanos::from_millis(1)
        );
        assert_eq!(
            next_burst(CpuScheduling::RunToCompletion, false, left),
            left
        );
    }

    #[test]
    fn a_pinned_call_keeps_its_carrier_only_on_a_virtual_thread_before_jdk_25() {
        let s = crate::scenario::load("pinning", &[]).expect("preset loads");
        let svc = &s.services[0];
        assert!(pins_carrier(&s, svc, true));
        assert!(!pins_carrier(&s, svc, false));
        let s25 = crate::scenario::load("pinning", &["scenario.jdk=25".into()]).expect("loads");
        assert!(!pins_carrier(&s25, &s25.services[0], true));
    }

    #[test]
    fn only_a_new_platform_thread_costs_its_creator() {
        let s = crate::scenario::load("executor-vs-threads", &[]).expect("preset loads");
        let platform = crate::topology::pool_spec(&s, crate::topology::PoolRole::Unbounded);
        assert!(!platform.virtual_threads);
        assert_eq!(creation_cost(&s, &platform, true), Nanos::from_micros(40));
        assert_eq!(creation_cost(&s, &platform, false), Nanos::ZERO);
        let mut virtual_threads = platform.clone();
        virtual_threads.virtual_threads = true;
        assert_eq!(creation_cost(&s, &virtual_threads, true), Nanos::ZERO);
    }
}

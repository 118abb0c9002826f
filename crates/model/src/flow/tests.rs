use super::*;
use crate::scenario::{ServiceId, Strategy};

#[test]
fn a_call_cut_by_its_read_timeout_times_out_whatever_its_failure_draw() {
    assert_eq!(
        CallResult::of_call(true, false, 0.0, 1.0),
        CallResult::TimedOut
    );
    assert_eq!(
        CallResult::of_call(false, true, 0.9, 0.5),
        CallResult::NoConnection
    );
    assert_eq!(
        CallResult::of_call(false, false, 0.4, 0.5),
        CallResult::Failed
    );
    assert_eq!(CallResult::of_call(false, false, 0.5, 0.5), CallResult::Ok);
}

#[test]
fn an_injected_hang_wins_over_a_slow_fault_and_the_drawn_hang() {
    let ms = Nanos::from_millis;
    let hang = Some(Hang {
        probability: 0.5,
        duration: ms(9_000),
    });
    let slow = Some(Fault::Slow { factor: 2.0 });
    assert_eq!(call_latency(ms(100), None, slow, None, 0.0), ms(200));
    assert_eq!(call_latency(ms(100), Some(ms(30)), None, None, 0.0), ms(30));
    assert_eq!(call_latency(ms(100), None, None, hang, 0.4), ms(9_000));
    assert_eq!(call_latency(ms(100), None, None, hang, 0.6), ms(100));
    let injected = Some(Fault::Hang { duration: ms(5) });
    assert_eq!(call_latency(ms(100), None, injected, hang, 0.0), ms(5));
}

#[test]
fn the_first_failure_without_fallback_decides_the_reason_and_fallbacks_degrade_to_partial() {
    let mut v: Verdict<&str> = Verdict::default();
    assert_eq!(v.outcome(), (Outcome::Success, Detail::None));
    let fb = v.complete(ServiceId(2), true, CallResult::Failed, "a");
    assert_eq!(fb, Completion::FellBack);
    assert_eq!(
        v.outcome(),
        (Outcome::Partial, Detail::Fallback(ServiceId(2)))
    );
    v.complete(ServiceId(1), false, CallResult::TimedOut, "b");
    v.complete(ServiceId(0), false, CallResult::Failed, "c");
    assert_eq!(
        v.outcome(),
        (
            Outcome::Failed,
            Detail::Failed(FailReason::CallTimedOut(ServiceId(1)))
        )
    );
    assert_eq!(v.last_completer(), Some("c"));
}

#[test]
fn the_handler_answers_for_sequential_code_and_rejections_else_the_last_completer() {
    let mut v: Verdict<&str> = Verdict::default();
    v.complete(ServiceId(0), false, CallResult::Ok, "worker");
    assert_eq!(
        v.responding_thread(Strategy::Bulkhead, Some("handler")),
        Some("worker")
    );
    assert_eq!(
        v.responding_thread(Strategy::Sequential, Some("handler")),
        Some("handler")
    );
    v.reject(ServiceId(0));
    assert_eq!(
        v.responding_thread(Strategy::Bulkhead, Some("handler")),
        Some("handler")
    );
}

#[test]
fn a_client_answered_within_a_round_trip_or_refused_waits_out_the_round_trip() {
    let think = Nanos::ZERO;
    let instant = Nanos::ZERO;
    assert_eq!(
        client_pause(Outcome::Refused, Nanos::from_millis(5), think),
        RETRY_AFTER_REFUSAL
    );
    assert_eq!(
        client_pause(Outcome::Failed, instant, think),
        RETRY_AFTER_REFUSAL
    );
    let quarter = Nanos(RETRY_AFTER_REFUSAL.0 / 4);
    assert_eq!(
        client_pause(Outcome::Failed, quarter, think),
        Nanos(RETRY_AFTER_REFUSAL.0 - quarter.0)
    );
    assert_eq!(
        client_pause(Outcome::Success, Nanos::from_millis(200), think),
        Nanos::ZERO
    );
    let long = Nanos::from_millis(50);
    assert_eq!(client_pause(Outcome::Refused, instant, long), long);
}

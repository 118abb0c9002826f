//! The session as a state machine, driven by hand: no engine, no terminal.

use serde_json::json;

use super::*;
use crate::lesson::parse;
use crate::scenario::TourKey;

const LESSON: &str = r#"
[lesson]
title = "Test"
minutes = 5

[[parts]]
preset = "ironthread"
strategy = "sequential"

[[parts.steps]]
at = "0s"
keys = "h"
caption = "Five pages."

[[parts.steps]]
at = "1s"
ask = "How long does a page take?"
answer = "latency_ms.mean"
unit = "ms"
tolerance = 0.05
reveal = "8.5s"
reveal_keys = "c"
explain = "{answer} ms"

[[parts]]
preset = "ironthread"

[[parts.steps]]
at = "2s"
ask = "Which?"
choices = [
  { text = "slow", when = "latency_ms.mean > 1500" },
  { text = "fast", when = "latency_ms.mean <= 1500", why = "no" },
]
"#;

fn session() -> Session {
    Session::new(parse("test.toml", LESSON, None, &[], None).expect("lesson"))
}

fn s(secs: f64) -> Nanos {
    Nanos::from_secs_f64(secs)
}

#[test]
fn steps_fire_at_their_times_and_a_question_waits_for_its_reveal() {
    let mut l = session();
    assert_eq!(l.next_stop(), Some(s(0.0)));
    assert_eq!(
        l.due(s(0.0), false),
        Some(Due::Step(vec![TourKey::Char('h')]))
    );
    l.fire();
    assert_eq!(l.shown(), &Showing::Caption);
    assert_eq!(l.next_stop(), None, "a caption holds the clock");
    assert_eq!(l.go_on(), Some(Next::Play));
    assert_eq!(l.due(s(0.5), false), None);
    assert_eq!(l.due(s(1.0), false), Some(Due::Step(Vec::new())));
    l.fire();
    assert!(l.is_asking());
    assert_eq!(l.question_number(), Some((1, 2)));
    for c in "1.7x".chars() {
        l.type_char(c);
    }
    assert!(!l.submit(), "not a unit");
    assert!(matches!(l.shown(), Showing::Asking { error: Some(_), .. }));
    l.backspace();
    l.type_char('s');
    assert!(l.submit());
    assert_eq!(l.next_stop(), Some(s(8.5)));
    assert_eq!(l.due(s(8.0), false), None);
    // A finite load that has ended moves the clock no more: the reveal is due at once.
    assert_eq!(
        l.due(s(8.0), true),
        Some(Due::Reveal(vec![TourKey::Char('c')]))
    );
    l.fire();
    assert!(l.is_measuring());
    l.measure(&json!({ "latency_ms": { "mean": 1700.0 } }), s(8.5));
    let Showing::Revealed(r) = l.shown() else {
        panic!("revealed: {:?}", l.shown())
    };
    assert_eq!(r.verdict, Grade::Right);
    assert_eq!(r.explanation, "1700 ms");
    assert_eq!(l.records().len(), 1);
    assert_eq!(l.go_on(), Some(Next::Part(1)));
    assert_eq!(l.next_stop(), Some(s(2.0)));
}

#[test]
fn the_last_step_s_end_shows_the_results_and_the_score() {
    let mut l = session();
    l.fire();
    l.go_on();
    l.fire();
    l.type_char('9');
    l.submit();
    l.fire();
    l.measure(&json!({ "latency_ms": { "mean": 1700.0 } }), s(8.5));
    assert_eq!(l.go_on(), Some(Next::Part(1)));
    l.fire();
    l.type_char('b');
    assert!(l.submit());
    l.fire();
    l.measure(&json!({ "latency_ms": { "mean": 1000.0 } }), s(2.0));
    let Showing::Revealed(r) = l.shown() else {
        panic!()
    };
    assert_eq!((r.verdict.clone(), r.answer.as_str()), (Grade::Right, "b"));
    assert_eq!(l.go_on(), Some(Next::Results));
    assert!(l.is_over());
    assert_eq!(l.score(), (1, 2));
    assert_eq!(l.go_on(), None);
    l.close_results();
    assert_eq!(l.shown(), &Showing::Over);
}

#[test]
fn an_empty_enter_skips_the_prediction() {
    let mut l = session();
    l.fire();
    l.go_on();
    l.fire();
    assert!(l.submit());
    assert_eq!(l.shown(), &Showing::Watching(Guess::Skipped));
}

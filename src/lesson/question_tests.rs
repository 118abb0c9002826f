//! Tests of `question.rs`.
use super::*;
use crate::lesson::expr::{parse_condition, parse_expr};

fn number_question(tolerance: f64, within: f64) -> Question {
    Question {
        text: "How many requests a second?".into(),
        kind: QuestionKind::Number {
            answer: parse_expr("pools.tomcat.max / (theory.handler_hold_ms / 1000)").expect("expr"),
            unit: Unit::named("req/s"),
            tolerance,
            within,
        },
        explain: Template::parse(
            "{pools.tomcat.max} threads / {theory.handler_hold_ms / 1000} s = {answer} req/s",
        )
        .expect("template"),
        misconceptions: vec![Misconception {
            when: parse_condition("guess > answer * 1.5").expect("condition"),
            explain: Template::parse("more clients do not make more threads").expect("t"),
        }],
    }
}

fn screen(threads: u32) -> Value {
    serde_json::json!({
        "pools": [{ "name": "tomcat", "max": threads }],
        "theory": { "handler_hold_ms": 1700.0 },
        "compare": {
            "sequential": { "latency_ms": { "p99": 1700.0 } },
            "shared": { "latency_ms": { "p99": 2900.0 } },
            "bulkhead": { "latency_ms": { "p99": 1000.0 } },
            "unbounded": { "latency_ms": { "p99": 1000.4 } },
        },
    })
}

#[test]
fn a_number_is_right_within_its_tolerance_of_the_run_s_answer() {
    let q = number_question(0.1, 0.0);
    let guess = q.read("110").expect("a number");
    let r = q.reveal(&guess, &screen(200));
    assert_eq!(r.verdict, Grade::Right);
    assert_eq!(r.answer, "117.6 req/s");
    assert_eq!(r.explanation, "200 threads / 1.7 s = 117.6 req/s");
    assert_eq!(r.misconception, None);
    // The same prediction on a model with twice the threads is wrong, and the reveal's
    // arithmetic follows the model.
    let r = q.reveal(&guess, &screen(400));
    assert_eq!(r.verdict, Grade::Wrong);
    assert_eq!(r.answer, "235.3 req/s");
    assert_eq!(r.explanation, "400 threads / 1.7 s = 235.3 req/s");
}

#[test]
fn a_wrong_number_can_reveal_a_misconception() {
    let q = number_question(0.1, 0.0);
    let r = q.reveal(&q.read("235 req/s").expect("n"), &screen(200));
    assert_eq!(r.verdict, Grade::Wrong);
    assert_eq!(r.guess, "235 req/s");
    assert_eq!(
        r.misconception.as_deref(),
        Some("more clients do not make more threads")
    );
    let r = q.reveal(&q.read("50").expect("n"), &screen(200));
    assert_eq!((r.verdict, r.misconception), (Grade::Wrong, None));
}

#[test]
fn an_absolute_margin_grades_answers_near_zero() {
    let mut q = number_question(0.1, 5.0);
    if let QuestionKind::Number { answer, .. } = &mut q.kind {
        *answer = parse_expr("0").expect("expr");
    }
    assert_eq!(
        q.reveal(&Guess::Number(4.0), &screen(200)).verdict,
        Grade::Right
    );
    assert_eq!(
        q.reveal(&Guess::Number(6.0), &screen(200)).verdict,
        Grade::Wrong
    );
    assert_eq!(
        q.reveal(&Guess::Skipped, &screen(200)).verdict,
        Grade::Skipped
    );
}

fn choice_question() -> Question {
    let c = |text: &str, when: &str, why: Option<&str>| Choice {
        text: text.into(),
        when: parse_condition(when).expect("condition"),
        why: why.map(Into::into),
    };
    Question {
        text: "Twice the threads?".into(),
        kind: QuestionKind::Choice(vec![
            c(
                "the same",
                "pools.tomcat.max <= 200",
                Some("threads set the ceiling"),
            ),
            c("double", "pools.tomcat.max > 200", None),
        ]),
        explain: Template::parse("the ceiling").expect("t"),
        misconceptions: Vec::new(),
    }
}

#[test]
fn the_right_choice_is_the_one_whose_condition_holds_on_the_run() {
    let q = choice_question();
    assert_eq!(q.read("A"), Ok(Guess::Choice(0)));
    assert!(q.read("c").is_err());
    assert!(q.read("ab").is_err());
    let r = q.reveal(&Guess::Choice(0), &screen(200));
    assert_eq!((r.verdict, r.answer.as_str()), (Grade::Right, "a"));
    let r = q.reveal(&Guess::Choice(0), &screen(400));
    assert_eq!((r.verdict, r.answer.as_str()), (Grade::Wrong, "b"));
    assert_eq!(r.misconception.as_deref(), Some("threads set the ceiling"));
    // A run with no such figure cannot grade it.
    let r = q.reveal(&Guess::Choice(0), &serde_json::json!({}));
    assert!(matches!(r.verdict, Grade::Ungraded(_)), "{r:?}");
}

fn order_question(tolerance: f64) -> Question {
    let item = |s: &str| Item {
        text: s.into(),
        value: parse_expr(&format!("compare.{s}.latency_ms.p99")).expect("expr"),
    };
    Question {
        text: "Rank by p99, lowest first".into(),
        kind: QuestionKind::Order {
            items: vec![
                item("sequential"),
                item("shared"),
                item("bulkhead"),
                item("unbounded"),
            ],
            descending: false,
            tolerance,
            unit: Unit::named("ms"),
        },
        explain: Template::parse("").expect("t"),
        misconceptions: vec![Misconception {
            when: parse_condition("guess.b == 1").expect("c"),
            explain: Template::parse("the common pool is not free").expect("t"),
        }],
    }
}

#[test]
fn an_order_is_right_when_no_item_comes_before_one_beyond_a_tie_with_it() {
    let q = order_question(0.01);
    let s = screen(200);
    // bulkhead and unbounded are 0.04 % apart: tied, either order is right.
    for typed in ["cdab", "d c a b", "c,d,a,b"] {
        let r = q.reveal(&q.read(typed).expect("order"), &s);
        assert_eq!(r.verdict, Grade::Right, "{typed}");
    }
    let r = q.reveal(&q.read("cdba").expect("order"), &s);
    assert_eq!(r.verdict, Grade::Wrong);
    assert_eq!(r.answer, "cdab");
    assert_eq!(r.detail, "c 1000 ms = d 1000 ms < a 1700 ms < b 2900 ms");
    let r = q.reveal(&q.read("bcda").expect("order"), &s);
    assert_eq!(
        r.misconception.as_deref(),
        Some("the common pool is not free")
    );
    // Without a tolerance the 0.4 ms decide.
    let q = order_question(0.0);
    assert_eq!(
        q.reveal(&q.read("dcab").expect("order"), &s).verdict,
        Grade::Wrong
    );
}

#[test]
fn an_order_takes_each_letter_once() {
    let q = order_question(0.0);
    for bad in ["abc", "abcc", "abcde", "abcx"] {
        assert_eq!(
            q.read(bad).map_err(|e| e.to_string()),
            Err("type each letter a-d once, in order (e.g. dcba)".into()),
            "{bad}"
        );
    }
    assert_eq!(q.read(""), Ok(Guess::Skipped));
}

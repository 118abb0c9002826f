//! Tests of `summary.rs`.
use super::*;
use crate::lesson::results::Answer;

fn results(guesses: &[(&str, Option<f64>, &str)]) -> Results {
    let answers = guesses
        .iter()
        .enumerate()
        .map(|(i, &(guess, value, result))| Answer {
            question: i + 1,
            kind: if value.is_some() { "number" } else { "choice" }.into(),
            result: result.into(),
            guess: guess.into(),
            guess_value: value,
            answer: if value.is_some() {
                "1700 ms".into()
            } else {
                "b".into()
            },
            measured: value.map(|_| 1700.0),
            unit: if value.is_some() {
                "ms".into()
            } else {
                String::new()
            },
            text: format!("question {}", i + 1),
        })
        .collect();
    Results {
        lesson: "l".into(),
        title: "L".into(),
        set: Vec::new(),
        score: guesses.iter().filter(|g| g.2 == "right").count(),
        questions: guesses.len(),
        complete: true,
        answers,
    }
}

#[test]
fn a_class_s_predictions_are_counted_per_question() {
    let files = vec![
        (
            "a.json".to_owned(),
            results(&[("1700 ms", Some(1700.0), "right"), ("b", None, "right")]),
        ),
        (
            "b.json".to_owned(),
            results(&[("1000 ms", Some(1000.0), "wrong"), ("a", None, "wrong")]),
        ),
        (
            "c.json".to_owned(),
            results(&[("1.7 s", Some(1700.0), "right"), ("b", None, "right")]),
        ),
        (
            "d.json".to_owned(),
            results(&[("", None, "skipped"), ("", None, "skipped")]),
        ),
    ];
    let s = summarise(&files).expect("one lesson");
    assert_eq!((s.files, s.complete), (4, 4));
    assert!((s.mean_score - 1.0).abs() < 1e-9);
    let q1 = &s.questions[0];
    assert_eq!((q1.right, q1.wrong, q1.skipped), (2, 1, 1));
    assert_eq!(q1.bins.len(), NUMBER_BINS);
    assert_eq!(q1.bins.iter().map(|b| b.count).sum::<usize>(), 3);
    assert_eq!(q1.bins[0].count, 1, "{:?}", q1.bins);
    let last = q1.bins.last().expect("bins");
    assert_eq!((last.count, last.answer), (2, true));
    let q2 = &s.questions[1];
    assert_eq!(
        q2.bins,
        [
            Bin {
                label: "b".into(),
                count: 2,
                answer: true
            },
            Bin {
                label: "a".into(),
                count: 1,
                answer: false
            },
        ]
    );
    let text = s.text();
    assert!(text.contains("2. question 2 (choice)"), "{text}");
    assert!(text.contains("right 2 · wrong 1 · skipped 1"), "{text}");
}

#[test]
fn files_of_another_lesson_do_not_merge() {
    let mut other = results(&[("b", None, "right")]);
    other.lesson = "other".into();
    let files = vec![
        ("a.json".to_owned(), results(&[("b", None, "right")])),
        ("z.json".to_owned(), other),
    ];
    assert_eq!(
        summarise(&files).map(|_| ()).map_err(|e| e.to_string()),
        Err("z.json: its lesson is other, the first file's l: a summary merges one lesson".into())
    );
    assert_eq!(summarise(&[]), Err(SummaryError::Empty));
}

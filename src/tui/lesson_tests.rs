//! Lessons as a class plays them, on `App` without a terminal: every built-in lesson plays to
//! its end answering every question right and every one wrong, the reveal shows the answer
//! computed from the run, a changed model changes the answer and the grading follows, and
//! every box fits an 80x24 screen.

use super::*;
use crate::lesson::play::{Moment, play, right_answer, wrong_answer};
use crate::lesson::question::Grade;
use crate::lesson::{self, Lesson, Place, Session};

/// The screen as text, one row a line.
fn screen(app: &App, width: u16, height: u16) -> String {
    let buffer = crate::screenshot::render(app, width, height);
    (0..height)
        .map(|y| {
            (0..width)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Plays `lesson`, predicting with `predict` from the reference play's records; at every
/// step and reveal, checks that the lesson's box fits 80x24 and the reveal shows its answer.
fn play_checked(
    lesson: &Lesson,
    theme: Theme,
    predict: &mut dyn FnMut(Place, &crate::lesson::question::Question) -> String,
) -> Session {
    let mut watch = |app: &mut App, moment: Moment| {
        let (Moment::Showing { .. } | Moment::Revealed { .. }) = moment else {
            return;
        };
        let area = ratatui::layout::Rect::new(0, 0, 80, 24);
        let b = crate::tui::ui::lesson::lesson_box(app, area).expect("a box shows");
        assert!(
            b.wanted <= b.area.height,
            "{}: {moment:?}: the box needs {} rows, the screen gives {}",
            lesson.name,
            b.wanted,
            b.area.height
        );
        if let Moment::Revealed { .. } = moment {
            let Some(Showing::Revealed(r)) = app.lesson().map(Session::shown) else {
                panic!("a reveal shows")
            };
            let text = screen(app, 80, 24).replace('\n', " ");
            // A number's answer; a choice's letter and text, an order's values.
            let shown = if r.measured.is_some() || r.detail.is_empty() {
                &r.answer
            } else {
                &r.detail
            };
            let answer: String = shown.chars().take(20).collect();
            assert!(
                text.contains(&format!("measured: {answer}")),
                "{}: the reveal shows the answer {answer}:\n{}",
                lesson.name,
                screen(app, 80, 24)
            );
        }
    };
    play(lesson.clone(), theme, predict, &mut watch).expect("the lesson plays to its end")
}

/// The answers as the run gives them: the lesson played once without predictions.
fn reference(lesson: &Lesson) -> Session {
    play(
        lesson.clone(),
        Theme::Dark,
        &mut |_, _| String::new(),
        &mut |_, _| {},
    )
    .expect("the lesson plays")
}

fn predicting(
    reference: &Session,
    answer: fn(&crate::lesson::question::Question, &crate::lesson::Record) -> String,
) -> impl FnMut(Place, &crate::lesson::question::Question) -> String + '_ {
    move |place, question| {
        let record = reference
            .records()
            .iter()
            .find(|r| r.number == place.number)
            .expect("the reference revealed it");
        answer(question, record)
    }
}

#[test]
fn every_builtin_lesson_plays_to_its_end_answered_right_and_wrong() {
    for name in lesson::builtin_names() {
        let l = lesson::load(name, &[], None).expect("lesson loads");
        let questions = l.questions().len();
        assert!(
            (4..=6).contains(&questions),
            "{name}: {questions} questions"
        );
        // `threadlab check`'s play: every question has one answer, every caption's claims
        // hold; its answers are the reference the predictions are made from.
        lesson::names::validate(&l).expect("names");
        let reference = lesson::play::check(&l).expect("the lesson passes its check");
        assert_eq!(
            reference.records().len(),
            questions,
            "{name}: every question revealed"
        );
        let right = play_checked(&l, Theme::Dark, &mut predicting(&reference, right_answer));
        assert_eq!(right.score(), (questions, questions), "{name}: all right");
        assert!(right.is_over());
        let wrong = play_checked(&l, Theme::Light, &mut predicting(&reference, wrong_answer));
        assert_eq!(wrong.score(), (0, questions), "{name}: all wrong");
        assert!(
            wrong
                .records()
                .iter()
                .all(|r| r.reveal.verdict == Grade::Wrong),
            "{name}: {:?}",
            wrong.records()
        );
        // The same runs: the measured answers do not depend on the predictions.
        let answers = |s: &Session| {
            s.records()
                .iter()
                .map(|r| r.reveal.answer.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(answers(&right), answers(&reference), "{name}");
        assert_eq!(answers(&wrong), answers(&reference), "{name}");
    }
}

#[test]
fn a_changed_model_changes_the_answer_and_the_grading_follows_it() {
    let plain = lesson::load("threads-and-the-ceiling", &[], None).expect("lesson");
    let doubled = lesson::load(
        "threads-and-the-ceiling",
        &["server.threads=400".into()],
        None,
    )
    .expect("lesson");
    let (a, b) = (reference(&plain), reference(&doubled));
    // Question 3: the goodput of 400 clients on the server's threads.
    let goodput = |s: &Session| s.records()[2].reveal.measured.expect("a number");
    let (before, after) = (goodput(&a), goodput(&b));
    assert!((before - 113.3).abs() < 0.1, "{before}");
    assert!(
        after > before * 1.9,
        "twice the threads, about twice the goodput: {after}"
    );
    // The prediction that was right for 200 threads is wrong for 400, and the other way round.
    let answers_of = |r: &Session| {
        let r = r.clone();
        move |place: Place, q: &crate::lesson::question::Question| {
            right_answer(q, &r.records()[place.number - 1])
        }
    };
    let old_on_new = play(
        doubled.clone(),
        Theme::Dark,
        &mut answers_of(&a),
        &mut |_, _| {},
    )
    .expect("plays");
    assert_eq!(old_on_new.records()[2].reveal.verdict, Grade::Wrong);
    let new_on_new =
        play(doubled, Theme::Dark, &mut answers_of(&b), &mut |_, _| {}).expect("plays");
    assert_eq!(new_on_new.records()[2].reveal.verdict, Grade::Right);
    assert_eq!(new_on_new.score().0, new_on_new.score().1);
    // The reveal's arithmetic names the model's numbers.
    let explained = &new_on_new.records()[2].reveal.explanation;
    assert!(
        explained.starts_with("Little's law: 400 threads / 1.7 s"),
        "{explained}"
    );
}

/// A lesson of one question on ironthread, for the keys.
fn small() -> App {
    let text = r#"
[lesson]
title = "Keys"
minutes = 1
[[parts]]
preset = "ironthread"
strategy = "sequential"
[[parts.steps]]
at = "0s"
ask = "How long does a page take?"
answer = "latency_ms.mean"
unit = "ms"
reveal = "2s"
"#;
    let l = lesson::parse("keys.toml", text, None, &[], None).expect("lesson");
    let s = l.parts[0].scenario.clone();
    let mut app = App::new(s, Strategy::Sequential, Theme::Dark);
    app.start_lesson(Session::new(l));
    app
}

#[test]
fn a_question_takes_every_key_as_text_and_q_quits_only_when_asked_twice() {
    let mut app = small();
    assert!(app.lesson().is_some_and(Session::is_asking));
    assert!(app.is_typing(), "q, digits and letters are the answer's");
    assert!(app.theory_hidden(), "theory would give the answer away");
    for c in "1q".chars() {
        app.press(Key::Char(c));
    }
    assert!(!app.should_quit());
    assert_eq!(
        app.lesson().map(Session::shown),
        Some(&Showing::Asking {
            typed: "1q".into(),
            error: None
        })
    );
    // Ctrl-C asks first, and says which key quits while q is a letter.
    app.press(Key::Ctrl('c'));
    assert!(!app.should_quit());
    assert!(
        matches!(app.status(), Some(Status::Info(t)) if t.starts_with("quit the lesson? Ctrl-C again")),
        "{:?}",
        app.status()
    );
    app.press(Key::Backspace);
    app.press(Key::Backspace);
    for c in "1.7s".chars() {
        app.press(Key::Char(c));
    }
    app.press(Key::Enter);
    assert!(matches!(
        app.lesson().map(Session::shown),
        Some(Showing::Watching(_))
    ));
    assert!(!app.clock().is_paused(), "the run plays to the reveal");
    // During the run the presenter's keys work; q asks first.
    app.press(Key::Char('z'));
    assert!(app.zoom().is_some());
    app.press(Key::Char('q'));
    assert!(!app.should_quit());
    for _ in 0..5 {
        app.press(Key::Char('z'));
    }
    assert_eq!(app.zoom(), None, "after the last panel, every panel again");
    script::play_to(&mut app, Nanos::from_secs(2));
    let Some(Showing::Revealed(r)) = app.lesson().map(Session::shown) else {
        panic!("revealed: {:?}", app.lesson().map(Session::shown));
    };
    assert_eq!(r.verdict, Grade::Right, "one page of 1.7 s by 2 s");
    assert!(!app.theory_hidden());
    app.press(Key::Char(' '));
    assert!(app.lesson().is_some_and(Session::is_over));
    assert!(app.screen_text().contains("Keys · 1 of 1 right"));
    app.press(Key::Char('z'));
    assert_eq!(app.zoom(), None, "the results take the keys");
    app.press(Key::Esc);
    assert_eq!(app.lesson().map(Session::shown), Some(&Showing::Over));
    app.press(Key::Char('q'));
    assert!(app.should_quit(), "after the lesson q quits at once");
}

impl App {
    fn screen_text(&self) -> String {
        screen(self, 80, 24)
    }
}

use crate::tui::script;

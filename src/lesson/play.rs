//! A lesson played without a terminal, by the same `App` and clock as the TUI: the
//! predictions come from a function, and a watcher sees the screen at every step, reveal and
//! tick. `threadlab check` plays a lesson this way to see that every question has an answer on
//! the run and every caption's `expect` holds; `--handout` takes its pictures this way.

use std::time::Duration;

use crate::tui::Theme;
use crate::tui::app::{Action, App};
use crate::tui::clock::BudgetSpec;
use crate::tui::expect;
use crate::tui::script;

use super::error::LessonError;
use super::model::{Lesson, Place};
use super::question::{Grade, Question, QuestionKind};
use super::session::{Record, Session, Showing};

/// What the watcher is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moment {
    /// A step's caption or question has just shown (part and step from 0).
    Showing { part: usize, step: usize },
    /// A question's answer has just been revealed.
    Revealed { part: usize, step: usize },
    /// The clock moved (within part `part`).
    Tick { part: usize },
}

/// How much simulated time one move of the clock plays at most.
const TICK: Duration = Duration::from_millis(250);

/// Plays `lesson` to its results: `predict` types each question's prediction (an empty
/// line skips it), `watch` sees the app at every moment. `Err` when the lesson cannot go on
/// (a run that stalls, a prediction refused).
pub fn play(
    lesson: Lesson,
    theme: Theme,
    predict: &mut dyn FnMut(Place, &Question) -> String,
    watch: &mut dyn FnMut(&mut App, Moment),
) -> Result<Session, LessonError> {
    let source = lesson.source.clone();
    let stuck = |why: String| LessonError::Field {
        origin: source.clone(),
        field: "parts".into(),
        reason: why,
    };
    let first = &lesson.parts[0];
    let mut app = App::new(first.scenario.clone(), first.strategy, theme);
    // A tick a quarter of a simulated second, four times over the whole lesson, at most.
    let limit = lesson.simulated().as_secs_f64() as usize * 8 + 10_000;
    app.start_lesson(Session::new(lesson));
    for _ in 0..limit {
        let Some(session) = app.lesson() else { break };
        let (part, step) = (session.part_index(), session.step_index());
        match session.shown().clone() {
            Showing::Playing | Showing::Watching(_) => {
                if app.clock().is_paused() {
                    app.apply(Action::TogglePause);
                }
                app.advance(TICK, BudgetSpec::Events(u64::MAX));
                watch(&mut app, Moment::Tick { part });
            }
            Showing::Measuring(_) => script::settle(&mut app),
            Showing::Caption => {
                watch(&mut app, Moment::Showing { part, step });
                app.apply(Action::LessonNext);
            }
            Showing::Asking { .. } => {
                watch(&mut app, Moment::Showing { part, step });
                let number = app.lesson().and_then(|l| l.lesson().number_of(part, step));
                let typed = app
                    .lesson()
                    .and_then(|l| l.part().steps[step].ask.as_ref())
                    .map(|ask| {
                        let place = Place {
                            part,
                            step,
                            number: number.unwrap_or(0),
                        };
                        predict(place, &ask.question)
                    })
                    .unwrap_or_default();
                for c in typed.chars() {
                    app.apply(Action::Answer(c));
                }
                app.apply(Action::AnswerEnter);
                if let Some(Showing::Asking { error: Some(e), .. }) =
                    app.lesson().map(Session::shown)
                {
                    return Err(stuck(format!(
                        "question {}: {typed:?} was refused: {e}",
                        number.unwrap_or(0)
                    )));
                }
            }
            Showing::Revealed(_) => {
                watch(&mut app, Moment::Revealed { part, step });
                app.apply(Action::LessonNext);
            }
            Showing::Results | Showing::Over => return Ok(session.clone()),
        }
        if let Some(crate::tui::app::Status::Error(e)) = app.status() {
            return Err(stuck(format!("part {}: {e}", part + 1)));
        }
    }
    Err(stuck("the lesson did not reach its end".into()))
}

/// `threadlab check` of a lesson: plays it without predictions and requires that every
/// question's answer is on the run at its reveal, that exactly one choice holds, and that
/// every caption's `expect` holds when it shows; `Err` names the field.
pub fn check(lesson: &Lesson) -> Result<Session, LessonError> {
    let origin = lesson.source.clone();
    let mut failed: Option<LessonError> = None;
    let session = play(
        lesson.clone(),
        Theme::Dark,
        &mut |_, _| String::new(),
        &mut |app, moment| {
            let Moment::Showing { part, step } = moment else {
                return;
            };
            if failed.is_some() {
                return;
            }
            let screen = app.lesson_screen();
            let expects = app
                .lesson()
                .map(|l| l.part().steps[step].expect.clone())
                .unwrap_or_default();
            for (k, condition) in expects.iter().enumerate() {
                if let Err(e) = expect::check(&screen, condition) {
                    failed = Some(LessonError::Field {
                        origin: origin.clone(),
                        field: format!("parts[{part}].steps[{step}].expect[{k}]"),
                        reason: e.to_string(),
                    });
                }
            }
        },
    )?;
    if let Some(e) = failed {
        return Err(e);
    }
    for record in session.records() {
        answered(lesson, record)?;
    }
    Ok(session)
}

/// A revealed question had one answer on the run.
fn answered(lesson: &Lesson, record: &Record) -> Result<(), LessonError> {
    let step = &lesson.parts[record.part].steps[record.step];
    let Some(ask) = &step.ask else { return Ok(()) };
    let path = format!("parts[{}].steps[{}]", record.part, record.step);
    let at = crate::tui::ui::clock_text(record.at);
    let field = |name: &str, reason: String| LessonError::Field {
        origin: lesson.source.clone(),
        field: format!("{path}.{name}"),
        reason,
    };
    let name = match ask.question.kind {
        QuestionKind::Number { .. } => "answer",
        QuestionKind::Choice(_) => "choices",
        QuestionKind::Order { .. } => "order",
    };
    if let Grade::Ungraded(why) = &record.reveal.verdict {
        return Err(field(
            name,
            format!("at its reveal ({at}) the run has no answer: {why}"),
        ));
    }
    if matches!(ask.question.kind, QuestionKind::Choice(_)) && record.reveal.answer.contains(" or ")
    {
        return Err(field(
            name,
            format!(
                "{} hold on the run at its reveal ({at}): exactly one choice is right",
                record.reveal.answer
            ),
        ));
    }
    Ok(())
}

/// A prediction a student who knew the answer would type: the measured number (to six
/// decimals, in the answer's unit), the first right letter, the right order.
pub fn right_answer(question: &Question, record: &Record) -> String {
    match &question.kind {
        QuestionKind::Number { unit, .. } => {
            let v = record.reveal.measured.unwrap_or_default();
            format!("{} {}", trimmed(v), unit.name()).trim().to_owned()
        }
        QuestionKind::Choice(_) | QuestionKind::Order { .. } => record
            .reveal
            .answer
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect(),
    }
}

/// A prediction that is wrong: three times the number and more, another letter, the right
/// order reversed.
pub fn wrong_answer(question: &Question, record: &Record) -> String {
    match &question.kind {
        QuestionKind::Number { unit, within, .. } => {
            let v = record.reveal.measured.unwrap_or_default();
            format!(
                "{} {}",
                trimmed(v.abs() * 3.0 + within * 2.0 + 10.0),
                unit.name()
            )
            .trim()
            .to_owned()
        }
        QuestionKind::Choice(choices) => (0..choices.len())
            .map(super::question::letter)
            .find(|l| !record.reveal.answer.contains(*l))
            .map(String::from)
            .unwrap_or_default(),
        QuestionKind::Order { .. } => right_answer(question, record).chars().rev().collect(),
    }
}

/// `v` to six decimals at most, trailing zeros dropped.
fn trimmed(v: f64) -> String {
    let text = format!("{v:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

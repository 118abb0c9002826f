//! Every name a lesson's expressions read must be a figure a screen of its part can show
//! (under some strategy, with the compare view open or not) or of `model`; a question's own
//! words (`answer`, `guess`, `guess.a`) only where they have a value. Checked before a lesson
//! plays and by `threadlab check`.

use serde_json::Value;

use crate::report::figures::names_a_figure;
use crate::tui::expect::{condition_path, possible_screens};

use super::error::LessonError;
use super::expr::Expr;
use super::model::Lesson;
use super::question::{QuestionKind, letter};
use super::screen::with_model;

/// Checks every expression, template and `expect` of `lesson`; the error names the field.
pub fn validate(lesson: &Lesson) -> Result<(), LessonError> {
    for (p, part) in lesson.parts.iter().enumerate() {
        let screens: Vec<Value> = possible_screens(&part.scenario)
            .into_iter()
            .map(|v| with_model(v, &part.scenario))
            .collect();
        let known = |name: &str| screens.iter().any(|v| names_a_figure(v, name));
        let bad = |field: String, name: &str, extra: &[String]| LessonError::Field {
            origin: lesson.source.clone(),
            field,
            reason: format!(
                "{name:?} names no figure of the run report of {} (a path of `run --format \
                 json`, the pools' busy, queued and size, recent.*, log.*, compare.<strategy>.*, \
                 model.*){}",
                part.preset,
                if extra.is_empty() {
                    String::new()
                } else {
                    format!(", nor {}", extra.join(", "))
                }
            ),
        };
        let check = |field: String, names: Vec<&str>, extra: &[String]| match names
            .into_iter()
            .find(|n| !extra.iter().any(|e| e == n) && !known(n))
        {
            Some(name) => Err(bad(field, name, extra)),
            None => Ok(()),
        };
        for (s, step) in part.steps.iter().enumerate() {
            let path = format!("parts[{p}].steps[{s}]");
            for (k, condition) in step.expect.iter().enumerate() {
                let field = format!("{path}.expect[{k}]");
                let name = condition_path(condition).map_err(|e| LessonError::Field {
                    origin: lesson.source.clone(),
                    field: field.clone(),
                    reason: e.to_string(),
                })?;
                check(field, vec![name], &[])?;
            }
            let Some(ask) = &step.ask else { continue };
            let q = &ask.question;
            let none: Vec<String> = Vec::new();
            let (explained, guessed): (Vec<String>, Vec<String>) = match &q.kind {
                QuestionKind::Number { answer, .. } => {
                    check(format!("{path}.answer"), answer.names(), &none)?;
                    (vec!["answer".into()], vec!["answer".into(), "guess".into()])
                }
                QuestionKind::Choice(choices) => {
                    for (k, c) in choices.iter().enumerate() {
                        check(format!("{path}.choices[{k}].when"), c.when.names(), &none)?;
                    }
                    (none.clone(), none.clone())
                }
                QuestionKind::Order { items, .. } => {
                    for (k, item) in items.iter().enumerate() {
                        check(
                            format!("{path}.order[{k}].value"),
                            item.value.names(),
                            &none,
                        )?;
                    }
                    let places = |who: &str| -> Vec<String> {
                        (0..items.len())
                            .map(|i| format!("{who}.{}", letter(i)))
                            .collect()
                    };
                    let mut both = places("answer");
                    both.extend(places("guess"));
                    (places("answer"), both)
                }
            };
            let explain_names: Vec<&str> = q.explain.exprs().flat_map(Expr::names).collect();
            check(format!("{path}.explain"), explain_names, &explained)?;
            for (k, m) in q.misconceptions.iter().enumerate() {
                let field = format!("{path}.misconceptions[{k}]");
                check(format!("{field}.when"), m.when.names(), &guessed)?;
                let names: Vec<&str> = m.explain.exprs().flat_map(Expr::names).collect();
                check(format!("{field}.explain"), names, &guessed)?;
            }
        }
    }
    Ok(())
}

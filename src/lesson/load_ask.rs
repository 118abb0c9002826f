//! A step's question as a lesson file writes it -> a [`Question`]: its kind (`answer`,
//! `choices` or `order`) with the fields that go with it, its explanations and
//! misconceptions; each error names the field.

use crate::time::Nanos;

use super::super::error::LessonError;
use super::super::expr::{parse_condition, parse_expr};
use super::super::model::Ask;
use super::super::question::{Choice, Item, Misconception, Question, QuestionKind};
use super::super::raw::RawStep;
use super::super::template::Template;
use super::super::units::Unit;
use super::{FieldCheck, OPTIONS};

impl FieldCheck {
    pub(super) fn ask(
        &self,
        path: &str,
        at: Nanos,
        text: &str,
        raw: &RawStep,
    ) -> Result<Ask, LessonError> {
        let text = self.text(&format!("{path}.ask"), text, 1..=600)?;
        let reveal = match &raw.reveal {
            Some(r) => self.time(&format!("{path}.reveal"), r)?,
            None => at,
        };
        if reveal < at {
            return Err(self.invalid(
                &format!("{path}.reveal"),
                raw.reveal.as_deref().unwrap_or_default(),
                &format!("comes before the question ({at}): the answer is read after it is asked"),
            ));
        }
        let kind = self.kind(path, raw)?;
        let explain = self.template(
            &format!("{path}.explain"),
            raw.explain.as_deref().unwrap_or(""),
        )?;
        if matches!(kind, QuestionKind::Choice(_)) && !raw.misconceptions.is_empty() {
            return Err(self.field(
                &format!("{path}.misconceptions"),
                "a choice's misconceptions are its choices' `why`",
            ));
        }
        let misconceptions = raw
            .misconceptions
            .iter()
            .enumerate()
            .map(|(k, m)| {
                let field = format!("{path}.misconceptions[{k}]");
                Ok(Misconception {
                    when: parse_condition(&m.when).map_err(|e| {
                        self.invalid(&format!("{field}.when"), &m.when, &e.to_string())
                    })?,
                    explain: self.template(&format!("{field}.explain"), &m.explain)?,
                })
            })
            .collect::<Result<Vec<_>, LessonError>>()?;
        Ok(Ask {
            question: Question {
                text,
                kind,
                explain,
                misconceptions,
            },
            reveal,
            reveal_keys: self.keys(
                &format!("{path}.reveal_keys"),
                raw.reveal_keys.as_deref().unwrap_or(""),
            )?,
        })
    }

    fn template(&self, field: &str, text: &str) -> Result<Template, LessonError> {
        self.text(field, text, 0..=2_000)?;
        Template::parse(text).map_err(|e| self.invalid(field, text, &e.to_string()))
    }

    /// The question's kind: exactly one of `answer`, `choices`, `order`, with its own fields.
    fn kind(&self, path: &str, raw: &RawStep) -> Result<QuestionKind, LessonError> {
        let kinds = [
            ("answer", raw.answer.is_some()),
            ("choices", raw.choices.is_some()),
            ("order", raw.order.is_some()),
        ];
        let named: Vec<&str> = kinds.iter().filter(|(_, g)| *g).map(|(n, _)| *n).collect();
        if named.len() != 1 {
            return Err(self.field(
                path,
                &format!(
                    "a question has exactly one of `answer` (a number), `choices` or `order`; \
                     this one has {}",
                    if named.is_empty() {
                        "none".to_owned()
                    } else {
                        named.join(" and ")
                    }
                ),
            ));
        }
        let not_here = |name: &str, given: bool, kind: &str| {
            if given {
                Err(self.field(
                    &format!("{path}.{name}"),
                    &format!("does not go with {kind}"),
                ))
            } else {
                Ok(())
            }
        };
        let tolerance = |default: f64| -> Result<f64, LessonError> {
            let t = raw.tolerance.unwrap_or(default);
            if (0.0..=1.0).contains(&t) {
                Ok(t)
            } else {
                Err(self.invalid(
                    &format!("{path}.tolerance"),
                    t,
                    "is out of range: allowed 0..=1 (a share of the answer: 0.1 is 10 %)",
                ))
            }
        };
        if let Some(answer) = &raw.answer {
            not_here("descending", raw.descending.is_some(), "`answer`")?;
            let within = raw.within.unwrap_or(0.0);
            if !(within.is_finite() && within >= 0.0) {
                return Err(self.invalid(
                    &format!("{path}.within"),
                    within,
                    "is out of range: allowed 0 or more, in the answer's unit",
                ));
            }
            let unit = raw.unit.as_deref().unwrap_or("");
            self.text(&format!("{path}.unit"), unit, 0..=20)?;
            return Ok(QuestionKind::Number {
                answer: parse_expr(answer)
                    .map_err(|e| self.invalid(&format!("{path}.answer"), answer, &e.to_string()))?,
                unit: Unit::named(unit),
                tolerance: tolerance(0.1)?,
                within,
            });
        }
        not_here("within", raw.within.is_some(), "choices or an order")?;
        if let Some(choices) = &raw.choices {
            not_here("unit", raw.unit.is_some(), "`choices`")?;
            not_here("tolerance", raw.tolerance.is_some(), "`choices`")?;
            not_here("descending", raw.descending.is_some(), "`choices`")?;
            self.count(&format!("{path}.choices"), choices.len())?;
            let choices = choices
                .iter()
                .enumerate()
                .map(|(k, c)| {
                    let field = format!("{path}.choices[{k}]");
                    let when = c.when.as_deref().ok_or_else(|| {
                        self.field(
                            &format!("{field}.when"),
                            "is missing: each choice says when it is the right one, as a \
                             condition on the run (`goodput_rps > 100`), so the answer is \
                             computed, never typed",
                        )
                    })?;
                    Ok(Choice {
                        text: self.text(&format!("{field}.text"), &c.text, 1..=200)?,
                        when: parse_condition(when).map_err(|e| {
                            self.invalid(&format!("{field}.when"), when, &e.to_string())
                        })?,
                        why: c
                            .why
                            .as_deref()
                            .map(|w| self.text(&format!("{field}.why"), w, 1..=600))
                            .transpose()?,
                    })
                })
                .collect::<Result<Vec<_>, LessonError>>()?;
            return Ok(QuestionKind::Choice(choices));
        }
        let items = raw.order.as_deref().unwrap_or_default();
        self.count(&format!("{path}.order"), items.len())?;
        let items = items
            .iter()
            .enumerate()
            .map(|(k, item)| {
                let field = format!("{path}.order[{k}]");
                Ok(Item {
                    text: self.text(&format!("{field}.text"), &item.text, 1..=200)?,
                    value: parse_expr(&item.value).map_err(|e| {
                        self.invalid(&format!("{field}.value"), &item.value, &e.to_string())
                    })?,
                })
            })
            .collect::<Result<Vec<_>, LessonError>>()?;
        Ok(QuestionKind::Order {
            items,
            descending: raw.descending.unwrap_or(false),
            tolerance: tolerance(0.01)?,
            unit: Unit::named(raw.unit.as_deref().unwrap_or("")),
        })
    }

    fn count(&self, field: &str, n: usize) -> Result<(), LessonError> {
        if OPTIONS.contains(&n) {
            Ok(())
        } else {
            Err(self.field(
                field,
                &format!(
                    "has {n}: a question offers {} to {} (lettered a, b, ...)",
                    OPTIONS.start(),
                    OPTIONS.end()
                ),
            ))
        }
    }
}

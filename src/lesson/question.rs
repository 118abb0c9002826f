//! A lesson's question and how a prediction is graded: the right answer is computed from the
//! run on screen when it is revealed (an expression over the report), never written in the
//! lesson, so a changed model changes the answer and the grading follows it.

use serde_json::Value;

use super::expr::{EvalError, Expr, Predicate};
use super::template::Template;
use super::units::{ReadError, Unit, number};

/// A question: what is asked, how its answer is computed, and what the reveal explains.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub text: String,
    pub kind: QuestionKind,
    /// Showing at the reveal: the reasoning with its arithmetic, figures from the run.
    pub explain: Template,
    /// Wrong answers that reveal a known misconception, with their own explanation.
    pub misconceptions: Vec<Misconception>,
}

/// The three kinds of question.
#[derive(Debug, Clone, PartialEq)]
pub enum QuestionKind {
    /// A number with a unit: right within `tolerance` (relative) or `within` (absolute, in
    /// the unit), whichever is wider.
    Number {
        answer: Expr,
        unit: Unit,
        tolerance: f64,
        within: f64,
    },
    /// One letter: the right choices are those whose condition holds on the run.
    Choice(Vec<Choice>),
    /// Every item's letter once, in order of its value: items within `tolerance` of each
    /// other are tied, and either order of them is right.
    Order {
        items: Vec<Item>,
        descending: bool,
        tolerance: f64,
        unit: Unit,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub text: String,
    pub when: Predicate,
    /// Said when a student picks it and it is wrong.
    pub why: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub text: String,
    pub value: Expr,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Misconception {
    /// Over the report and `guess`, `answer` (numbers), or `guess.a`, `answer.a` (an ordered
    /// item's place, from 1).
    pub when: Predicate,
    pub explain: Template,
}

/// A student's prediction.
#[derive(Debug, Clone, PartialEq)]
pub enum Guess {
    /// In the answer's unit.
    Number(f64),
    /// The choice's index (`a` is 0).
    Choice(usize),
    /// Item indices, first place first.
    Order(Vec<usize>),
    /// Enter on an empty line: no prediction.
    Skipped,
}

/// Why a typed line is not a prediction for this question.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GuessError {
    #[error("{0}")]
    Number(#[from] ReadError),
    #[error("type one letter, {0}")]
    Letter(String),
    #[error("type each letter {0} once, in order (e.g. {1})")]
    Order(String, String),
}

/// How a prediction fared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grade {
    Right,
    Wrong,
    /// No prediction was made.
    Skipped,
    /// The run gives no answer here (a figure it does not have, no choice that holds).
    Ungraded(String),
}

/// What the reveal shows: the answer measured, the verdict and the explanations.
#[derive(Debug, Clone, PartialEq)]
pub struct Reveal {
    pub verdict: Grade,
    /// The prediction as shown (`1.7 s`, `b`, `cab`; empty when skipped).
    pub guess: String,
    /// The prediction as a number in the answer's unit, for a number question.
    pub guess_value: Option<f64>,
    /// The answer as shown (`1700 ms`, `b`, `cab`).
    pub answer: String,
    /// The measured number, for a number question.
    pub measured: Option<f64>,
    /// The figures behind the answer: each ordered item's value, or the choices that hold.
    pub detail: String,
    pub explanation: String,
    /// A misconception the wrong prediction reveals, explained.
    pub misconception: Option<String>,
}

/// Letters of choices and items: `a`, `b`...
pub fn letter(i: usize) -> char {
    char::from(b'a' + u8::try_from(i.min(25)).unwrap_or(25))
}

/// The index of letter `c` among `n`.
fn index_of(c: char, n: usize) -> Option<usize> {
    let c = c.to_ascii_lowercase();
    ('a'..='z').position(|l| l == c).filter(|&i| i < n)
}

impl QuestionKind {
    pub fn name(&self) -> &'static str {
        match self {
            QuestionKind::Number { .. } => "number",
            QuestionKind::Choice(_) => "choice",
            QuestionKind::Order { .. } => "order",
        }
    }
}

impl Question {
    /// What to type, for the question's box: `in ms`, `a letter, a-d`, `a-c, highest
    /// first`.
    pub fn hint(&self) -> String {
        match &self.kind {
            QuestionKind::Number { unit, .. } if unit.name().is_empty() => "a number".to_owned(),
            QuestionKind::Number { unit, .. } => format!("in {}", unit.name()),
            QuestionKind::Choice(choices) => format!("a letter, {}", letters(choices.len())),
            QuestionKind::Order {
                items, descending, ..
            } => format!(
                "the letters {}, {} first",
                letters(items.len()),
                if *descending { "highest" } else { "lowest" }
            ),
        }
    }

    /// How close a number must be to be right, as the reveal says it: `±5%`, `±5 req/s`,
    /// `±10% or ±5 req/s`, `exactly`; empty for the other kinds.
    pub fn margin(&self) -> String {
        let QuestionKind::Number {
            unit,
            tolerance,
            within,
            ..
        } = &self.kind
        else {
            return String::new();
        };
        let relative = format!("±{}%", number(tolerance * 100.0));
        let absolute = format!("±{}", unit.show(*within));
        match (*tolerance > 0.0, *within > 0.0) {
            (true, true) => format!("{relative} or {absolute}"),
            (true, false) => relative,
            (false, true) => absolute,
            (false, false) => "exactly".to_owned(),
        }
    }

    /// Reads a typed line; empty is [`Guess::Skipped`].
    pub fn read(&self, typed: &str) -> Result<Guess, GuessError> {
        let typed = typed.trim();
        if typed.is_empty() {
            return Ok(Guess::Skipped);
        }
        match &self.kind {
            QuestionKind::Number { unit, .. } => Ok(Guess::Number(unit.read(typed)?)),
            QuestionKind::Choice(choices) => {
                let mut chars = typed.chars();
                match (
                    chars.next().and_then(|c| index_of(c, choices.len())),
                    chars.next(),
                ) {
                    (Some(i), None) => Ok(Guess::Choice(i)),
                    _ => Err(GuessError::Letter(letters(choices.len()))),
                }
            }
            QuestionKind::Order { items, .. } => {
                let n = items.len();
                let picked: Vec<Option<usize>> = typed
                    .chars()
                    .filter(|c| !c.is_whitespace() && !matches!(c, ',' | '<' | '>'))
                    .map(|c| index_of(c, n))
                    .collect();
                let mut seen = vec![false; n];
                let order: Option<Vec<usize>> = picked
                    .into_iter()
                    .map(|i| i.filter(|&i| !std::mem::replace(&mut seen[i], true)))
                    .collect();
                match order {
                    Some(order) if order.len() == n => Ok(Guess::Order(order)),
                    _ => {
                        let example: String = (0..n).rev().map(letter).collect();
                        Err(GuessError::Order(letters(n), example))
                    }
                }
            }
        }
    }

    /// The prediction as the box and the results write it.
    pub fn show_guess(&self, guess: &Guess) -> String {
        match (guess, &self.kind) {
            (Guess::Number(v), QuestionKind::Number { unit, .. }) => unit.show(*v),
            (Guess::Number(v), _) => number(*v),
            (Guess::Choice(i), _) => letter(*i).to_string(),
            (Guess::Order(order), _) => order.iter().map(|&i| letter(i)).collect(),
            (Guess::Skipped, _) => String::new(),
        }
    }

    /// Grades `guess` against the run `screen` shows now.
    pub fn reveal(&self, guess: &Guess, screen: &Value) -> Reveal {
        let report = |name: &str| crate::report::figures::lookup(screen, name);
        let mut out = Reveal {
            verdict: Grade::Skipped,
            guess: self.show_guess(guess),
            guess_value: match guess {
                Guess::Number(v) => Some(*v),
                _ => None,
            },
            answer: String::new(),
            measured: None,
            detail: String::new(),
            explanation: String::new(),
            misconception: None,
        };
        let graded = match &self.kind {
            QuestionKind::Number {
                answer,
                unit,
                tolerance,
                within,
            } => self.number(
                &mut out,
                guess,
                &report,
                (answer, unit, *tolerance, *within),
            ),
            QuestionKind::Choice(choices) => choice(&mut out, guess, &report, choices),
            QuestionKind::Order {
                items,
                descending,
                tolerance,
                unit,
            } => order(
                &mut out,
                guess,
                &report,
                (items, *descending, *tolerance, unit),
            ),
        };
        let vars = match graded {
            Ok(vars) => vars,
            Err(e) => {
                out.verdict = Grade::Ungraded(e.to_string());
                return out;
            }
        };
        let lookup = |name: &str| {
            vars.iter()
                .find(|(n, _)| n == name)
                .map(|&(_, v)| v)
                .or_else(|| report(name))
        };
        out.explanation = self.explain.fill(&lookup);
        if out.verdict == Grade::Wrong && out.misconception.is_none() {
            out.misconception = self
                .misconceptions
                .iter()
                .find(|m| m.when.holds(&lookup).unwrap_or(false))
                .map(|m| m.explain.fill(&lookup));
        }
        out
    }

    fn number(
        &self,
        out: &mut Reveal,
        guess: &Guess,
        report: &dyn Fn(&str) -> Option<f64>,
        (answer, unit, tolerance, within): (&Expr, &Unit, f64, f64),
    ) -> Result<Vec<(String, f64)>, EvalError> {
        let a = answer.eval(report)?;
        out.measured = Some(a);
        out.answer = unit.show(a);
        let mut vars = vec![("answer".to_owned(), a)];
        if let Guess::Number(g) = guess {
            let close = (g - a).abs() <= (tolerance * a.abs()).max(within) + 1e-9 * a.abs();
            out.verdict = if close { Grade::Right } else { Grade::Wrong };
            vars.push(("guess".to_owned(), *g));
        }
        Ok(vars)
    }
}

/// `a-d`, `a or b`.
fn letters(n: usize) -> String {
    match n {
        0 | 1 => "a".to_owned(),
        2 => "a or b".to_owned(),
        _ => format!("a-{}", letter(n - 1)),
    }
}

fn choice(
    out: &mut Reveal,
    guess: &Guess,
    report: &dyn Fn(&str) -> Option<f64>,
    choices: &[Choice],
) -> Result<Vec<(String, f64)>, EvalError> {
    let mut holding = Vec::new();
    for (i, c) in choices.iter().enumerate() {
        if c.when.holds(report)? {
            holding.push(i);
        }
    }
    out.answer = holding
        .iter()
        .map(|&i| letter(i).to_string())
        .collect::<Vec<_>>()
        .join(" or ");
    out.detail = holding
        .iter()
        .map(|&i| format!("{}) {}", letter(i), choices[i].text))
        .collect::<Vec<_>>()
        .join(" · ");
    if holding.is_empty() {
        return Err(EvalError::Missing("a choice that holds on this run".into()));
    }
    if let Guess::Choice(g) = guess {
        out.verdict = if holding.contains(g) {
            Grade::Right
        } else {
            out.misconception = choices.get(*g).and_then(|c| c.why.clone());
            Grade::Wrong
        };
    }
    Ok(Vec::new())
}

fn order(
    out: &mut Reveal,
    guess: &Guess,
    report: &dyn Fn(&str) -> Option<f64>,
    (items, descending, tolerance, unit): (&[Item], bool, f64, &Unit),
) -> Result<Vec<(String, f64)>, EvalError> {
    let values = items
        .iter()
        .map(|i| i.value.eval(report))
        .collect::<Result<Vec<f64>, _>>()?;
    let mut ranked: Vec<usize> = (0..items.len()).collect();
    ranked.sort_by(|&a, &b| {
        let ord = values[a].total_cmp(&values[b]);
        if descending { ord.reverse() } else { ord }
    });
    out.answer = ranked.iter().map(|&i| letter(i)).collect();
    let tied = |a: f64, b: f64| (a - b).abs() <= tolerance * a.abs().max(b.abs());
    // Tied items are written equal: the reveal never ranks what it counts as a tie.
    for (k, &i) in ranked.iter().enumerate() {
        if k > 0 {
            let before = values[ranked[k - 1]];
            out.detail
                .push_str(match (tied(before, values[i]), descending) {
                    (true, _) => " = ",
                    (false, true) => " > ",
                    (false, false) => " < ",
                });
        }
        out.detail
            .push_str(&format!("{} {}", letter(i), unit.show(values[i])));
    }
    // `a` placed before `b` is out of order when it comes after `b` beyond a tie.
    let out_of_order = |a: f64, b: f64| !tied(a, b) && if descending { a < b } else { a > b };
    let mut vars: Vec<(String, f64)> = ranked
        .iter()
        .enumerate()
        .map(|(place, &i)| (format!("answer.{}", letter(i)), (place + 1) as f64))
        .collect();
    if let Guess::Order(order) = guess {
        let right = order.iter().enumerate().all(|(p, &a)| {
            order[p + 1..]
                .iter()
                .all(|&b| !out_of_order(values[a], values[b]))
        });
        out.verdict = if right { Grade::Right } else { Grade::Wrong };
        vars.extend(
            order
                .iter()
                .enumerate()
                .map(|(place, &i)| (format!("guess.{}", letter(i)), (place + 1) as f64)),
        );
    }
    Ok(vars)
}

#[cfg(test)]
#[path = "question_tests.rs"]
mod tests;

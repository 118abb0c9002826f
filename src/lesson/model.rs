//! The validated lesson: every time parsed, every key read, every expression parsed and its
//! names checked against what a screen of the part's preset can show.

use crate::scenario::{Scenario, Strategy, TourKey, TourPanel};
use crate::time::Nanos;

use super::question::Question;

/// A lesson: presets played in turn, with captions and questions at simulated times.
#[derive(Debug, Clone, PartialEq)]
pub struct Lesson {
    /// A built-in name or the file's path, as given (for messages).
    pub source: String,
    /// The built-in name, or the file's name without `.toml`.
    pub name: String,
    pub title: String,
    pub about: String,
    pub minutes: u32,
    pub goals: Vec<String>,
    pub parts: Vec<Part>,
}

/// One preset of a lesson, played from t = 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// As the lesson names it.
    pub preset: String,
    /// Loaded with the part's `set` and the command line's `--set`.
    pub scenario: Scenario,
    pub strategy: Strategy,
    /// The `set` and `--set` the scenario was loaded with (the variants compare reloads them).
    pub sets: Vec<String>,
    pub steps: Vec<LessonStep>,
}

/// A moment of the lesson: at `at` the run pauses, the step's keys are pressed, and its
/// caption, its question or both are shown.
#[derive(Debug, Clone, PartialEq)]
pub struct LessonStep {
    pub at: Nanos,
    pub keys: Vec<TourKey>,
    pub panel: TourPanel,
    pub caption: Option<String>,
    /// Conditions on the screen when the caption shows, as a tour's (`path op number`).
    pub expect: Vec<String>,
    pub ask: Option<Ask>,
}

/// A question, and when its answer is read: the run plays on from the question to `reveal`,
/// presses `reveal_keys`, and grades the prediction against what the screen shows then.
#[derive(Debug, Clone, PartialEq)]
pub struct Ask {
    pub question: Question,
    pub reveal: Nanos,
    pub reveal_keys: Vec<TourKey>,
}

/// Where a question sits: part and step (from 0) and its number in the lesson (from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub part: usize,
    pub step: usize,
    pub number: usize,
}

impl Lesson {
    /// Every question with its place, in the order they are asked.
    pub fn questions(&self) -> Vec<(Place, &Ask)> {
        let mut out = Vec::new();
        for (p, part) in self.parts.iter().enumerate() {
            for (s, step) in part.steps.iter().enumerate() {
                if let Some(ask) = &step.ask {
                    let number = out.len() + 1;
                    out.push((
                        Place {
                            part: p,
                            step: s,
                            number,
                        },
                        ask,
                    ));
                }
            }
        }
        out
    }

    /// The question's number (from 1) at part `part`, step `step`.
    pub fn number_of(&self, part: usize, step: usize) -> Option<usize> {
        self.questions()
            .iter()
            .find(|(p, _)| p.part == part && p.step == step)
            .map(|(p, _)| p.number)
    }

    /// The simulated time the lesson plays, part by part: its last step or reveal.
    pub fn simulated(&self) -> Nanos {
        self.parts
            .iter()
            .map(|p| {
                p.steps
                    .iter()
                    .map(|s| s.ask.as_ref().map_or(s.at, |a| a.reveal.max(s.at)))
                    .max()
                    .unwrap_or(Nanos::ZERO)
            })
            .fold(Nanos::ZERO, |a, b| a.saturating_add(b))
    }
}

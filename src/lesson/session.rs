//! A lesson as a class plays it: a state machine that performs no I/O and knows no terminal.
//! Whoever drives it (the TUI's `App`, the handout, `check`) asks it what is due at the
//! simulated time it reached ([`Session::due`]: a step's keys to press, or a reveal's; then
//! [`Session::fire`]), tells
//! it what the student typed, and hands it the screen when an answer is to be read
//! ([`Session::measure`]); it says where the clock must stop ([`Session::next_stop`]) and which
//! part to load next ([`Session::go_on`]).
//!
//! ```text
//!  Playing ──step due──► Caption ──go_on──► Playing (next step) ... part's end: Next::Part
//!     │                                                          last part's: Results
//!     └────step due (ask)──► Asking ──submit──► Watching ──reveal due──► Measuring
//!                              ▲ typed, error      (clock runs)           │ measure(screen)
//!                              └───────────┘                              ▼
//!                                                       Playing ◄─go_on── Revealed
//! ```

use serde_json::Value;

use crate::scenario::TourKey;
use crate::time::Nanos;

use super::model::{Lesson, LessonStep, Part};
use super::question::{Grade, Guess, Reveal};

/// What the lesson shows now.
#[derive(Debug, Clone, PartialEq)]
pub enum Showing {
    /// Nothing: the run plays on to the next step.
    Playing,
    /// The step's caption (it asks nothing): space goes on.
    Caption,
    /// The question, what has been typed, and why the last Enter was refused.
    Asking {
        typed: String,
        error: Option<String>,
    },
    /// The prediction is in: the run plays on to the reveal.
    Watching(Guess),
    /// At the reveal, the screen settling (a compare view catching up) before it is read.
    Measuring(Guess),
    Revealed(Box<Reveal>),
    /// Every part played: the score and each prediction against its measurement.
    Results,
    /// The results closed: the keys are the presenter's.
    Over,
}

/// What the driver does now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Due {
    /// Press the step's keys and pause: its caption or question shows.
    Step(Vec<TourKey>),
    /// Press the reveal's keys and pause, then read the screen once it has settled.
    Reveal(Vec<TourKey>),
}

/// After a step is closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Play on: the next step, or the reveal, is later in this part.
    Play,
    /// Load part n (from 0) from t = 0.
    Part(usize),
    /// The lesson is over: the results show.
    Results,
}

/// A question answered (or skipped) and revealed.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// From 1, in the lesson's order.
    pub number: usize,
    pub part: usize,
    pub step: usize,
    /// When the answer was read.
    pub at: Nanos,
    pub reveal: Reveal,
}

/// A lesson being played.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    lesson: Lesson,
    part: usize,
    /// The step shown, or the next to fire.
    step: usize,
    shown: Showing,
    /// Questions revealed, in order.
    records: Vec<Record>,
}

impl Session {
    pub fn new(lesson: Lesson) -> Session {
        Session {
            lesson,
            part: 0,
            step: 0,
            shown: Showing::Playing,
            records: Vec::new(),
        }
    }

    // ----- getters -----

    pub fn lesson(&self) -> &Lesson {
        &self.lesson
    }

    pub fn shown(&self) -> &Showing {
        &self.shown
    }

    /// The part playing (from 0).
    pub fn part_index(&self) -> usize {
        self.part
    }

    /// The step shown, or the next to fire (from 0, in the part).
    pub fn step_index(&self) -> usize {
        self.step
    }

    pub fn part(&self) -> &Part {
        &self.lesson.parts[self.part.min(self.lesson.parts.len() - 1)]
    }

    /// The step whose caption, question or reveal is shown.
    pub fn shown_step(&self) -> Option<&LessonStep> {
        match self.shown {
            Showing::Playing | Showing::Results | Showing::Over => None,
            _ => self.part().steps.get(self.step),
        }
    }

    /// The shown question's number (from 1) and how many the lesson asks.
    pub fn question_number(&self) -> Option<(usize, usize)> {
        let n = self.lesson.number_of(self.part, self.step)?;
        self.shown_step()?.ask.as_ref()?;
        Some((n, self.lesson.questions().len()))
    }

    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// Right predictions, and questions in the lesson.
    pub fn score(&self) -> (usize, usize) {
        let right = self
            .records
            .iter()
            .filter(|r| r.reveal.verdict == Grade::Right)
            .count();
        (right, self.lesson.questions().len())
    }

    /// Whether the student is typing an answer (every key is text).
    pub fn is_asking(&self) -> bool {
        matches!(self.shown, Showing::Asking { .. })
    }

    /// A caption or a reveal waits for space.
    pub fn waits_to_go_on(&self) -> bool {
        matches!(self.shown, Showing::Caption | Showing::Revealed(_))
    }

    /// A question is open, from its asking to its reveal: the screen's theory rows, which
    /// predict what the run will show, are hidden meanwhile.
    pub fn hides_theory(&self) -> bool {
        matches!(
            self.shown,
            Showing::Asking { .. } | Showing::Watching(_) | Showing::Measuring(_)
        )
    }

    pub fn is_measuring(&self) -> bool {
        matches!(self.shown, Showing::Measuring(_))
    }

    /// The lesson has ended (its results show or were closed).
    pub fn is_over(&self) -> bool {
        matches!(self.shown, Showing::Results | Showing::Over)
    }

    /// Where the simulated clock must stop: the next step, or the reveal being watched for.
    pub fn next_stop(&self) -> Option<Nanos> {
        let step = self.part().steps.get(self.step)?;
        match self.shown {
            Showing::Playing => Some(step.at),
            Showing::Watching(_) => step.ask.as_ref().map(|a| a.reveal),
            _ => None,
        }
    }

    // ----- the driver's clock -----

    /// What is due at `now` (`ended`: the part's finite load is over and its clock moves no
    /// more, so every later time is due now). The driver presses its keys, then calls
    /// [`Session::fire`]: the keys act on the screen as it was before the step.
    pub fn due(&self, now: Nanos, ended: bool) -> Option<Due> {
        let step = self.part().steps.get(self.step)?;
        match &self.shown {
            Showing::Playing if step.at <= now || ended => Some(Due::Step(step.keys.clone())),
            Showing::Watching(_) => {
                let ask = step.ask.as_ref()?;
                (ask.reveal <= now || ended).then(|| Due::Reveal(ask.reveal_keys.clone()))
            }
            _ => None,
        }
    }

    /// The due step shows (its caption, or its question), or the reveal starts measuring.
    pub fn fire(&mut self) {
        let Some(step) = self.part().steps.get(self.step) else {
            return;
        };
        self.shown = match &self.shown {
            Showing::Playing if step.ask.is_some() => Showing::Asking {
                typed: String::new(),
                error: None,
            },
            Showing::Playing => Showing::Caption,
            Showing::Watching(guess) => Showing::Measuring(guess.clone()),
            other => other.clone(),
        };
    }

    /// Reads the answer from `screen` (the report and live figures of the run on screen, with
    /// `model`) at `now`, and reveals it.
    pub fn measure(&mut self, screen: &Value, now: Nanos) {
        let Showing::Measuring(guess) = &self.shown else {
            return;
        };
        let Some(ask) = self
            .part()
            .steps
            .get(self.step)
            .and_then(|s| s.ask.as_ref())
        else {
            return;
        };
        let reveal = ask.question.reveal(guess, screen);
        let number = self.lesson.number_of(self.part, self.step).unwrap_or(0);
        self.records.push(Record {
            number,
            part: self.part,
            step: self.step,
            at: now,
            reveal: reveal.clone(),
        });
        self.shown = Showing::Revealed(Box::new(reveal));
    }

    // ----- the student's keys -----

    /// A character typed into the answer.
    pub fn type_char(&mut self, c: char) {
        if let Showing::Asking { typed, error } = &mut self.shown
            && !c.is_control()
            && typed.chars().count() < 40
        {
            typed.push(c);
            *error = None;
        }
    }

    pub fn backspace(&mut self) {
        if let Showing::Asking { typed, error } = &mut self.shown {
            typed.pop();
            *error = None;
        }
    }

    /// Enter: the typed line becomes the prediction (true: the run plays on to the reveal),
    /// or it stays with what is wrong with it.
    pub fn submit(&mut self) -> bool {
        let Showing::Asking { typed, .. } = &self.shown else {
            return false;
        };
        let typed = typed.clone();
        let Some(ask) = self
            .part()
            .steps
            .get(self.step)
            .and_then(|s| s.ask.as_ref())
        else {
            return false;
        };
        match ask.question.read(&typed) {
            Ok(guess) => {
                self.shown = Showing::Watching(guess);
                true
            }
            Err(e) => {
                self.shown = Showing::Asking {
                    typed,
                    error: Some(e.to_string()),
                };
                false
            }
        }
    }

    /// Space on a caption or a reveal: on to the next step, part, or the results.
    pub fn go_on(&mut self) -> Option<Next> {
        if !self.waits_to_go_on() {
            return None;
        }
        self.step += 1;
        self.shown = Showing::Playing;
        if self.step < self.part().steps.len() {
            return Some(Next::Play);
        }
        if self.part + 1 < self.lesson.parts.len() {
            self.part += 1;
            self.step = 0;
            return Some(Next::Part(self.part));
        }
        self.shown = Showing::Results;
        Some(Next::Results)
    }

    /// Esc on the results: they close, the keys are the presenter's.
    pub fn close_results(&mut self) {
        if self.shown == Showing::Results {
            self.shown = Showing::Over;
        }
    }
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;

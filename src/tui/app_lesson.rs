//! A lesson on screen: `App` drives the lesson's [`Session`] (its state and grading live
//! there) with its clock, presses the steps' keys, loads each part's preset, and hands the
//! session the screen when an answer is read.

use serde_json::Value;

use crate::lesson::{Due, Next, Session, Showing};

use super::super::keys::Context;
use super::super::source::Source;
use super::{App, Overlay, settings, tour_key};

impl App {
    /// Plays `session`: its first part's preset from t = 0.
    pub fn start_lesson(&mut self, session: Session) {
        self.lesson = Some(session);
        self.load_lesson_part(0);
    }

    pub fn lesson(&self) -> Option<&Session> {
        self.lesson.as_ref()
    }

    /// Where the keys go while a lesson shows something (`None`: as without one).
    pub(super) fn lesson_context(&self) -> Option<Context> {
        let lesson = self.lesson.as_ref()?;
        match lesson.shown() {
            Showing::Asking { .. } => Some(Context::LessonAnswer),
            Showing::Caption | Showing::Revealed(_) => Some(Context::Lesson),
            Showing::Results => Some(Context::LessonResults),
            Showing::Playing | Showing::Watching(_) | Showing::Measuring(_) | Showing::Over => None,
        }
    }

    /// Part `index`'s preset on screen from t = 0, as the lesson loaded it; the presenter's
    /// view (zoom, theory hidden) stays.
    fn load_lesson_part(&mut self, index: usize) {
        let Some(part) = self
            .lesson
            .as_ref()
            .and_then(|l| l.lesson().parts.get(index))
            .cloned()
        else {
            return;
        };
        self.preset = part.scenario.clone();
        self.scenario = part.scenario;
        self.source = Source::sim(&self.scenario, part.strategy);
        self.baseline = settings::baseline_of(&self.scenario, part.strategy);
        self.overrides = part.sets;
        self.live_changes.clear();
        self.forget_timed();
        self.compare = None;
        self.prompt = None;
        self.sweep = None;
        self.overlay = Overlay::None;
        self.timeline = None;
        self.pin = None;
        self.headline = false;
        self.behind = false;
        self.selected = 0;
        self.log_scroll = 0;
        self.resume();
        self.fire_due_lesson();
    }

    /// Fires what the lesson has due now: presses its keys and pauses.
    pub(super) fn fire_due_lesson(&mut self) {
        let (now, ended) = (self.now(), self.is_finished());
        let Some(due) = self.lesson.as_ref().and_then(|l| l.due(now, ended)) else {
            return;
        };
        let (Due::Step(keys) | Due::Reveal(keys)) = due;
        for key in keys {
            self.press(tour_key(key));
        }
        self.clock.pause();
        if let Some(lesson) = &mut self.lesson {
            lesson.fire();
        }
        self.measure_if_settled();
    }

    /// At a reveal, once every engine on screen has caught up (a compare view the reveal
    /// opened replays from t = 0): the answer is read from the screen.
    pub(super) fn measure_if_settled(&mut self) {
        if self.behind || !self.lesson.as_ref().is_some_and(Session::is_measuring) {
            return;
        }
        let screen = self.lesson_screen();
        let now = self.now();
        if let Some(lesson) = &mut self.lesson {
            lesson.measure(&screen, now);
        }
    }

    /// What a lesson's expressions read: the screen a tour's `expect` reads (the run report,
    /// the live figures, the strategies' compare view when open) and `model`.
    pub fn lesson_screen(&self) -> Value {
        let Some(engine) = self.source.engine() else {
            return Value::Null;
        };
        let screen = self.screen_value(engine);
        crate::lesson::screen::with_model(screen, engine.scenario())
    }

    /// Space on a caption or a reveal: the next step, the next part, or the results.
    pub(super) fn lesson_go_on(&mut self) {
        let Some(next) = self.lesson.as_mut().and_then(Session::go_on) else {
            return;
        };
        match next {
            Next::Play => {
                self.resume();
                self.fire_due_lesson();
            }
            Next::Part(index) => self.load_lesson_part(index),
            Next::Results => {
                self.clock.pause();
                let (right, of) = self.lesson.as_ref().map_or((0, 0), Session::score);
                self.info(format!(
                    "end of the lesson: {right} of {of} predictions right"
                ));
            }
        }
    }

    /// Enter on a question: the prediction is in and the run plays on to the reveal (or the
    /// box says what to type).
    pub(super) fn lesson_submit(&mut self) {
        if self.lesson.as_mut().is_some_and(Session::submit) {
            self.resume();
            self.fire_due_lesson();
        }
    }

    fn resume(&mut self) {
        if self.clock.is_paused() {
            self.clock.toggle_pause();
        }
    }
}

impl App {
    /// Takes the lesson off the screen (a picture without its box), to be put back.
    pub(crate) fn take_lesson(&mut self) -> Option<Session> {
        self.lesson.take()
    }

    pub(crate) fn put_lesson(&mut self, lesson: Session) {
        self.lesson = Some(lesson);
    }
}

//! Lessons: predict, then watch. A lesson is a tour with questions: it plays one preset after
//! another, and at given simulated times shows a caption or asks a question (a number with a
//! unit, a choice, or an ordering). The student's prediction is taken first; then the run
//! plays on and the answer is read from the screen (an expression over the run report, never
//! written in the lesson), graded and explained with the run's own figures.
//!
//! Files in one direction, no cycle: the parts that know nothing of the engine or the
//! terminal (`expr`, `units`, `template`, `question`: grading; `raw`, `model`, `load`: the
//! file; `session`: the play as a state machine; `results`: the files a class hands in and
//! their summary) are below the parts that play a lesson on the engine (`names`: checking an
//! expression's names against what a screen can show; `play`: a lesson played without a
//! terminal, for `check` and `--handout`; `handout`). The TUI drives a [`Session`] from
//! `App` and draws it (`tui/app_lesson.rs`, `tui/ui/lesson.rs`).

pub mod error;
pub mod expr;
pub mod handout;
pub mod load;
pub mod model;
pub mod names;
pub mod play;
pub mod question;
mod raw;
pub mod results;
pub mod screen;
pub mod session;
pub mod summary;
pub mod template;
pub mod units;

pub use error::LessonError;
pub use load::{builtin_names, is_lesson, load, parse};
pub use model::{Ask, Lesson, LessonStep, Part, Place};
pub use session::{Due, Next, Record, Session, Showing};

/// One line of `threadlab lesson`'s list.
pub fn listing() -> Result<String, LessonError> {
    use std::fmt::Write as _;
    let mut out = String::new();
    for (i, name) in builtin_names().enumerate() {
        let l = load(name, &[], None)?;
        let mut presets: Vec<&str> = Vec::new();
        for p in &l.parts {
            if !presets.contains(&p.preset.as_str()) {
                presets.push(&p.preset);
            }
        }
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "{name}: {}\n  about {} min · {} questions · {}",
            l.title,
            l.minutes,
            l.questions().len(),
            presets.join(", ")
        );
        for goal in &l.goals {
            let _ = writeln!(out, "  - {goal}");
        }
    }
    Ok(out)
}

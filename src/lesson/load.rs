//! Built-in lessons (embedded, so an installed binary has them) and loading: a lesson's name
//! or path, with `--set` and `--seed` for every part, -> a validated [`Lesson`]. What a
//! value must be is checked here; whether an expression's names are figures a screen of the
//! part shows is [`super::names`]'s check, which needs the engine.

use std::path::{Path, PathBuf};

use crate::scenario::{self, Strategy, TourKey, TourPanel, elide, parse_duration};
use crate::time::Nanos;

use super::error::LessonError;
use super::model::{Lesson, LessonStep, Part};
use super::raw::{RawLesson, RawPart, RawStep};

/// Name and text of every built-in lesson, in the order a course takes them.
const BUILTIN: &[(&str, &str)] = &[
    (
        "threads-and-the-ceiling",
        include_str!("../../lessons/threads-and-the-ceiling.toml"),
    ),
    (
        "shared-pools-and-bulkheads",
        include_str!("../../lessons/shared-pools-and-bulkheads.toml"),
    ),
    (
        "the-retry-storm",
        include_str!("../../lessons/the-retry-storm.toml"),
    ),
];

/// The largest lesson file read.
const MAX_BYTES: u64 = 1 << 20;

/// The most parts, steps in a part, and choices or ordered items in a question.
const MAX_PARTS: usize = 20;
const MAX_STEPS: usize = 100;
const OPTIONS: std::ops::RangeInclusive<usize> = 2..=6;

/// The names of the built-in lessons, in course order.
pub fn builtin_names() -> impl Iterator<Item = &'static str> {
    BUILTIN.iter().map(|(name, _)| *name)
}

fn builtin(name: &str) -> Option<&'static str> {
    BUILTIN
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, text)| *text)
}

/// Whether `arg` names a lesson rather than a preset: a built-in lesson, or a file whose
/// TOML has a `[lesson]` table.
pub fn is_lesson(arg: &str) -> bool {
    if builtin(arg).is_some() {
        return true;
    }
    let path = Path::new(arg);
    path.is_file()
        && std::fs::metadata(path).is_ok_and(|m| m.len() <= MAX_BYTES)
        && std::fs::read_to_string(path)
            .ok()
            .and_then(|text| text.parse::<toml::Table>().ok())
            .is_some_and(|t| t.contains_key("lesson"))
}

/// Loads a built-in lesson by name or a lesson file by path; each part's preset gets the
/// part's `set`, then `sets` (`--set`), and `seed` when given.
pub fn load(arg: &str, sets: &[String], seed: Option<u64>) -> Result<Lesson, LessonError> {
    if let Some(text) = builtin(arg) {
        return parse(&arg.to_ascii_lowercase(), text, None, sets, seed);
    }
    let is_path = arg.contains('/') || arg.ends_with(".toml") || Path::new(arg).is_file();
    if !is_path {
        return Err(LessonError::Unknown {
            name: elide(arg, 80),
            known: builtin_names().collect::<Vec<_>>().join(", "),
        });
    }
    let path = Path::new(arg);
    let read = |error| LessonError::Read {
        path: arg.to_owned(),
        error,
    };
    let size = std::fs::metadata(path).map_err(read)?.len();
    if size > MAX_BYTES {
        return Err(LessonError::TooLarge {
            path: arg.to_owned(),
            size,
            max: MAX_BYTES,
        });
    }
    let text = std::fs::read_to_string(path).map_err(read)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    parse(arg, text, path.parent(), sets, seed)
}

/// Parses lesson `text` from `source` (a name or path, for messages); a preset path in it is
/// relative to `folder`, the lesson file's.
pub fn parse(
    source: &str,
    text: &str,
    folder: Option<&Path>,
    sets: &[String],
    seed: Option<u64>,
) -> Result<Lesson, LessonError> {
    let origin = source.to_owned();
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| LessonError::Syntax {
            origin: origin.clone(),
            message: elide(e.to_string().trim_end(), 600),
        })?;
    let raw: RawLesson =
        serde_path_to_error::deserialize(table).map_err(|e| LessonError::Schema {
            origin: origin.clone(),
            path: e.path().to_string(),
            message: scenario::plain_types(e.inner().message()),
        })?;
    let check = FieldCheck { origin };
    let header = &raw.lesson;
    let title = check.text("lesson.title", &header.title, 1..=200)?;
    let about = check.text("lesson.about", &header.about, 0..=2_000)?;
    let minutes = u32::try_from(header.minutes)
        .ok()
        .filter(|m| (1..=600).contains(m))
        .ok_or_else(|| {
            check.invalid(
                "lesson.minutes",
                header.minutes,
                "is out of range: allowed 1..=600",
            )
        })?;
    if header.goals.len() > 12 {
        return Err(check.field("lesson.goals", "at most 12 goals"));
    }
    let goals = header
        .goals
        .iter()
        .enumerate()
        .map(|(i, g)| check.text(&format!("lesson.goals[{i}]"), g, 1..=400))
        .collect::<Result<_, _>>()?;
    if raw.parts.is_empty() || raw.parts.len() > MAX_PARTS {
        return Err(check.field(
            "parts",
            &format!("a lesson has 1 to {MAX_PARTS} [[parts]], each a preset it plays"),
        ));
    }
    let parts = raw
        .parts
        .iter()
        .enumerate()
        .map(|(i, p)| check.part(i, p, folder, sets, seed))
        .collect::<Result<Vec<_>, _>>()?;
    let lesson = Lesson {
        source: source.to_owned(),
        name: name_of(source),
        title,
        about,
        minutes,
        goals,
        parts,
    };
    if lesson.questions().is_empty() {
        return Err(check.field(
            "parts",
            "no step asks anything: a lesson has at least one `ask` (a tour needs no lesson)",
        ));
    }
    Ok(lesson)
}

/// `lessons/ceiling.toml` -> `ceiling`.
fn name_of(source: &str) -> String {
    Path::new(source)
        .file_stem()
        .map_or_else(|| source.to_owned(), |s| s.to_string_lossy().into_owned())
}

/// Builds errors that name the lesson.
struct FieldCheck {
    origin: String,
}

impl FieldCheck {
    fn invalid(&self, field: &str, value: impl std::fmt::Debug, reason: &str) -> LessonError {
        LessonError::Invalid {
            origin: self.origin.clone(),
            field: field.to_owned(),
            value: elide(&format!("{value:?}"), 80),
            reason: reason.to_owned(),
        }
    }

    fn field(&self, field: &str, reason: &str) -> LessonError {
        LessonError::Field {
            origin: self.origin.clone(),
            field: field.to_owned(),
            reason: reason.to_owned(),
        }
    }

    /// Text shown on screen: within `chars` characters, no control characters but line breaks.
    fn text(
        &self,
        field: &str,
        text: &str,
        chars: std::ops::RangeInclusive<usize>,
    ) -> Result<String, LessonError> {
        let n = text.chars().count();
        if !chars.contains(&n) {
            return Err(self.invalid(
                field,
                text,
                &format!(
                    "has {n} characters: allowed {}..={}",
                    chars.start(),
                    chars.end()
                ),
            ));
        }
        if text.chars().any(|c| c.is_control() && c != '\n') {
            return Err(self.invalid(field, text, "holds a control character: write plain text"));
        }
        Ok(text.to_owned())
    }

    fn time(&self, field: &str, text: &str) -> Result<Nanos, LessonError> {
        parse_duration(text).map_err(|e| self.invalid(field, text, &e.to_string()))
    }

    fn keys(&self, field: &str, text: &str) -> Result<Vec<TourKey>, LessonError> {
        scenario::parse_keys(text).map_err(|e| self.invalid(field, text, &e.to_string()))
    }

    fn part(
        &self,
        i: usize,
        raw: &RawPart,
        folder: Option<&Path>,
        sets: &[String],
        seed: Option<u64>,
    ) -> Result<Part, LessonError> {
        let path = format!("parts[{i}]");
        let preset = preset_path(&raw.preset, folder);
        let all_sets: Vec<String> = raw.set.iter().chain(sets).cloned().collect();
        let mut scenario =
            scenario::load(&preset, &all_sets).map_err(|error| LessonError::Preset {
                origin: self.origin.clone(),
                field: format!("{path} ({})", elide(&raw.preset, 60)),
                error: Box::new(error),
            })?;
        if let Some(seed) = seed {
            scenario.seed = seed;
        }
        if let Some(d) = &raw.duration {
            scenario.duration = self.time(&format!("{path}.duration"), d)?;
            if scenario.duration == Nanos::ZERO {
                return Err(self.invalid(&format!("{path}.duration"), d, "must be greater than 0"));
            }
        }
        let strategy = match &raw.strategy {
            None => scenario.strategy.default,
            Some(name) => Strategy::from_name(name).ok_or_else(|| {
                self.invalid(
                    &format!("{path}.strategy"),
                    name,
                    &format!(
                        "is not a strategy: {}",
                        Strategy::ALL.map(Strategy::name).join(", ")
                    ),
                )
            })?,
        };
        if raw.steps.is_empty() || raw.steps.len() > MAX_STEPS {
            return Err(self.field(
                &format!("{path}.steps"),
                &format!("a part has 1 to {MAX_STEPS} [[parts.steps]]"),
            ));
        }
        let mut steps: Vec<LessonStep> = Vec::with_capacity(raw.steps.len());
        for (j, step) in raw.steps.iter().enumerate() {
            let field = format!("{path}.steps[{j}]");
            let step = self.step(&field, step)?;
            // Steps go in time order, and a step after a question comes after its reveal.
            if let Some(last) = steps.last() {
                let earliest = last.ask.as_ref().map_or(last.at, |a| a.reveal);
                if step.at < earliest {
                    return Err(self.invalid(
                        &format!("{field}.at"),
                        &raw.steps[j].at,
                        &format!(
                            "comes before {earliest}, when the step before {}: steps go in order of time",
                            if last.ask.is_some() { "reveals its answer" } else { "shows" }
                        ),
                    ));
                }
            }
            steps.push(step);
        }
        Ok(Part {
            preset: raw.preset.clone(),
            scenario,
            strategy,
            sets: all_sets,
            steps,
        })
    }

    fn step(&self, path: &str, raw: &RawStep) -> Result<LessonStep, LessonError> {
        let at = self.time(&format!("{path}.at"), &raw.at)?;
        let panel = match &raw.panel {
            None => TourPanel::Pools,
            Some(name) => TourPanel::named(name).ok_or_else(|| {
                self.invalid(
                    &format!("{path}.panel"),
                    name,
                    "is not a panel: pools, outcomes, latency, compare, theory or log",
                )
            })?,
        };
        let caption = raw
            .caption
            .as_deref()
            .map(|c| self.text(&format!("{path}.caption"), c, 1..=1_000))
            .transpose()?;
        let ask = match &raw.ask {
            Some(text) => Some(self.ask(path, at, text, raw)?),
            None => {
                self.nothing_without_ask(path, raw)?;
                None
            }
        };
        if caption.is_none() && ask.is_none() {
            return Err(self.field(path, "a step has a `caption`, an `ask`, or both"));
        }
        Ok(LessonStep {
            at,
            keys: self.keys(&format!("{path}.keys"), &raw.keys)?,
            panel,
            caption,
            expect: raw.expect.clone(),
            ask,
        })
    }

    /// A step that asks nothing takes none of a question's fields.
    fn nothing_without_ask(&self, path: &str, raw: &RawStep) -> Result<(), LessonError> {
        let given = [
            ("answer", raw.answer.is_some()),
            ("unit", raw.unit.is_some()),
            ("tolerance", raw.tolerance.is_some()),
            ("within", raw.within.is_some()),
            ("choices", raw.choices.is_some()),
            ("order", raw.order.is_some()),
            ("descending", raw.descending.is_some()),
            ("reveal", raw.reveal.is_some()),
            ("reveal_keys", raw.reveal_keys.is_some()),
            ("explain", raw.explain.is_some()),
            ("misconceptions", !raw.misconceptions.is_empty()),
        ];
        match given.iter().find(|(_, g)| *g) {
            Some((name, _)) => Err(self.field(
                &format!("{path}.{name}"),
                "belongs to a question, and this step has no `ask`",
            )),
            None => Ok(()),
        }
    }
}

#[path = "load_ask.rs"]
mod ask;

/// A preset named in a lesson file: a path is relative to the lesson's folder.
fn preset_path(preset: &str, folder: Option<&Path>) -> String {
    let is_path = preset.contains('/') || preset.ends_with(".toml");
    match folder {
        Some(folder) if is_path && Path::new(preset).is_relative() => {
            let joined: PathBuf = folder.join(preset);
            joined.to_string_lossy().into_owned()
        }
        _ => preset.to_owned(),
    }
}

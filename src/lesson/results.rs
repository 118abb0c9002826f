//! A student's results, as a file handed in (`--results FILE.json|csv`): the lesson, the
//! score, and for every question the prediction against the measurement. JSON is the serde
//! form of [`Results`]; CSV has one row per question, its header the JSON keys (`lesson`,
//! `title` and each answer's fields), so a class's files merge into one spreadsheet too.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::question::{Grade, QuestionKind};
use super::session::Session;

/// What a student hands in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// The lesson's name (built in, or its file's name without `.toml`).
    pub lesson: String,
    pub title: String,
    /// The `--set` overrides it was played with (they change the answers).
    pub set: Vec<String>,
    /// Right predictions.
    pub score: usize,
    /// Questions in the lesson.
    pub questions: usize,
    /// Every question was asked and revealed.
    pub complete: bool,
    pub answers: Vec<Answer>,
}

/// One question's prediction and measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// From 1.
    pub question: usize,
    /// `number`, `choice` or `order`.
    pub kind: String,
    /// `right`, `wrong`, `skipped` (no prediction), `ungraded` (the run had no answer) or
    /// `not asked` (the lesson was left before it).
    pub result: String,
    /// As the student's prediction shows: `1.7 s`, `b`, `cab`.
    pub guess: String,
    /// A number's prediction in the answer's unit.
    pub guess_value: Option<f64>,
    /// The measured answer as shown: `1700 ms`, `b`, `cab`.
    pub answer: String,
    /// A number's measured answer.
    pub measured: Option<f64>,
    /// A number's unit (or an ordering's).
    pub unit: String,
    /// The question.
    pub text: String,
}

/// Why a results file could not be written or read; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    #[error("{0:?}: a results file ends in .json or .csv")]
    Extension(String),
    #[error("{path}: cannot write the results: {error}")]
    Write { path: String, error: String },
    #[error("{path}: cannot read the results: {error}")]
    Read { path: String, error: std::io::Error },
    #[error("{path}: not a threadlab results file: {error}")]
    FileFormat { path: String, error: String },
}

/// The format a results path asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    Json,
    Csv,
}

/// `.json` or `.csv`.
pub fn format_of(path: &Path) -> Result<FileFormat, ResultsError> {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("json") => Ok(FileFormat::Json),
        Some(e) if e.eq_ignore_ascii_case("csv") => Ok(FileFormat::Csv),
        _ => Err(ResultsError::Extension(path.display().to_string())),
    }
}

impl Results {
    /// The session's results so far (a lesson left early is not `complete`).
    pub fn of(session: &Session, set: &[String]) -> Results {
        let lesson = session.lesson();
        let answers: Vec<Answer> = lesson
            .questions()
            .into_iter()
            .map(|(place, ask)| {
                let q = &ask.question;
                let unit = match &q.kind {
                    QuestionKind::Number { unit, .. } | QuestionKind::Order { unit, .. } => {
                        unit.name().to_owned()
                    }
                    QuestionKind::Choice(_) => String::new(),
                };
                let mut a = Answer {
                    question: place.number,
                    kind: q.kind.name().to_owned(),
                    result: "not asked".to_owned(),
                    guess: String::new(),
                    guess_value: None,
                    answer: String::new(),
                    measured: None,
                    unit,
                    text: q.text.clone(),
                };
                if let Some(r) = session.records().iter().find(|r| r.number == place.number) {
                    a.result = match r.reveal.verdict {
                        Grade::Right => "right",
                        Grade::Wrong => "wrong",
                        Grade::Skipped => "skipped",
                        Grade::Ungraded(_) => "ungraded",
                    }
                    .to_owned();
                    a.guess.clone_from(&r.reveal.guess);
                    a.guess_value = r.reveal.guess_value;
                    a.answer.clone_from(&r.reveal.answer);
                    a.measured = r.reveal.measured;
                }
                a
            })
            .collect();
        let (score, questions) = session.score();
        Results {
            lesson: lesson.name.clone(),
            title: lesson.title.clone(),
            set: set.to_vec(),
            score,
            questions,
            complete: answers.iter().all(|a| a.result != "not asked"),
            answers,
        }
    }

    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    pub fn to_csv(&self) -> String {
        use crate::report::csv_field as f;
        let mut out = String::from(CSV_HEADER);
        out.push('\n');
        let number = |v: Option<f64>| v.map_or_else(String::new, |v| v.to_string());
        for a in &self.answers {
            let cells = [
                f(&self.lesson),
                f(&self.title),
                a.question.to_string(),
                f(&a.kind),
                f(&a.result),
                f(&a.guess),
                number(a.guess_value),
                f(&a.answer),
                number(a.measured),
                f(&a.unit),
                f(&a.text),
            ];
            out.push_str(&cells.join(","));
            out.push('\n');
        }
        out
    }

    /// Writes `path` as its extension says, whole or not at all.
    pub fn write(&self, path: &Path) -> Result<(), ResultsError> {
        let text = match format_of(path)? {
            FileFormat::Json => self.to_json(),
            FileFormat::Csv => self.to_csv(),
        };
        crate::files::write_text(Some("--results"), path, &text).map_err(|e| ResultsError::Write {
            path: path.display().to_string(),
            error: e.to_string(),
        })
    }

    /// Reads a results file `write` wrote (JSON or CSV, by its extension).
    pub fn read(path: &Path) -> Result<Results, ResultsError> {
        let shown = || path.display().to_string();
        let format = format_of(path)?;
        let text = std::fs::read_to_string(path).map_err(|error| ResultsError::Read {
            path: shown(),
            error,
        })?;
        let bad = |error: String| ResultsError::FileFormat {
            path: shown(),
            error,
        };
        match format {
            FileFormat::Json => serde_json::from_str(&text).map_err(|e| bad(e.to_string())),
            FileFormat::Csv => from_csv(&text).map_err(bad),
        }
    }
}

const CSV_HEADER: &str =
    "lesson,title,question,kind,result,guess,guess_value,answer,measured,unit,text";

/// A row of the CSV: the lesson's columns, then one answer's (field by field: a flattened
/// struct would have the CSV reader guess the numbers' types, and lose their last digits).
#[derive(Debug, Deserialize)]
struct Row {
    lesson: String,
    title: String,
    question: usize,
    kind: String,
    result: String,
    guess: String,
    guess_value: Option<f64>,
    answer: String,
    measured: Option<f64>,
    unit: String,
    text: String,
}

impl Row {
    fn answer(self) -> Answer {
        Answer {
            question: self.question,
            kind: self.kind,
            result: self.result,
            guess: self.guess,
            guess_value: self.guess_value,
            answer: self.answer,
            measured: self.measured,
            unit: self.unit,
            text: self.text,
        }
    }
}

fn from_csv(text: &str) -> Result<Results, String> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| e.to_string())?
        .iter()
        .map(str::to_owned)
        .collect();
    if header.join(",") != CSV_HEADER {
        return Err(format!("the header is not `{CSV_HEADER}`"));
    }
    let rows = reader
        .deserialize::<Row>()
        .collect::<Result<Vec<Row>, _>>()
        .map_err(|e| e.to_string())?;
    let Some(first) = rows.first() else {
        return Err("it has no answers".to_owned());
    };
    let (lesson, title) = (first.lesson.clone(), first.title.clone());
    if rows.iter().any(|r| r.lesson != lesson) {
        return Err("its rows are of more than one lesson".to_owned());
    }
    let answers: Vec<Answer> = rows.into_iter().map(Row::answer).collect();
    Ok(Results {
        lesson,
        title,
        set: Vec::new(),
        score: answers.iter().filter(|a| a.result == "right").count(),
        questions: answers.len(),
        complete: answers.iter().all(|a| a.result != "not asked"),
        answers,
    })
}

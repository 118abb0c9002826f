//! A class's results merged (`threadlab lesson --summary FILES...`): for each question how
//! many were right, wrong or skipped, and the distribution of the predictions as a text
//! histogram (letters for a choice, orderings for an order, ranges of values for a number,
//! the measured answer marked), optionally drawn as a chart.

use std::fmt::Write as _;

use super::results::Results;
use super::units::number;
use crate::plot::{ChartPanel, Figure, Line, Stroke};

/// Every question of one lesson across a class's files.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub lesson: String,
    pub title: String,
    pub files: usize,
    /// Files whose every question was asked.
    pub complete: usize,
    /// Mean right predictions per file.
    pub mean_score: f64,
    pub questions: Vec<QuestionSummary>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct QuestionSummary {
    pub number: usize,
    pub kind: String,
    pub text: String,
    pub unit: String,
    /// Each measured answer and in how many files (one, unless the files were played with
    /// different `--set`).
    pub answers: Vec<(String, usize)>,
    pub right: usize,
    pub wrong: usize,
    pub skipped: usize,
    /// Ungraded or not asked.
    pub other: usize,
    /// The predictions' distribution.
    pub bins: Vec<Bin>,
}

/// A bar of the histogram.
#[derive(Debug, Clone, PartialEq)]
pub struct Bin {
    pub label: String,
    pub count: usize,
    /// The measured answer falls in it (a number's range) or is it (a letter, an order).
    pub answer: bool,
}

/// Why files do not merge; each names the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SummaryError {
    #[error("no results to summarise")]
    Empty,
    #[error("{file}: its lesson is {theirs}, the first file's {ours}: a summary merges one lesson")]
    OtherLesson {
        file: String,
        theirs: String,
        ours: String,
    },
    #[error(
        "{file}: {theirs} questions where the first file has {ours}: the files are of different versions of the lesson"
    )]
    OtherQuestions {
        file: String,
        theirs: usize,
        ours: usize,
    },
}

/// Bars of a number's histogram at most.
const NUMBER_BINS: usize = 6;

/// Merges `files` (name, results): all of one lesson.
pub fn summarise(files: &[(String, Results)]) -> Result<Summary, SummaryError> {
    let (_, first) = files.first().ok_or(SummaryError::Empty)?;
    for (file, r) in files {
        if r.lesson != first.lesson {
            return Err(SummaryError::OtherLesson {
                file: file.clone(),
                theirs: r.lesson.clone(),
                ours: first.lesson.clone(),
            });
        }
        if r.answers.len() != first.answers.len() {
            return Err(SummaryError::OtherQuestions {
                file: file.clone(),
                theirs: r.answers.len(),
                ours: first.answers.len(),
            });
        }
    }
    let questions = (0..first.answers.len())
        .map(|i| question(files.iter().map(|(_, r)| &r.answers[i])))
        .collect();
    Ok(Summary {
        lesson: first.lesson.clone(),
        title: first.title.clone(),
        files: files.len(),
        complete: files.iter().filter(|(_, r)| r.complete).count(),
        mean_score: files.iter().map(|(_, r)| r.score as f64).sum::<f64>() / files.len() as f64,
        questions,
    })
}

fn question<'a>(
    answers: impl Iterator<Item = &'a super::results::Answer> + Clone,
) -> QuestionSummary {
    let all: Vec<&super::results::Answer> = answers.collect();
    let first = all[0];
    let count = |result: &str| all.iter().filter(|a| a.result == result).count();
    let mut measured: Vec<(String, usize)> = Vec::new();
    for a in all.iter().filter(|a| !a.answer.is_empty()) {
        match measured.iter_mut().find(|(m, _)| *m == a.answer) {
            Some((_, n)) => *n += 1,
            None => measured.push((a.answer.clone(), 1)),
        }
    }
    let guessed: Vec<&&super::results::Answer> =
        all.iter().filter(|a| !a.guess.is_empty()).collect();
    let bins = if first.kind == "number" {
        number_bins(&guessed, &all, &first.unit)
    } else {
        label_bins(&guessed, &measured)
    };
    let (right, wrong, skipped) = (count("right"), count("wrong"), count("skipped"));
    QuestionSummary {
        number: first.question,
        kind: first.kind.clone(),
        text: first.text.clone(),
        unit: first.unit.clone(),
        answers: measured,
        right,
        wrong,
        skipped,
        other: all.len() - right - wrong - skipped,
        bins,
    }
}

/// A bar per letter or ordering predicted, the answers' too, most predicted first.
fn label_bins(guessed: &[&&super::results::Answer], measured: &[(String, usize)]) -> Vec<Bin> {
    let is_answer = |label: &str| {
        measured
            .iter()
            .any(|(m, _)| m.split(" or ").any(|part| part == label))
    };
    let mut bins: Vec<Bin> = Vec::new();
    for a in guessed {
        match bins.iter_mut().find(|b| b.label == a.guess) {
            Some(b) => b.count += 1,
            None => bins.push(Bin {
                label: a.guess.clone(),
                count: 1,
                answer: is_answer(&a.guess),
            }),
        }
    }
    for (m, _) in measured {
        for part in m.split(" or ") {
            if !bins.iter().any(|b| b.label == part) {
                bins.push(Bin {
                    label: part.to_owned(),
                    count: 0,
                    answer: true,
                });
            }
        }
    }
    bins.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.label.cmp(&b.label)));
    bins
}

/// Equal ranges from the lowest to the highest prediction (and measured answer).
fn number_bins(
    guessed: &[&&super::results::Answer],
    all: &[&super::results::Answer],
    unit: &str,
) -> Vec<Bin> {
    let values: Vec<f64> = guessed.iter().filter_map(|a| a.guess_value).collect();
    let answers: Vec<f64> = all.iter().filter_map(|a| a.measured).collect();
    let (lo, hi) = values
        .iter()
        .chain(&answers)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    if !lo.is_finite() {
        return Vec::new();
    }
    let unit = if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    };
    if hi - lo <= f64::EPSILON * hi.abs().max(1.0) {
        return vec![Bin {
            label: format!("{}{unit}", number(lo)),
            count: values.len(),
            answer: !answers.is_empty(),
        }];
    }
    let width = (hi - lo) / NUMBER_BINS as f64;
    let index = |v: f64| (((v - lo) / width) as usize).min(NUMBER_BINS - 1);
    (0..NUMBER_BINS)
        .map(|i| {
            let (a, b) = (lo + width * i as f64, lo + width * (i + 1) as f64);
            Bin {
                label: format!("{} to {}{unit}", number(a), number(b)),
                count: values.iter().filter(|&&v| index(v) == i).count(),
                answer: answers.iter().any(|&v| index(v) == i),
            }
        })
        .collect()
}

/// The widest bar of the text histogram, in characters.
const BAR: usize = 30;

impl Summary {
    /// The text report: each question, its counts and its histogram.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} ({}): {} result file{}, {} complete; mean score {:.1} of {}",
            self.title,
            self.lesson,
            self.files,
            if self.files == 1 { "" } else { "s" },
            self.complete,
            self.mean_score,
            self.questions.len()
        );
        for q in &self.questions {
            let answers: Vec<String> = q
                .answers
                .iter()
                .map(|(a, n)| {
                    if q.answers.len() == 1 {
                        a.clone()
                    } else {
                        format!("{a} (in {n})")
                    }
                })
                .collect();
            let _ = writeln!(out, "\n{}. {} ({})", q.number, q.text, q.kind);
            let _ = writeln!(
                out,
                "   measured {} · right {} · wrong {} · skipped {}{}",
                if answers.is_empty() {
                    "-".to_owned()
                } else {
                    answers.join(", ")
                },
                q.right,
                q.wrong,
                q.skipped,
                if q.other > 0 {
                    format!(" · not graded or not asked {}", q.other)
                } else {
                    String::new()
                }
            );
            let most = q.bins.iter().map(|b| b.count).max().unwrap_or(0).max(1);
            let width = q
                .bins
                .iter()
                .map(|b| b.label.chars().count())
                .max()
                .unwrap_or(0);
            for b in &q.bins {
                let bar =
                    "█".repeat((b.count * BAR).div_ceil(most).min(BAR) * usize::from(b.count > 0));
                let mark = if b.answer {
                    "  ◂ the measured answer"
                } else {
                    ""
                };
                let _ = writeln!(out, "   {:<width$}  {bar} {}{mark}", b.label, b.count);
            }
        }
        out
    }

    /// A chart: one panel per question, a bar per range, letter or ordering.
    pub fn figure(&self) -> Figure {
        let panels = self
            .questions
            .iter()
            .map(|q| {
                let marked = |b: &Bin| {
                    if b.answer {
                        format!("{} ◂", b.label)
                    } else {
                        b.label.clone()
                    }
                };
                ChartPanel {
                    title: format!("{}. {}", q.number, crate::scenario::elide(&q.text, 60)),
                    x_label: if q.kind == "number" {
                        q.unit.clone()
                    } else {
                        q.kind.clone()
                    },
                    y_label: "predictions".into(),
                    lines: vec![Line {
                        label: Some("predictions".into()),
                        points: q
                            .bins
                            .iter()
                            .enumerate()
                            .map(|(i, b)| (i as f64, b.count as f64))
                            .collect(),
                        colour: 0,
                        stroke: Stroke::Solid,
                        off_chart: None,
                    }],
                    marks: Vec::new(),
                    bands: Vec::new(),
                    categories: q.bins.iter().map(marked).collect(),
                    notes: vec![format!(
                        "right {} · wrong {} · skipped {} · ◂ the measured answer",
                        q.right, q.wrong, q.skipped
                    )],
                }
            })
            .collect();
        Figure {
            title: format!(
                "{}: the class's predictions ({} files)",
                self.title, self.files
            ),
            panels,
            columns: 2,
            note: None,
        }
    }
}

#[cfg(test)]
#[path = "summary_tests.rs"]
mod tests;

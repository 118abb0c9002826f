//! `threadlab lesson NAME --handout DIR`: the lesson played without a terminal and written as
//! a page a student keeps: `DIR/<lesson>.md` with every caption and question, the measured
//! answers and their explanations, a picture of the screen at each step (SVG, drawn by the
//! TUI's own render code, without the lesson's box: the page has its words) and a chart of
//! each part's run over time (`DIR/images/`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::plot::{self, ChartTheme, timeline};
use crate::screenshot;
use crate::tui::Theme;
use crate::tui::app::App;

use super::error::LessonError;
use super::model::Lesson;
use super::play::{Moment, play};
use super::question::{QuestionKind, letter};
use super::session::Session;

/// The screen the pictures show, in cells.
pub const SIZE: (u16, u16) = (120, 40);

/// Why a handout could not be written.
#[derive(Debug, thiserror::Error)]
pub enum HandoutError {
    #[error(transparent)]
    Lesson(#[from] LessonError),
    #[error("{path}: cannot write the handout: {error}")]
    Write { path: String, error: String },
}

/// A picture taken during the play.
struct Picture {
    part: usize,
    step: usize,
    revealed: bool,
    file: String,
}

/// Writes the handout of `lesson` to `dir` (created if needed); returns the page's path.
pub fn write(
    lesson: &Lesson,
    dir: &Path,
    theme: Theme,
    sets: &[String],
) -> Result<PathBuf, HandoutError> {
    let images = dir.join("images");
    let failed = |path: &Path, error: String| HandoutError::Write {
        path: path.display().to_string(),
        error,
    };
    std::fs::create_dir_all(&images).map_err(|e| failed(&images, e.to_string()))?;
    let mut pictures: Vec<Picture> = Vec::new();
    let mut recorders: Vec<timeline::Recorder> = Vec::new();
    // Each part's run as it stood at its last tick (its engine is gone once the next starts).
    let mut traits: Vec<timeline::RunTraits> = Vec::new();
    let mut error: Option<HandoutError> = None;
    let spans: Vec<crate::time::Nanos> = lesson
        .parts
        .iter()
        .map(|p| {
            p.steps
                .iter()
                .map(|s| s.ask.as_ref().map_or(s.at, |a| a.reveal))
                .max()
                .unwrap_or_default()
        })
        .collect();
    let session = play(
        lesson.clone(),
        theme,
        &mut |_, _| String::new(),
        &mut |app, moment| {
            if error.is_some() {
                return;
            }
            match moment {
                Moment::Tick { part } => {
                    if recorders.len() <= part {
                        let strategy = lesson.parts[part].strategy;
                        recorders.push(timeline::Recorder::new(
                            strategy,
                            spans[part].max(crate::time::Nanos::from_secs(1)),
                        ));
                    }
                    if let (Some(rec), Some(engine)) = (recorders.get_mut(part), app.engine()) {
                        rec.observe(engine, app.now());
                        traits.resize_with(part + 1, Default::default);
                        traits[part] = timeline::RunTraits::of(engine);
                    }
                }
                Moment::Showing { part, step } | Moment::Revealed { part, step } => {
                    let revealed = matches!(moment, Moment::Revealed { .. });
                    let file = format!(
                        "part{}-step{}{}.svg",
                        part + 1,
                        step + 1,
                        if revealed { "-answer" } else { "" }
                    );
                    let svg = picture(app, theme);
                    let path = images.join(&file);
                    if let Err(e) = crate::files::write_text(None, &path, &svg) {
                        error = Some(failed(&path, e.to_string()));
                    }
                    pictures.push(Picture {
                        part,
                        step,
                        revealed,
                        file,
                    });
                }
            }
        },
    )?;
    if let Some(e) = error {
        return Err(e);
    }
    let chart_theme = match theme {
        Theme::Dark => ChartTheme::Dark,
        Theme::Light | Theme::NoColor => ChartTheme::Light,
    };
    let mut charts = Vec::new();
    for (i, rec) in recorders.into_iter().enumerate() {
        let part = &lesson.parts[i];
        let file = format!("part{}-chart.svg", i + 1);
        let title = format!("Part {}: {}", i + 1, part.scenario.name);
        let run = traits.get(i).cloned().unwrap_or_default();
        let figure = timeline::figure(&title, &[rec.finish_with(run)]);
        let path = images.join(&file);
        let out = crate::files::OutputFile::check(None, &path)
            .map_err(|e| failed(&path, e.to_string()))?;
        plot::write(&figure, out, chart_theme).map_err(|e| failed(&path, e.to_string()))?;
        charts.push(file);
    }
    let page = dir.join(format!("{}.md", lesson.name));
    let text = markdown(lesson, &session, &pictures, &charts, sets);
    crate::files::write_text(None, &page, &text).map_err(|e| failed(&page, e.to_string()))?;
    Ok(page)
}

/// The screen as drawn, without the lesson's box.
fn picture(app: &mut App, theme: Theme) -> String {
    let lesson = app.take_lesson();
    let buffer = screenshot::render(app, SIZE.0, SIZE.1);
    if let Some(lesson) = lesson {
        app.put_lesson(lesson);
    }
    screenshot::svg(&buffer, theme)
}

fn markdown(
    lesson: &Lesson,
    session: &Session,
    pictures: &[Picture],
    charts: &[String],
    sets: &[String],
) -> String {
    let mut out = format!("# {}\n\n", lesson.title);
    if !lesson.about.is_empty() {
        let _ = writeln!(out, "{}\n", lesson.about);
    }
    let _ = writeln!(
        out,
        "About {} minutes, {} questions. Played by `threadlab lesson {}`{}.\n",
        lesson.minutes,
        lesson.questions().len(),
        lesson.name,
        if sets.is_empty() {
            String::new()
        } else {
            format!(" with `--set {}`", sets.join(" --set "))
        }
    );
    if !lesson.goals.is_empty() {
        out.push_str("Goals:\n\n");
        for g in &lesson.goals {
            let _ = writeln!(out, "- {g}");
        }
        out.push('\n');
    }
    let image = |part: usize, step: usize, revealed: bool| {
        pictures
            .iter()
            .find(|p| p.part == part && p.step == step && p.revealed == revealed)
            .map(|p| p.file.clone())
    };
    for (p, part) in lesson.parts.iter().enumerate() {
        let _ = writeln!(
            out,
            "## Part {}: {} (`{}`, strategy {})\n\n{}\n",
            p + 1,
            part.scenario.name,
            part.preset,
            part.strategy,
            part.scenario.about
        );
        for (s, step) in part.steps.iter().enumerate() {
            let at = seconds(step.at);
            match &step.ask {
                None => {
                    let _ = writeln!(out, "### At {at}\n");
                }
                Some(ask) => {
                    let n = lesson.number_of(p, s).unwrap_or(0);
                    let _ = writeln!(
                        out,
                        "### Question {n} (asked at {at}, answered at {})\n",
                        seconds(ask.reveal)
                    );
                }
            }
            if let Some(caption) = &step.caption {
                let _ = writeln!(out, "{caption}\n");
            }
            if let Some(file) = image(p, s, false) {
                let _ = writeln!(out, "![The screen at {at}](images/{file})\n");
            }
            let Some(ask) = &step.ask else { continue };
            let q = &ask.question;
            let _ = writeln!(out, "**{}**\n", q.text);
            let options: Vec<&str> = match &q.kind {
                QuestionKind::Number { .. } => Vec::new(),
                QuestionKind::Choice(c) => c.iter().map(|c| c.text.as_str()).collect(),
                QuestionKind::Order { items, .. } => {
                    items.iter().map(|i| i.text.as_str()).collect()
                }
            };
            for (i, o) in options.iter().enumerate() {
                let _ = writeln!(out, "- {}) {o}", letter(i));
            }
            if !options.is_empty() {
                out.push('\n');
            }
            let record = session
                .records()
                .iter()
                .find(|r| r.part == p && r.step == s);
            if let Some(r) = record {
                let detail = if r.reveal.detail.is_empty() || r.reveal.detail == r.reveal.answer {
                    String::new()
                } else {
                    format!(" ({})", r.reveal.detail)
                };
                let _ = writeln!(out, "Measured: **{}**{detail}\n", r.reveal.answer);
                if !r.reveal.explanation.is_empty() {
                    let _ = writeln!(out, "{}\n", r.reveal.explanation);
                }
            }
            if let Some(file) = image(p, s, true) {
                let _ = writeln!(
                    out,
                    "![The screen at {}](images/{file})\n",
                    seconds(ask.reveal)
                );
            }
        }
        if let Some(chart) = charts.get(p) {
            let _ = writeln!(out, "![Part {} over time](images/{chart})\n", p + 1);
        }
    }
    out
}

/// Simulated time as a page writes it: `8.5 s`, `60 s`.
fn seconds(t: crate::time::Nanos) -> String {
    format!("{} s", super::units::number(t.as_secs_f64()))
}

//! A lesson's box: its caption, its question with the prediction being typed, the run playing
//! to the reveal, or the reveal (the prediction, the measured answer, the explanation). It is
//! placed as a tour's caption is (away from the panel the step talks about) and is as tall as
//! its wrapped lines. At the end the results: the score and each prediction against its
//! measurement, over the screen.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use crate::lesson::question::{Grade, QuestionKind, letter};
use crate::lesson::{Session, Showing};
use crate::metrics::Outcome;
use crate::scenario::TourPanel;
use crate::tui::app::App;
use crate::tui::theme::Palette;

use super::fmt;
use crate::tui::keys::{self, Binding};

/// A box's keys as the key table has them (`space → next step of the lesson · q quit`), so
/// the box cannot say other than what the keys do.
fn keys_line(table: &[Binding], last: &str) -> String {
    let mut parts: Vec<String> = table
        .iter()
        .map(|b| format!("{} {}", b.label, b.help))
        .collect();
    parts.push(last.to_owned());
    format!(" {} ", parts.join(" · "))
}

pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let Some(lesson) = app.lesson() else { return };
    if lesson.shown() == &Showing::Results {
        render_results(frame, area, app, lesson);
        return;
    }
    let Some(b) = lesson_box(app, area) else {
        return;
    };
    let p = app.palette();
    // A box cut short says so rather than lose words silently.
    let keys = if b.wanted > b.area.height {
        " … cut: the screen is too short for this text ".to_owned()
    } else {
        b.keys
    };
    let block = Block::bordered()
        .title(Line::styled(b.title, b.title_style))
        .title_bottom(Line::styled(keys, p.dim).right_aligned())
        .border_style(p.title);
    frame.render_widget(Clear, b.area);
    frame.render_widget(Paragraph::new(b.lines).block(block), b.area);
}

/// The box a lesson shows now: where, its title and lines, and the keys that go on.
pub(crate) struct LessonBox {
    pub area: Rect,
    pub title: String,
    title_style: Style,
    pub lines: Vec<Line<'static>>,
    keys: String,
    /// Rows the lines need: more than `area` holds when the body is too short.
    pub wanted: u16,
}

/// Lines of text wrapped to a width, each in its style.
struct Text {
    width: usize,
    lines: Vec<Line<'static>>,
}

impl Text {
    fn add(&mut self, text: &str, style: Style) {
        for l in fmt::wrap_words(text, self.width) {
            self.lines.push(Line::styled(l, style));
        }
    }

    /// `text` after a label in another style, wrapped under it.
    fn labelled(&mut self, label: &str, label_style: Style, text: &str, style: Style) {
        let indent = fmt::columns(label);
        let wrapped = fmt::wrap_words(text, self.width.saturating_sub(indent));
        for (i, l) in wrapped.into_iter().enumerate() {
            let head = if i == 0 {
                Span::styled(label.to_owned(), label_style)
            } else {
                Span::raw(" ".repeat(indent))
            };
            self.lines
                .push(Line::from(vec![head, Span::styled(l, style)]));
        }
    }
}

pub(crate) fn lesson_box(app: &App, area: Rect) -> Option<LessonBox> {
    let lesson = app.lesson()?;
    let p = app.palette();
    let step = lesson.shown_step();
    let panel = step.map_or(TourPanel::Pools, |s| s.panel);
    let width = super::tour::box_width(area);
    let mut text = Text {
        width: usize::from(width.saturating_sub(2)),
        lines: Vec::new(),
    };
    let numbered = || {
        lesson
            .question_number()
            .map_or_else(String::new, |(n, of)| format!(" Question {n}/{of}"))
    };
    let part = lesson.part_index() + 1;
    let parts = lesson.lesson().parts.len();
    let (title, title_style, keys) = match lesson.shown() {
        Showing::Caption => {
            text.add(
                step.and_then(|s| s.caption.as_deref()).unwrap_or(""),
                p.text,
            );
            (
                format!(" {} · part {part}/{parts} ", lesson.lesson().title),
                p.title,
                keys_line(keys::LESSON, "q quit"),
            )
        }
        Showing::Asking { typed, error } => {
            if let Some(caption) = step.and_then(|s| s.caption.as_deref()) {
                text.add(caption, p.text);
            }
            let ask = step.and_then(|s| s.ask.as_ref())?;
            let q = &ask.question;
            text.add(&q.text, p.title);
            options(&mut text, &q.kind, p);
            let prompt = format!("your prediction, {}: ", q.hint());
            text.labelled(&prompt, p.dim, &format!("{typed}▏"), p.selected);
            if let Some(error) = error {
                text.add(error, p.error);
            }
            (
                format!("{} · predict ", numbered()),
                p.title,
                keys_line(keys::LESSON_ANSWER, "Ctrl-C quit"),
            )
        }
        Showing::Watching(guess) | Showing::Measuring(guess) => {
            let ask = step.and_then(|s| s.ask.as_ref())?;
            let said = ask.question.show_guess(guess);
            let said = if said.is_empty() {
                "no prediction".to_owned()
            } else {
                format!("you predicted {said}")
            };
            text.add(
                &format!(
                    "{said} · now watch: the run plays to {} (> faster)",
                    fmt::clock(ask.reveal)
                ),
                p.text,
            );
            (format!("{} · watch ", numbered()), p.title, String::new())
        }
        Showing::Revealed(reveal) => {
            let ask = step.and_then(|s| s.ask.as_ref())?;
            text.add(&ask.question.text, p.dim);
            let (mark, style) = verdict(&reveal.verdict, p);
            let you = if reveal.guess.is_empty() {
                "no prediction".to_owned()
            } else {
                reveal.guess.clone()
            };
            text.labelled("you: ", p.dim, &you, p.selected);
            let measured = if reveal.detail.is_empty()
                || matches!(ask.question.kind, QuestionKind::Number { .. })
            {
                reveal.answer.clone()
            } else {
                reveal.detail.clone()
            };
            let margin = ask.question.margin();
            let measured = match margin.as_str() {
                "" => measured,
                "exactly" => format!("{measured} (right only if exact)"),
                margin => format!("{measured} (right within {margin})"),
            };
            match &reveal.verdict {
                Grade::Ungraded(why) => text.add(&format!("not graded: {why}"), p.error),
                _ => text.labelled("measured: ", p.dim, &measured, style),
            }
            if !reveal.explanation.is_empty() {
                text.add(&reveal.explanation, p.text);
            }
            if let Some(m) = &reveal.misconception {
                text.labelled("your answer: ", p.error, m, p.text);
            }
            (
                format!("{} · {mark} ", numbered()),
                style,
                keys_line(keys::LESSON, "q quit"),
            )
        }
        Showing::Playing | Showing::Results | Showing::Over => return None,
    };
    let wanted = u16::try_from(text.lines.len())
        .unwrap_or(u16::MAX)
        .saturating_add(2);
    let area = super::tour::place(app, area, panel, wanted);
    Some(LessonBox {
        area,
        title,
        title_style,
        lines: text.lines,
        keys,
        wanted,
    })
}

/// A choice's or an ordering's lines: ` a) text`.
fn options(text: &mut Text, kind: &QuestionKind, p: &Palette) {
    let labels: Vec<&str> = match kind {
        QuestionKind::Number { .. } => return,
        QuestionKind::Choice(choices) => choices.iter().map(|c| c.text.as_str()).collect(),
        QuestionKind::Order { items, .. } => items.iter().map(|i| i.text.as_str()).collect(),
    };
    for (i, label) in labels.into_iter().enumerate() {
        text.labelled(&format!(" {}) ", letter(i)), p.title, label, p.text);
    }
}

/// The reveal's mark and colour.
fn verdict(v: &Grade, p: &Palette) -> (&'static str, Style) {
    match v {
        Grade::Right => ("✓ right", p.outcome(Outcome::Success)),
        Grade::Wrong => ("✗ wrong", p.outcome(Outcome::Failed)),
        Grade::Skipped => ("skipped", p.dim),
        Grade::Ungraded(_) => ("not graded", p.dim),
    }
}

/// The score and one row per question over the screen.
fn render_results(frame: &mut Frame, area: Rect, app: &App, lesson: &Session) {
    let p = app.palette();
    let (right, of) = lesson.score();
    let width = area.width.saturating_sub(4).min(110);
    let inner = usize::from(width.saturating_sub(2));
    let mut lines = vec![Line::styled(
        // The rows' own columns: a mark, the number, the prediction, the answer, the text.
        fmt::fit(
            &format!(
                " ✓  # {}  {} question",
                fmt::fit("you", 15),
                fmt::fit("measured", 16)
            ),
            inner,
        ),
        p.dim,
    )];
    for (place, ask) in lesson.lesson().questions() {
        let record = lesson.records().iter().find(|r| r.number == place.number);
        let (mark, style, you, measured) = match record {
            Some(r) => {
                let (mark, style) = match r.reveal.verdict {
                    Grade::Right => ("✓", p.outcome(Outcome::Success)),
                    Grade::Wrong => ("✗", p.outcome(Outcome::Failed)),
                    _ => ("-", p.dim),
                };
                let you = if r.reveal.guess.is_empty() {
                    "-".to_owned()
                } else {
                    r.reveal.guess.clone()
                };
                (mark, style, you, r.reveal.answer.clone())
            }
            None => ("·", p.dim, "not asked".to_owned(), String::new()),
        };
        let row = format!(
            "{:>2} {}  {} {}",
            place.number,
            fmt::fit(&you, 15),
            fmt::fit(&measured, 16),
            ask.question.text
        );
        lines.push(Line::from(vec![
            Span::styled(format!(" {mark} "), style),
            Span::styled(fmt::fit(&row, inner.saturating_sub(3)), p.text),
        ]));
    }
    let rows = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .saturating_add(2);
    let box_area = super::centred(area, width, rows);
    let block = Block::bordered()
        .title(Line::styled(
            format!(" {} · {right} of {of} right ", lesson.lesson().title),
            p.title,
        ))
        .title_bottom(
            Line::styled(keys_line(&keys::LESSON_RESULTS[..1], "q quit"), p.dim).right_aligned(),
        )
        .border_style(p.title);
    frame.render_widget(Clear, box_area);
    frame.render_widget(Paragraph::new(lines).block(block), box_area);
}

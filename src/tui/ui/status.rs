//! The bottom line: a prompt being typed, what the last key did (an engine error in its own
//! style), the paused banner, or key hints taken from the key table.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::{App, Status};
use crate::tui::keys;
use crate::tui::prompt::Prompt;

pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let p = app.palette();
    if let Some(prompt) = app.prompt() {
        frame.render_widget(Paragraph::new(prompt_line(app, prompt, area.width)), area);
        return;
    }
    let line = match app.status() {
        // What the last key did, on a second row when one is too short for it (a refused
        // change names the key and what it allows at the end).
        Some(Status::Info(text)) => return render_wrapped(frame, area, text, p.change),
        Some(Status::Error(text)) => return render_wrapped(frame, area, text, p.error),
        None if app.lesson().is_some_and(crate::lesson::Session::is_asking) => Line::from(vec![
            Span::styled(" LESSON ", p.paused),
            Span::raw(" type your prediction and Enter · Ctrl-C twice quits"),
        ]),
        None if app
            .lesson()
            .is_some_and(crate::lesson::Session::waits_to_go_on) =>
        {
            Line::from(vec![
                Span::styled(" LESSON ", p.paused),
                Span::raw(" space/→ goes on · z zoom · h theory · q quit · ? help"),
            ])
        }
        None if app.tour().is_some_and(|t| t.caption().is_some()) => Line::from(vec![
            Span::styled(" TOUR ", p.paused),
            Span::raw(" space/→ goes on · ← back · Home restart · l steps · q quit · ? help"),
        ]),
        None if app.real().is_some() => real(app, area.width),
        None if app.is_finished() => Line::from(vec![
            Span::styled(" FINISHED ", p.finished),
            Span::raw(match app.run_end() {
                Some(_) => " the run's duration is played: r runs it again, s with a new seed",
                None => " the load has ended: r runs it again, s with a new seed, ? help",
            }),
        ]),
        None if app.clock().is_paused() => Line::from(vec![
            Span::styled(" PAUSED ", p.paused),
            Span::raw(" space resumes · . steps one event · ? help"),
        ]),
        None => hints(app, area.width),
    };
    frame.render_widget(Paragraph::new(line), area);
}

/// The most rows the status line takes.
const MOST_ROWS: u16 = 2;

/// How many rows the status line takes on a screen `width` columns wide: one, or two while
/// what the last key did is longer than one row.
pub fn rows(app: &App, width: u16) -> u16 {
    let long = match app.status() {
        _ if app.prompt().is_some() => false,
        Some(Status::Info(text) | Status::Error(text)) => {
            super::fmt::columns(text) + 1 > usize::from(width)
        }
        None => false,
    };
    if long { MOST_ROWS } else { 1 }
}

/// What the last key did, broken between words over the rows it was given (its end cut
/// with `…` when even those are too few), each row indented one column.
fn render_wrapped(frame: &mut Frame, area: Rect, text: &str, style: Style) {
    let width = usize::from(area.width).saturating_sub(1);
    let rows = super::fmt::wrap(text, width, usize::from(area.height));
    let lines: Vec<Line> = rows
        .into_iter()
        .map(|row| Line::styled(format!(" {}", row.trim_end()), style))
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

/// The prompt's question, then what was typed and a cursor, and its keys at the right end
/// (from the prompt's key table, as the help is written; the help pages have no room for
/// them at 80x24) while they leave room to type; a line too long for the screen shows its
/// end, where the typing is.
fn prompt_line(app: &App, prompt: &Prompt, width: u16) -> Line<'static> {
    use super::fmt::{columns, fit_left};
    let p = app.palette();
    let question = format!(" {}", prompt.question());
    let keys: Vec<String> = keys::PROMPT
        .iter()
        .map(|b| format!("{} {}", b.label, b.help))
        .collect();
    let keys = format!(" {}", keys.join(" · "));
    // The question and the cursor take their columns first.
    let room = usize::from(width).saturating_sub(columns(&question) + 1);
    let typed = prompt.text();
    let with_keys = room.saturating_sub(columns(&keys));
    let (keys, room) = if columns(typed) <= with_keys {
        (keys, with_keys)
    } else {
        (String::new(), room)
    };
    let text = if columns(typed) <= room {
        typed.to_string()
    } else {
        fit_left(typed, room)
    };
    let gap = " ".repeat(room.saturating_sub(columns(&text)));
    Line::from(vec![
        Span::styled(question, p.title),
        Span::styled(text, p.text),
        Span::styled("▏", p.title),
        Span::raw(gap),
        Span::styled(keys, p.dim),
    ])
}

/// Real mode without a status: the end, why the run is behind, or the keys that work.
fn real(app: &App, width: u16) -> Line<'static> {
    let p = app.palette();
    let lag = app.real().map_or(&[][..], |r| r.lag());
    if app.is_finished() {
        Line::from(vec![
            Span::styled(" FINISHED ", p.finished),
            Span::raw(" the real run has ended: r runs it again, s with a new seed, ? help"),
        ])
    } else if !lag.is_empty() {
        let reasons: Vec<String> = lag.iter().map(ToString::to_string).collect();
        Line::from(vec![
            Span::styled(" BEHIND ", p.paused),
            Span::styled(format!(" {}", reasons.join(" · ")), p.error),
        ])
    } else {
        hints(app, width)
    }
}

/// The keys a newcomer needs first, in this order (what to leave, learn, break, compare and
/// stop; the strategies and pools; the sweep, the timeline and the variants): the rest
/// follow while they fit.
const FIRST_HINTS: [&str; 10] = ["q", "?", "f", "c", "space", "1-5", "Tab", "g", "t", "C"];

/// `q ? f c space 1-5 Tab g t C` first, then every other live binding that has a hint, as
/// `key word`, as many whole hints as fit in `width` columns.
fn hints(app: &App, width: u16) -> Line<'static> {
    let p = app.palette();
    // Keys this mode refuses (real time cannot pause...) are left out.
    let works = |b: &&keys::Binding| {
        b.keys
            .first()
            .and_then(|&k| b.action(k))
            .is_none_or(|a| app.refusal(a).is_none())
    };
    let mut shown: Vec<&keys::Binding> = keys::LIVE
        .iter()
        .filter(|b| !b.hint.is_empty())
        .filter(works)
        .collect();
    shown.sort_by_key(|b| {
        FIRST_HINTS
            .iter()
            .position(|&l| l == b.label)
            .unwrap_or(FIRST_HINTS.len())
    });
    let mut spans = vec![Span::raw(" ")];
    let mut room = usize::from(width).saturating_sub(1);
    for b in shown {
        let (key, word) = (format!(" {} ", app.key_label(b)), format!("{} ", b.hint));
        let need = key.chars().count() + word.chars().count();
        if need > room {
            break;
        }
        room -= need;
        spans.push(Span::styled(key, p.title));
        spans.push(Span::raw(word));
    }
    Line::from(spans)
}

//! Goodput (answered requests per second: of the last 10 s once 10 s have passed, so an
//! outage shows at once) and the outcome counters, each outcome in its own fixed colour, with
//! the run's goodput since t 0 and the failures' own rates beside them.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use crate::metrics::Outcome;
use crate::sim::{NetSnapshot, Snapshot};
use crate::tui::app::App;
use crate::tui::recent::Recent;
use crate::tui::theme::Palette;

use super::fmt;

pub fn render(frame: &mut Frame, area: Rect, app: &App, snapshot: &Snapshot) {
    let p = app.palette();
    const TITLE: &str = " Outcomes ";
    // The borders' corners and the title's room.
    let room = usize::from(area.width).saturating_sub(2 + TITLE.len());
    let recent = Recent::of(snapshot);
    let (title, average_in_title) = headline(app, snapshot, recent, room);
    let block = Block::bordered()
        .title(Line::styled(TITLE, p.title))
        .title(Line::styled(title, p.title).right_aligned())
        .border_style(p.border);
    let inner = block.inner(area);
    frame.render_widget(block, area);

    let mut lines = counter_rows(p, snapshot, inner.width);
    let rows = usize::from(inner.height).saturating_sub(lines.len()).max(1);
    let line = match recent {
        None => LineStart::Whole,
        Some(_) if average_in_title => LineStart::Recent,
        Some(_) => LineStart::RecentWithAverage,
    };
    for text in rates_and_connections(snapshot, line, inner.width, rows) {
        lines.push(Line::styled(text, p.dim));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// What the line under the counters starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineStart {
    /// Before 10 s: the failures' rates since t 0 (the title's goodput is since t 0 too).
    Whole,
    /// The title shows the last 10 s and the average: no rate since t 0 on the line.
    Recent,
    /// The title shows the last 10 s only: the line starts with the average.
    RecentWithAverage,
}

/// ` goodput 5.20/s `, and the pinned baseline's beside it (` · pin 3.10/s `); once 10 s
/// have passed, the last 10 s' (` goodput 0.00/s last 10 s `, the pin's of the same window
/// when it has one) and, room allowing, the average since t 0; in `room` columns. True when
/// the title holds the average.
fn headline(app: &App, snapshot: &Snapshot, recent: Option<Recent>, room: usize) -> (String, bool) {
    let Some(recent) = recent else {
        let live = format!(" goodput {} ", fmt::rate(snapshot.goodput_rps));
        return match app.pin() {
            Some(pin) => (
                format!("{live}· pin {} ", fmt::rate(pin.goodput_rps)),
                false,
            ),
            None => (live, false),
        };
    };
    let live = format!(" goodput {} last 10 s ", fmt::rate(recent.goodput_rps));
    let pin = app.pin().map(|pin| match pin.recent {
        Some(r) => format!("· pin {} ", fmt::rate(r.goodput_rps)),
        None => format!("· pin {} since t 0 ", fmt::rate(pin.goodput_rps)),
    });
    let average = format!("· since t 0 {} ", fmt::rate(snapshot.goodput_rps));
    let fits = |t: &String| t.chars().count() <= room;
    let candidates = [
        pin.as_ref().map(|p| (format!("{live}{p}{average}"), true)),
        Some((format!("{live}{average}"), true)).filter(|_| pin.is_none()),
        pin.as_ref().map(|p| (format!("{live}{p}"), false)),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|(t, _)| fits(t))
        .unwrap_or((live, false))
}

/// One count per outcome, in its colour: one row when wide enough, else two.
fn counter_rows(p: &Palette, snapshot: &Snapshot, width: u16) -> Vec<Line<'static>> {
    let counter = |o: Outcome| {
        let style = p.outcome(o);
        vec![
            Span::styled(format!(" {} ", o.name()), style),
            Span::styled(
                format!("{} ", fmt::count(snapshot.outcomes.get(o))),
                style.add_modifier(ratatui::style::Modifier::BOLD),
            ),
        ]
    };
    let row = |outcomes: &[Outcome]| {
        Line::from(
            outcomes
                .iter()
                .flat_map(|&o| counter(o))
                .collect::<Vec<_>>(),
        )
    };
    if width >= 75 {
        vec![row(&Outcome::ALL)]
    } else {
        vec![
            row(&[Outcome::Success, Outcome::Partial, Outcome::Failed]),
            row(&[Outcome::Timeout, Outcome::Refused]),
        ]
    }
}

/// Starving clients, the failures' own rates, then answered requests, open connections, the
/// accept queue, late responses and dropped handshakes: as many whole parts as fit in
/// `rows` lines of `width` columns, in that order, so a number is never cut (`answered 90`
/// must not read `answered 9`).
fn rates_and_connections(
    snapshot: &Snapshot,
    line: LineStart,
    width: u16,
    rows: usize,
) -> Vec<String> {
    let width = usize::from(width);
    let mut lines = vec![String::new()];
    for part in line_parts(snapshot, line) {
        let Some(line) = lines.last_mut() else {
            break;
        };
        let next = if line.is_empty() {
            format!(" {part}")
        } else {
            format!(" · {part}")
        };
        if line.chars().count() + next.chars().count() <= width {
            line.push_str(&next);
            continue;
        }
        let fresh = format!(" {part}");
        if lines.len() >= rows || fresh.chars().count() > width {
            break;
        }
        lines.push(fresh);
    }
    lines
}

/// The parts of the line under the counters, most important first. Once the title shows the
/// last 10 s, no rate since t 0 stands beside it unlabelled: the average goodput comes first
/// when the title has no room for it, and the failures' rates since t 0 give way to the
/// counts (the headline in large type, `L`, has the failures of the last 10 s).
fn line_parts(snapshot: &Snapshot, line: LineStart) -> Vec<String> {
    // Starving clients are the overload story: they come first, so a narrow panel keeps them.
    let mut parts: Vec<String> = starving(snapshot).into_iter().collect();
    if line == LineStart::RecentWithAverage {
        parts.push(format!(
            "since t 0: goodput {}",
            fmt::rate(snapshot.goodput_rps)
        ));
    }
    parts.extend(
        Outcome::FAILURES
            .iter()
            .filter(|_| line == LineStart::Whole)
            .filter(|&&o| snapshot.outcomes.get(o) > 0)
            .map(|&o| {
                format!(
                    "{} {}",
                    o.name().to_lowercase(),
                    fmt::rate(snapshot.rate_of(o))
                )
            }),
    );
    parts.push(format!(
        "answered {}",
        fmt::count(snapshot.outcomes.answered())
    ));
    parts.push(format!(
        "conn {}",
        fmt::count(u64::from(snapshot.connections))
    ));
    parts.push(format!(
        "backlog {}",
        fmt::count(u64::from(snapshot.backlog))
    ));
    if snapshot.late_responses > 0 {
        parts.push(format!("late {}", fmt::count(snapshot.late_responses)));
    }
    parts.extend(longest_wait(snapshot));
    let dropped = |n: &&NetSnapshot| n.stats.syn_drops + n.stats.ack_overflows > 0;
    if let Some(net) = snapshot.net.as_ref().filter(dropped) {
        let counts = [
            ("SYN", net.stats.syn_drops),
            ("ACK", net.stats.ack_overflows),
        ];
        let text: Vec<String> = counts
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(what, n)| format!("{what} drops {}", fmt::count(*n)))
            .collect();
        parts.push(format!(
            "{} (connect p99 {} ms)",
            text.join(" · "),
            fmt::ms(net.connect.p99)
        ));
    }
    parts
}

/// Closed clients that have not had a single answer (the longest wait comes later on the
/// line: see `longest_wait`).
fn starving(snapshot: &Snapshot) -> Option<String> {
    let clients = snapshot.net.as_ref()?.clients?;
    (clients.never_answered > 0).then(|| {
        format!(
            "{}/{} clients unanswered",
            fmt::count(u64::from(clients.never_answered)),
            fmt::count(u64::from(clients.count)),
        )
    })
}

/// How long the most starved client has waited, when some client has no answer yet.
fn longest_wait(snapshot: &Snapshot) -> Option<String> {
    let clients = snapshot.net.as_ref()?.clients?;
    (clients.never_answered > 0)
        .then(|| format!("longest wait {:.1} s", clients.longest_wait.as_secs_f64()))
}

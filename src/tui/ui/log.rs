//! The event log in the article's row format, `Run # | Strategy | Time (ms) | Thread Name |
//! Status`, newest at the bottom, with every change a person made in between.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use crate::sim::{LogLine, RunLine, Snapshot};
use crate::tui::app::App;
use crate::tui::theme::Palette;

use super::fmt;

/// Widths of the fixed columns: run, strategy, time.
const RUN: usize = 5;
const STRATEGY: usize = 10;
const TIME: usize = 9;
const SEP: &str = " │ ";
const SEP_WIDTH: usize = 3;

pub fn render(frame: &mut Frame, area: Rect, app: &App, snapshot: &Snapshot) {
    let p = app.palette();
    let back = app.log_scroll().min(snapshot.log.len().saturating_sub(1));
    let title = if back > 0 {
        format!(" Log · {back} newer entries below (wheel down) ")
    } else {
        " Log ".to_string()
    };
    let block = Block::bordered()
        .title(Line::styled(title, p.title))
        .border_style(p.border);
    let inner = block.inner(area);
    frame.render_widget(block, area);

    let width = usize::from(inner.width);
    let rows = usize::from(inner.height).saturating_sub(1);
    let end = snapshot.log.len() - back;
    let skip = end.saturating_sub(rows);
    let shown = &snapshot.log[skip..end];
    let columns = LogColumns::fitted(snapshot, width);
    let mut lines = vec![columns.header(p)];
    lines.extend(shown.iter().map(|entry| match entry {
        LogLine::Run(run) => columns.run(p, run),
        LogLine::Change { at, text } => Line::styled(
            fmt::fit(
                &format!(" {:>w$}   {} {text}", "⚙", fmt::clock(*at), w = RUN - 1),
                width,
            ),
            p.change,
        ),
    }));
    frame.render_widget(Paragraph::new(lines), inner);
}

struct LogColumns {
    thread: usize,
    status: usize,
}

impl LogColumns {
    /// What is left after the fixed columns goes to thread and status. The thread column is
    /// as wide as the longest thread name the scenario's pools can give (their prefix and a
    /// three-digit number), not the rows on screen, so the columns stay put from frame to
    /// frame; it takes at most 60 % of the room.
    fn fitted(snapshot: &Snapshot, width: usize) -> LogColumns {
        let rest = width.saturating_sub(RUN + STRATEGY + TIME + 4 * SEP_WIDTH);
        let longest = snapshot
            .pools
            .iter()
            .map(|pool| fmt::columns(&pool.prefix) + 3)
            .max()
            .unwrap_or(0);
        let thread = longest.max("Thread Name".len()).min(rest * 3 / 5);
        LogColumns {
            thread,
            status: rest - thread,
        }
    }

    fn header(&self, p: &Palette) -> Line<'static> {
        let text = [
            fmt::fit_right("Run #", RUN),
            fmt::fit("Strategy", STRATEGY),
            fmt::fit_right("Time (ms)", TIME),
            fmt::fit("Thread Name", self.thread),
            fmt::fit("Status", self.status),
        ]
        .join(SEP);
        Line::styled(text, p.title)
    }

    fn run(&self, p: &Palette, run: &RunLine) -> Line<'static> {
        let cells = [
            fmt::fit_right(&run.run.to_string(), RUN),
            fmt::fit(run.strategy.name(), STRATEGY),
            fmt::fit_right(&format!("{:.0}", run.time.as_millis_f64()), TIME),
            // Cut on the left: `…commonPool-worker-3` keeps the number that tells threads apart.
            fmt::fit_left(&run.thread, self.thread),
        ];
        let mut spans: Vec<Span> = Vec::new();
        for cell in cells {
            spans.push(Span::raw(cell));
            spans.push(Span::styled(SEP, p.dim));
        }
        // Shortened by rule before any cut: `Partial (Recs:Fallback)` -> `Partial (Recs)`.
        let status = if fmt::columns(&run.status) > self.status {
            run.status.replace(":Fallback", "")
        } else {
            run.status.clone()
        };
        spans.push(Span::styled(
            fmt::fit(&status, self.status),
            p.outcome(run.outcome),
        ));
        Line::from(spans)
    }
}

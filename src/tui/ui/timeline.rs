//! The timeline view (`t`): one lane per thread, the recent past scrolling right to left.
//!
//! ```text
//! ┌ Timeline · IronThread · last 2.8 s · 50 ms/col ────────────────────────────────┐
//! │ http-nio-8080-exec-1 │      ───────────────────                                │ requests
//! │ ─ IronThread ───────────────────────────────────────────────────────────────── │
//! │▸IronThread-1         │      U███                                               │ pool lanes
//! │ IronThread-2         │      O█████████                                         │
//! │ IronThread-3         │      R███████████████████                               │
//! │ queued               │                                                         │
//! │ +3 more (j/k scroll)                                                           │
//! │ IronThread-1: user call of request #4, 120 ms; its handler http-nio-8080-exec-… │ detail
//! │ █ call (letter: service) ▓ on core ▒ pinned × past timeout ─ join() 3 queued   │ legend
//! └────────────────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! Each column is [`COLUMN`] of simulated time; a cell shows the most telling thing its
//! thread did in it (on core, past its caller's timeout, pinned, in a call, waiting in
//! `join()`, handling). When the selected pool is not the server's, the request handlers'
//! lanes sit on top, so a fan-out's handler is seen waiting while the pool threads work.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span as TextSpan};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::sim::{Engine, LaneKey, PoolId, Span, SpanKind, ThreadName, Timeline};
use crate::time::Nanos;

use super::super::app::App;
use super::super::theme::Palette;

/// Simulated time per column.
pub const COLUMN: Nanos = Nanos::from_millis(50);
/// Width of the thread-name column.
const LABEL: usize = 21;

/// What a thread did during one column, least telling first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cell {
    Idle,
    Handler,
    Waiting,
    /// In a call of this service; `first` marks the column the call started in.
    Call {
        service: usize,
        first: bool,
    },
    Pinned,
    PastTimeout,
    OnCore,
}

/// One thread's lane: which thread, how busy in the window, and for which request now.
#[derive(Debug, Clone)]
pub struct LaneRow {
    pub key: LaneKey,
    /// Time in calls and handlers since recording began (for ordering lanes busiest first).
    pub busy: Nanos,
    /// The JVM thread number (the lane's latest thread).
    pub number: u32,
    /// The request this thread works for now, if any.
    pub request: Option<u64>,
}

/// The window: `cols` columns, the last one ending now (so the picture scrolls right to
/// left from the first frame on).
#[derive(Debug, Clone, Copy)]
pub struct Window {
    /// The earliest time shown (t = 0 until the window has filled).
    pub start: Nanos,
    pub now: Nanos,
    pub cols: usize,
    /// Where column 0 starts, possibly before t = 0.
    origin: i128,
}

impl Window {
    pub fn ending(now: Nanos, cols: usize) -> Window {
        let origin = i128::from(now.as_nanos()) - i128::from(COLUMN.as_nanos()) * cols as i128;
        Window {
            start: Nanos(u64::try_from(origin.max(0)).unwrap_or(0)),
            now,
            cols,
            origin,
        }
    }

    /// The simulated time the window spans.
    pub fn length(&self) -> Nanos {
        Nanos(COLUMN.as_nanos() * self.cols as u64)
    }

    /// The columns `[from, to]` a span covers, if it shows in the window.
    fn columns(&self, start: Nanos, end: Nanos) -> Option<(usize, usize)> {
        if end < self.start || start > self.now || self.cols == 0 {
            return None;
        }
        let col = |t: Nanos| {
            let i = (i128::from(t.as_nanos()) - self.origin) / i128::from(COLUMN.as_nanos());
            usize::try_from(i.max(0))
                .unwrap_or(usize::MAX)
                .min(self.cols - 1)
        };
        let last = if end > start { Nanos(end.0 - 1) } else { end };
        Some((col(start.max(self.start)), col(last.min(self.now))))
    }
}

/// Spans close in time order, so a scan from the newest stops at the first that ended
/// before the window; CPU bursts are recorded when they start, hence a little slack.
const SCAN_SLACK: Nanos = Nanos::from_millis(100);

/// The closed spans of a lane that may show in the window, newest first.
fn recent(lane: &crate::sim::Lane, w: Window) -> impl Iterator<Item = &Span> {
    lane.spans
        .iter()
        .rev()
        .take_while(move |s| s.end + SCAN_SLACK >= w.start)
}

/// The lanes of `pool` that have done something; when they are more than `room`, the busiest
/// first (working now, then most time in calls and handlers since recording began), else by
/// thread number. Ordering reads only each lane's totals and only the lanes drawn are
/// painted ([`cells`]), so 200 threads cost little more than the 30 on screen.
pub fn lanes_of(t: &Timeline, pool: PoolId, w: Window, room: usize) -> Vec<LaneRow> {
    let mut rows: Vec<LaneRow> = t
        .pool_lanes(pool)
        .filter(|(_, lane)| !lane.spans.is_empty() || lane.open().next().is_some())
        .map(|(key, lane)| {
            let open: Nanos = lane
                .open()
                .filter(|s| matches!(s.kind, SpanKind::Call | SpanKind::Handler))
                .map(|s| w.now.saturating_sub(s.start))
                .fold(Nanos::ZERO, |a, b| a + b);
            let number = lane
                .open()
                .chain(lane.spans.back())
                .map(|s| s.thread)
                .next()
                .unwrap_or(0);
            LaneRow {
                key: *key,
                busy: lane.busy + open,
                number,
                request: lane.open().next().map(|s| s.request),
            }
        })
        .collect();
    if rows.len() > room {
        rows.sort_by_key(|r| (r.request.is_none(), std::cmp::Reverse(r.busy), r.number));
    } else {
        rows.sort_by_key(|r| r.number);
    }
    rows
}

/// What a lane's thread did in each column of the window.
pub fn cells(t: &Timeline, key: LaneKey, w: Window) -> Vec<Cell> {
    let mut cells = vec![Cell::Idle; w.cols];
    let Some(lane) = t.lane(key) else {
        return cells;
    };
    for s in recent(lane, w) {
        paint(&mut cells, s, w);
    }
    for s in lane.open() {
        paint(&mut cells, &Span { end: w.now, ..*s }, w);
    }
    cells
}

fn paint(cells: &mut [Cell], s: &Span, w: Window) {
    let Some((from, to)) = w.columns(s.start, s.end) else {
        return;
    };
    let cell = |first: bool| match s.kind {
        SpanKind::Handler => Cell::Handler,
        SpanKind::Waiting => Cell::Waiting,
        SpanKind::OnCore => Cell::OnCore,
        SpanKind::Queued => Cell::Idle,
        SpanKind::Call if s.pinned => Cell::Pinned,
        SpanKind::Call => Cell::Call {
            service: s.service.map_or(0, |x| x.0),
            first: first && s.start >= w.start,
        },
    };
    for (i, c) in cells.iter_mut().enumerate().take(to + 1).skip(from) {
        *c = (*c).max(cell(i == from));
    }
    if let Some(at) = s.timed_out_at.filter(|at| *at < s.end)
        && let Some((from, to)) = w.columns(at, s.end)
    {
        for c in cells.iter_mut().take(to + 1).skip(from) {
            *c = (*c).max(Cell::PastTimeout);
        }
    }
}

/// Tasks in `pool`'s queue during each column.
fn queue_row(t: &Timeline, pool: PoolId, w: Window) -> Vec<u32> {
    let mut depth = vec![0u32; w.cols];
    let now_queued = t.queued_now().filter(|(p, _)| *p == pool).map(|(_, s)| s);
    let open: Vec<Span> = now_queued.map(|s| Span { end: w.now, ..*s }).collect();
    let ended = t
        .pool_queue_spans(pool)
        .rev()
        .take_while(|s| s.end >= w.start);
    for s in ended.chain(open.iter()) {
        if let Some((from, to)) = w.columns(s.start, s.end) {
            for d in &mut depth[from..=to] {
                *d += 1;
            }
        }
    }
    depth
}

/// Draws the view in `area`.
pub fn render(frame: &mut Frame, area: Rect, app: &App, selected_lane: usize) {
    // Only the simulated engine records timelines: a real run refuses `t`.
    let Some(engine) = app.engine() else {
        return;
    };
    let p = app.palette();
    let pool = app.selected_pool().unwrap_or(engine.topology().server());
    let pool_name = engine
        .topology()
        .pools()
        .get(pool)
        .map_or_else(|| "?".to_string(), |p| p.spec.name.clone());
    let cols = usize::from(area.width.saturating_sub(2)).saturating_sub(LABEL + 2);
    let w = Window::ending(engine.now(), cols);
    let title = format!(
        " Timeline · {pool_name} · last {:.1} s · {} ms/col ",
        w.length().as_secs_f64(),
        COLUMN.as_nanos() / 1_000_000
    );
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(p.border)
        .title(TextSpan::styled(title, p.title));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(t) = engine.timeline() else {
        let text = "not recording: press t to record thread timelines";
        frame.render_widget(Paragraph::new(Line::styled(text, p.dim)), inner);
        return;
    };
    let lines = lines(
        engine,
        t,
        p,
        (pool, &pool_name),
        w,
        inner.height,
        selected_lane,
    );
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The view's lines for a body `height` rows high.
fn lines<'a>(
    engine: &Engine,
    t: &Timeline,
    p: &Palette,
    (pool, pool_name): (PoolId, &str),
    w: Window,
    height: u16,
    selected: usize,
) -> Vec<Line<'a>> {
    // Two rows for the detail and the legend, one for "+N more".
    let mut room = usize::from(height).saturating_sub(3);
    let mut out = Vec::new();
    let server = engine.topology().server();
    let handlers = if pool == server {
        Vec::new()
    } else {
        lanes_of(t, server, w, 4)
    };
    let lanes = lanes_of(t, pool, w, room);
    let selected = selected.min(lanes.len().saturating_sub(1));
    let current = lanes.get(selected).and_then(|l| l.request);
    if !handlers.is_empty() {
        let on_top = handler_lines(&handlers, current, (t, w), p, engine, pool_name, room);
        room = room.saturating_sub(on_top.len());
        out.extend(on_top);
    }
    let queue = queue_row(t, pool, w);
    let queued = queue.iter().any(|d| *d > 0);
    // With a collector (`[jvm.gc]`), a lane of its pauses: every thread above stood still.
    let gc = gc_row(engine, w);
    let room = room.saturating_sub(usize::from(queued) + usize::from(gc.is_some()));
    let first = (selected + 1).saturating_sub(room);
    for (i, lane) in lanes.iter().enumerate().skip(first).take(room) {
        let mark = if i == selected { '▸' } else { ' ' };
        out.push(lane_line(lane, (t, w), p, engine, mark));
    }
    if queued {
        out.push(queue_line(&queue, p));
    }
    if let Some(paused) = gc {
        out.push(gc_line(&paused, p));
    }
    let hidden = lanes.len().saturating_sub(room);
    if hidden > 0 {
        out.push(Line::styled(
            format!(" +{hidden} more (j/k to scroll)"),
            p.dim,
        ));
    }
    out.resize(usize::from(height).saturating_sub(2), Line::default());
    out.push(detail(engine, t, lanes.get(selected), p));
    out.push(legend(p));
    out
}

/// The handlers on top, the one serving the selected lane's request marked, then a rule
/// naming the pool: the request's lifetime beside its calls. Empty when `room` is too small.
fn handler_lines<'a>(
    handlers: &[LaneRow],
    current: Option<u64>,
    (t, w): (&Timeline, Window),
    p: &Palette,
    engine: &Engine,
    pool_name: &str,
    room: usize,
) -> Vec<Line<'a>> {
    let shown = handlers.len().min(room / 3).min(4);
    let mut out = Vec::with_capacity(shown + 1);
    for lane in handlers.iter().take(shown) {
        let mark = lane.request.is_some() && lane.request == current;
        out.push(lane_line(
            lane,
            (t, w),
            p,
            engine,
            if mark { '◂' } else { ' ' },
        ));
    }
    if shown > 0 {
        let rule = "─".repeat((LABEL + w.cols).saturating_sub(pool_name.chars().count() + 2));
        out.push(Line::styled(format!(" ─ {pool_name} {rule}"), p.dim));
    }
    out
}

fn lane_line<'a>(
    lane: &LaneRow,
    (t, w): (&Timeline, Window),
    p: &Palette,
    engine: &Engine,
    mark: char,
) -> Line<'a> {
    let name = engine.thread_name(ThreadName::Worker {
        pool: lane.key.pool,
        number: lane.number,
    });
    let mut spans = vec![TextSpan::styled(
        format!("{mark}{name:<width$.width$}│", width = LABEL),
        if mark == ' ' { p.text } else { p.selected },
    )];
    let names = &engine.scenario().services;
    let mut run = String::new();
    let mut style = Style::new();
    for cell in &cells(t, lane.key, w) {
        let (glyph, s) = match *cell {
            Cell::Idle => (' ', p.idle),
            Cell::Handler => ('╌', p.dim),
            Cell::Waiting => ('─', p.dim),
            Cell::Call { service, first } => {
                let letter = names
                    .get(service)
                    .and_then(|s| s.name.chars().next())
                    .map_or('█', |c| c.to_ascii_uppercase());
                (if first { letter } else { '█' }, p.service(service))
            }
            Cell::Pinned => ('▒', p.busy),
            Cell::PastTimeout => ('×', p.outcome(crate::metrics::Outcome::Timeout)),
            Cell::OnCore => ('▓', p.busy),
        };
        if s != style && !run.is_empty() {
            spans.push(TextSpan::styled(std::mem::take(&mut run), style));
        }
        style = s;
        run.push(glyph);
    }
    spans.push(TextSpan::styled(run, style));
    Line::from(spans)
}

fn queue_line<'a>(depth: &[u32], p: &Palette) -> Line<'a> {
    let cells: String = depth
        .iter()
        .map(|d| match d {
            0 => ' ',
            1..=9 => char::from_digit(*d, 10).unwrap_or('+'),
            _ => '+',
        })
        .collect();
    Line::from(vec![
        TextSpan::styled(format!(" {:<LABEL$}│", "queued"), p.text),
        TextSpan::styled(cells, p.queue),
    ])
}

/// The collector's lane: `█` in a column a pause fell in.
fn gc_line<'a>(paused: &[bool], p: &Palette) -> Line<'a> {
    let cells: String = paused.iter().map(|&x| if x { '█' } else { ' ' }).collect();
    Line::from(vec![
        TextSpan::styled(format!(" {:<LABEL$}│", "GC pauses"), p.text),
        TextSpan::styled(cells, p.queue),
    ])
}

/// The columns of `w` in which a pause of the collector fell; `None` without a collector.
fn gc_row(engine: &Engine, w: Window) -> Option<Vec<bool>> {
    engine.scenario().jvm.gc?;
    let mut paused = vec![false; w.cols];
    let pauses = engine.gc_pauses();
    // Pauses are in time order: the ones that may show are at the end.
    let first = pauses.partition_point(|&(start, len)| start + len < w.start);
    for &(start, len) in &pauses[first..] {
        if let Some((from, to)) = w.columns(start, start + len) {
            for x in &mut paused[from..=to] {
                *x = true;
            }
        }
    }
    Some(paused)
}

/// What the selected thread is doing, and where its request's handler is.
fn detail<'a>(engine: &Engine, t: &Timeline, lane: Option<&LaneRow>, p: &Palette) -> Line<'a> {
    let Some(row) = lane else {
        return Line::styled(" no thread has worked since recording began", p.dim);
    };
    let now = engine.now();
    let Some(open) = t.lane(row.key) else {
        return Line::default();
    };
    let ms = |s: &Span| now.saturating_sub(s.start).as_millis_f64();
    let text = match (open.call, open.waiting, open.handler) {
        (Some(c), _, _) => {
            let service = c
                .service
                .and_then(|s| engine.scenario().services.get(s.0))
                .map_or("?", |s| s.name.as_str());
            let server = engine.topology().server();
            let handler = t
                .pool_lanes(server)
                .find(|(k, l)| **k != row.key && l.handler.is_some_and(|h| h.request == c.request))
                .map(|(_, l)| {
                    let number = l.handler.map_or(0, |h| h.thread);
                    let name = engine.thread_name(ThreadName::Worker {
                        pool: server,
                        number,
                    });
                    let state = if l.waiting.is_some() { "waits" } else { "runs" };
                    format!("; handler {name} {state}")
                })
                .unwrap_or_default();
            let late = if c.timed_out_at.is_some() {
                ", past its timeout"
            } else {
                ""
            };
            format!(
                "{service}, request #{}, {:.0} ms{late}{handler}",
                c.request,
                ms(&c)
            )
        }
        (None, Some(wt), _) => format!(
            "request #{} waits in join() for its calls: {:.0} ms",
            wt.request,
            ms(&wt)
        ),
        (None, None, Some(h)) => format!("handling request #{} for {:.0} ms", h.request, ms(&h)),
        (None, None, None) => "idle".to_string(),
    };
    // The ▸ lane's name is on screen already; the line keeps its width for the request.
    Line::from(vec![
        TextSpan::styled(" ▸ ", p.title),
        TextSpan::styled(text, p.text),
    ])
}

fn legend<'a>(p: &Palette) -> Line<'a> {
    Line::styled(
        " █ call (letter: service) ▓ on core ▒ pinned × past timeout ─ join() 3 queued",
        p.dim,
    )
}

#[cfg(test)]
#[path = "timeline_tests.rs"]
mod tests;

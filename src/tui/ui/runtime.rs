//! Real mode's runtime panel: the tokio runtime (tokio-metrics) and each group of
//! instrumented tasks, then whether the run keeps up with real time and, when not, why.
//!
//! ```text
//! ┌ Runtime (tokio) ────────────────────────────────────────────────── BEHIND ┐
//! │ workers 2 · busy 1.9 of 2 · global queue 3 · live tasks 40 · timers 7.0 ms late
//! │ task group         live  mean poll  delay now  delay run  slow polls
//! │ unbounded            38    0.02 ms   12.00 ms    0.40 ms          1%
//! │ behind: 12.0 ms scheduling delay (unbounded tasks), CPU work needs 1.9 of 2 cores
//! └────────────────────────────────────────────────────────────────────────────┘
//! ```

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use crate::real::{
    LATE_TIMER_LIMIT_MS, Lag, RuntimeView, SCHEDULING_DELAY_LIMIT_MS, TaskGroupView,
};
use crate::tui::theme::Palette;

use super::fmt;

/// Rows the panel wants for `view`: borders, the runtime line, the table header and a row
/// per task group (or a line saying there are none), the verdict (two lines when behind).
pub fn height(view: &RuntimeView, lag: &[Lag]) -> u16 {
    let groups = view.tasks.iter().filter(|t| t.instrumented > 0).count();
    let table = if groups == 0 { 1 } else { 1 + groups };
    let verdict = if lag.is_empty() { 1 } else { 2 };
    2 + 1 + u16::try_from(table).unwrap_or(u16::MAX) + verdict
}

pub fn render(
    frame: &mut Frame,
    area: Rect,
    p: &Palette,
    view: &RuntimeView,
    lag: &[Lag],
    cores: usize,
) {
    let verdict = if lag.is_empty() {
        Span::styled(" keeping up ", p.running)
    } else {
        Span::styled(" BEHIND ", p.error)
    };
    let block = Block::bordered()
        .title(Line::styled(" Runtime (tokio) ", p.title))
        .title(Line::from(verdict).right_aligned())
        .border_style(p.border);
    let inner = block.inner(area);
    frame.render_widget(block, area);

    let width = usize::from(inner.width);
    let mut lines = vec![runtime_line(p, view, width)];
    task_groups(p, view, width, &mut lines);
    // The verdict comes last and wraps: it is the line that matters.
    let verdict = verdict_line(p, lag, cores);
    let rows = usize::from(inner.height);
    lines.truncate(rows.saturating_sub(1));
    let top = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    frame.render_widget(Paragraph::new(lines), inner);
    let rest = Rect {
        y: inner.y + top,
        height: inner.height.saturating_sub(top),
        ..inner
    };
    frame.render_widget(Paragraph::new(verdict).wrap(Wrap { trim: false }), rest);
}

/// ` workers 2 · busy 1.9 of 2 · global queue 3 · live tasks 40 · timers 7.0 ms late`
fn runtime_line(p: &Palette, view: &RuntimeView, width: usize) -> Line<'static> {
    let runtime = vec![
        vec![Span::raw(format!("workers {}", view.workers))],
        vec![Span::raw(format!(
            "busy {:.1} of {}",
            view.busy_ratio, view.workers
        ))],
        vec![Span::raw(format!(
            "global queue {}",
            fmt::count(view.global_queue_depth as u64)
        ))],
        vec![Span::raw(format!(
            "live tasks {}",
            fmt::count(view.live_tasks as u64)
        ))],
        vec![Span::raw(format!(
            "timers {} ms late",
            fmt::ms(view.timer_late_ms)
        ))],
    ];
    let mut line = vec![Span::raw(" ")];
    line.extend(fmt::items(
        runtime,
        Span::styled(" · ", p.dim),
        width.saturating_sub(1),
    ));
    Line::from(line)
}

/// The table of instrumented task groups, or a line saying there are none yet.
fn task_groups(p: &Palette, view: &RuntimeView, width: usize, lines: &mut Vec<Line<'static>>) {
    let groups: Vec<&TaskGroupView> = view.tasks.iter().filter(|t| t.instrumented > 0).collect();
    if groups.is_empty() {
        lines.push(Line::styled(
            " no tokio tasks yet: this strategy's work runs on OS threads",
            p.dim,
        ));
    } else {
        lines.push(Line::styled(
            fmt::fit(
                " task group        live  mean poll  delay now  delay run  slow polls",
                width,
            ),
            p.dim,
        ));
        lines.extend(groups.into_iter().map(|g| group(p, g, width)));
    }
}

/// Keeping up within the limits, or behind and why.
fn verdict_line(p: &Palette, lag: &[Lag], cores: usize) -> Line<'static> {
    if lag.is_empty() {
        Line::styled(
            format!(
                " keeping up: scheduling delay and timers under {:.0} ms, CPU work within {cores} cores",
                SCHEDULING_DELAY_LIMIT_MS.max(LATE_TIMER_LIMIT_MS)
            ),
            p.dim,
        )
    } else {
        let reasons: Vec<String> = lag.iter().map(ToString::to_string).collect();
        Line::styled(format!(" behind: {}", reasons.join(", ")), p.error)
    }
}

/// ` unbounded            38    0.02 ms   12.00 ms    0.40 ms          1%`
fn group(p: &Palette, g: &TaskGroupView, width: usize) -> Line<'static> {
    let ms = |us: f64| format!("{} ms", fmt::ms(us / 1e3));
    let late = g.tick_mean_scheduled_us >= SCHEDULING_DELAY_LIMIT_MS * 1e3;
    let live = g.instrumented.saturating_sub(g.dropped);
    let head = format!(
        " {} {:>5} {:>10} ",
        fmt::fit(&g.name, 16),
        fmt::count(live),
        ms(g.mean_poll_us)
    );
    let now = format!("{:>10}", ms(g.tick_mean_scheduled_us));
    let tail = format!(
        " {:>10} {:>11}",
        ms(g.mean_scheduled_us),
        fmt::percent(g.slow_poll_ratio)
    );
    let text = format!("{head}{now}{tail}");
    if text.chars().count() > width {
        return Line::styled(fmt::fit(&text, width), p.text);
    }
    Line::from(vec![
        Span::raw(head),
        Span::styled(now, if late { p.error } else { p.text }),
        Span::raw(tail),
    ])
}

#[cfg(test)]
mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;
    use crate::tui::Theme;

    fn draw(view: &RuntimeView, lag: &[Lag], width: u16) -> String {
        let mut terminal =
            Terminal::new(TestBackend::new(width, height(view, lag))).expect("test terminal");
        let p = Palette::of(Theme::NoColor);
        terminal
            .draw(|frame| render(frame, frame.area(), &p, view, lag, 2))
            .expect("draws");
        terminal.backend().to_string()
    }

    // The update fills the fields that exist under `--cfg tokio_unstable` only.
    #[allow(clippy::needless_update)]
    fn busy_view() -> RuntimeView {
        let group = |name: &str, instrumented, dropped, poll, now, run, slow| TaskGroupView {
            name: name.to_string(),
            instrumented,
            dropped,
            polls: 1000,
            mean_poll_us: poll,
            mean_scheduled_us: run,
            slow_poll_ratio: slow,
            tick_mean_poll_us: poll,
            tick_mean_scheduled_us: now,
            tick_slow_poll_ratio: slow,
        };
        RuntimeView {
            workers: 2,
            ticks: 40,
            tick_ms: 10.0,
            busy_ratio: 1.93,
            busy_ratio_mean: 1.5,
            busy_ratio_max: 1.98,
            global_queue_depth: 3,
            global_queue_depth_max: 9,
            live_tasks: 41,
            live_tasks_max: 60,
            park_count: 120,
            timer_late_ms: 7.0,
            timer_late_max_ms: 9.5,
            tasks: vec![
                group("unbounded", 538, 500, 21.0, 12_000.0, 400.0, 0.012),
                group("virtual-handlers", 0, 0, 0.0, 0.0, 0.0, 0.0),
                group("load", 3, 0, 8.0, 150.0, 90.0, 0.0),
            ],
            ..RuntimeView::default()
        }
    }

    #[test]
    fn a_runtime_that_cannot_keep_up() {
        let lag = [
            Lag::SchedulingDelay {
                group: "unbounded".into(),
                ms: 12.0,
            },
            Lag::LateTimers { ms: 7.0 },
            Lag::CpuWork {
                needed: 1.9,
                cores: 2,
            },
        ];
        insta::assert_snapshot!("runtime_behind_80", draw(&busy_view(), &lag, 80));
    }

    #[test]
    fn a_runtime_that_keeps_up() {
        let mut view = busy_view();
        view.busy_ratio = 0.2;
        view.timer_late_ms = 0.3;
        view.tasks.truncate(0);
        let text = draw(&view, &[], 80);
        assert!(text.contains("keeping up"), "{text}");
        assert!(text.contains("no tokio tasks yet"), "{text}");
    }
}

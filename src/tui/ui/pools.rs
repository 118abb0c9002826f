//! The pools panel: the server pool and every pool the strategy uses, each with its threads
//! as cells (█ busy, ░ idle) or, when they do not fit, a gauge with counts; alive vs
//! core/max; queue depth vs capacity with its sparkline; rejections and the largest size.
//! When rows are short the selected pool keeps its cells and the others shrink to one line.
//! What the threads wait on besides pools (cores, connection pools) follows, one line each
//! (see [`bottlenecks`](super::bottlenecks)). Pools the strategy no longer uses but that
//! still have threads come after its own. Pools that do not fit are counted on a
//! `+N pools (Tab shows them)` line. The title carries the estimated stack memory of every
//! live thread.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use crate::sim::pool::PoolKind;
use crate::sim::{PoolSnapshot, Snapshot};
use crate::tui::app::App;
use crate::tui::theme::Palette;

use crate::topology::PoolId;

use super::fmt;

pub fn render(frame: &mut Frame, area: Rect, app: &App, snapshot: &Snapshot) {
    let p = app.palette();
    let block = Block::bordered()
        .title(Line::styled(" Pools ", p.title))
        .title(
            Line::styled(
                format!(" stacks {} ", fmt::bytes(snapshot.thread_memory_bytes)),
                p.dim,
            )
            .right_aligned(),
        )
        .title_bottom(Line::styled(" Tab select · +/- size · [/] queue ", p.dim).right_aligned())
        .border_style(p.border);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let lines: Vec<Line> = lines(
        app,
        snapshot,
        usize::from(inner.width),
        usize::from(inner.height),
    )
    .into_iter()
    .map(|(_, line)| line)
    .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The pool drawn at `row` (from 0) inside the panel's border, on a panel of `area`.
pub fn pool_at(app: &App, snapshot: &Snapshot, area: Rect, row: u16) -> Option<PoolId> {
    let inner = Block::bordered().inner(area);
    let index = usize::from(row.checked_sub(inner.y)?);
    lines(
        app,
        snapshot,
        usize::from(inner.width),
        usize::from(inner.height),
    )
    .get(index)
    .and_then(|(pool, _)| *pool)
}

/// The panel's lines for `width` x `rows`, each with the pool it belongs to.
fn lines(app: &App, snapshot: &Snapshot, width: usize, rows: usize) -> Vec<Owned> {
    let p = app.palette();
    let selected = app.selected_pool();
    let find = |id| snapshot.pools.iter().find(|pool| pool.id == id);
    // The strategy's pools, then pools it no longer uses that still hold threads (hung
    // calls of the previous strategy): Tab reaches both.
    let in_use: Vec<&PoolSnapshot> = app.pool_ids().into_iter().filter_map(find).collect();

    let waits_on = super::bottlenecks::lines(p, app.scenario(), snapshot, width);
    // The pools keep at least one row each; the bottleneck lines take what is left.
    let rows_for_pools = rows
        .saturating_sub(waits_on.len())
        .max(in_use.len().min(rows));
    let mut out = pool_lines(p, &in_use, selected, width, rows_for_pools);
    out.extend(waits_on.into_iter().map(|line| (None, line)));
    out.truncate(rows);
    out
}

/// A line of the panel and the pool it draws (none for the lines between pools).
type Owned = (Option<PoolId>, Line<'static>);

/// The pools in use in `rows`: full when each fits in three rows, else the selected one full
/// and the others compact.
fn pool_lines(
    p: &Palette,
    in_use: &[&PoolSnapshot],
    selected: Option<PoolId>,
    width: usize,
    rows: usize,
) -> Vec<Owned> {
    let owned = |pool: &PoolSnapshot, lines: Vec<Line<'static>>| -> Vec<Owned> {
        lines
            .into_iter()
            .map(|line| (Some(pool.id), line))
            .collect()
    };
    let mut out = Vec::new();
    if in_use.len() * 3 <= rows {
        let grants = cell_rows(in_use, selected, width, rows - in_use.len() * 3);
        for (pool, grant) in in_use.iter().zip(grants) {
            out.extend(owned(
                pool,
                full(p, pool, Some(pool.id) == selected, width, grant),
            ));
        }
    } else {
        let groups: Vec<(bool, Vec<Owned>)> = in_use
            .iter()
            .map(|pool| {
                let is_selected = Some(pool.id) == selected;
                if is_selected {
                    (true, owned(pool, full(p, pool, true, width, 1)))
                } else {
                    (false, owned(pool, vec![compact(pool, width, p.text)]))
                }
            })
            .collect();
        out = fit_groups(p, groups, rows);
    }
    out
}

/// Whole pools in `rows`: the selected one always, the others in order while they fit, and
/// a `+N pools (Tab)` line for the ones left out, so no pool disappears silently.
fn fit_groups(p: &Palette, groups: Vec<(bool, Vec<Owned>)>, rows: usize) -> Vec<Owned> {
    let total: usize = groups.iter().map(|(_, g)| g.len()).sum();
    if total <= rows {
        return groups.into_iter().flat_map(|(_, g)| g).collect();
    }
    let mut room = rows.saturating_sub(1);
    let selected_len = groups.iter().find(|(s, _)| *s).map_or(0, |(_, g)| g.len());
    room = room.saturating_sub(selected_len);
    let mut hidden = 0;
    let mut out = Vec::new();
    for (is_selected, group) in groups {
        if is_selected {
            out.extend(group);
        } else if group.len() <= room {
            room -= group.len();
            out.extend(group);
        } else {
            hidden += 1;
        }
    }
    out.truncate(rows.saturating_sub(1));
    let s = if hidden == 1 { "" } else { "s" };
    out.push((
        None,
        Line::styled(format!(" +{hidden} pool{s} (Tab shows them)"), p.dim),
    ));
    out
}

/// Rows of cells for each pool: one each, then the rest to whoever needs more (the selected
/// pool first). A pool whose threads do not fit in its rows gets a gauge instead.
fn cell_rows(
    pools: &[&PoolSnapshot],
    selected: Option<PoolId>,
    width: usize,
    mut spare: usize,
) -> Vec<usize> {
    let mut grants = vec![1; pools.len()];
    let mut order: Vec<usize> = (0..pools.len()).collect();
    order.sort_by_key(|&i| Some(pools[i].id) != selected);
    for i in order {
        let want = pools[i].threads.len().div_ceil(width.max(1)).max(1) - 1;
        if want <= spare {
            grants[i] += want;
            spare -= want;
        }
    }
    grants
}

/// Header, cells (or a gauge) and the queue line.
fn full(
    p: &Palette,
    pool: &PoolSnapshot,
    selected: bool,
    width: usize,
    rows: usize,
) -> Vec<Line<'static>> {
    let mut out = vec![title(p, pool, selected, width)];
    let threads = &pool.threads;
    if threads.len() <= rows * width {
        let mut cells: Vec<Span<'static>> = threads
            .iter()
            .map(|&(_, busy)| {
                if busy {
                    Span::styled("█", p.busy)
                } else {
                    Span::styled("░", p.idle)
                }
            })
            .collect();
        if cells.is_empty() {
            out.push(Line::styled(" no threads", p.dim));
        }
        while !cells.is_empty() {
            let rest = cells.split_off(cells.len().min(width));
            out.push(Line::from(std::mem::replace(&mut cells, rest)));
        }
    } else {
        out.push(gauge(p, pool.active, pool.pool_size, width));
    }
    out.push(queue(p, pool, width));
    out
}

/// `▸IronThread  busy 3/10  core 10 max 20`
fn title(p: &Palette, pool: &PoolSnapshot, selected: bool, width: usize) -> Line<'static> {
    let (marker, name_style) = if selected {
        ("▸", p.selected)
    } else {
        (" ", p.title)
    };
    let busy = format!(
        "busy {}/{}",
        fmt::count(u64::from(pool.active)),
        fmt::count(u64::from(pool.pool_size)),
    );
    let rest = width.saturating_sub(pool.name.chars().count() + 2);
    // Shortened by rule, never cut mid-word: the full sizing, its short form, or none.
    let text = [
        format!("{busy} · {}", sizing(pool)),
        format!("{busy} · {}", short_sizing(pool)),
    ]
    .into_iter()
    .find(|t| t.chars().count() <= rest)
    .unwrap_or(busy);
    Line::from(vec![
        Span::styled(marker, p.title),
        Span::styled(pool.name.clone(), name_style),
        Span::raw(" "),
        Span::raw(fmt::fit(&text, rest).trim_end().to_string()),
    ])
}

/// The size knob that limits the pool, in a few letters.
fn short_sizing(pool: &PoolSnapshot) -> String {
    match pool.kind {
        PoolKind::ThreadPool | PoolKind::Tomcat => format!("max {}", pool.max),
        PoolKind::ForkJoin => format!("par {}", pool.core),
        PoolKind::PerTask => "per task".to_string(),
    }
}

/// The pool's size knobs in its own words.
fn sizing(pool: &PoolSnapshot) -> String {
    match pool.kind {
        PoolKind::ThreadPool => format!("core {} max {}", pool.core, pool.max),
        PoolKind::Tomcat => format!("threads {} spare {}", pool.max, pool.core),
        PoolKind::ForkJoin => format!("parallelism {}", pool.core),
        PoolKind::PerTask => "thread per task".to_string(),
    }
}

/// `queue 12/500 ▁▂▅█ · rej 3 · largest 20`
fn queue(p: &Palette, pool: &PoolSnapshot, width: usize) -> Line<'static> {
    let largest = format!("largest {}", pool.stats.largest_pool_size);
    if pool.kind == PoolKind::PerTask {
        let text = format!(" no queue · {largest}");
        return Line::styled(fmt::fit(&text, width).trim_end().to_string(), p.dim);
    }
    let label = format!(
        " queue {}/{} ",
        fmt::count(u64::from(pool.queued)),
        capacity(pool)
    );
    let mut tail = format!(" · {largest}");
    if pool.stats.rejected > 0 || pool.kind == PoolKind::ThreadPool {
        tail = format!(" · rej {}{tail}", fmt::count(pool.stats.rejected));
    }
    let spark_width = width.saturating_sub(label.chars().count() + tail.chars().count());
    let max = pool
        .queued_series
        .iter()
        .copied()
        .fold(f64::from(pool.queued), f64::max);
    let spark = fmt::sparkline(&pool.queued_series, spark_width, max);
    let spark = fmt::fit(&spark, spark_width);
    let rejected_style = if pool.stats.rejected > 0 {
        p.error
    } else {
        p.dim
    };
    Line::from(vec![
        Span::styled(label, p.text),
        Span::styled(spark, p.queue),
        Span::styled(tail, rejected_style),
    ])
}

fn capacity(pool: &PoolSnapshot) -> String {
    pool.queue_capacity
        .map_or_else(|| "∞".to_string(), |c| fmt::count(u64::from(c)))
}

/// One line for a pool that is not selected: `IronThread busy 3/10 · q 0/500 · rej 0`.
fn compact(pool: &PoolSnapshot, width: usize, style: Style) -> Line<'static> {
    let mut text = format!(
        "{} busy {}/{}",
        pool.name,
        fmt::count(u64::from(pool.active)),
        fmt::count(u64::from(pool.pool_size))
    );
    if pool.kind != PoolKind::PerTask {
        text.push_str(&format!(
            " · q {}/{}",
            fmt::count(u64::from(pool.queued)),
            capacity(pool)
        ));
    }
    if pool.stats.rejected > 0 {
        text.push_str(&format!(" · rej {}", fmt::count(pool.stats.rejected)));
    }
    Line::from(vec![
        Span::raw(" "),
        Span::styled(
            fmt::fit(&text, width.saturating_sub(1))
                .trim_end()
                .to_string(),
            style,
        ),
    ])
}

/// `████████░░░░ 850/900 busy` for pools with more threads than cells fit.
fn gauge(p: &Palette, active: u32, alive: u32, width: usize) -> Line<'static> {
    let label = format!(
        " {}/{} busy",
        fmt::count(u64::from(active)),
        fmt::count(u64::from(alive))
    );
    let bar = width.saturating_sub(label.chars().count());
    let filled = if alive == 0 {
        0
    } else {
        ((f64::from(active) / f64::from(alive)) * bar as f64).round() as usize
    };
    Line::from(vec![
        Span::styled("█".repeat(filled.min(bar)), p.busy),
        Span::styled("░".repeat(bar - filled.min(bar)), p.idle),
        Span::raw(label),
    ])
}

//! What threads wait on besides pools, under the pools: the cores (when calls use CPU or pin
//! their carriers, or when the server's own CPU has kept them half busy or more: a storm of
//! failures) and every connection pool (HikariCP's `active`, `waiting`, connection
//! timeouts and the mean wait). One line each, wrapped between items when narrow:
//!
//! ```text
//! cores busy 8/8 · waiting 192 · util 100%
//! db active 10/10 · waiting 1990
//!    timeouts 0 · wait 9860 ms
//! ```

use ratatui::text::{Line, Span};

use crate::scenario::Scenario;
use crate::sim::{CpuSnapshot, ResourceSnapshot, Snapshot};
use crate::tui::theme::Palette;

use super::fmt;

/// The lines for `snapshot`, none for a scenario without CPU work, pinning or resources.
/// A real run's cores are the machine's (the runtime panel shows them), not a model: its
/// snapshot has none.
pub fn lines(
    p: &Palette,
    scenario: &Scenario,
    snapshot: &Snapshot,
    width: usize,
) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    if let Some(cores) = &snapshot.cpu
        && (uses_cores(scenario) || cores_matter(cores))
    {
        out.extend(cpu(p, cores, width));
    }
    for r in &snapshot.resources {
        out.extend(resource(p, r, width));
    }
    out
}

/// Calls hold cores only when they have CPU time or pin their carrier: otherwise the cores
/// never fill and the line would only take room.
fn uses_cores(scenario: &Scenario) -> bool {
    scenario
        .services
        .iter()
        .any(|s| s.cpu > crate::time::Nanos::ZERO || s.pinned)
}

/// The server's own CPU (per request, per error report) fills the cores only under a storm
/// of failures or resets: then they are the bottleneck and the line shows it.
fn cores_matter(cpu: &CpuSnapshot) -> bool {
    cpu.utilisation >= 0.5
}

/// `cores busy 8/8 · waiting 192 · util 100%`
fn cpu(p: &Palette, cpu: &CpuSnapshot, width: usize) -> Vec<Line<'static>> {
    let busy_style = if cpu.busy >= cpu.cores {
        p.error
    } else {
        p.text
    };
    let waiting_style = if cpu.queued > 0 { p.queue } else { p.dim };
    let items = vec![
        vec![
            Span::styled("cores", p.title),
            Span::styled(
                format!(
                    " busy {}/{}",
                    fmt::count(u64::from(cpu.busy)),
                    fmt::count(u64::from(cpu.cores))
                ),
                busy_style,
            ),
        ],
        vec![Span::styled(
            format!("waiting {}", fmt::count(u64::from(cpu.queued))),
            waiting_style,
        )],
        vec![Span::raw(format!("util {}", fmt::percent(cpu.utilisation)))],
    ];
    wrap(p, items, width)
}

/// `db active 10/10 · waiting 1990 · timeouts 0 · wait 9860 ms`
fn resource(p: &Palette, r: &ResourceSnapshot, width: usize) -> Vec<Line<'static>> {
    let active_style = if r.active >= r.size { p.error } else { p.text };
    let waiting_style = if r.waiting > 0 { p.queue } else { p.dim };
    let timeouts_style = if r.timeouts > 0 { p.error } else { p.dim };
    let items = vec![
        vec![
            Span::styled(r.name.clone(), p.title),
            Span::styled(
                format!(
                    " active {}/{}",
                    fmt::count(u64::from(r.active)),
                    fmt::count(u64::from(r.size))
                ),
                active_style,
            ),
        ],
        vec![Span::styled(
            format!("waiting {}", fmt::count(u64::from(r.waiting))),
            waiting_style,
        )],
        vec![Span::styled(
            format!("timeouts {}", fmt::count(r.timeouts)),
            timeouts_style,
        )],
        vec![Span::raw(format!("wait {} ms", fmt::ms(r.mean_wait_ms)))],
    ];
    wrap(p, items, width)
}

/// Whole items separated by ` · `, on as many lines as they need; continuation lines are
/// indented under the name. An item wider than a line is left out rather than cut.
fn wrap(p: &Palette, items: Vec<Vec<Span<'static>>>, width: usize) -> Vec<Line<'static>> {
    const INDENT: &str = "   ";
    const SEP: &str = " · ";
    let mut out: Vec<Line<'static>> = Vec::new();
    let mut spans = vec![Span::raw(" ")];
    let mut used = 1;
    let mut empty = true;
    for item in items {
        let w: usize = item.iter().map(Span::width).sum();
        if !empty && used + SEP.chars().count() + w > width {
            let next = vec![Span::raw(INDENT)];
            out.push(Line::from(std::mem::replace(&mut spans, next)));
            used = INDENT.len();
            empty = true;
        }
        let sep = if empty { 0 } else { SEP.chars().count() };
        if used + sep + w > width {
            continue;
        }
        if !empty {
            spans.push(Span::styled(SEP, p.dim));
        }
        used += sep + w;
        spans.extend(item);
        empty = false;
    }
    if !empty {
        out.push(Line::from(spans));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::Theme;

    fn text(lines: &[Line]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn a_full_connection_pool_reads_like_hikaricp() {
        let r = ResourceSnapshot {
            name: "db".into(),
            size: 10,
            active: 10,
            max_active: 10,
            waiting: 1990,
            max_waiting: 1990,
            acquired: 500,
            timeouts: 3,
            mean_wait_ms: 9860.0,
        };
        let p = Palette::of(Theme::NoColor);
        assert_eq!(
            text(&resource(&p, &r, 80)),
            [" db active 10/10 · waiting 1990 · timeouts 3 · wait 9860 ms"]
        );
        // Narrow: whole items wrap, never cut.
        assert_eq!(
            text(&resource(&p, &r, 36)),
            [
                " db active 10/10 · waiting 1990",
                "   timeouts 3 · wait 9860 ms"
            ]
        );
    }

    #[test]
    fn the_cores_line_counts_busy_waiting_and_utilisation() {
        let cpu = CpuSnapshot {
            cores: 8,
            busy: 8,
            queued: 192,
            max_queued: 200,
            utilisation: 0.996,
            preemptions: 0,
        };
        let p = Palette::of(Theme::NoColor);
        assert_eq!(
            text(&super::cpu(&p, &cpu, 80)),
            [" cores busy 8/8 · waiting 192 · util 100%"]
        );
    }
}

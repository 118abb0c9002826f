//! The resilience patterns at work: the clients' retries, shedding and the work done for
//! clients that had left, each service's circuit breaker, rate limiter and retry, and goodput
//! second by second, where a metastable failure shows as the bars that do not come back
//! after a spike.
//!
//! ```text
//! ├ Resilience ──────────────────────────────────────────────────────────────────┤
//! │ client retries 180.0/s (last 5 s) · 2.31 attempts/request · gave up 12 · shed │
//! │ work for gone clients 312.4 thread-s                                         │
//! │ ● OPEN      orders   failure 62% · opened 3 · fast-failed 412                │
//! │ goodput: answered a second, t 0-60 s, most 90                                │
//! │ ▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▂▁                                      │
//! ```
//!
//! A breaker's badge is the Hystrix dashboard's circle: green closed, yellow half-open, red
//! open; its failure rate is resilience4j's `getFailureRate()`, `-` below the minimum number
//! of calls (where resilience4j answers -1). Retries per second are the engine's count of the
//! last 5 whole seconds (`Snapshot::retry_timeline`); every other figure is since t 0.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::flow::BreakerState;
use crate::scenario::Scenario;
use crate::sim::Snapshot;
use crate::tui::app::App;
use crate::tui::theme::Palette;

use super::fmt;

/// Rows of the goodput strip's bars when the panel has its own height.
const STRIP_ROWS: u16 = 3;

/// Whether the run has anything this panel shows: a client timeout, client retries, a queue
/// timeout, or a service with a circuit breaker or a rate limiter.
pub fn shown(scenario: &Scenario) -> bool {
    scenario.resilience_in_play()
}

/// The panel's rows: its title, the counters and the wasted work, a row per guarded service,
/// the strip's caption and its bars.
pub fn height(scenario: &Scenario) -> u16 {
    let guarded = u16::try_from(guarded(scenario)).unwrap_or(u16::MAX);
    (4 + STRIP_ROWS).saturating_add(guarded)
}

/// Services with a breaker, a rate limiter or a retry, and the clients' own breaker.
fn guarded(scenario: &Scenario) -> usize {
    let services = scenario
        .services
        .iter()
        .filter(|s| s.breaker.is_some() || s.rate_limit.is_some() || s.retry.is_some())
        .count();
    services + usize::from(scenario.load.breaker.is_some())
}

pub fn render(frame: &mut Frame, area: Rect, app: &App, snapshot: &Snapshot) {
    let p = app.palette();
    let scenario = app.source().scenario();
    let block = Block::new()
        .borders(Borders::TOP)
        .title(Line::styled(" Resilience ", p.title))
        .border_style(p.border);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = usize::from(inner.width).saturating_sub(1);
    let sep = || Span::styled(" · ", p.dim);
    let line = |items| {
        let mut spans = vec![Span::raw(" ")];
        spans.extend(fmt::items(items, sep(), width));
        Line::from(spans)
    };
    let clients_retry = scenario.load.retry.is_some_and(|r| r.retries());
    let mut lines = vec![
        line(counters(snapshot, clients_retry, p)),
        line(wasted(snapshot, p)),
    ];
    // The clients' own breaker (`[load.breaker]`) first, named "clients": its fast-failed
    // requests were never sent.
    let clients = snapshot
        .client_breaker
        .clone()
        .map(|b| crate::sim::ServiceSnapshot {
            name: "clients".into(),
            stats: crate::sim::ServiceStats::default(),
            fault: None,
            bulkhead: String::new(),
            mean_latency: crate::time::Nanos::ZERO,
            breaker: Some(b),
            rate_limited: 0,
            guards: Vec::new(),
        });
    let services = snapshot.services.iter().enumerate().filter_map(|(i, s)| {
        let service = scenario.services.get(i)?;
        let has = Has {
            limiter: service.rate_limit.is_some(),
            retry: service.retry.is_some(),
        };
        let others = s.guards.iter().any(|g| !g.reported_apart);
        (s.breaker.is_some() || has.limiter || has.retry || others).then_some((s, has))
    });
    let guarded: Vec<(&crate::sim::ServiceSnapshot, Has)> = clients
        .iter()
        .map(|c| (c, Has::default()))
        .chain(services)
        .collect();
    // The names padded to the longest, so the figures line up.
    let name_width = guarded
        .iter()
        .map(|(s, _)| fmt::columns(&s.name))
        .max()
        .unwrap_or(0)
        .min(NAME);
    lines.extend(
        guarded
            .into_iter()
            .map(|(s, has)| guard_line(s, has, name_width, p, width)),
    );
    let text_rows = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    let [text, strip] =
        Layout::vertical([Constraint::Length(text_rows), Constraint::Min(0)]).areas(inner);
    frame.render_widget(Paragraph::new(lines), text);
    if !clients_retry {
        render_strip(frame, strip, snapshot, p);
        return;
    }
    // The clients retry: the storm's attempts a second beside goodput, under it when the
    // panel has the rows for both (zoomed).
    let capacity = app.source().prediction().ceiling_rps;
    let [goodput, attempts] = if strip.height >= 2 * (1 + STRIP_ROWS) {
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(strip)
    } else {
        let [left, _, right] = Layout::horizontal([
            Constraint::Fill(1),
            Constraint::Length(1),
            Constraint::Fill(1),
        ])
        .areas(strip);
        [left, right]
    };
    render_strip(frame, goodput, snapshot, p);
    super::storm::render(frame, attempts, snapshot, capacity, p);
}

/// Retries per second lately, attempts per request, requests given up and shed; when the
/// clients never retry, only that they do not, and the requests shed.
fn counters(snapshot: &Snapshot, clients_retry: bool, p: &Palette) -> Vec<Vec<Span<'static>>> {
    let r = snapshot.resilience;
    if !clients_retry {
        return vec![
            vec![Span::styled("the clients do not retry", p.dim)],
            labelled("shed ", fmt::count(r.shed), p),
        ];
    }
    let retries = match recent_retries(snapshot) {
        Some((per_second, seconds)) => format!("{} (last {seconds} s)", fmt::rate(per_second)),
        None => "-/s".to_string(),
    };
    let mut items = vec![labelled("client retries ", retries, p)];
    if snapshot.sent > 0 {
        let attempts = (snapshot.sent + r.retries) as f64 / snapshot.sent as f64;
        items.push(vec![
            Span::styled(format!("{attempts:.2}"), p.text),
            Span::styled(" attempts/request", p.dim),
        ]);
    }
    items.push(labelled("gave up ", fmt::count(r.gave_up), p));
    items.push(labelled("shed ", fmt::count(r.shed), p));
    items.push(labelled("retries in all ", fmt::count(r.retries), p));
    items
}

/// Seconds of the retry timeline the rate is taken over.
const RATE_SECONDS: usize = 5;

/// Retries per second over the last whole seconds (at most [`RATE_SECONDS`]), from the
/// engine's per-second count, and how many seconds that is; none before the first whole one.
fn recent_retries(snapshot: &Snapshot) -> Option<(f64, usize)> {
    let whole = usize::try_from(snapshot.now.0 / 1_000_000_000).ok()?;
    let from = whole.saturating_sub(RATE_SECONDS);
    let seconds = snapshot.retry_timeline.get(from..whole)?;
    let count: u32 = seconds.iter().sum();
    (!seconds.is_empty()).then(|| (f64::from(count) / seconds.len() as f64, seconds.len()))
}

/// Handler-thread time spent on requests whose client had left.
fn wasted(snapshot: &Snapshot, p: &Palette) -> Vec<Vec<Span<'static>>> {
    let secs = snapshot.resilience.wasted_work.as_secs_f64();
    vec![labelled(
        "work for gone clients ",
        format!("{secs:.1} thread-s"),
        p,
    )]
}

/// A label in the dim style and its value.
fn labelled(label: &'static str, value: String, p: &Palette) -> Vec<Span<'static>> {
    vec![Span::styled(label, p.dim), Span::styled(value, p.text)]
}

/// Columns of a breaker's badge (`● HALF-OPEN`) and the most a service's name takes.
const BADGE: usize = 11;
const NAME: usize = 16;

/// Which of the guards without a badge a service has.
#[derive(Debug, Clone, Copy, Default)]
struct Has {
    limiter: bool,
    retry: bool,
}

/// A service's breaker (its badge, failure rate, times opened, calls failed fast), rate
/// limiter (calls refused) and retry (attempts made again, attempts per call).
fn guard_line(
    service: &crate::sim::ServiceSnapshot,
    has: Has,
    name_width: usize,
    p: &Palette,
    width: usize,
) -> Line<'static> {
    let mut head = vec![Span::raw(" ")];
    let mut items = Vec::new();
    match &service.breaker {
        Some(b) => {
            let word = match b.state {
                BreakerState::Closed => "CLOSED",
                BreakerState::HalfOpen => "HALF-OPEN",
                BreakerState::Open => "OPEN",
            };
            let style = p.breaker(b.state).add_modifier(Modifier::BOLD);
            head.push(Span::styled(fmt::fit(&format!("● {word}"), BADGE), style));
            let rate = b
                .failure_rate
                .map_or("-".to_string(), |r| fmt::percent(r / 100.0));
            items.push(labelled("failure ", rate, p));
            items.push(labelled("opened ", fmt::count(b.opened), p));
            items.push(labelled("fast-failed ", fmt::count(b.not_permitted), p));
        }
        None => head.push(Span::styled(fmt::fit("no breaker", BADGE), p.dim)),
    }
    if has.limiter {
        items.push(labelled(
            "rate-limited ",
            fmt::count(service.rate_limited),
            p,
        ));
    }
    // The guards without a figure of their own here (an adaptive limit): state, refusals.
    for g in service.guards.iter().filter(|g| !g.reported_apart) {
        items.push(vec![
            Span::styled(format!("{} ", g.guard), p.dim),
            Span::styled(g.state.clone(), p.text),
        ]);
        items.push(labelled("refused ", fmt::count(g.refused), p));
    }
    let st = &service.stats;
    if let Some(per_call) = st.attempts_per_call().filter(|_| has.retry) {
        items.push(labelled("retried ", fmt::count(st.retries), p));
        items.push(vec![
            Span::styled(format!("{per_call:.2}"), p.text),
            Span::styled(" attempts/call", p.dim),
        ]);
    }
    head.push(Span::styled(
        format!(" {} ", fmt::fit(&service.name, name_width)),
        p.text,
    ));
    let used: usize = head.iter().map(Span::width).sum();
    head.extend(fmt::items(
        items,
        Span::styled(" · ", p.dim),
        width.saturating_sub(used),
    ));
    Line::from(head)
}

/// Goodput second by second: a bar per whole simulated second (the second under way is
/// left out: it is not over), as many as fit, the latest at the right.
fn render_strip(frame: &mut Frame, area: Rect, snapshot: &Snapshot, p: &Palette) {
    if area.height == 0 {
        return;
    }
    let whole = usize::try_from(snapshot.now.as_nanos() / 1_000_000_000).unwrap_or(usize::MAX);
    let seconds = &snapshot.goodput_timeline[..whole.min(snapshot.goodput_timeline.len())];
    let shown = &seconds[seconds.len().saturating_sub(usize::from(area.width))..];
    let first = seconds.len() - shown.len();
    let most = shown.iter().copied().max().unwrap_or(0);
    let zero = shown.contains(&0);
    let caption = if shown.is_empty() {
        "goodput: answered a second, from the first whole second".to_string()
    } else {
        let span = format!("t {first}-{} s, most {most}", seconds.len());
        [
            format!(
                "goodput: answered a second, {span}{}",
                if zero { " · ▁ red: none" } else { "" }
            ),
            format!(
                "goodput a second, {span}{}",
                if zero { ", ▁ red: 0" } else { "" }
            ),
        ]
        .into_iter()
        .find(|c| fmt::columns(c) < usize::from(area.width))
        .unwrap_or_else(|| format!("goodput a second, {span}"))
    };
    let [caption_area, bars] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(area);
    frame.render_widget(
        Paragraph::new(Line::styled(
            fmt::fit(&format!(" {caption}"), usize::from(area.width)),
            p.dim,
        )),
        caption_area,
    );
    let data: Vec<u64> = shown.iter().map(|&n| u64::from(n)).collect();
    frame.render_widget(
        super::bars::Bars {
            data: &data,
            max: u64::from(most.max(1)),
            style: bar_style(p),
            zero: p.outcome(crate::metrics::Outcome::Failed),
        },
        bars,
    );
}

fn bar_style(p: &Palette) -> Style {
    p.outcome(crate::metrics::Outcome::Success)
}

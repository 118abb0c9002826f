//! A run over simulated time, the series the TUI shows: goodput, failures, p99, the clients'
//! attempts against the server's capacity (when they retry), fallbacks a second (when a
//! service has a fallback) under its breakers' open and half-open stretches, and each pool's
//! busy threads and queue depth. Sampled by watching the engine, never by driving it, so a
//! run with a chart reports exactly what it reports without one.

use crate::flow::BreakerState;
use crate::metrics::Outcome;
use crate::scenario::Strategy;
use crate::sim::Engine;
use crate::time::Nanos;

use super::resilience::{attempts_panel, breaker_bands, spans};
use super::{ChartPanel, Figure, Line, Stroke, strategy_colour};

/// Samples per run at most: smooth on a slide, small in an SVG...
const SAMPLES: u64 = 120;

/// ...and no shorter than a second, so a rate counts enough requests to mean something.
const MIN_INTERVAL: Nanos = Nanos::from_secs(1);

/// One pool's gauges over time.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolTrack {
    pub name: String,
    pub busy: Vec<f64>,
    pub queued: Vec<f64>,
}

/// One strategy's series, one value per sample.
#[derive(Debug, Clone, PartialEq)]
pub struct StrategySeries {
    pub strategy: Strategy,
    /// The line's name in the legends (the strategy, or a side of `compare --against`) and
    /// its colour.
    pub label: String,
    pub colour: usize,
    pub t_s: Vec<f64>,
    pub goodput: Vec<f64>,
    pub failures: Vec<f64>,
    /// `None` where the window held no answer: no latency to show, never a 0 ms one.
    pub p99_ms: Vec<Option<f64>>,
    /// Requests sent for the first time, and every attempt (those and the retries), a
    /// second.
    pub new_requests: Vec<f64>,
    pub attempts: Vec<f64>,
    /// Calls that fell back (their service's fallback answered) a second.
    pub fallbacks: Vec<f64>,
    pub pools: Vec<PoolTrack>,
    /// What the run has, set by [`Recorder::finish`]: whether the clients retry, whether a
    /// service has a fallback, theory's ceiling, and each breaker's stretches.
    pub retries: bool,
    pub fallback: bool,
    pub capacity: Option<f64>,
    pub breakers: Vec<BreakerTrack>,
}

/// A circuit breaker's stretches away from closed: (from s, to s, state).
#[derive(Debug, Clone, PartialEq)]
pub struct BreakerTrack {
    pub service: String,
    pub spans: Vec<(f64, f64, BreakerState)>,
}

/// Records a [`StrategySeries`] as an observer of [`crate::progress::play_engine`].
#[derive(Debug)]
pub struct Recorder {
    every: Nanos,
    next: Nanos,
    answered: u64,
    failed: u64,
    sent: u64,
    retried: u64,
    fallbacks: u64,
    timeline: StrategySeries,
}

impl Recorder {
    pub fn new(strategy: Strategy, duration: Nanos) -> Self {
        let every = Nanos((duration.as_nanos() / SAMPLES).max(MIN_INTERVAL.as_nanos()));
        Recorder {
            every,
            next: every,
            answered: 0,
            failed: 0,
            sent: 0,
            retried: 0,
            fallbacks: 0,
            timeline: StrategySeries {
                strategy,
                label: strategy.to_string(),
                colour: strategy_colour(strategy),
                t_s: Vec::new(),
                goodput: Vec::new(),
                failures: Vec::new(),
                p99_ms: Vec::new(),
                new_requests: Vec::new(),
                attempts: Vec::new(),
                fallbacks: Vec::new(),
                pools: Vec::new(),
                retries: false,
                fallback: false,
                capacity: None,
                breakers: Vec::new(),
            },
        }
    }

    /// Called before the event at `upto`: every sample time before it sees the state now.
    /// Returns the next sample time (the engine handles no event after it before looking
    /// again).
    pub fn observe(&mut self, engine: &Engine, upto: Nanos) -> Nanos {
        if self.next >= upto {
            return self.next;
        }
        let snap = engine.snapshot();
        let count = |o: &[Outcome]| o.iter().map(|&o| snap.outcomes.get(o)).sum::<u64>();
        let answered = count(&[Outcome::Success, Outcome::Partial]);
        let failed = count(&[Outcome::Failed, Outcome::Timeout, Outcome::Refused]);
        let (sent, retried) = (snap.sent, snap.resilience.retries);
        let fallbacks: u64 = snap.services.iter().map(|s| s.stats.fallbacks).sum();
        let secs = self.every.as_secs_f64();
        while self.next < upto {
            let t = &mut self.timeline;
            t.t_s.push(self.next.as_secs_f64());
            t.goodput.push((answered - self.answered) as f64 / secs);
            t.failures.push((failed - self.failed) as f64 / secs);
            t.p99_ms
                .push((snap.window.count > 0).then_some(snap.window.p99));
            let new = (sent - self.sent) as f64 / secs;
            t.new_requests.push(new);
            t.attempts
                .push(new + (retried - self.retried) as f64 / secs);
            t.fallbacks.push((fallbacks - self.fallbacks) as f64 / secs);
            for p in snap.pools.iter().filter(|p| p.in_use) {
                let track = match t.pools.iter().position(|k| k.name == p.name) {
                    Some(i) => &mut t.pools[i],
                    None => {
                        t.pools.push(PoolTrack {
                            name: p.name.clone(),
                            busy: Vec::new(),
                            queued: Vec::new(),
                        });
                        let last = t.pools.len() - 1;
                        &mut t.pools[last]
                    }
                };
                track.busy.push(f64::from(p.active));
                track.queued.push(f64::from(p.queued));
            }
            self.answered = answered;
            self.failed = failed;
            self.sent = sent;
            self.retried = retried;
            self.fallbacks = fallbacks;
            self.next = self.next.saturating_add(self.every);
        }
        self.next
    }

    /// The series, with what `engine` (the run played) has: its retries, fallbacks,
    /// capacity and breakers.
    pub fn finish(self, engine: &Engine) -> StrategySeries {
        self.finish_with(RunTraits::of(engine))
    }

    /// The series, with `traits` of the run played (taken while its engine was at hand).
    pub fn finish_with(self, traits: RunTraits) -> StrategySeries {
        let mut t = self.timeline;
        t.retries = traits.retries;
        t.fallback = traits.fallback;
        t.capacity = traits.capacity;
        let end = t.t_s.last().copied().unwrap_or(0.0);
        t.breakers = traits
            .breakers
            .into_iter()
            .map(|(service, transitions)| BreakerTrack {
                service,
                spans: spans(&transitions, end),
            })
            .collect();
        t
    }
}

/// A breaker's transitions: (when, from, to).
type Transitions = Vec<(Nanos, BreakerState, BreakerState)>;

/// What a finished series takes from its run besides the samples: whether its clients
/// retry, whether a service falls back, the capacity theory gives, and each breaker's
/// transitions.
#[derive(Debug, Clone, Default)]
pub struct RunTraits {
    retries: bool,
    fallback: bool,
    capacity: Option<f64>,
    /// Each breaker's service and transitions.
    breakers: Vec<(String, Transitions)>,
}

impl RunTraits {
    /// `engine`'s, now.
    pub fn of(engine: &Engine) -> Self {
        let scenario = engine.scenario();
        RunTraits {
            retries: scenario.load.retry.is_some_and(|r| r.retries()),
            fallback: scenario.services.iter().any(|s| s.fallback.is_some()),
            capacity: engine.prediction().ceiling_rps,
            breakers: engine
                .snapshot()
                .services
                .into_iter()
                .filter_map(|s| Some((s.name, s.breaker?.transitions)))
                .collect(),
        }
    }
}

/// The figure: one panel per series, the strategies overlaid.
pub fn figure(title: &str, timelines: &[StrategySeries]) -> Figure {
    let x = "simulated time (s)";
    let panel =
        |title: String, y: &str, pick: &dyn Fn(&StrategySeries) -> Option<Vec<f64>>| ChartPanel {
            title,
            x_label: x.into(),
            y_label: y.into(),
            lines: timelines
                .iter()
                .filter_map(|t| {
                    pick(t).map(|ys| Line {
                        label: Some(t.label.clone()),
                        points: t.t_s.iter().copied().zip(ys).collect(),
                        colour: t.colour,
                        stroke: Stroke::Solid,
                        off_chart: None,
                    })
                })
                .collect(),
            marks: Vec::new(),
            categories: Vec::new(),
            notes: Vec::new(),
            bands: Vec::new(),
        };
    let mut panels = vec![
        panel("Goodput".into(), "success + partial (req/s)", &|t| {
            Some(t.goodput.clone())
        }),
        panel(
            "Failures".into(),
            "failed + timeout + refused (req/s)",
            &|t| Some(t.failures.clone()),
        ),
        panel(p99_title(timelines), "p99 latency (ms)", &|t| {
            Some(t.p99_ms.iter().map(|v| v.unwrap_or(f64::NAN)).collect())
        }),
    ];
    if timelines.iter().any(|t| t.retries) {
        panels.push(attempts_panel(timelines));
    }
    if timelines.iter().any(|t| t.fallback) {
        let mut fallbacks = panel(
            "Fallbacks (calls answered by their fallback)".into(),
            "fallbacks a second",
            &|t| t.fallback.then(|| t.fallbacks.clone()),
        );
        fallbacks.bands = breaker_bands(timelines);
        panels.push(fallbacks);
    }
    if let Some(goodput) = panels.first_mut() {
        goodput.bands = breaker_bands(timelines);
    }
    for name in pool_names(timelines) {
        let track = |t: &StrategySeries| t.pools.iter().find(|p| p.name == name).cloned();
        panels.push(panel(
            format!("{name}: busy threads"),
            "busy threads",
            &|t| track(t).map(|p| p.busy),
        ));
        panels.push(panel(
            format!("{name}: queue depth"),
            "queued tasks",
            &|t| track(t).map(|p| p.queued),
        ));
    }
    // A gauge that stayed at zero for every strategy (a queue that never held a task) says
    // nothing a panel should take a slide's room for: it is left out and named in the note.
    let (panels, flat): (Vec<ChartPanel>, Vec<ChartPanel>) = panels.into_iter().partition(|p| {
        p.lines.is_empty()
            || p.lines
                .iter()
                .flat_map(|l| &l.points)
                .any(|&(_, y)| y != 0.0)
    });
    let note = (!flat.is_empty()).then(|| {
        let names: Vec<&str> = flat.iter().map(|p| p.title.as_str()).collect();
        format!("Always 0, not drawn: {}", names.join(", "))
    });
    Figure {
        title: title.to_owned(),
        panels,
        columns: 2,
        note,
    }
}

/// The p99 panel's title; when a strategy had windows without an answer its line has gaps
/// there, and the title says what a gap means.
fn p99_title(timelines: &[StrategySeries]) -> String {
    if timelines
        .iter()
        .any(|t| t.p99_ms.iter().any(Option::is_none))
    {
        "p99 latency (rolling window; gap: no answer)".into()
    } else {
        "p99 latency (rolling window)".into()
    }
}

/// Every pool any strategy used, in first-use order.
fn pool_names(timelines: &[StrategySeries]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for p in timelines.iter().flat_map(|t| &t.pools) {
        if !names.contains(&p.name) {
            names.push(p.name.clone());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario;

    fn timeline(preset: &str, strategy: Strategy, secs: u64) -> StrategySeries {
        let s = scenario::load(preset, &[]).expect("built-in preset");
        let duration = Nanos::from_secs(secs);
        let mut rec = Recorder::new(strategy, duration);
        let engine = crate::sim::Engine::new(&s, strategy);
        let (engine, _) =
            crate::progress::play_engine(engine, duration, None, &mut |e, t| rec.observe(e, t));
        rec.finish(&engine)
    }

    #[test]
    fn a_chart_samples_the_same_run_whether_events_skip_the_queue_or_not() {
        // The recorder tells each step how far it may fold events: up to its next sample,
        // so every sample sees the state the queue, event by event, would have shown.
        let s = scenario::load("erlang-c", &[]).expect("built-in preset");
        let duration = Nanos::from_secs(20);
        let series = |folding| {
            let mut rec = Recorder::new(Strategy::Sequential, duration);
            let mut engine = crate::sim::Engine::new(&s, Strategy::Sequential);
            engine.set_folding(folding);
            let observe = &mut |e: &crate::sim::Engine, t| rec.observe(e, t);
            let (engine, complete) = crate::progress::play_engine(engine, duration, None, observe);
            assert!(complete);
            (rec.finish(&engine), engine.events_folded())
        };
        let ((folded, skipped), (queued, none)) = (series(true), series(false));
        assert!(skipped > 0 && none == 0);
        assert!(folded.t_s.len() >= 20, "{}", folded.t_s.len());
        assert_eq!(folded, queued);
    }

    #[test]
    fn a_chart_that_looks_before_every_step_draws_what_batches_of_steps_draw() {
        // The play loop steps through every event up to the recorder's next sample without
        // asking it again; a recorder asked before each single step must see the same.
        let s = scenario::load("erlang-c", &[]).expect("built-in preset");
        let duration = Nanos::from_secs(20);
        let mut rec = Recorder::new(Strategy::Sequential, duration);
        let mut engine = crate::sim::Engine::new(&s, Strategy::Sequential);
        while let Some(t) = engine.next_event_time().filter(|&t| t <= duration) {
            let look = rec.observe(&engine, t);
            assert!(engine.step_within(look.min(duration)));
        }
        engine.advance_to(duration);
        rec.observe(&engine, engine.now().saturating_add(Nanos(1)));
        let stepped = (rec.finish(&engine), engine.events_processed());
        let mut rec = Recorder::new(Strategy::Sequential, duration);
        let engine = crate::sim::Engine::new(&s, Strategy::Sequential);
        let observe = &mut |e: &crate::sim::Engine, t| rec.observe(e, t);
        let (engine, complete) = crate::progress::play_engine(engine, duration, None, observe);
        assert!(complete);
        let batched = (rec.finish(&engine), engine.events_processed());
        assert!(batched.0.t_s.len() >= 20, "{}", batched.0.t_s.len());
        assert_eq!(stepped, batched);
    }

    #[test]
    fn a_strategy_without_answers_has_no_p99_rather_than_zero() {
        // The common pool starves under bulkhead-containment: after ~33 s no request is
        // answered, and its p99 must not read 0 ms, the fastest of all.
        let t = timeline("bulkhead-containment", Strategy::Shared, 60);
        assert!(
            t.p99_ms.iter().all(|v| v.is_none_or(|ms| ms > 0.0)),
            "{:?}",
            t.p99_ms
        );
        assert!(
            t.p99_ms.last().is_some_and(Option::is_none),
            "{:?}",
            t.p99_ms
        );
        let fig = figure("x", &[t]);
        let p99 = &fig.panels[2];
        assert_eq!(p99.title, "p99 latency (rolling window; gap: no answer)");
        assert!(
            p99.lines[0]
                .points
                .iter()
                .all(|p| p.1.is_nan() || p.1 > 0.0)
        );
    }

    #[test]
    fn the_storm_panel_sets_attempts_against_new_requests_and_capacity() {
        let t = timeline("metastable", Strategy::Sequential, 60);
        let fig = figure("x", std::slice::from_ref(&t));
        let storm = fig
            .panels
            .iter()
            .find(|p| p.title == "Attempts the clients sent against capacity")
            .expect("the clients retry: the panel is there");
        let labels: Vec<&str> = storm
            .lines
            .iter()
            .filter_map(|l| l.label.as_deref())
            .collect();
        assert_eq!(
            labels,
            [
                "attempts (new + retries)",
                "new requests",
                "capacity (theory's ceiling)"
            ]
        );
        assert!(storm.lines[2].points.iter().all(|p| p.1 == 100.0));
        // After the spike (50-60 s): new requests under capacity, attempts far above it.
        let mean = |ys: &[f64]| {
            let window: Vec<f64> = t
                .t_s
                .iter()
                .zip(ys)
                .filter(|(x, _)| (50.0..60.0).contains(*x))
                .map(|(_, y)| *y)
                .collect();
            window.iter().sum::<f64>() / window.len() as f64
        };
        assert!(mean(&t.new_requests) < 100.0, "{}", mean(&t.new_requests));
        assert!(mean(&t.attempts) > 300.0, "{}", mean(&t.attempts));
        // No fallback, no breaker in metastable: neither panel nor band.
        assert!(
            fig.panels
                .iter()
                .all(|p| p.bands.is_empty() && !p.title.starts_with("Fallbacks"))
        );
    }

    #[test]
    fn the_breakers_open_and_half_open_stretches_shade_goodput_and_fallbacks() {
        let t = timeline("circuit-breaker", Strategy::Bulkhead, 90);
        let fig = figure("x", std::slice::from_ref(&t));
        let goodput = &fig.panels[0];
        let open: Vec<&crate::plot::Band> =
            goodput.bands.iter().filter(|b| b.colour == 1).collect();
        // It opens at 32.1 s and 4 times in all; the first stretch has the legend's label.
        assert_eq!(open.len(), 4);
        assert!((open[0].from - 32.1).abs() < 0.05, "{}", open[0].from);
        assert_eq!(
            open[0].label.as_deref(),
            Some("breaker recommendations: open")
        );
        assert!(open[1..].iter().all(|b| b.label.is_none()));
        let fallbacks = fig
            .panels
            .iter()
            .find(|p| p.title.starts_with("Fallbacks"))
            .expect("recommendations has a fallback");
        assert_eq!(fallbacks.bands, goodput.bands);
        // The fallback answers while the breaker is open, not before the hang.
        let before: f64 = t
            .t_s
            .iter()
            .zip(&t.fallbacks)
            .filter(|(x, _)| **x < 30.0)
            .map(|(_, y)| y)
            .sum();
        assert_eq!(before, 0.0);
        assert!(t.fallbacks.iter().any(|&f| f > 5.0));
    }
}

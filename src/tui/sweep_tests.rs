//! The sweep's values, points and channel, without a terminal.

use super::testing::played;
use super::*;
use crate::scenario::{self, MAX_THREADS};

fn engine(preset: &str, sets: &[&str], strategy: Strategy) -> Engine {
    let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
    Engine::new(
        &scenario::load(preset, &sets).expect("preset loads"),
        strategy,
    )
}

/// The server pool's size knob.
fn server_threads() -> Knob {
    let e = engine("tomcat-ceiling", &[], Strategy::Sequential);
    Knob::PoolSize(e.topology().server())
}

fn tomcat_threads() -> KnobSweep {
    let e = engine("tomcat-ceiling", &[], Strategy::Sequential);
    KnobSweep::new(&e, server_threads()).expect("the server pool has a size")
}

#[test]
fn values_run_from_a_quarter_to_three_times_the_current_value_and_include_it() {
    let values = values_around(server_threads(), 200.0);
    assert_eq!(values.first(), Some(&50.0));
    assert_eq!(values.last(), Some(&600.0));
    assert!(values.contains(&200.0));
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
    assert!(values.len() <= POINTS + 1);
    assert!(values.iter().all(|v| v.fract() == 0.0), "{values:?}");
}

#[test]
fn values_stay_within_the_limits_of_presets_and_live_keys() {
    assert_eq!(values_around(server_threads(), 1.0), [1.0, 2.0, 3.0]);
    let top = values_around(server_threads(), f64::from(MAX_THREADS));
    assert_eq!(top.last(), Some(&f64::from(MAX_THREADS)));
    // A core of 0 (allowed for bulkheads) sweeps from 1 and keeps 0 as the current value.
    let zero = values_around(server_threads(), 0.0);
    assert_eq!(zero[..2], [0.0, 1.0]);
}

#[test]
fn rates_keep_three_digits_and_the_exact_current_rate() {
    let values = values_around(Knob::Rate, 7.8125);
    assert!(values.contains(&7.8125));
    assert_eq!(values.first(), Some(&1.95));
    assert_eq!(values.last(), Some(&23.4));
}

#[test]
fn a_point_is_the_headless_sweep_of_the_same_value() {
    let plan = tomcat_threads();
    assert_eq!(plan.duration, Nanos::from_secs(60));
    // A size between the preset's 200 and the 400 clients' limit.
    let i = plan
        .values
        .iter()
        .position(|&v| v > 200.0 && v < 400.0)
        .expect("a value above 200");
    let v = plan.values[i];
    let cancel = AtomicBool::new(false);
    let point = plan.play(i, &cancel).expect("plays");
    let headless = crate::sweep::Plan {
        preset: "tomcat-ceiling".into(),
        set: Vec::new(),
        seed: None,
        duration: Some(Nanos::from_secs(60)),
        axes: vec![crate::sweep::parse_vary(&format!("server.threads={v}")).expect("valid")],
        strategies: vec![Strategy::Sequential],
    };
    let points = headless.points().expect("loads");
    let report = crate::sweep::run(&headless, &points, None);
    let same = &report.points[0];
    assert_eq!(point.values, [format!("{v}")]);
    assert_eq!(point.success, same.success);
    assert_eq!(point.goodput_rps, same.goodput_rps);
    assert_eq!(point.p99_ms, same.p99_ms);
    // Threads / 1.7 s, below the 400 clients' limit.
    assert!(
        (point.goodput_rps - v / 1.7).abs() / (v / 1.7) < 0.01,
        "{point:?}"
    );
}

#[test]
fn a_point_plays_the_live_changes_and_faults() {
    let mut e = engine(
        "ironthread",
        &["load.mode=closed", "load.clients=40"],
        Strategy::Bulkhead,
    );
    e.apply(Command::SetClients(20)).expect("closed load");
    let fault = Fault::Fail { probability: 1.0 };
    e.apply(Command::InjectFault {
        service: ServiceId(2),
        fault,
    })
    .expect("a service");
    let plan = KnobSweep::new(&e, Knob::Clients).expect("closed load");
    assert_eq!(plan.current, 20.0);
    let point = plan
        .play(plan.current_index(), &AtomicBool::new(false))
        .expect("plays");
    // Recommendations always fails and falls back: every answer is partial.
    assert_eq!(point.success, 0);
    assert!(point.partial > 0);
}

#[test]
fn a_cancelled_point_stops_and_returns_nothing() {
    let plan = tomcat_threads();
    assert!(plan.play(0, &AtomicBool::new(true)).is_none());
}

#[test]
fn poll_takes_what_arrived_without_waiting_and_ends_when_the_source_does() {
    let plan = tomcat_threads();
    let (source, tx, _) = played(&plan, [0, 3]);
    let mut sweep = Sweep::new(plan, source);
    sweep.poll();
    assert_eq!(sweep.done(), 2);
    assert!(sweep.points()[3].is_some() && sweep.points()[1].is_none());
    // Nothing more has arrived: poll returns at once and the sweep is still computing.
    sweep.poll();
    assert!(sweep.computing());
    drop(tx);
    sweep.poll();
    assert!(!sweep.computing());
    assert_eq!(sweep.done(), 2);
}

#[test]
fn points_are_alike_only_once_all_have_arrived_with_the_same_figures() {
    // ironthread's 5 runs go one at a time: every size of the server pool gives them alike.
    let e = engine("ironthread", &[], Strategy::Bulkhead);
    let plan = KnobSweep::new(&e, Knob::PoolSize(e.topology().server()))
        .expect("the server pool has a size");
    let last = plan.values.len() - 1;
    let (source, tx, _) = played(&plan, 0..last);
    let mut partial = Sweep::new(plan.clone(), source);
    partial.poll();
    assert!(!partial.all_alike(), "a point is still missing");
    drop(tx);
    let (source, _, _) = played(&plan, 0..=last);
    let mut full = Sweep::new(plan, source);
    full.poll();
    assert!(full.all_alike());
    // tomcat-ceiling's 400 clients fill 200 threads: the size moves goodput.
    let plan = tomcat_threads();
    let (source, _, _) = played(&plan, 0..plan.values.len());
    let mut varied = Sweep::new(plan, source);
    varied.poll();
    assert!(!varied.all_alike());
}

#[test]
fn dropping_a_sweep_cancels_its_work() {
    let plan = tomcat_threads();
    let (source, _tx, cancel) = played(&plan, []);
    let sweep = Sweep::new(plan, source);
    assert!(!cancel.load(Ordering::Relaxed));
    drop(sweep);
    assert!(cancel.load(Ordering::Relaxed));
}

#[test]
fn background_workers_deliver_every_point_in_its_place() {
    let e = engine("ironthread", &[], Strategy::Bulkhead);
    let id = e
        .topology()
        .id_of(crate::topology::PoolRole::Bulkhead(0))
        .expect("a bulkhead");
    let plan = KnobSweep::new(&e, Knob::PoolSize(id)).expect("a pool size");
    let source = PointFeed::spawn(&plan);
    let mut arrived: Vec<Arrival> = source.points.iter().collect();
    arrived.sort_by_key(|(i, _)| *i);
    assert_eq!(arrived.len(), plan.values.len());
    for (i, point) in arrived {
        let here = plan.play(i, &AtomicBool::new(false)).expect("plays");
        assert_eq!(point.values, here.values);
        assert_eq!(point.success, here.success);
        assert_eq!(point.p99_ms, here.p99_ms);
    }
}

#[test]
fn the_cursor_starts_on_the_current_value_and_stops_at_the_ends() {
    let plan = tomcat_threads();
    let (source, _tx, _) = played(&plan, []);
    let mut sweep = Sweep::new(plan, source);
    assert_eq!(sweep.cursor_value(), 200.0);
    for _ in 0..100 {
        sweep.move_cursor(true);
    }
    assert_eq!(sweep.cursor_value(), 600.0);
    for _ in 0..100 {
        sweep.move_cursor(false);
    }
    assert_eq!(sweep.cursor_value(), 50.0);
}

#[test]
fn a_ramping_rate_is_not_swept_but_a_steady_one_is() {
    let steady = engine(
        "ironthread",
        &["load.mode=open", "load.rate=10"],
        Strategy::Bulkhead,
    );
    assert_eq!(Knob::load(&steady), Some(Knob::Rate));
    let plan = KnobSweep::new(&steady, Knob::Rate).expect("a steady rate");
    assert_eq!(plan.current, 10.0);
    let ramp = engine(
        "ironthread",
        &[
            "load.mode=open",
            "load.rate=10",
            "load.ramp.to=50",
            "load.ramp.over=10s",
        ],
        Strategy::Bulkhead,
    );
    assert_eq!(Knob::load(&ramp), None);
    assert!(KnobSweep::new(&ramp, Knob::Rate).is_err());
}

#[test]
fn heavy_scenarios_play_shorter_points_within_the_sweeps_event_budget() {
    let fresh = engine("erlang-c", &[], Strategy::Sequential);
    // Nothing measured yet: the scenario's duration, up to a minute.
    assert_eq!(point_duration(&fresh, 17), MAX_POINT_TIME);
    let mut light = engine("tomcat-ceiling", &[], Strategy::Sequential);
    light.run_until(Nanos::from_secs(5));
    assert_eq!(point_duration(&light, 17), MAX_POINT_TIME);
    let mut heavy = engine("erlang-c", &[], Strategy::Sequential);
    heavy.run_until(Nanos::from_secs(5));
    let d = point_duration(&heavy, 17);
    assert!(d < MAX_POINT_TIME && d >= Nanos::from_secs(10), "{d:?}");
    let per_second = heavy.events_processed() as f64 / 5.0;
    assert!(2.0 * per_second * 17.0 * d.as_secs_f64() <= SWEEP_EVENTS);
}

#[test]
fn a_load_that_ends_by_itself_is_titled_by_what_each_point_plays() {
    // ironthread's 5 runs end after ~5 s: a point plays them, not 60 s.
    let e = engine("ironthread", &[], Strategy::Bulkhead);
    let plan = KnobSweep::new(&e, Knob::PoolSize(e.topology().server()))
        .expect("the server pool has a size");
    assert_eq!(plan.per_point(), "5 runs per point (≤ 60 s)");
    assert_eq!(tomcat_threads().per_point(), "60 s per point");
}

//! tokio-metrics for a real run: a [`TaskMonitor`] per group of tokio tasks (the `unbounded`
//! strategy's calls, virtual-thread handlers, the load's clients) and the [`RuntimeMonitor`],
//! sampled every tick. Only fields that are stable without `--cfg tokio_unstable` are used;
//! the extras that need it are compiled only under that cfg.

use std::sync::Mutex;
use std::time::Duration;

use serde::Serialize;
use tokio_metrics::{RuntimeIntervals, RuntimeMonitor, TaskIntervals, TaskMetrics, TaskMonitor};

use super::sync::lock;

/// A poll longer than this counts as slow (it blocks its worker).
const SLOW_POLL: Duration = Duration::from_micros(500);

/// The task groups a real run instruments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Group {
    /// One task per call under `unbounded`.
    Unbounded,
    /// One task per request when `server.threads = "virtual"`.
    VirtualHandlers,
    /// Closed-loop clients and client timeouts.
    Load,
}

impl Group {
    const ALL: [Group; 3] = [Group::Unbounded, Group::VirtualHandlers, Group::Load];

    fn name(self) -> &'static str {
        match self {
            Group::Unbounded => "unbounded",
            Group::VirtualHandlers => "virtual-handlers",
            Group::Load => "load",
        }
    }
}

/// The monitors of one run.
pub(super) struct Monitors {
    tasks: Vec<TaskMonitor>,
    state: Mutex<State>,
}

struct State {
    runtime: RuntimeIntervals,
    tasks: Vec<TaskIntervals>,
    view: RuntimeView,
    busy_sum: f64,
}

/// What the tokio runtime and its tasks did, for reports and (later) the TUI.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RuntimeView {
    /// Worker threads of the runtime.
    pub workers: usize,
    /// Samples taken, one per tick.
    pub ticks: u64,
    pub tick_ms: f64,
    /// Busy time of all workers over elapsed time in the latest tick (up to `workers`).
    pub busy_ratio: f64,
    pub busy_ratio_mean: f64,
    pub busy_ratio_max: f64,
    /// Tasks waiting in the runtime's global (injection) queue at the latest tick.
    pub global_queue_depth: usize,
    pub global_queue_depth_max: usize,
    pub live_tasks: usize,
    pub live_tasks_max: usize,
    pub park_count: u64,
    /// How late the sampler's timer fired at the latest tick, and at worst, in real
    /// milliseconds: a busy runtime or machine wakes its timers late.
    pub timer_late_ms: f64,
    pub timer_late_max_ms: f64,
    pub tasks: Vec<TaskGroupView>,
    /// Fields that need `--cfg tokio_unstable`.
    #[cfg(tokio_unstable)]
    pub unstable: UnstableView,
}

/// One group of instrumented tasks.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TaskGroupView {
    pub name: String,
    /// Tasks instrumented and dropped (finished) so far.
    pub instrumented: u64,
    pub dropped: u64,
    pub polls: u64,
    /// Whole run: mean poll duration, mean time scheduled before a poll, share of slow polls.
    pub mean_poll_us: f64,
    pub mean_scheduled_us: f64,
    pub slow_poll_ratio: f64,
    /// The latest tick.
    pub tick_mean_poll_us: f64,
    pub tick_mean_scheduled_us: f64,
    pub tick_slow_poll_ratio: f64,
}

#[cfg(tokio_unstable)]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct UnstableView {
    pub mean_poll_us: f64,
    pub steal_count: u64,
    pub remote_schedules: u64,
    pub polls: u64,
    pub blocking_threads: usize,
}

impl Monitors {
    pub fn new(runtime: &tokio::runtime::Handle, tick: Duration) -> Self {
        let tasks: Vec<TaskMonitor> = Group::ALL
            .iter()
            .map(|_| {
                let mut b = TaskMonitor::builder();
                b.with_slow_poll_threshold(SLOW_POLL);
                b.build()
            })
            .collect();
        let monitor = RuntimeMonitor::new(runtime);
        Monitors {
            state: Mutex::new(State {
                runtime: monitor.intervals(),
                tasks: tasks.iter().map(TaskMonitor::intervals).collect(),
                view: RuntimeView {
                    workers: runtime.metrics().num_workers(),
                    tick_ms: tick.as_secs_f64() * 1e3,
                    ..RuntimeView::default()
                },
                busy_sum: 0.0,
            }),
            tasks,
        }
    }

    pub fn task(&self, group: Group) -> TaskMonitor {
        let i = Group::ALL.iter().position(|g| *g == group).unwrap_or(0);
        self.tasks[i].clone()
    }

    /// Takes one tick's sample; the tick's timer fired `late`.
    pub fn sample(&self, late: Duration) {
        let mut st = lock(&self.state);
        let Some(rt) = st.runtime.next() else {
            return;
        };
        let busy = rt.busy_ratio();
        let st = &mut *st;
        st.busy_sum += if busy.is_finite() { busy } else { 0.0 };
        let v = &mut st.view;
        v.ticks += 1;
        v.workers = rt.workers_count;
        v.busy_ratio = if busy.is_finite() { busy } else { 0.0 };
        v.busy_ratio_max = v.busy_ratio_max.max(v.busy_ratio);
        v.busy_ratio_mean = st.busy_sum / v.ticks as f64;
        v.global_queue_depth = rt.global_queue_depth;
        v.global_queue_depth_max = v.global_queue_depth_max.max(rt.global_queue_depth);
        v.live_tasks = rt.live_tasks_count;
        v.live_tasks_max = v.live_tasks_max.max(rt.live_tasks_count);
        v.park_count += rt.total_park_count;
        v.timer_late_ms = late.as_secs_f64() * 1e3;
        v.timer_late_max_ms = v.timer_late_max_ms.max(v.timer_late_ms);
        #[cfg(tokio_unstable)]
        {
            v.unstable = UnstableView {
                mean_poll_us: micros(rt.mean_poll_duration),
                steal_count: v.unstable.steal_count + rt.total_steal_count,
                remote_schedules: v.unstable.remote_schedules + rt.num_remote_schedules,
                polls: v.unstable.polls + rt.total_polls_count,
                blocking_threads: rt.blocking_threads_count,
            };
        }
        v.tasks = Group::ALL
            .iter()
            .zip(&self.tasks)
            .zip(st.tasks.iter_mut())
            .map(|((g, m), intervals)| group_view(g.name(), &m.cumulative(), intervals.next()))
            .collect();
    }

    /// The latest view.
    pub fn view(&self) -> RuntimeView {
        let mut view = lock(&self.state).view.clone();
        // The whole-run figures, fresh at the end.
        for (t, m) in view.tasks.iter_mut().zip(&self.tasks) {
            let total = m.cumulative();
            t.instrumented = total.instrumented_count;
            t.dropped = total.dropped_count;
            t.polls = total.total_poll_count;
            t.mean_poll_us = micros(total.mean_poll_duration());
            t.mean_scheduled_us = micros(total.mean_scheduled_duration());
            t.slow_poll_ratio = finite(total.slow_poll_ratio());
        }
        view
    }
}

/// A group's whole-run figures and the latest tick's.
fn group_view(name: &str, total: &TaskMetrics, tick: Option<TaskMetrics>) -> TaskGroupView {
    let tick = tick.unwrap_or_default();
    TaskGroupView {
        name: name.to_string(),
        instrumented: total.instrumented_count,
        dropped: total.dropped_count,
        polls: total.total_poll_count,
        mean_poll_us: micros(total.mean_poll_duration()),
        mean_scheduled_us: micros(total.mean_scheduled_duration()),
        slow_poll_ratio: finite(total.slow_poll_ratio()),
        tick_mean_poll_us: micros(tick.mean_poll_duration()),
        tick_mean_scheduled_us: micros(tick.mean_scheduled_duration()),
        tick_slow_poll_ratio: finite(tick.slow_poll_ratio()),
    }
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn finite(x: f64) -> f64 {
    if x.is_finite() { x } else { 0.0 }
}

//! Memory over a long session: every built-in preset played for 1 hour of simulated time at
//! the TUI's maximum speed, through the same `App` the TUI steps (a frame: `advance` with the
//! frame's wall budget, then a snapshot rendered into a 120x40 off-screen terminal), with the
//! resident set size (`VmRSS` of /proc/self/status) at the start, at 10 minutes and at 1 hour
//! of simulated time. Each preset runs in a child process of its own, so one preset's memory
//! does not count for the next. A preset whose load ends (`runs`, `batch`) is run again with
//! `r` each time it finishes, as someone replaying it would, and its runs' simulated times add
//! up to the hour. Exits 1 when a preset's RSS at 1 h is more than 10 % above its RSS at
//! 10 min (the session should hold steady once its windows and logs are full).
//! `cargo bench --bench rss` (Linux; a few minutes).

use std::process::Command;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use threadlab::scenario;
use threadlab::time::Nanos;
use threadlab::tui::Theme;
use threadlab::tui::app::{Action, App};
use threadlab::tui::clock::{BudgetSpec, FRAME_BUDGET, Speed};

/// Set in a child: the preset it measures.
const PRESET_VAR: &str = "THREADLAB_RSS_PRESET";
/// Simulated times at which the RSS is read.
const CHECKPOINTS: [Nanos; 5] = [
    Nanos::ZERO,
    Nanos::from_secs(60),
    Nanos::from_secs(600),
    Nanos::from_secs(1800),
    Nanos::from_secs(3600),
];
/// Growth allowed from 10 minutes to 1 hour.
const FLAT: f64 = 1.10;
/// A preset that has not reached 1 h after this much wall time is reported as far as it got.
const WALL_LIMIT: Duration = Duration::from_secs(600);

fn main() {
    if let Ok(preset) = std::env::var(PRESET_VAR) {
        measure(&preset);
        return;
    }
    println!(
        "preset                 | runs  | reached | RSS start | 1 min   | 10 min  | 30 min  \
         | 1 h     | 1 h / 10 min"
    );
    let mut grew = Vec::new();
    for name in scenario::builtin_names() {
        let exe = std::env::current_exe().expect("the bench's own path");
        let out = Command::new(exe)
            .env(PRESET_VAR, name)
            .output()
            .expect("the child runs");
        let line = String::from_utf8_lossy(&out.stdout).trim().to_string();
        println!("{line}");
        if !out.status.success() {
            eprintln!("{}", String::from_utf8_lossy(&out.stderr));
            grew.push(name);
        }
    }
    if !grew.is_empty() {
        eprintln!("RSS grew more than 10 % from 10 min to 1 h (or the run failed): {grew:?}");
        std::process::exit(1);
    }
}

/// Plays `preset` at maximum speed for 1 h of simulated time (or until its load ends, or
/// [`WALL_LIMIT`]), printing one table row; exits 1 when it grew.
fn measure(preset: &str) {
    let s = scenario::load(preset, &[]).expect("built-in preset");
    let strategy = s.strategy.default;
    let mut app = App::new(s, strategy, Theme::Dark);
    while app.clock().speed() != Speed::Max {
        app.apply(Action::SpeedUp);
    }
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("test terminal");
    let mut rss: Vec<Option<u64>> = vec![None; CHECKPOINTS.len()];
    let started = Instant::now();
    let mut last = Instant::now();
    // Simulated time of the runs before this one (finite loads are replayed).
    let mut before = Nanos::ZERO;
    let mut runs = 1;
    loop {
        let now = Instant::now();
        if app.is_finished() {
            before += app.now();
            runs += 1;
            app.apply(Action::Reset);
        }
        app.advance(now - last, BudgetSpec::Wall(FRAME_BUDGET));
        last = now;
        let snapshot = app.snapshot();
        terminal
            .draw(|frame| threadlab::tui::ui::render(frame, &app, &snapshot))
            .expect("draws");
        for (at, slot) in CHECKPOINTS.iter().zip(rss.iter_mut()) {
            if slot.is_none() && before + app.now() >= *at {
                *slot = Some(rss_kib());
            }
        }
        let done = rss.iter().all(Option::is_some);
        if done || started.elapsed() > WALL_LIMIT {
            break;
        }
    }
    let cell =
        |v: Option<u64>| v.map_or("-".to_string(), |k| format!("{:.1} MiB", k as f64 / 1024.0));
    let ratio = match (rss[2], rss[4]) {
        (Some(ten), Some(hour)) if ten > 0 => Some(hour as f64 / ten as f64),
        _ => None,
    };
    println!(
        "{preset:<22} | {:>5} | {:>7} | {:>9} | {:>7} | {:>7} | {:>7} | {:>7} | {}",
        runs,
        format!("{:.0} s", (before + app.now()).as_secs_f64()),
        cell(rss[0]),
        cell(rss[1]),
        cell(rss[2]),
        cell(rss[3]),
        cell(rss[4]),
        ratio.map_or("-".into(), |r| format!("{r:.3}")),
    );
    if ratio.is_some_and(|r| r > FLAT) {
        std::process::exit(1);
    }
}

/// This process's resident set size in KiB (`VmRSS`).
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status (Linux)");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmRSS line")
}

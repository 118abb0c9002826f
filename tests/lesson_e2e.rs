//! Each built-in lesson played in a real terminal (tmux, 80x24) by a key script that answers
//! every question, once right and once wrong (in the dark theme and the light one): the
//! lesson plays to its results, the reveal shows the answer computed from the run, the
//! `--results` files say so, and they merge with `--summary`. CI installs tmux.
//!
//! The script's keys come one group every `GAP` of frames; at the fastest speed every part
//! of a lesson plays to its next stop well within a gap, so each group finds the box it is
//! written for.

mod tmux;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use threadlab::lesson::play::{play, right_answer, wrong_answer};
use threadlab::lesson::results::Results;
use threadlab::lesson::{self, Session};
use threadlab::tui::Theme;
use tmux::Tmux;

/// Script time between two groups of keys (at `--fps 30`: 6 frames), and before the first
/// (the first question stays on screen a while for the test to see it).
const GAP: f64 = 0.2;
const FIRST: f64 = 1.0;

/// The keys a class would press through `lesson`, answering with `answer` (from the answers
/// `reference` computed): an answer and Enter on each question, then `>` to the fastest
/// speed while the run plays to the reveal; space on each caption and reveal; q at the end.
fn script(
    reference: &Session,
    answer: fn(&lesson::question::Question, &lesson::Record) -> String,
) -> String {
    let l = reference.lesson();
    let mut out = String::new();
    let mut t = FIRST;
    let mut line = |keys: &str| {
        let _ = writeln!(out, "{t:.1}s {keys}");
        t += GAP;
    };
    for (p, part) in l.parts.iter().enumerate() {
        for (s, step) in part.steps.iter().enumerate() {
            match &step.ask {
                None => line("<Space>"),
                Some(ask) => {
                    let number = l.number_of(p, s).expect("a question");
                    let record = &reference.records()[number - 1];
                    line(&format!("{}<Enter>", answer(&ask.question, record)));
                    line(">>>>>>>>>>");
                    line("<Space>");
                }
            }
        }
    }
    line("q");
    out
}

/// Plays `name` in tmux at 80x24 with `script`, results to `results`; returns the screen
/// after it ended.
fn play_in_tmux(name: &str, script: &str, dir: &Path, results: &Path, theme: &str) -> String {
    let keys = dir.join(format!("{name}-{theme}.keys"));
    std::fs::write(&keys, script).expect("script");
    let tmux = Tmux::start(&format!("lesson-{name}-{theme}"), 80, 24);
    let bin = env!("CARGO_BIN_EXE_threadlab");
    let cast = dir.join(format!("{name}-{theme}.cast"));
    tmux.run(&format!(
        "{bin} lesson {name} --fps 30 --theme {theme} --keys {} --results {} --record {}; echo EXIT=$?",
        keys.display(),
        results.display(),
        cast.display()
    ));
    tmux.wait_for("the first question", |s| s.contains("Question 1/"));
    // The exit code's own line (the command line says `EXIT=$?` too).
    let screen = tmux.wait_for("the end", |s| s.lines().any(|l| l.starts_with("EXIT=")));
    assert!(screen.lines().any(|l| l == "EXIT=0"), "{screen}");
    tmux.assert_restored();
    // The recording holds the lesson's boxes as drawn.
    let cast = std::fs::read_to_string(&cast).expect("the cast");
    assert!(cast.contains("measured: "), "the cast shows a reveal");
    screen
}

fn reference(name: &str) -> Session {
    let l = lesson::load(name, &[], None).expect("lesson");
    play(l, Theme::Dark, &mut |_, _| String::new(), &mut |_, _| {}).expect("plays")
}

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("threadlab-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// One lesson right (dark) then wrong (light): the screens, the results and their summary.
fn right_and_wrong(name: &str) {
    let dir = folder(name);
    let reference = reference(name);
    let n = reference.records().len();
    let right = dir.join(format!("{name}-right.json"));
    // (A line longer than the terminal wraps: the screen is read as one text.)
    let screen = play_in_tmux(
        name,
        &script(&reference, right_answer),
        &dir,
        &right,
        "dark",
    );
    assert!(
        screen
            .replace('\n', "")
            .contains(&format!("({n} of {n} right)")),
        "{screen}"
    );
    let wrong = dir.join(format!("{name}-wrong.csv"));
    let screen = play_in_tmux(
        name,
        &script(&reference, wrong_answer),
        &dir,
        &wrong,
        "light",
    );
    assert!(
        screen
            .replace('\n', "")
            .contains(&format!("(0 of {n} right)")),
        "{screen}"
    );
    for (path, result) in [(&right, "right"), (&wrong, "wrong")] {
        let r = Results::read(path).expect("results");
        assert!(r.complete, "{name}: every question asked");
        for (a, want) in r.answers.iter().zip(reference.records()) {
            assert_eq!(a.result, result, "{name} question {}", a.question);
            assert_eq!(
                a.answer, want.reveal.answer,
                "the answer computed from the run"
            );
        }
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_threadlab"))
        .args(["lesson", "--summary"])
        .arg(&right)
        .arg(&wrong)
        .output()
        .expect("summary");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains(&format!(
            "2 result files, 2 complete; mean score {:.1} of {n}",
            n as f64 / 2.0
        )),
        "{text}"
    );
    assert_eq!(
        text.matches("right 1 · wrong 1 · skipped 0").count(),
        n,
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn threads_and_the_ceiling_plays_to_its_end_right_and_wrong() {
    right_and_wrong("threads-and-the-ceiling");
}

#[test]
fn shared_pools_and_bulkheads_plays_to_its_end_right_and_wrong() {
    right_and_wrong("shared-pools-and-bulkheads");
}

#[test]
fn the_retry_storm_plays_to_its_end_right_and_wrong() {
    right_and_wrong("the-retry-storm");
}

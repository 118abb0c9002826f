//! `threadlab lesson` and `threadlab check` of lessons as a teacher runs them: the list, the
//! refusals that name the field, results merged into a class's summary, and the handout.

use std::path::{Path, PathBuf};

mod support;
use support::{stdout, threadlab};

use threadlab::lesson::play::{play, right_answer, wrong_answer};
use threadlab::lesson::results::Results;
use threadlab::lesson::{self, Session};
use threadlab::tui::Theme;

/// A folder of this test's own, emptied.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("threadlab-lesson-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A one-part lesson on ironthread (sequential) whose one step is `step` (TOML lines).
fn lesson_file(dir: &Path, name: &str, step: &str) -> String {
    let text = format!(
        r#"
[lesson]
title = "Test"
minutes = 5

[[parts]]
preset = "ironthread"
strategy = "sequential"

[[parts.steps]]
at = "0s"
reveal = "8.5s"
{step}
"#
    );
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).expect("lesson file");
    path.display().to_string()
}

#[test]
fn the_list_names_each_lesson_with_its_length_questions_and_goals() {
    let out = stdout(&["lesson"]);
    for name in lesson::builtin_names() {
        assert!(out.contains(&format!("{name}: ")), "{out}");
    }
    assert!(
        out.contains("about 15 min · 5 questions · ironthread, tomcat-ceiling"),
        "{out}"
    );
    assert!(out.contains("  - Use Little's law"), "{out}");
}

#[test]
fn check_plays_a_lesson_and_lists_the_answers_it_computed() {
    let out = stdout(&["check", "threads-and-the-ceiling"]);
    assert!(
        out.starts_with("threads-and-the-ceiling: ok (Threads, hold time"),
        "{out}"
    );
    assert!(out.contains("  1. at 8.500s: 1700 ms"), "{out}");
    assert!(out.contains("  3. at 30.000s: 113.3 req/s"), "{out}");
    // A model changed with --set changes the computed answers.
    let out = stdout(&[
        "check",
        "threads-and-the-ceiling",
        "--set",
        "server.threads=400",
    ]);
    assert!(out.contains("  3. at 30.000s: 226.7 req/s"), "{out}");
}

/// `check` of a malformed lesson: exit 2, and the message names the field.
fn refused(dir: &Path, name: &str, step: &str, field: &str, why: &str) {
    let path = lesson_file(dir, name, step);
    let out = threadlab(&["check", &path]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{name}: {err}");
    assert!(
        err.contains(field),
        "{name}: the field {field} is named: {err}"
    );
    assert!(err.contains(why), "{name}: {why}: {err}");
}

#[test]
fn check_refuses_each_malformed_question_naming_its_field() {
    let dir = folder("malformed");
    refused(
        &dir,
        "answer-name",
        "ask = \"How long?\"\nanswer = \"latency_ms.average\"\nunit = \"ms\"",
        "parts[0].steps[0].answer",
        "\"latency_ms.average\" names no figure of the run report",
    );
    refused(
        &dir,
        "answer-syntax",
        "ask = \"How long?\"\nanswer = \"latency_ms.mean *\"",
        "parts[0].steps[0].answer",
        "it ends where a name, a number or ( was expected",
    );
    refused(
        &dir,
        "tolerance",
        "ask = \"How long?\"\nanswer = \"latency_ms.mean\"\ntolerance = 1.5",
        "parts[0].steps[0].tolerance = 1.5",
        "is out of range: allowed 0..=1",
    );
    refused(
        &dir,
        "within",
        "ask = \"How long?\"\nanswer = \"latency_ms.mean\"\nwithin = -1",
        "parts[0].steps[0].within = -1.0",
        "is out of range",
    );
    refused(
        &dir,
        "choice-without-when",
        "ask = \"Which?\"\nchoices = [{ text = \"slow\" }, { text = \"fast\", when = \"latency_ms.mean < 1000\" }]",
        "parts[0].steps[0].choices[0].when",
        "is missing: each choice says when it is the right one",
    );
    refused(
        &dir,
        "choice-never-right",
        "ask = \"Which?\"\nchoices = [{ text = \"slow\", when = \"latency_ms.mean > 5000\" }, { text = \"fast\", when = \"latency_ms.mean < 1000\" }]",
        "parts[0].steps[0].choices",
        "the run has no answer: no a choice that holds on this run",
    );
    refused(
        &dir,
        "choice-two-right",
        "ask = \"Which?\"\nchoices = [{ text = \"slow\", when = \"latency_ms.mean > 1000\" }, { text = \"sure\", when = \"latency_ms.mean > 0\" }]",
        "parts[0].steps[0].choices",
        "a or b hold on the run at its reveal (8.500s): exactly one choice is right",
    );
    refused(
        &dir,
        "choice-one",
        "ask = \"Which?\"\nchoices = [{ text = \"slow\", when = \"latency_ms.mean > 1000\" }]",
        "parts[0].steps[0].choices",
        "has 1: a question offers 2 to 6",
    );
    refused(
        &dir,
        "order-value",
        "ask = \"Rank\"\norder = [{ text = \"a\", value = \"latency_ms.p99\" }, { text = \"b\", value = \"compare.nope.latency_ms.p99\" }]",
        "parts[0].steps[0].order[1].value",
        "\"compare.nope.latency_ms.p99\" names no figure",
    );
    refused(
        &dir,
        "two-kinds",
        "ask = \"?\"\nanswer = \"latency_ms.mean\"\nchoices = [{ text = \"a\", when = \"latency_ms.mean > 1\" }, { text = \"b\", when = \"latency_ms.mean <= 1\" }]",
        "parts[0].steps[0]",
        "exactly one of `answer` (a number), `choices` or `order`; this one has answer and choices",
    );
    refused(
        &dir,
        "misconception",
        "ask = \"How long?\"\nanswer = \"latency_ms.mean\"\nmisconceptions = [{ when = \"guesss > 1\", explain = \"no\" }]",
        "parts[0].steps[0].misconceptions[0].when",
        "\"guesss\" names no figure",
    );
    refused(
        &dir,
        "explain",
        "ask = \"How long?\"\nanswer = \"latency_ms.mean\"\nexplain = \"{latency_ms.mean\"",
        "parts[0].steps[0].explain",
        "a { is not closed",
    );
    refused(
        &dir,
        "unknown-field",
        "ask = \"How long?\"\nanswr = \"latency_ms.mean\"",
        "parts[0].steps[0]",
        "unknown field `answr`",
    );
    refused(
        &dir,
        "no-kind",
        "ask = \"How long?\"",
        "parts[0].steps[0]",
        "this one has none",
    );
    refused(
        &dir,
        "caption-with-reveal",
        "caption = \"Five pages.\"",
        "parts[0].steps[0].reveal",
        "belongs to a question, and this step has no `ask`",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_flags_and_no_terminal_are_refused() {
    for (args, said) in [
        (
            vec!["lesson", "nope"],
            "unknown lesson `nope`: built-in lessons are threads-and-the-ceiling",
        ),
        (
            vec!["lesson", "--results", "x.json"],
            "--results needs a lesson NAME",
        ),
        (
            vec!["lesson", "--plot", "x.svg"],
            "--plot draws a --summary",
        ),
        (
            vec!["lesson", "the-retry-storm", "--set", "server.threds=4"],
            "parts[0] (spike): spike with --set server.threds=4: server.threds: unknown field `threds`",
        ),
        (
            vec!["lesson", "the-retry-storm"],
            "a lesson asks and waits for answers in a terminal",
        ),
        (
            vec!["lesson", "the-retry-storm", "--results", "r.txt"],
            "--results \"r.txt\": a results file ends in .json or .csv",
        ),
        (
            vec!["check", "the-retry-storm", "--strategy", "shared"],
            "--strategy does not apply to a lesson",
        ),
    ] {
        let out = threadlab(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(said), "{args:?}: {err}");
    }
}

/// A class: each student's session of `threads-and-the-ceiling`, answering question n right
/// when `right(student, n)`.
fn class(students: usize, right: fn(usize, usize) -> bool) -> Vec<Session> {
    let l = lesson::load("threads-and-the-ceiling", &[], None).expect("lesson");
    let reference = play(
        l.clone(),
        Theme::Dark,
        &mut |_, _| String::new(),
        &mut |_, _| {},
    )
    .expect("plays");
    (0..students)
        .map(|student| {
            let mut predict = |place: lesson::Place, q: &lesson::question::Question| {
                let record = &reference.records()[place.number - 1];
                if right(student, place.number) {
                    right_answer(q, record)
                } else {
                    wrong_answer(q, record)
                }
            };
            play(l.clone(), Theme::Dark, &mut predict, &mut |_, _| {}).expect("plays")
        })
        .collect()
}

#[test]
fn results_files_merge_into_a_summary_of_the_class_s_answers() {
    let dir = folder("summary");
    // Three students: question 1 right for all, question 2 for the first only, question 3
    // for the first two.
    let sessions = class(3, |student, n| match n {
        1 => true,
        2 => student == 0,
        3 => student < 2,
        _ => student == 1,
    });
    let mut files = Vec::new();
    for (i, s) in sessions.iter().enumerate() {
        // JSON and CSV alike.
        let ext = if i == 1 { "csv" } else { "json" };
        let path = dir.join(format!("student{i}.{ext}"));
        Results::of(s, &[]).write(&path).expect("written");
        // Read back as written (a number to its last few digits: JSON parsers round).
        let (back, written) = (
            Results::read(&path).expect("read back"),
            Results::of(s, &[]),
        );
        assert_eq!(
            (back.score, back.questions, back.complete),
            (written.score, written.questions, written.complete)
        );
        for (a, b) in back.answers.iter().zip(&written.answers) {
            let close = |x: Option<f64>, y: Option<f64>| match (x, y) {
                (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * y.abs().max(1.0),
                (x, y) => x == y,
            };
            assert!(
                close(a.measured, b.measured) && close(a.guess_value, b.guess_value),
                "{a:?} {b:?}"
            );
            assert_eq!(
                (&a.result, &a.guess, &a.answer, &a.text),
                (&b.result, &b.guess, &b.answer, &b.text)
            );
        }
        files.push(path.display().to_string());
    }
    let plot = dir.join("class.svg").display().to_string();
    let mut args = vec!["lesson", "--summary"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["--plot", &plot]);
    let out = stdout(&args);
    assert!(out.starts_with("Threads, hold time and the ceiling (threads-and-the-ceiling): 3 result files, 3 complete; mean score 2.7 of 5"), "{out}");
    assert!(out.contains("1. How long does one page take? (number)\n   measured 1700 ms · right 3 · wrong 0 · skipped 0"), "{out}");
    assert!(out.contains("measured b · right 1 · wrong 2"), "{out}");
    assert!(
        out.contains("measured 113.3 req/s · right 2 · wrong 1"),
        "{out}"
    );
    // The choice's histogram: b once (the measured answer), a twice (the wrong letter).
    assert!(
        out.contains(
            "   a  ██████████████████████████████ 2\n   b  ███████████████ 1  ◂ the measured answer"
        ),
        "{out}"
    );
    let svg = std::fs::read_to_string(&plot).expect("the chart");
    roxmltree::Document::parse(&svg).expect("the chart's SVG parses");
    // Files of two lessons do not merge.
    let other = dir.join("other.json");
    let mut r = Results::of(&sessions[0], &[]);
    r.lesson = "the-retry-storm".into();
    r.write(&other).expect("written");
    let out = threadlab(&[
        "lesson",
        "--summary",
        &files[0],
        &other.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("other.json: its lesson is the-retry-storm")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_handout_links_only_pictures_that_exist_and_parse() {
    let dir = folder("handout");
    let out = threadlab(&[
        "lesson",
        "threads-and-the-ceiling",
        "--handout",
        &dir.display().to_string(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(dir.join("threads-and-the-ceiling.md")).expect("the page");
    assert!(
        page.starts_with("# Threads, hold time and the ceiling\n"),
        "{page}"
    );
    assert!(page.contains("**How long does one page take?**"), "{page}");
    assert!(page.contains("Measured: **1700 ms**"), "{page}");
    assert!(
        page.contains("Called one after another, the calls add up: 200 + 500 + 1000 = 1700 ms"),
        "{page}"
    );
    let links: Vec<&str> = page
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .collect();
    assert!(
        links.len() >= 10,
        "a picture a step and a chart a part: {links:?}"
    );
    for link in links {
        let svg = std::fs::read_to_string(dir.join(link)).unwrap_or_else(|e| panic!("{link}: {e}"));
        roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{link}: {e}"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The README's example lesson is a lesson `check` accepts.
#[test]
fn the_readme_s_example_lesson_passes_check() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README");
    let section = readme
        .split("### Write a lesson")
        .nth(1)
        .expect("the section");
    let toml = section
        .split("```toml\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the example");
    let dir = folder("readme");
    let path = dir.join("example.toml");
    std::fs::write(&path, toml).expect("written");
    let out = stdout(&["check", &path.display().to_string()]);
    assert!(
        out.contains("ok (Threads, hold time and the ceiling; 1 part, 2 questions"),
        "{out}"
    );
    assert!(
        out.contains("  2. at 1m00.000s: b) longer: it queues for a thread"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

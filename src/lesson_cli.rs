//! `threadlab lesson`: the list of lessons, a lesson played in the TUI (with `--results`),
//! written as a handout (`--handout DIR`), or a class's results merged (`--summary`); and
//! `threadlab check` of a lesson.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;

use threadlab::lesson::{self, Lesson, results::Results};
use threadlab::scenario::{self, Strategy};
use threadlab::tui::{self, LessonRun, Theme, TuiOptions};

use crate::{BadInput, ScenarioArgs, ViewArgs, cli::DemoArgs, emit};

/// `threadlab lesson [NAME]`.
#[derive(Debug, Args)]
pub struct LessonArgs {
    /// A built-in lesson (listed without NAME) or a path to a lesson's .toml file.
    name: Option<String>,
    /// Override a value of every part's preset: key.path=value (repeatable); the answers are
    /// computed from the run, so they follow.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Seed of every part's run, 0..=9223372036854775807 (default: each preset's).
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=scenario::MAX_SEED))]
    seed: Option<u64>,
    #[command(flatten)]
    view: ViewArgs,
    #[command(flatten)]
    demo: DemoArgs,
    /// When the lesson ends (or is left), write the score and every prediction against its
    /// measurement to FILE.json or FILE.csv (to hand in).
    #[arg(long, value_name = "FILE")]
    results: Option<PathBuf>,
    /// Play the lesson without a terminal and write a handout to DIR: DIR/NAME.md with the
    /// questions, the measured answers, the explanations and pictures of each step (SVG).
    #[arg(long, value_name = "DIR")]
    handout: Option<PathBuf>,
    /// Merge a class's results files (JSON or CSV, of one lesson): per question, the
    /// distribution of the predictions as a text histogram.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with = "name")]
    summary: Vec<PathBuf>,
    /// With --summary: draw the distributions to FILE.svg or FILE.png too.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
}

pub fn lesson(args: LessonArgs) -> anyhow::Result<()> {
    if !args.summary.is_empty() {
        return summary(&args);
    }
    if let Some(flag) = [("--plot", args.plot.is_some())].iter().find(|f| f.1) {
        return Err(BadInput(format!(
            "{} draws a --summary: give it with --summary FILES...",
            flag.0
        ))
        .into());
    }
    let Some(name) = args.name.as_deref() else {
        refuse_flags(&args, "a lesson NAME")?;
        return emit(&lesson::listing().map_err(|e| BadInput(e.to_string()))?);
    };
    let l = load(name, &args.set, args.seed)?;
    if let Some(dir) = &args.handout {
        return handout(&args, &l, dir);
    }
    let config = threadlab::config::load().map_err(|e| BadInput(e.to_string()))?;
    if let Some(path) = &args.results {
        lesson::results::format_of(path).map_err(|e| BadInput(format!("--results {e}")))?;
        // Checked before the lesson (a folder, a file that is not ours to replace), and
        // written when it ends.
        threadlab::files::OutputFile::check(Some("--results"), path)
            .map_err(crate::output_error)?;
    }
    let demo = args.demo.check(false)?;
    if !(std::io::stdout().is_terminal() && std::io::stdin().is_terminal()) {
        args.demo.refuse_without_terminal()?;
        return Err(BadInput(format!(
            "a lesson asks and waits for answers in a terminal; without one, `threadlab lesson \
             {name} --handout DIR` writes it as a page"
        ))
        .into());
    }
    let first = &l.parts[0];
    let (scenario, strategy) = (first.scenario.clone(), first.strategy);
    let options = TuiOptions {
        fps: args.view.fps(&config),
        theme: args.view.theme(&config),
        keys: config.keys,
        record: demo.record,
        script: demo.script,
        overrides: first.sets.clone(),
        lesson: Some(LessonRun {
            lesson: l,
            results: args.results.clone(),
            sets: args.set.clone(),
        }),
        ..TuiOptions::default()
    };
    tui::run(scenario, strategy, options)
}

/// Flags that need a lesson NAME (or not a summary) are refused rather than ignored.
fn refuse_flags(args: &LessonArgs, needs: &str) -> anyhow::Result<()> {
    let given = [
        ("--results", args.results.is_some()),
        ("--handout", args.handout.is_some()),
        ("--keys", args.demo.script.is_some()),
        ("--record", args.demo.record.is_some()),
        ("--set", !args.set.is_empty()),
        ("--seed", args.seed.is_some()),
    ];
    match given.iter().find(|(_, g)| *g) {
        Some((flag, _)) => Err(BadInput(format!("{flag} needs {needs}")).into()),
        None => Ok(()),
    }
}

/// Loads a lesson and checks its expressions' names and each part's cost (exit 2 on bad
/// input, naming the field).
fn load(name: &str, sets: &[String], seed: Option<u64>) -> anyhow::Result<Lesson> {
    let l = lesson::load(name, sets, seed).map_err(|e| BadInput(e.to_string()))?;
    lesson::names::validate(&l).map_err(|e| BadInput(e.to_string()))?;
    for (i, part) in l.parts.iter().enumerate() {
        let s = &part.scenario;
        let served = threadlab::theory::served_rps(s, &Strategy::ALL);
        if let Some(why) = scenario::estimate_cost(s, s.duration, served).refusal() {
            return Err(BadInput(format!(
                "{}: parts[{i}] ({}): this run is too large: {why}; lower the load or the \
                 part's duration",
                l.source, part.preset
            ))
            .into());
        }
    }
    Ok(l)
}

fn handout(args: &LessonArgs, l: &Lesson, dir: &std::path::Path) -> anyhow::Result<()> {
    let refused = [
        ("--results", args.results.is_some()),
        ("--keys", args.demo.script.is_some()),
        ("--record", args.demo.record.is_some()),
    ];
    if let Some((flag, _)) = refused.iter().find(|(_, g)| *g) {
        return Err(BadInput(format!(
            "{flag} belongs to a lesson played in a terminal; --handout plays it without one"
        ))
        .into());
    }
    // A page is printed: light unless asked otherwise.
    let theme = match (args.view.no_color, args.view.theme) {
        (true, _) => Theme::NoColor,
        (false, Some(t)) => t.theme(),
        (false, None) => Theme::Light,
    };
    threadlab::progress::catch_ctrl_c();
    let page = lesson::handout::write(l, dir, theme, &args.set).map_err(|e| match e {
        lesson::handout::HandoutError::Lesson(e) => anyhow::Error::new(BadInput(e.to_string())),
        other => anyhow::Error::new(other),
    })?;
    threadlab::progress::say(format!("threadlab: wrote {}", page.display()));
    Ok(())
}

fn summary(args: &LessonArgs) -> anyhow::Result<()> {
    refuse_flags(args, "a lesson NAME, not --summary")?;
    let chart = crate::plot_output(args.plot.as_deref())?;
    let files = args
        .summary
        .iter()
        .map(|path| {
            Results::read(path)
                .map(|r| (path.display().to_string(), r))
                .map_err(|e| BadInput(format!("--summary {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let s = lesson::summary::summarise(&files).map_err(|e| BadInput(format!("--summary {e}")))?;
    emit(&s.text())?;
    if let Some(out) = chart {
        crate::draw(&s.figure(), out, threadlab::plot::ChartTheme::Light)?;
    }
    Ok(())
}

/// `threadlab check LESSON`: loads it, checks its names, plays it headless, and lists each
/// question's computed answer.
pub fn check(name: &str, args: &ScenarioArgs) -> anyhow::Result<()> {
    let given = [
        ("--strategy", args.strategy.is_some()),
        ("--duration", args.preset.duration.is_some()),
    ];
    if let Some((flag, _)) = given.iter().find(|(_, g)| *g) {
        return Err(BadInput(format!(
            "{flag} does not apply to a lesson: each of its parts names its own"
        ))
        .into());
    }
    let l = load(name, &args.preset.set, args.preset.seed)?;
    let session = lesson::play::check(&l).map_err(|e| BadInput(e.to_string()))?;
    let plural = |n: usize, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
    let mut out = format!(
        "{}: ok ({}; {}, {}, about {} min)\n",
        l.source,
        l.title,
        plural(l.parts.len(), "part"),
        plural(l.questions().len(), "question"),
        l.minutes
    );
    for r in session.records() {
        let shown = match (r.reveal.detail.is_empty(), r.reveal.measured.is_some()) {
            (true, _) | (false, true) => r.reveal.answer.clone(),
            // A choice's detail is its letter and text; an order's, its values.
            (false, false)
                if r.reveal
                    .detail
                    .starts_with(&format!("{})", r.reveal.answer)) =>
            {
                r.reveal.detail.clone()
            }
            (false, false) => format!("{} ({})", r.reveal.answer, r.reveal.detail),
        };
        out.push_str(&format!(
            "  {}. at {}: {shown}\n",
            r.number,
            threadlab::tui::ui::clock_text(r.at)
        ));
    }
    emit(&out)
}

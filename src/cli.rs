//! What makes the binary install like a command: shell completions, the man page, the
//! config file's subcommand. Written from the command line's own definition (`clap`), so
//! none of them can drift from the flags.

use std::path::PathBuf;

use clap::Args;

use threadlab::files::OutputFile;
use threadlab::screenshot;

use crate::{BadInput, EngineArg, EngineArgs, OutputArgs, ScenarioArgs, ThemeArg};

/// `threadlab completions SHELL`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `threadlab config`.
#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// Print only where the config file is read from (whether or not it exists).
    #[arg(long)]
    pub path: bool,
}

/// What `--help` ends with: the exit codes (as the README's "The command line" gives them)
/// and where the config file is.
pub const AFTER_HELP: &str = "\
Exit codes:
  0    ok
  1    internal error, or an output that cannot be written; verify: a figure differs by more
       than the tolerance; assert: a goal fails; tune: no setting in the range meets every
       goal
  2    bad input: the message names the file, the field, the value and the allowed range
  3    a real run (--engine real, verify) that this machine could not keep up with (report
       printed, marked)
  130  a headless run stopped by Ctrl-C (what finished is printed, marked partial);
       the TUI stopped by a signal exits 128 + the signal (130 SIGINT, 143 SIGTERM, 129 SIGHUP)

Config file: threadlab config --path says where it is read from (theme, fps, preset, [keys]).";

/// The completion script for `shell`. In bash a subcommand's PRESET also completes to the
/// built-in presets' names (a path to a .toml file completes as before).
pub fn completions(mut command: clap::Command, shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = Vec::new();
    let name = command.get_name().to_owned();
    clap_complete::generate(shell, &mut command, name.clone(), &mut out);
    if shell != clap_complete::Shell::Bash {
        return out;
    }
    let mut script = String::from_utf8_lossy(&out).into_owned();
    let presets: Vec<&str> = threadlab::scenario::builtin_names().collect();
    let takes_preset = command
        .get_subcommands()
        .filter(|c| c.get_positionals().any(|a| a.get_id().as_str() == "preset"));
    for sub in takes_preset {
        // The block of `threadlab SUB`: its first `opts="..."` line lists what the word after
        // the subcommand may be.
        let block = format!("{name}__subcmd__{})\n", sub.get_name());
        let Some(at) = script.find(&block) else {
            continue;
        };
        let Some(opts) = script[at..]
            .find("opts=\"")
            .map(|i| at + i + "opts=\"".len())
        else {
            continue;
        };
        let Some(end) = script[opts..].find('"').map(|i| opts + i) else {
            continue;
        };
        script.insert_str(end, &format!(" {}", presets.join(" ")));
    }
    script.into_bytes()
}

/// The man page (roff), from the command line's definition: its options, then each
/// subcommand with its own synopsis and options (one page: it cites no page of its own per
/// subcommand), and the exit codes.
pub fn man_page(mut command: clap::Command) -> std::io::Result<Vec<u8>> {
    command.build();
    let man = |c: clap::Command| {
        clap_mangen::Man::new(c)
            .section("1")
            .manual("threadlab manual")
    };
    let top = man(command.clone());
    let mut page = Vec::new();
    top.render_title(&mut page)?;
    top.render_name_section(&mut page)?;
    top.render_synopsis_section(&mut page)?;
    top.render_description_section(&mut page)?;
    top.render_options_section(&mut page)?;
    let subcommands: Vec<&clap::Command> = command
        .get_subcommands()
        .filter(|c| c.get_name() != "help" && !c.is_hide_set())
        .collect();
    page.extend_from_slice(b".SH SUBCOMMANDS\n");
    for sub in &subcommands {
        let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
        let line = format!(
            ".TP\n\\fBthreadlab {}\\fR\n{} (its options: THREADLAB {} below)\n",
            roff_text(sub.get_name()),
            roff_text(&about),
            roff_text(&sub.get_name().to_uppercase()),
        );
        page.extend_from_slice(line.as_bytes());
    }
    for sub in subcommands {
        let name = sub.get_name().to_uppercase();
        page.extend_from_slice(format!(".SH \"THREADLAB {}\"\n", roff_text(&name)).as_bytes());
        let about = sub
            .get_long_about()
            .or_else(|| sub.get_about())
            .map(ToString::to_string)
            .unwrap_or_default();
        page.extend_from_slice(format!("{}\n", roff_text(&about)).as_bytes());
        // Its synopsis and options, as subsections of its section.
        let mut part = Vec::new();
        let sub_man = man(sub.clone());
        sub_man.render_synopsis_section(&mut part)?;
        sub_man.render_options_section(&mut part)?;
        let part = String::from_utf8_lossy(&part)
            .lines()
            .map(|l| match l.strip_prefix(".SH ") {
                Some(heading) => {
                    let lower = heading.to_lowercase();
                    let mut chars = lower.chars();
                    let first = chars.next().map(|c| c.to_uppercase().collect::<String>());
                    format!(".SS {}{}", first.unwrap_or_default(), chars.as_str())
                }
                None => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        page.extend_from_slice(part.as_bytes());
        page.push(b'\n');
    }
    top.render_extra_section(&mut page)?;
    top.render_version_section(&mut page)?;
    Ok(title_first(&page))
}

/// Text as roff reads it literally: backslashes and hyphens escaped, a leading `.` or `'`
/// guarded.
fn roff_text(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    escaped
        .lines()
        .map(|l| {
            if l.starts_with(['.', '\'']) {
                format!("\\&{l}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// man(7): `.TH` is the page's first request. clap_mangen writes two lines that define the
/// apostrophe string before it; they only need to come before its first use, so the title
/// goes first.
fn title_first(page: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(page);
    let mut lines: Vec<&str> = text.lines().collect();
    if let Some(i) = lines.iter().position(|l| l.starts_with(".TH ")) {
        let title = lines.remove(i);
        lines.insert(0, title);
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out.into_bytes()
}

/// `threadlab config`: the path alone, or the path, whether it exists and the settings it
/// holds (validated: a bad file is the same error the TUI would give).
pub fn config_report(
    args: &ConfigArgs,
    path: Option<PathBuf>,
) -> Result<String, threadlab::config::ConfigError> {
    let Some(path) = path else {
        return Ok("# no config folder: neither XDG_CONFIG_HOME nor HOME is set\n".into());
    };
    if args.path {
        return Ok(format!("{}\n", path.display()));
    }
    let config = threadlab::config::load_from(&path)?;
    let mut out = format!("# {}", path.display());
    if config.source.is_none() {
        out.push_str(" (absent: the defaults apply)\n");
        return Ok(out);
    }
    out.push('\n');
    out.push_str(&config.to_toml());
    Ok(out)
}

/// `threadlab screenshot`'s own options.
#[derive(Debug, Args)]
pub struct ScreenshotArgs {
    /// Simulated time to play before the picture, e.g. 3s, 1500ms.
    #[arg(long, default_value = "10s")]
    pub at: String,
    /// Keys pressed at that moment, as a tour writes them: characters, and <Tab> <BackTab>
    /// <Up> <Down> <Left> <Right> <Home> <Enter> <Esc> <Space>; e.g. "c" for the compare view.
    /// Or keys at given simulated times: "TIME KEYS; TIME KEYS" ("30s C; 70s z"), none after
    /// --at.
    #[arg(long, default_value = "")]
    pub keys: String,
    /// Draw the picture this many times larger (1..=4; 2 for high-DPI slides): a PNG's cells,
    /// font and lines, an SVG's frame.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4))]
    pub scale: u32,
    /// The terminal's size in cells, WIDTHxHEIGHT (80..=1000 x 24..=500).
    #[arg(long, default_value = "120x40")]
    pub size: String,
    /// Colour theme; `light` for white slides.
    #[arg(long, value_enum, default_value_t = ThemeArg::Dark)]
    pub theme: ThemeArg,
    /// The picture to write: FILE.svg (text stays text) or FILE.png.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// `threadlab screenshot PRESET ... --out FILE`.
pub fn screenshot(preset: &str, args: &ScenarioArgs, shot: &ScreenshotArgs) -> anyhow::Result<()> {
    let bad = |e: String| BadInput(e);
    if args.preset.duration.is_some() {
        return Err(bad(
            "screenshot --duration: a screenshot plays the simulated time --at gives (--at 30s); \
             drop --duration"
                .into(),
        )
        .into());
    }
    screenshot::format_of(&shot.out).map_err(|e| bad(e.to_string()))?;
    let at = threadlab::scenario::parse_duration(&shot.at).map_err(|e| {
        bad(format!(
            "--at {:?}: {e}",
            threadlab::scenario::elide(&shot.at, 20)
        ))
    })?;
    let elided = threadlab::scenario::elide(&shot.keys, 40);
    // Keys at given times (`"30s C; 70s z"`), or keys pressed at --at.
    let (steps, keys) = match screenshot::timed_keys(&shot.keys) {
        Some(steps) => {
            let steps = steps.map_err(|e| bad(format!("--keys {elided:?}: {e}")))?;
            if let Some((late, _)) = steps.iter().find(|(t, _)| *t > at) {
                return Err(bad(format!(
                    "--keys {elided:?}: a step at {late} comes after --at {}: give --at {late} \
                     or later",
                    shot.at
                ))
                .into());
            }
            (steps, Vec::new())
        }
        None => {
            let keys = threadlab::tui::script::parse_keys(&shot.keys)
                .map_err(|e| bad(format!("--keys {elided:?}: {e}")))?;
            (Vec::new(), keys)
        }
    };
    let size = screenshot::parse_size(&shot.size).map_err(|e| bad(e.to_string()))?;
    let (s, strategy) = crate::load_scenario(preset, args)?;
    // The screen is played up to --at: that is the run the estimate weighs.
    crate::within_cost(&s, at, args.preset.force)?;
    let out = OutputFile::check(Some("--out"), &shot.out).map_err(crate::output_error)?;
    let theme = shot.theme.theme();
    let request = screenshot::Shot {
        at,
        keys,
        size,
        theme,
    };
    let buffer = screenshot::take_after(s, strategy, &request, &steps);
    screenshot::write_scaled(&buffer, theme, out, shot.scale).map_err(|e| match e {
        screenshot::ScreenshotError::Output(e) => crate::output_error(e),
        e => anyhow::Error::new(e),
    })?;
    threadlab::progress::say(format!("threadlab: wrote {}", shot.out.display()));
    Ok(())
}

/// `--record` and `--keys` on `tui` and `tour`: demos that play the same every time.
#[derive(Debug, Args, Default)]
pub struct DemoArgs {
    /// Record what the TUI draws to an asciicast v2 file (play it with `asciinema play`).
    #[arg(long, value_name = "FILE.cast")]
    pub record: Option<PathBuf>,
    /// Press the keys of a timed script: lines `TIME KEYS` (`0.5s 3`, `2s c`, `4s <Esc>`),
    /// TIME counted in frames from the start, so a demo runs the same every time.
    #[arg(long = "keys", value_name = "FILE")]
    pub script: Option<PathBuf>,
}

/// What `--keys` and `--record` asked for, checked before the screen opens.
pub struct Demo {
    pub script: Option<threadlab::tui::script::KeyScript>,
    /// The recording's file, not written until the session ends (a refused run leaves the
    /// path as it was).
    pub record: Option<OutputFile>,
}

impl DemoArgs {
    /// Reads the key script and checks the recording's path, before the screen opens: bad
    /// input is said on a normal terminal, and nothing is written yet.
    pub fn check(&self, real: bool) -> anyhow::Result<Demo> {
        let script = match &self.script {
            None => None,
            Some(_) if real => {
                return Err(BadInput(
                    "--keys drives the simulated clock frame by frame; a real run keeps the \
                     wall clock: drop --engine real"
                        .into(),
                )
                .into());
            }
            Some(path) => Some(
                threadlab::tui::script::KeyScript::load(path)
                    .map_err(|e| BadInput(format!("--keys {e}")))?,
            ),
        };
        let record = match &self.record {
            Some(path) => {
                Some(OutputFile::check(Some("--record"), path).map_err(crate::output_error)?)
            }
            None => None,
        };
        Ok(Demo { script, record })
    }

    /// Without a terminal there is no screen to record or keys to press: said, not ignored
    /// (the recording's path is left as it was).
    pub fn refuse_without_terminal(&self) -> anyhow::Result<()> {
        if self.record.is_some() {
            return Err(BadInput(
                "--record needs a terminal to record (run it in one, or under tmux)".into(),
            )
            .into());
        }
        if self.script.is_some() {
            return Err(BadInput("--keys needs a terminal to press keys in".into()).into());
        }
        Ok(())
    }
}

/// `compare PRESET --against KEY=VALUE...`: every strategy as the preset says and with the
/// overrides, on the same requests, side by side.
pub fn compare_against(
    preset: &str,
    args: &ScenarioArgs,
    engine: &EngineArgs,
    output: &OutputArgs,
    against: &[String],
) -> anyhow::Result<()> {
    use threadlab::plot::timeline;
    use threadlab::report::RunReport;
    use threadlab::report::against::Pair;
    use threadlab::scenario::Strategy;
    if engine.engine == EngineArg::Real {
        return Err(BadInput(
            "--against plays the simulated engine only; drop --engine real".into(),
        )
        .into());
    }
    if output.trace.is_some() {
        return Err(BadInput(
            "--against prints tables, JSON or CSV and draws a chart; --trace records one \
             run's threads: drop it or --against"
                .into(),
        )
        .into());
    }
    let chart = output.outputs()?.chart;
    let (base, _, duration) = crate::load(preset, args)?;
    // Each --against is a variant: its overrides (`KEY=VALUE, KEY=VALUE`, as C's typed
    // ones) after the --set ones, on the same flags.
    let variants: Vec<Vec<String>> = against
        .iter()
        .map(|a| threadlab::tui::prompt::split_sets(a))
        .collect();
    let mut others = Vec::new();
    for sets in &variants {
        let other_args = ScenarioArgs {
            strategy: None,
            preset: crate::PresetArgs {
                set: args.preset.set.iter().chain(sets).cloned().collect(),
                seed: args.preset.seed,
                duration: args.preset.duration.clone(),
                force: args.preset.force,
            },
        };
        let other = crate::load(preset, &other_args).map_err(|e| {
            // An override's error names it as the flag it came from (two overrides of one
            // field in one --against are both --against).
            let text = e.to_string();
            let named = sets.iter().fold(text.clone(), |t, s| {
                t.replace(&format!("--set {s}"), &format!("--against {s}"))
            });
            if named == text {
                e
            } else {
                BadInput(named).into()
            }
        })?;
        others.push(other);
    }
    threadlab::progress::catch_ctrl_c();
    // The chart follows the preset's strategy on every side.
    let charted = base.strategy.default;
    let play = |s: &threadlab::scenario::Scenario, strategy: Strategy, d, label: &str| {
        // A charted run keeps its rolling window: the chart's p99 reads it.
        let drawn = chart.is_some() && strategy == charted;
        let engine = threadlab::sim::Engine::new(s, strategy);
        let engine = if drawn { engine } else { engine.unwatched() };
        let mut rec = timeline::Recorder::new(strategy, d);
        let (engine, done) = if drawn {
            threadlab::progress::play_engine(engine, d, None, &mut |e, t| rec.observe(e, t))
        } else {
            threadlab::progress::play_engine(engine, d, None, &mut threadlab::progress::unobserved)
        };
        crate::no_stall(&engine)?;
        let capped = engine.cap_message().map(|m| (s.clone(), m));
        let mut series = rec.finish(&engine);
        series.label = label.to_string();
        Ok::<_, anyhow::Error>((RunReport::new(s, &engine), done, capped, series))
    };
    let label = |i: usize| match variants.as_slice() {
        [one] => format!("against {}", one.join(" ")),
        _ => format!("against {}: {}", i + 1, variants[i].join(" ")),
    };
    let mut pairs = Vec::new();
    let mut complete = true;
    let mut capped = None;
    let mut lines = Vec::new();
    'strategies: for strategy in Strategy::ALL {
        let (preset_side, done, cap, series) = play(&base, strategy, duration, "preset")?;
        let mut pair = Pair {
            preset: preset_side,
            against: Vec::new(),
            done: vec![done],
        };
        capped = cap.or(capped);
        if strategy == charted {
            lines.push(series);
        }
        // Every side plays, a cut one too (Ctrl-C then cuts each at once): the table shows
        // the strategy it stopped on every side.
        for (i, (other, _, other_duration)) in others.iter().enumerate() {
            let (side, done, cap, mut series) = play(other, strategy, *other_duration, &label(i))?;
            pair.against.push(side);
            pair.done.push(done);
            capped = cap.or(capped);
            if strategy == charted {
                series.colour = i + 1;
                lines.push(series);
            }
        }
        let whole = pair.done.len() == others.len() + 1 && pair.done.iter().all(|&d| d);
        pairs.push(pair);
        if !whole {
            complete = false;
            break 'strategies;
        }
    }
    crate::emit(
        &output
            .exporter()
            .compare_against(&base, &variants, &pairs)?,
    )?;
    if let Some((out, theme)) = chart {
        let title = format!("{}: {charted}, as the preset says and against", base.name);
        crate::draw(&timeline::figure(&title, &lines), out, theme)?;
    }
    if let Some((s, message)) = capped {
        crate::stopped_at_cap(&s, Some(message))?;
    }
    crate::finished(
        complete,
        "the strategies played so far, the last one cut short",
    )
}

//! The hostile-input suite: thousands of generated inputs over every command and file format
//! (presets, `--set`, `--keys` scripts and key notation, config files, trace files, `--vary`,
//! durations and sizes, output paths, recordings, the live view's keys), from a fixed seed so
//! a failure replays. In this process where a panic can be caught; as a spawned `threadlab`
//! where the exit code matters. No panic, no exit 101 (panic), 134 (abort), 137 (killed: out
//! of memory, or hung past the time limit), and only the exit codes the README documents.

#[path = "hostile_suite/commands.rs"]
mod commands;
#[path = "hostile_suite/generate.rs"]
mod generate;
#[path = "hostile_suite/inputs.rs"]
mod inputs;

use std::panic::{AssertUnwindSafe, catch_unwind};

use generate::Gen;

/// The suite's seed, and how many times its cases to play: CI keeps these; to explore,
/// `THREADLAB_SUITE_SEED=7 THREADLAB_SUITE_SCALE=10 cargo test --test hostile_suite`.
const SEED: u64 = 0x5EED_7AB1_2026;

/// In-process cases of each kind.
const PER_KIND: usize = 220;
/// Spawned command lines.
const COMMANDS: usize = 320;

fn seed() -> u64 {
    std::env::var("THREADLAB_SUITE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(SEED)
}

fn scale() -> usize {
    std::env::var("THREADLAB_SUITE_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("threadlab-suite-{name}-{}", std::process::id()))
}

#[test]
fn generated_inputs_never_panic_in_process() {
    let keys = inputs::catalogue();
    let services = threadlab::scenario::load("ironthread", &[])
        .expect("built in")
        .services;
    let dir = temp_dir("outputs");
    commands::prepare(&dir);
    std::fs::create_dir_all(dir.join("folder")).expect("dir");
    let _ = std::os::unix::fs::symlink(dir.join("nowhere"), dir.join("dangling"));
    let _ = std::os::unix::fs::symlink("/dev/full", dir.join("full"));
    // Each case says whether its input was taken (it loaded, parsed, played or was written).
    type Case<'a> = Box<dyn Fn(&mut Gen) -> bool + 'a>;
    let kinds: Vec<(&str, Case)> = vec![
        ("--set overrides", Box::new(|g| inputs::overrides(g, &keys))),
        ("preset text", Box::new(inputs::preset_text)),
        ("key script", Box::new(inputs::key_script)),
        ("config file", Box::new(inputs::config)),
        ("trace file", Box::new(|g| inputs::trace_file(g, &services))),
        (
            "--vary, durations, sizes",
            Box::new(|g| inputs::small_parsers(g, &keys)),
        ),
        ("output path", Box::new(|g| inputs::output_path(g, &dir))),
        ("recording", Box::new(inputs::recording)),
        ("live view keys", Box::new(|g| inputs::key_storm(g, &keys))),
    ];
    let mut failures = Vec::new();
    let mut cases = 0;
    let mut taken = Vec::new();
    for (k, (kind, case)) in kinds.iter().enumerate() {
        // The live view's cases play and draw: fewer of them.
        let count = scale()
            * if *kind == "live view keys" {
                PER_KIND / 4
            } else {
                PER_KIND
            };
        let mut accepted = 0;
        for n in 0..count {
            let seed = seed() ^ ((k as u64) << 48) ^ n as u64;
            let mut g = Gen::new(seed);
            match catch_unwind(AssertUnwindSafe(|| case(&mut g))) {
                Ok(took) => accepted += usize::from(took),
                Err(_) => failures.push(format!("{kind}: seed {seed:#x}")),
            }
            cases += 1;
        }
        taken.push((*kind, accepted, count));
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} of {cases} cases panicked: {failures:#?}",
        failures.len()
    );
    assert!(cases >= 1_800, "{cases}");
    // Hostile, yet not all refused at the door: each kind reaches the code behind it.
    for (kind, accepted, count) in taken {
        assert!(
            accepted * 10 >= count,
            "{kind}: only {accepted} of {count} taken"
        );
    }
}

#[test]
fn generated_command_lines_exit_as_documented() {
    let keys = inputs::catalogue();
    let dir = temp_dir("commands");
    commands::prepare(&dir);
    let mut failures = Vec::new();
    let mut seen = std::collections::BTreeMap::new();
    let mut commands_seen = std::collections::BTreeMap::new();
    let commands = COMMANDS * scale();
    for n in 0..commands {
        let mut g = Gen::new(seed().rotate_left(17) ^ n as u64);
        commands::config_file(&mut g, &dir);
        let args = commands::command_line(&mut g, &keys, &dir);
        let ran = commands::run(&mut g, args, &dir);
        *seen.entry(ran.code).or_insert(0) += 1;
        let command = ran
            .args
            .first()
            .filter(|a| commands::COMMANDS.contains(&a.as_str()))
            .cloned()
            .unwrap_or_default();
        *commands_seen.entry(command).or_insert(0) += 1;
        let documented = matches!(ran.code, Some(0 | 1 | 2 | 3 | 130));
        let panicked = ran.stderr.contains("panicked");
        if !documented || panicked {
            failures.push(format!(
                "case {n}: exit {:?}: {:?}\n{}",
                ran.code, ran.args, ran.stderr
            ));
        }
        // Nothing the case was not asked to write changed.
        let file = std::fs::read_to_string(dir.join("file")).unwrap_or_default();
        let link = std::fs::symlink_metadata(dir.join("link")).map(|m| m.file_type().is_symlink());
        let null = std::fs::read_link(dir.join("null")).ok();
        if file != "old"
            || !matches!(link, Ok(true))
            || null.as_deref() != Some("/dev/null".as_ref())
        {
            failures.push(format!(
                "case {n} changed what it was not asked to write: {:?}",
                ran.args
            ));
            commands::prepare(&dir);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} of {commands} command lines: {failures:#?}",
        failures.len()
    );
    eprintln!("exit codes {seen:?}; commands {commands_seen:?}");
    // Every subcommand was played, and reached every kind of ending, not only refusals.
    for command in commands::COMMANDS {
        assert!(
            commands_seen.get(*command).is_some_and(|&n| n >= 5),
            "{command}: {commands_seen:?}"
        );
    }
    assert!(seen.get(&Some(0)).is_some_and(|&n| n > 20), "{seen:?}");
    assert!(seen.get(&Some(2)).is_some_and(|&n| n > 20), "{seen:?}");
}

//! Hostile command lines run as a user runs them, where only the process can say what
//! happens: every subcommand and flag with hostile values, preset, key script, config and
//! trace files written for the case, output paths of every kind, and a stdout or stderr that
//! cannot be written. Each runs under a time limit; its exit code must be one the README
//! documents.

use std::path::Path;
use std::process::{Command, Stdio};

use super::generate::Gen;
use super::inputs::set;

/// Seconds a command may take before it counts as hung (then killed: exit 137).
pub const LIMIT_S: u32 = 20;

/// How a spawned case ended.
pub struct Ran {
    pub args: Vec<String>,
    pub code: Option<i32>,
    pub stderr: String,
}

/// The subcommands a case plays (\"\": none, the default TUI), weighted by repeats.
pub const COMMANDS: &[&str] = &[
    "run",
    "run",
    "run",
    "compare",
    "compare",
    "sweep",
    "check",
    "check",
    "screenshot",
    "screenshot",
    "tui",
    "tour",
    "verify",
    "presets",
    "completions",
    "man",
    "config",
    "",
];

/// A command line for `command`, cheap to play (a short run) unless a hostile value makes
/// it refuse; files it reads are written into `dir` first.
pub fn command_line(g: &mut Gen, keys: &[(String, toml::Value)], dir: &Path) -> Vec<String> {
    const PRESETS: &[&str] = &[
        "ironthread",
        "metastable",
        "erlang-c",
        "circuit-breaker",
        "overload",
        "spike",
        "tomcat-ceiling",
        "virtual-threads",
        "bulkhead-containment",
        "nosuch",
    ];
    let command = *g.pick(COMMANDS);
    let mut args: Vec<String> = Vec::new();
    if !command.is_empty() {
        args.push(command.to_owned());
    }
    let preset = match g.below(8) {
        0 => preset_file(g, dir),
        _ => (*g.pick(PRESETS)).to_owned(),
    };
    let path = |name: &str| dir.join(name).display().to_string();
    match command {
        "run" | "compare" | "check" | "verify" | "sweep" | "screenshot" | "tui" | "tour" => {
            args.push(preset);
            // A short run: the cases stay cheap, and a slow one is a hang.
            match command {
                "tui" | "tour" | "screenshot" => {
                    args.extend(["--set".into(), "scenario.duration=\"2s\"".into()]);
                }
                _ => args.extend([
                    "--duration".into(),
                    (*g.pick(&["500ms", "1s", "2s"])).into(),
                ]),
            }
            if command == "screenshot" {
                args.extend([
                    "--at".into(),
                    (*g.pick(&["0s", "1s", "1500ms", "x", "-1s", "100000h"])).into(),
                ]);
            }
            if command == "verify" || (command != "sweep" && g.chance(5)) {
                args.extend([
                    "--engine".into(),
                    "real".into(),
                    "--time-scale".into(),
                    "0.01".into(),
                ]);
                if command == "verify" {
                    args.remove(args.iter().position(|a| a == "--engine").expect("added"));
                    args.remove(args.iter().position(|a| a == "real").expect("added"));
                    args.extend(["--strategy".into(), "sequential".into()]);
                }
            }
        }
        "completions" => {
            args.push((*g.pick(&["bash", "zsh", "fish", "powershell", "elvish", "nosh"])).into())
        }
        _ => {}
    }
    for _ in 0..g.below(5) {
        match g.below(16) {
            0..=2 => args.extend(["--set".into(), set(g, keys)]),
            3 => args.extend([
                "--strategy".into(),
                (*g.pick(&["bulkhead", "shared", "all", "x"])).into(),
            ]),
            4 => args.extend(["--seed".into(), g.value()]),
            5 => args.extend(["--duration".into(), g.value()]),
            6 => args.extend([
                "--format".into(),
                (*g.pick(&["json", "csv", "table", "xml"])).into(),
            ]),
            7 => args.extend(["--plot".into(), output_path(g, dir, "svg")]),
            8 => args.extend(["--trace".into(), output_path(g, dir, "json")]),
            9 => args.extend([
                "--theme".into(),
                (*g.pick(&["light", "dark", "none"])).into(),
            ]),
            10 => args.extend([
                "--vary".into(),
                format!("{}={},{}", g.pick(keys).0, g.value(), g.value()),
            ]),
            11 => args.extend(["--against".into(), set(g, keys)]),
            12 => args.extend(["--keys".into(), key_file(g, dir)]),
            13 => args.extend(["--record".into(), output_path(g, dir, "cast")]),
            14 => args.extend(["--out".into(), output_path(g, dir, "png")]),
            _ => args.push(
                (*g.pick(&[
                    "--force",
                    "--tolerance",
                    "--max-threads",
                    "--size",
                    "--fps",
                    "--no-color",
                    "--path",
                    "--bogus",
                    "--",
                ]))
                .into(),
            ),
        }
    }
    if args.first().is_some_and(|c| c == "screenshot") && !args.iter().any(|a| a == "--out") {
        args.extend(["--out".into(), path("shot.svg")]);
    }
    args
}

/// A preset file: a built-in one's text, mutated, and a trace file beside it when it asks
/// for one.
fn preset_file(g: &mut Gen, dir: &Path) -> String {
    let name = *g.pick(&threadlab::scenario::builtin_names().collect::<Vec<_>>());
    let mut text = g.mutate(threadlab::scenario::builtin(name).expect("built in"));
    if g.chance(20) {
        text = text.replacen("mode = ", "file = \"trace.csv\"\nmode = \"trace\"\n# ", 1);
        let rows: String = (0..g.below(20))
            .map(|i| format!("{},{}\n", i * 10, g.below(500)))
            .collect();
        let _ = std::fs::write(dir.join("trace.csv"), format!("arrival_ms,user_ms\n{rows}"));
    }
    let file = dir.join(format!("p{}.toml", g.below(4)));
    let _ = std::fs::write(&file, text);
    file.display().to_string()
}

/// A key script file.
fn key_file(g: &mut Gen, dir: &Path) -> String {
    let text: String = (0..g.below(5))
        .map(|i| format!("{}ms {}\n", i * 100, g.text(4)))
        .collect();
    let file = dir.join("demo.keys");
    let _ = std::fs::write(&file, text);
    file.display().to_string()
}

/// An output path of some kind: a new file, an existing one, a folder, a link, a device,
/// a missing folder.
fn output_path(g: &mut Gen, dir: &Path, ext: &str) -> String {
    match g.below(7) {
        0 => dir.join("folder").display().to_string(),
        1 => dir.join("link").display().to_string(),
        2 => dir.join("null").display().to_string(),
        3 => dir.join("no/such/folder/x.svg").display().to_string(),
        4 => format!(
            "{}.{}",
            dir.join(g.text(8).replace(['/', '\0'], "")).display(),
            ext
        ),
        _ => dir.join(format!("out.{ext}")).display().to_string(),
    }
}

/// Runs `threadlab args` under the time limit, with no terminal, the config file of `dir`,
/// and stdout or stderr sometimes a full device.
pub fn run(g: &mut Gen, args: Vec<String>, dir: &Path) -> Ran {
    // A command line cannot carry a NUL byte.
    let args: Vec<String> = args.into_iter().map(|a| a.replace('\0', "")).collect();
    let full = || {
        std::fs::File::options()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full")
    };
    let mut command = Command::new("timeout");
    command
        .args(["-s", "KILL", &LIMIT_S.to_string()])
        .arg(env!("CARGO_BIN_EXE_threadlab"))
        .args(&args)
        .current_dir(dir)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("RAYON_NUM_THREADS", "2")
        .stdin(Stdio::null());
    match g.below(10) {
        0 => command.stdout(full()).stderr(Stdio::piped()),
        1 => command.stdout(Stdio::null()).stderr(full()),
        _ => command.stdout(Stdio::null()).stderr(Stdio::piped()),
    };
    let out = command.output().expect("timeout runs");
    Ran {
        args,
        code: out.status.code(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The folder every spawned case runs in: a file, a folder, links, a device and a config
/// file (itself a hostile one, rewritten per case).
pub fn prepare(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("folder")).expect("dir");
    std::fs::create_dir_all(dir.join("config/threadlab")).expect("dir");
    std::fs::write(dir.join("file"), "old").expect("file");
    let _ = std::os::unix::fs::symlink(dir.join("file"), dir.join("link"));
    let _ = std::os::unix::fs::symlink("/dev/null", dir.join("null"));
}

/// A config file for the next case.
pub fn config_file(g: &mut Gen, dir: &Path) {
    let path = dir.join("config/threadlab/config.toml");
    let text = match g.below(4) {
        0 => String::new(),
        1 => format!("fps = {}\ntheme = {}\n", g.value(), g.value()),
        2 => format!("[keys]\ncompare = {}\n", g.value()),
        _ => g.text(40),
    };
    let _ = std::fs::write(path, text);
}

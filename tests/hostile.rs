//! Hostile input against the output files, stderr and the budgets: each case once destroyed
//! a file it was not asked to, panicked, ran past its limits or exited with another code than
//! the README's. Each must now leave what it was not asked to write as it was, and exit as
//! documented (0 ok, 1 an output that cannot be written, 2 bad input).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod support;
mod tmux;
use support::threadlab;

/// A folder of this test's own, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let dir =
            std::env::temp_dir().join(format!("threadlab-hostile-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        Dir(dir)
    }

    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// What the folder holds, sorted (hidden files included).
    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn code_and_err(out: &Output) -> (Option<i32>, String) {
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn with_path(args: &[&str], path: &Path) -> Output {
    let mut all: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    all.push(path.display().to_string());
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    threadlab(&refs)
}

/// `threadlab args` with a file size limit of one block and SIGXFSZ ignored: a write past
/// 1 KiB fails as on a full disk.
fn on_a_full_disk(args: &[String]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 1; trap '' XFSZ; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_threadlab"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("sh runs")
}

/// `threadlab args` under coreutils' `timeout`: `None` when it had not ended within `secs`.
fn within(args: &[&str], secs: u32) -> Option<Output> {
    let out = Command::new("timeout")
        .args(["-s", "KILL", &secs.to_string()])
        .arg(env!("CARGO_BIN_EXE_threadlab"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("timeout runs");
    (out.status.code().is_some()).then_some(out)
}

#[test]
fn a_trace_onto_a_device_node_or_a_symbolic_link_is_refused_and_both_stay_as_they_were() {
    let dir = Dir::new("trace-targets");
    let precious = dir.join("precious");
    std::fs::write(&precious, "keep").expect("write");
    let link = dir.join("link.json");
    std::os::unix::fs::symlink(&precious, &link).expect("symlink");
    let (code, err) = code_and_err(&with_path(&["run", "ironthread", "--trace"], &link));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is a symbolic link to a file"), "{err}");
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("kept")
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&precious).expect("read"), "keep");
    // A character device that is not /dev/null or a terminal: /dev/full, through a link here
    // and, where this test may make device nodes (as root), as a node of its own.
    let full = dir.join("full.json");
    std::os::unix::fs::symlink("/dev/full", &full).expect("symlink");
    let (code, err) = code_and_err(&with_path(&["run", "ironthread", "--trace"], &full));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("a character device"), "{err}");
    let node = dir.join("node.json");
    let made = Command::new("mknod")
        .arg(&node)
        .args(["c", "1", "7"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if made {
        let (code, err) = code_and_err(&with_path(&["run", "ironthread", "--plot"], &node));
        assert_eq!(code, Some(2), "{err}");
        use std::os::unix::fs::FileTypeExt;
        let kind = std::fs::symlink_metadata(&node).expect("kept").file_type();
        assert!(kind.is_char_device(), "the node is still a device");
    }
    // /dev/null, through a link: written in place, and still a link to it.
    let null = dir.join("null.json");
    std::os::unix::fs::symlink("/dev/null", &null).expect("symlink");
    let (code, err) = code_and_err(&with_path(&["run", "ironthread", "--trace"], &null));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        std::fs::symlink_metadata(&null)
            .expect("kept")
            .file_type()
            .is_symlink()
    );
    let mut expected = vec!["full.json", "link.json", "null.json", "precious"];
    if made {
        expected.insert(2, "node.json");
    }
    assert_eq!(dir.names(), expected, "no temporary file is left");
}

#[test]
fn a_refused_tui_leaves_the_recordings_path_as_it_was() {
    let dir = Dir::new("record");
    let cast = dir.join("talk.cast");
    std::fs::write(&cast, "last week's recording").expect("write");
    // No terminal.
    let (code, err) = code_and_err(&with_path(&["tui", "ironthread", "--record"], &cast));
    assert_eq!(code, Some(2), "{err}");
    // Bad keys.
    let keys = dir.join("bad.keys");
    std::fs::write(&keys, "bad line\n").expect("write");
    let keys_arg = keys.display().to_string();
    let (code, err) = code_and_err(&with_path(
        &["tour", "ironthread", "--keys", &keys_arg, "--record"],
        &cast,
    ));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--keys"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&cast).expect("still there"),
        "last week's recording"
    );
    assert_eq!(dir.names(), ["bad.keys", "talk.cast"]);
}

#[test]
fn a_screenshot_or_chart_on_a_full_disk_exits_1_and_leaves_the_old_file_whole() {
    let dir = Dir::new("full-disk");
    for (args, name) in [
        (
            vec!["screenshot", "ironthread", "--at", "1s", "--out"],
            "shot.svg",
        ),
        (vec!["run", "ironthread", "--plot"], "chart.svg"),
        (vec!["run", "ironthread", "--trace"], "trace.json"),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, "the old one").expect("write");
        let mut all: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        all.push(path.display().to_string());
        let out = on_a_full_disk(&all);
        let (code, err) = code_and_err(&out);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(err.contains("cannot write it"), "{err}");
        assert_eq!(
            std::fs::read_to_string(&path).expect("still there"),
            "the old one",
            "{args:?}"
        );
    }
    assert_eq!(dir.names(), ["chart.svg", "shot.svg", "trace.json"]);
}

#[test]
fn a_screenshot_into_a_missing_folder_is_refused_before_it_plays() {
    // Forced to play a thousand hours of an open load: only a check made before playing
    // ends it at once.
    let out = within(
        &[
            "screenshot",
            "erlang-c",
            "--at",
            "1000h",
            "--force",
            "--out",
            "/no/such/folder/shot.svg",
        ],
        60,
    )
    .expect("refused without playing");
    let (code, err) = code_and_err(&out);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("there is no folder /no/such/folder"), "{err}");
}

#[test]
fn stderr_that_cannot_be_written_changes_no_exit_code() {
    let dir = Dir::new("stderr");
    let svg = dir.join("a.svg").display().to_string();
    let shot = dir.join("s.svg").display().to_string();
    for (args, code) in [
        (vec!["run", "nosuch"], 2),
        (vec!["run", "ironthread", "--plot", svg.as_str()], 0),
        (
            vec![
                "screenshot",
                "ironthread",
                "--at",
                "1s",
                "--out",
                shot.as_str(),
            ],
            0,
        ),
        // Headless tui: no terminal, the comparison instead, and a note on stderr.
        (vec!["tui", "ironthread"], 0),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_threadlab"))
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(
                std::fs::File::options()
                    .write(true)
                    .open("/dev/full")
                    .expect("/dev/full"),
            )
            .status()
            .expect("runs");
        assert_eq!(out.code(), Some(code), "{args:?}");
    }
}

#[test]
fn help_that_cannot_be_written_exits_1() {
    for args in [["--help"], ["--version"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_threadlab"))
            .args(args)
            .stdout(
                std::fs::File::options()
                    .write(true)
                    .open("/dev/full")
                    .expect("/dev/full"),
            )
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write the output"));
    }
}

/// `threadlab args` under a memory limit of about 400 MB (`ulimit -v`), with `env` set.
fn in_400_mb(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("ulimit -v 400000; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_threadlab"))
        .args(args)
        .stdin(Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("sh runs")
}

#[test]
fn a_key_script_or_config_file_that_is_a_device_is_read_only_up_to_its_limit() {
    let (code, err) = code_and_err(&in_400_mb(
        &["tui", "ironthread", "--keys", "/dev/zero"],
        &[],
    ));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--keys /dev/zero: more than 1048576 bytes; a key script holds at most that"),
        "{err}"
    );
    let dir = Dir::new("config-zero");
    std::fs::create_dir_all(dir.join("threadlab")).expect("dir");
    std::os::unix::fs::symlink("/dev/zero", dir.join("threadlab/config.toml")).expect("link");
    let (code, err) = code_and_err(&in_400_mb(&["config"], &[("XDG_CONFIG_HOME", &dir.0)]));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("more than 1048576 bytes; a config file holds at most that"),
        "{err}"
    );
}

#[test]
fn a_screenshot_is_weighed_up_to_its_at_time() {
    let out = within(
        &[
            "screenshot",
            "erlang-c",
            "--at",
            "1000h",
            "--out",
            "/tmp/never.svg",
        ],
        60,
    )
    .expect("refused without playing");
    let (code, err) = code_and_err(&out);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("this run is too large"), "{err}");
    assert!(err.contains("--force"), "{err}");
    assert!(!Path::new("/tmp/never.svg").exists());
}

/// metastable's clients retrying at once, up to 100 times, after 10 ms: at time scale 0.01
/// each timeout is 0.1 ms of real time, which tokio's millisecond timers cannot keep.
const STORM: [&str; 11] = [
    "metastable",
    "--time-scale",
    "0.01",
    "--duration",
    "30s",
    "--set",
    "load.retry.attempts=100",
    "--set",
    "load.retry.backoff=0ms",
    "--set",
    "load.timeout=10ms",
];

#[test]
fn a_real_run_whose_retries_fall_behind_is_flagged_and_fails_verify() {
    let mut run = vec!["run", "--engine", "real", "--format", "json"];
    run.extend(STORM);
    let out = threadlab(&run);
    let (code, err) = code_and_err(&out);
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("half the retried attempts went out"), "{err}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["pace"]["behind"], true);
    assert!(
        json["pace"]["retry_drift_p50_real_ms"]
            .as_f64()
            .expect("a number")
            >= 5.0
    );
    let mut verify = vec!["verify", "--strategy", "sequential"];
    verify.extend(STORM);
    let out = threadlab(&verify);
    let (code, err) = code_and_err(&out);
    assert_eq!(code, Some(3), "{err}");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("Result: FAIL: this machine could not keep up with the scenario"),
        "{table}"
    );
}

#[test]
fn messages_name_the_flag_a_value_came_from_escape_what_they_echo_and_add_no_unrelated_hint() {
    let (code, err) = code_and_err(&threadlab(&[
        "compare",
        "ironthread",
        "--against",
        "server.threads=5, server.threads=6",
    ]));
    assert_eq!(code, Some(2), "{err}");
    assert!(!err.contains("--set"), "{err}");
    assert!(
        err.contains("--against server.threads=6: sets `server.threads`, which --against server.threads=5 sets too"),
        "{err}"
    );
    let (code, err) = code_and_err(&threadlab(&[
        "run",
        "erlang-c",
        "--set",
        "load.rate=\u{1b}[31mred\u{202e}",
    ]));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        !err.contains('\u{1b}') && !err.contains('\u{202e}'),
        "{err:?}"
    );
    assert!(err.contains("\\u{1b}[31mred\\u{202e}"), "{err}");
    let (code, err) = code_and_err(&threadlab(&[
        "sweep",
        "ironthread",
        "--vary",
        "server.threads=1,2",
    ]));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("min_spare must be <= threads"), "{err}");
    assert!(!err.contains("the allowed form is"), "{err}");
}

#[test]
fn the_live_views_picture_on_a_full_disk_is_not_left_half_written() {
    let dir = Dir::new("p-full-disk");
    let tmux = tmux::Tmux::start("p-full", 100, 30);
    let bin = env!("CARGO_BIN_EXE_threadlab");
    tmux.run(&format!(
        "cd {}; bash -c 'ulimit -f 1; trap \"\" XFSZ; exec {bin} tui ironthread'; echo EXIT=$?",
        dir.0.display()
    ));
    tmux.wait_for("the running TUI", |s| s.contains("RUNNING"));
    tmux.keys(&["p"]);
    let screen = tmux.wait_for("the status line's error", |s| s.contains("cannot write it"));
    assert!(screen.contains("threadlab-screen-"), "{screen}");
    assert!(!screen.contains(".tmp"), "{screen}");
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", |s| s.contains("EXIT=0"));
    assert_eq!(
        dir.names(),
        Vec::<String>::new(),
        "no picture, whole or half"
    );
}

#[test]
fn a_recording_says_when_the_terminal_was_resized() {
    let dir = Dir::new("resize");
    let cast = dir.join("talk.cast");
    let tmux = tmux::Tmux::start("resize", 90, 28);
    let bin = env!("CARGO_BIN_EXE_threadlab");
    tmux.run(&format!(
        "{bin} tui ironthread --record {}; echo EXIT=$?",
        cast.display()
    ));
    tmux.wait_for("the running TUI", |s| s.contains("RUNNING"));
    tmux.resize(100, 32);
    tmux.wait_for("the wider screen", |s| {
        s.lines().any(|l| l.chars().count() > 95)
    });
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", |s| s.contains("EXIT=0"));
    let text = std::fs::read_to_string(&cast).expect("the recording");
    let resized = text
        .lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .any(|e| e[1] == "r" && e[2] == "100x32");
    assert!(resized, "{}", &text[..text.len().min(400)]);
}

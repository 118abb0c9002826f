//! What an installed command offers besides its work: completions, a man page, `--help`'s
//! exit codes and the config file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// `threadlab args` with the config folder under `config_home` (and no other environment
/// that would point elsewhere).
fn threadlab_in(config_home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_threadlab"))
        .args(args)
        .env("XDG_CONFIG_HOME", config_home)
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .output()
        .expect("threadlab runs")
}

fn threadlab(args: &[&str]) -> Output {
    threadlab_in(&scratch("none"), args)
}

fn text(out: &Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

/// A fresh folder of this test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("threadlab-install-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp folder");
    dir
}

/// A config folder whose `threadlab/config.toml` holds `content`.
fn config_home(name: &str, content: &str) -> PathBuf {
    let home = scratch(name);
    std::fs::create_dir_all(home.join("threadlab")).expect("config folder");
    std::fs::write(home.join("threadlab/config.toml"), content).expect("config written");
    home
}

#[test]
fn completions_for_every_shell_name_the_subcommands() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = text(&threadlab(&["completions", shell]));
        assert!(script.len() > 1000, "{shell}: {} bytes", script.len());
        for sub in ["tui", "tour", "compare", "sweep", "completions", "config"] {
            assert!(script.contains(sub), "{shell} completion lacks {sub}");
        }
        // fish writes long options without their dashes (`-l seed`).
        assert!(script.contains("seed"), "{shell} completion lacks --seed");
    }
}

#[test]
fn an_unknown_shell_is_bad_input() {
    let out = threadlab(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_man_page_is_roff_with_the_subcommands_and_exit_codes() {
    let page = text(&threadlab(&["man"]));
    assert!(page.starts_with(".TH threadlab 1 "), "{}", &page[..80]);
    assert!(page.contains("\n.SH NAME\n"));
    assert!(page.contains("\n.SH SUBCOMMANDS\n"));
    for sub in ["compare", "sweep", "completions"] {
        assert!(page.contains(sub), "the page lacks {sub}");
    }
    assert!(page.contains("Exit codes"));
    // Where groff is installed, it reads the page without a warning (-k: as man(1) does,
    // through preconv for the non-ASCII characters).
    if let Ok(out) = Command::new("groff")
        .args(["-k", "-man", "-Tutf8", "-ww", "-z"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(page.as_bytes())?;
            child.wait_with_output()
        })
    {
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "groff warns");
    }
}

#[test]
fn help_lists_the_exit_codes() {
    let help = text(&threadlab(&["--help"]));
    for code in ["  0 ", "  1 ", "  2 ", "  3 ", "  130 "] {
        assert!(
            help.contains(code),
            "--help lacks exit code {code:?}:\n{help}"
        );
    }
    assert!(help.contains("128 + the signal"));
}

#[test]
fn config_path_honours_xdg_config_home() {
    let home = scratch("xdg");
    let out = text(&threadlab_in(&home, &["config", "--path"]));
    assert_eq!(
        out.trim_end(),
        home.join("threadlab/config.toml").display().to_string()
    );
    // Without XDG_CONFIG_HOME: ~/.config.
    let out = Command::new(env!("CARGO_BIN_EXE_threadlab"))
        .args(["config", "--path"])
        .env_remove("XDG_CONFIG_HOME")
        .env("HOME", &home)
        .output()
        .expect("runs");
    assert_eq!(
        text(&out).trim_end(),
        home.join(".config/threadlab/config.toml")
            .display()
            .to_string()
    );
}

#[test]
fn a_bad_config_is_refused_with_exit_2_naming_file_field_value_and_range() {
    let home = config_home("bad", "fps = 500\n");
    let file = home.join("threadlab/config.toml").display().to_string();
    for args in [&["config"][..], &["tui"], &[]] {
        let out = threadlab_in(&home, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            err.trim_end(),
            format!("threadlab: {file}: fps = 500 is out of range: allowed 1..=120"),
            "{args:?}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let home = config_home("unknown", "theme = \"dark\"\nfsp = 30\n");
    let out = threadlab_in(&home, &["config"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown field `fsp`"), "{err}");
    assert!(err.contains("config.toml"), "{err}");
}

#[test]
fn a_valid_config_is_shown_and_its_preset_opens_by_default() {
    let home = config_home(
        "good",
        "theme = \"light\"\nfps = 20\npreset = \"bounded-pool\"\n\n[keys]\ncompare = \"x\"\n",
    );
    let shown = text(&threadlab_in(&home, &["config"]));
    assert!(shown.contains("preset = \"bounded-pool\""), "{shown}");
    assert!(shown.contains("compare = \"x\""), "{shown}");
    // Without a terminal, `threadlab` prints the comparison of the preset it would open.
    let default = text(&threadlab_in(&home, &[]));
    let named = text(&threadlab(&["compare", "bounded-pool"]));
    assert_eq!(default, named);
}

#[test]
fn no_config_file_is_no_error() {
    let home = scratch("absent");
    let out = text(&threadlab_in(&home, &["config"]));
    assert!(out.contains("absent"), "{out}");
}

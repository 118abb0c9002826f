//! The command line's tools for a talk: bash completes preset names, the man page holds every
//! subcommand's options, screenshots press keys at given times and draw at twice the size.

mod support;

use support::threadlab;

fn text(args: &[&str]) -> String {
    let out = threadlab(args);
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn bash_completes_a_subcommands_preset_with_the_builtin_names() {
    let script = text(&["completions", "bash"]);
    let run = script
        .split("threadlab__subcmd__run)\n")
        .nth(1)
        .expect("the run block");
    let opts = run.lines().find(|l| l.contains("opts=")).expect("its opts");
    for name in ["ironthread", "metastable", "circuit-breaker", "spike"] {
        assert!(opts.contains(name), "{opts}");
    }
    // Where bash is installed, the script completes `threadlab tour met` to metastable.
    let path = std::env::temp_dir().join(format!("threadlab-{}.bash", std::process::id()));
    std::fs::write(&path, &script).expect("the script");
    let check = format!(
        "source {}; COMP_WORDS=(threadlab tour met); COMP_CWORD=2; _threadlab threadlab met tour; \
         echo \"${{COMPREPLY[@]}}\"",
        path.display()
    );
    if let Ok(out) = std::process::Command::new("bash")
        .args(["-c", &check])
        .output()
    {
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "metastable");
    }
    let _ = std::fs::remove_file(&path);
}

#[test]
fn the_man_page_lists_each_subcommands_options_and_cites_no_other_page() {
    let page = text(&["man"]);
    let run = page
        .split(".SH \"THREADLAB RUN\"\n")
        .nth(1)
        .expect("a section for run");
    let run = run.split("\n.SH ").next().unwrap_or_default();
    for option in ["\\-\\-strategy", "\\-\\-trace", "\\-\\-plot", "\\-\\-set"] {
        assert!(run.contains(option), "run's section lacks {option}");
    }
    assert!(page.contains(".SH \"THREADLAB SCREENSHOT\""));
    assert!(
        !page.contains("(1)\n"),
        "a page of its own per subcommand is cited"
    );
    assert!(!page.contains("threadlab\\-run(1)"));
}

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

fn picture(args: &[&str], name: &str) -> Vec<u8> {
    let path = std::env::temp_dir().join(format!("threadlab-{}-{name}", std::process::id()));
    let mut all = args.to_vec();
    let out = path.to_str().expect("UTF-8").to_string();
    all.extend_from_slice(&["--out", &out]);
    let run = threadlab(&all);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let bytes = std::fs::read(&path).expect("the picture");
    let _ = std::fs::remove_file(&path);
    bytes
}

#[test]
fn a_screenshot_presses_keys_at_their_times_and_draws_at_twice_the_size() {
    // `b` at 1 s pins the run as it was then; `L` at 3 s shows the pin's time in its title.
    let svg = picture(
        &[
            "screenshot",
            "ironthread",
            "--at",
            "3s",
            "--keys",
            "1s b; 3s L",
        ],
        "timed.svg",
    );
    let svg = String::from_utf8(svg).expect("text");
    assert!(
        svg.contains("pin bulkhead at 1.000s (b clears)"),
        "the pin of 1 s"
    );
    // A step after --at is refused, naming both.
    let late = threadlab(&[
        "screenshot",
        "ironthread",
        "--at",
        "2s",
        "--keys",
        "3s L",
        "--out",
        "x.svg",
    ]);
    assert_eq!(late.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&late.stderr).contains("comes after --at 2s"));
    // --scale 2: a PNG of twice the pixels each way, an SVG twice the size around the same
    // drawing.
    let size = |png: &[u8]| {
        let word = |i: usize| u32::from_be_bytes([png[i], png[i + 1], png[i + 2], png[i + 3]]);
        (word(16), word(20))
    };
    let base = ["screenshot", "ironthread", "--at", "1s", "--size", "80x24"];
    let one = picture(&base, "one.png");
    let two = picture(&[&base[..], &["--scale", "2"]].concat(), "two.png");
    assert_eq!(size(&one), (800, 480));
    assert_eq!(size(&two), (1600, 960));
    let svg = picture(&[&base[..], &["--scale", "2"]].concat(), "two.svg");
    let svg = String::from_utf8(svg).expect("text");
    assert!(svg.contains("width=\"1440\" height=\"864\" viewBox=\"0 0 720 432\""));
}

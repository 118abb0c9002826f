//! The TUI under signals and key floods, in a real terminal (tmux): every terminating signal
//! restores the terminal and exits 128 + the signal; SIGTSTP gives the terminal back and
//! SIGCONT takes it again; `q` wins over thousands of buffered keys.

mod tmux;

use tmux::Tmux;

/// Starts `threadlab tui <args>` in the shell; returns the file holding its process id.
fn start_tui(tmux: &Tmux, name: &str, args: &str) -> std::path::PathBuf {
    let pid_file =
        std::env::temp_dir().join(format!("threadlab-{name}-{}.pid", std::process::id()));
    let bin = env!("CARGO_BIN_EXE_threadlab");
    tmux.run(&format!(
        "bash -c 'echo $$ > {}; exec {bin} tui {args}'; echo EXIT=$?",
        pid_file.display()
    ));
    tmux.wait_for("the running TUI", |s| s.contains("RUNNING"));
    pid_file
}

fn kill(signal: &str, pid_file: &std::path::Path) {
    let pid = std::fs::read_to_string(pid_file).expect("pid file");
    let status = std::process::Command::new("kill")
        .args([&format!("-{signal}"), pid.trim()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{signal} failed");
}

#[test]
fn every_terminating_signal_restores_the_terminal_and_exits_128_plus_the_signal() {
    for (signal, code) in [
        ("INT", 130),
        ("TERM", 143),
        ("HUP", 129),
        ("QUIT", 131),
        ("USR1", 138),
        ("ALRM", 142),
    ] {
        let tmux = Tmux::start(&format!("sig-{signal}"), 80, 24);
        let pid_file = start_tui(&tmux, signal, "ironthread");
        kill(signal, &pid_file);
        let expected = format!("EXIT={code}");
        tmux.wait_for(&expected, |s| s.contains(&expected));
        tmux.assert_restored();
    }
}

#[test]
fn suspend_gives_the_terminal_back_and_resume_takes_it_again() {
    let tmux = Tmux::start("tstp", 80, 24);
    let pid_file = start_tui(&tmux, "tstp", "ironthread");
    kill("TSTP", &pid_file);
    tmux.wait_for("the job stopped", |s| s.contains("Stopped"));
    tmux.assert_restored();
    // The command line's `echo EXIT` ran when the job stopped; `fg` reports the exit now.
    tmux.run("fg; echo FG_EXIT=$?");
    tmux.wait_for("the TUI again", |s| s.contains("RUNNING"));
    assert_eq!(
        tmux.pane("#{alternate_on}"),
        "1",
        "back on the alternate screen"
    );
    // Raw mode again: `q` quits without Enter.
    tmux.keys(&["q"]);
    tmux.wait_for("a clean exit", |s| s.contains("FG_EXIT=0"));
    tmux.assert_restored();
}

/// 1,000 keys: crossterm reads the terminal 1 KiB at a time from an edge-triggered poll, so
/// keys beyond the first KiB of one burst wait for the next key press whatever the TUI does.
#[test]
fn q_wins_over_a_backlog_of_a_thousand_keys() {
    let tmux = Tmux::start("flood", 80, 24);
    start_tui(&tmux, "flood", "connection-pool");
    tmux.keys(&["c"]);
    tmux.type_text(&format!("{}q", ".".repeat(1000)));
    tmux.wait_for("a clean exit", |s| s.contains("EXIT=0"));
    tmux.assert_restored();
}

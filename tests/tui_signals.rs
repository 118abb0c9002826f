//! The TUI under signals and key floods, in a real terminal (tmux): every terminating signal
//! restores the terminal and exits 128 + the signal; SIGTSTP gives the terminal back and
//! SIGCONT takes it again; `q` wins over thousands of buffered keys, simulated or real; an
//! escape sequence that never ends swallows no key.

mod tmux;

use tmux::Tmux;

/// The file holding the TUI's process id, removed when the test is done with it.
struct PidFile(std::path::PathBuf);

impl Drop for PidFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Starts `threadlab tui <args>` in the shell; returns the file holding its process id.
fn start_tui(tmux: &Tmux, name: &str, args: &str) -> PidFile {
    let pid_file =
        std::env::temp_dir().join(format!("threadlab-{name}-{}.pid", std::process::id()));
    let bin = env!("CARGO_BIN_EXE_threadlab");
    tmux.run(&format!(
        "bash -c 'echo $$ > {}; exec {bin} tui {args}'; echo EXIT=$?",
        pid_file.display()
    ));
    tmux.wait_for("the running TUI", |s| s.contains("RUNNING"));
    PidFile(pid_file)
}

fn kill(signal: &str, pid_file: &PidFile) {
    let pid = std::fs::read_to_string(&pid_file.0).expect("pid file");
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

/// 2,000 keys typed at once, then `q`: the input thread reads everything the terminal holds
/// (crossterm's default reader took 1 KiB per burst and left the rest until the next key
/// press), and `q` anywhere in what was read wins over the keys before it.
#[test]
fn q_wins_over_a_backlog_of_two_thousand_keys() {
    let tmux = Tmux::start("flood", 80, 24);
    start_tui(&tmux, "flood", "connection-pool");
    tmux.keys(&["c"]);
    tmux.type_text(&format!("{}q", ".".repeat(2000)));
    tmux.wait_for("a clean exit", |s| s.contains("EXIT=0"));
    tmux.assert_restored();
}

/// A real run restarts on `r`, `s` and `1`-`5` (new threads each time): 2,000 random keys,
/// many of them restarts, then `q` quits without waiting for them.
#[test]
fn a_real_mode_tui_quits_on_q_after_two_thousand_random_keys() {
    let tmux = Tmux::start("flood-real", 80, 24);
    start_tui(
        &tmux,
        "flood-real",
        "ironthread --engine real --time-scale 0.1",
    );
    // Every printable key but `q` (which would end the flood early), `w` and `p` (which write
    // files), in a fixed pseudo-random order.
    let keys: Vec<char> = (' '..='~')
        .filter(|c| !matches!(c, 'q' | 'w' | 'p'))
        .collect();
    let mut state: u64 = 11;
    let text: String = (0..2000)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let i = usize::try_from(state >> 33).unwrap_or(0) % keys.len();
            keys[i]
        })
        .collect();
    tmux.type_text(&text);
    tmux.type_text("q");
    tmux.wait_for("a clean exit", |s| s.contains("EXIT=0"));
    tmux.assert_restored();
}

/// `ESC [ <` and `ESC [ ?` begin a mouse report and a terminal reply that never end: the keys
/// after them still work, Ctrl-C included.
#[test]
fn an_escape_sequence_that_never_ends_swallows_no_later_key() {
    let tmux = Tmux::start("unended", 80, 24);
    start_tui(&tmux, "unended", "ironthread");
    tmux.keys(&["Escape", "[", "<"]);
    tmux.keys(&["?"]);
    tmux.wait_for("the help overlay", |s| s.contains("this help"));
    tmux.keys(&["Escape"]);
    tmux.wait_for("the help to close", |s| !s.contains("this help"));
    tmux.keys(&["Escape", "[", "?"]);
    tmux.keys(&["C-c"]);
    tmux.wait_for("a clean exit", |s| s.contains("EXIT=0"));
    tmux.assert_restored();
}

/// The process id of the copy of `threadlab` that runs the live view under its guard (the
/// process the shell started).
fn guarded_copy(pid_file: &PidFile) -> String {
    let guard = std::fs::read_to_string(&pid_file.0).expect("pid file");
    let guard = guard.trim();
    let children = std::fs::read_to_string(format!("/proc/{guard}/task/{guard}/children"))
        .expect("the guard's children");
    children
        .split_whitespace()
        .next()
        .expect("one child")
        .to_owned()
}

#[test]
fn a_live_view_killed_before_it_can_restore_the_terminal_is_restored_by_its_guard() {
    // SIGABRT is what a failed allocation ends in (no unwinding, no panic hook); SIGKILL is
    // the kernel's out-of-memory killer. Neither lets the live view restore anything.
    for (signal, code) in [("ABRT", 134), ("KILL", 137)] {
        let tmux = Tmux::start(&format!("guard-{signal}"), 80, 24);
        let dir =
            std::env::temp_dir().join(format!("threadlab-guard-{signal}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let args = format!("ironthread --record {}", dir.join("talk.cast").display());
        let pid_file = start_tui(&tmux, &format!("guard-{signal}"), &args);
        assert_eq!(tmux.pane("#{alternate_on}"), "1");
        let copy = guarded_copy(&pid_file);
        let status = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &copy])
            .status()
            .expect("kill runs");
        assert!(status.success());
        let expected = format!("EXIT={code}");
        let screen = tmux.wait_for(&expected, |s| s.contains(&expected));
        assert!(screen.contains("the terminal is restored"), "{screen}");
        assert_eq!(
            tmux.pane("#{mouse_any_flag}"),
            "0",
            "mouse reporting is off"
        );
        tmux.assert_restored();
        // A recording cut short is not put in place, and its temporary file is gone.
        let left: Vec<_> = std::fs::read_dir(&dir).expect("dir").collect();
        assert!(left.is_empty(), "{left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! A shell in a detached tmux session: type into it, read its screen. Used by the TUI tests
//! that need a real terminal (keys, signals, key floods). CI installs tmux.

// Each test crate that includes this module uses part of it.
#![allow(dead_code)]

use std::process::Command;
use std::time::{Duration, Instant};

pub struct Tmux {
    socket: String,
}

impl Tmux {
    pub fn start(name: &str, width: u16, height: u16) -> Tmux {
        let socket = format!("threadlab-{name}-{}", std::process::id());
        let tmux = Tmux { socket };
        let status = tmux
            .cmd(&[
                "new-session",
                "-d",
                "-s",
                "t",
                "-x",
                &width.to_string(),
                "-y",
                &height.to_string(),
                "env PS1='$ ' bash --norc --noprofile",
            ])
            .status()
            .expect("tmux is required for this test (apt-get install tmux)");
        assert!(status.success(), "tmux new-session failed");
        tmux.wait_for("the shell prompt", |s| s.contains('$'));
        tmux
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.socket]).args(args);
        c
    }

    /// Presses keys (tmux key names: `Enter`, `C-c`, or text).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        assert!(self.cmd(&args).status().expect("tmux send-keys").success());
    }

    /// Types `text` literally, all at once.
    pub fn type_text(&self, text: &str) {
        let args = ["send-keys", "-t", "t", "-l", text];
        assert!(self.cmd(&args).status().expect("tmux send-keys").success());
    }

    /// Resizes the terminal to `width` x `height` cells.
    pub fn resize(&self, width: u16, height: u16) {
        let (w, h) = (width.to_string(), height.to_string());
        let args = ["resize-window", "-t", "t", "-x", &w, "-y", &h];
        assert!(
            self.cmd(&args)
                .status()
                .expect("tmux resize-window")
                .success()
        );
    }

    /// Runs a shell command line.
    pub fn run(&self, line: &str) {
        self.keys(&[line, "Enter"]);
    }

    pub fn screen(&self) -> String {
        let out = self
            .cmd(&["capture-pane", "-p", "-t", "t"])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// tmux's view of the pane: `alternate_on`, `cursor_flag`...
    pub fn pane(&self, format: &str) -> String {
        let out = self
            .cmd(&["display-message", "-p", "-t", "t", format])
            .output()
            .expect("tmux display-message");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Waits until the screen satisfies `ok`, polling; fails with the last screen after 30 s.
    pub fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; the screen was:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Checks the terminal is a shell's again: canonical mode, echo, the main screen, a
    /// visible cursor.
    pub fn assert_restored(&self) {
        assert_eq!(
            self.pane("#{alternate_on}"),
            "0",
            "still on the alternate screen"
        );
        assert_eq!(self.pane("#{cursor_flag}"), "1", "the cursor is hidden");
        self.run("stty -a | grep -q -- ' icanon' && stty -a | grep -q -- ' echo ' && echo TTY_OK");
        self.wait_for("a cooked tty", |s| s.contains("TTY_OK"));
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]).status();
    }
}

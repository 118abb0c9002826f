//! The terminal is given back even when the live view cannot give it back itself.
//!
//! The TUI restores the terminal on every way out it sees (quit, an error, a signal, a
//! panic), but some ways out it never sees: an allocation that fails aborts the process
//! without unwinding or running the panic hook (`std::alloc::set_alloc_error_hook` is
//! nightly-only), and SIGKILL (the kernel's out-of-memory killer) or a crash kill it outright,
//! leaving raw mode, the alternate screen, mouse reporting and a hidden cursor behind. The
//! budgets keep the simulation within its limits, but no budget covers every allocation,
//! so a process-level guard does the rest: the command the shell started waits while a copy
//! of itself runs the TUI. It forwards the signals it gets (the live view's own handlers
//! then restore the terminal and exit 128 + the signal), stops when the TUI stops (SIGTSTP)
//! so the shell sees the job stopped, exits with the TUI's code, and when the TUI was killed
//! before it could restore the terminal, restores it (the termios saved before the TUI
//! started, the main screen, no mouse reporting, the cursor) and removes what the TUI was
//! writing, then exits 128 + the signal. The copy dies with the guard (Linux's
//! `PR_SET_PDEATHSIG`: a SIGTERM it handles), so killing the guard does not leave it running.

use std::path::Path;

/// Set in the copy that runs the TUI under the guard.
const GUARDED: &str = "THREADLAB_GUARDED_TUI";

/// The live view ended with a non-zero exit code in the guarded copy (which said why).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the live view ended with exit code {0}")]
pub struct Ended(pub u8);

/// Whether this process is the guarded copy that runs the TUI (it then ends with its guard).
pub fn guarded_copy() -> bool {
    let copy = std::env::var_os(GUARDED).is_some();
    if copy {
        die_with_the_guard();
    }
    copy
}

/// Runs this TUI command in a guarded copy of the process and waits for it: its exit code,
/// or `None` when no copy could be started (the TUI then runs here, unguarded). `record` is
/// the `--record` path, whose half-written temporary file is removed if the copy is killed.
#[cfg(unix)]
pub fn watch(record: Option<&Path>) -> Option<u8> {
    unix::guard(record)
}

#[cfg(not(unix))]
pub fn watch(_record: Option<&Path>) -> Option<u8> {
    None
}

/// The guarded copy ends when its guard does (SIGTERM, which the TUI handles).
fn die_with_the_guard() {
    #[cfg(target_os = "linux")]
    {
        use nix::sys::signal::Signal;
        let _ = nix::sys::prctl::set_pdeathsig(Signal::SIGTERM);
    }
}

#[cfg(unix)]
mod unix {
    use std::path::Path;

    use nix::sys::signal::{Signal, kill, raise};
    use nix::sys::termios;
    use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
    use nix::unistd::Pid;
    use signal_hook::consts::{SIGALRM, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP, SIGUSR1};

    use super::GUARDED;

    /// The signals the guard passes on to the TUI: those that end it, and SIGTSTP.
    const FORWARDED: [i32; 7] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGALRM, SIGTSTP];

    /// Starts the guarded copy and waits for it; `None` when it could not be started (the
    /// TUI then runs unguarded, as before).
    pub(super) fn guard(record: Option<&Path>) -> Option<u8> {
        let exe = std::env::current_exe().ok()?;
        let saved = termios::tcgetattr(std::io::stdin()).ok();
        let mut signals = signal_hook::iterator::Signals::new(FORWARDED).ok()?;
        let child = std::process::Command::new(exe)
            .args(std::env::args_os().skip(1))
            .env(GUARDED, "1")
            .spawn();
        let Ok(child) = child else {
            signals.handle().close();
            return None;
        };
        let pid = Pid::from_raw(i32::try_from(child.id()).ok()?);
        let handle = signals.handle();
        let forwarder = std::thread::Builder::new()
            .name("tty-guard".into())
            .spawn(move || {
                for number in signals.forever() {
                    if let Ok(signal) = Signal::try_from(number) {
                        let _ = kill(pid, signal);
                    }
                }
            });
        let code = wait_for(pid, saved.as_ref(), record);
        handle.close();
        if let Ok(forwarder) = forwarder {
            let _ = forwarder.join();
        }
        Some(code)
    }

    /// Waits until the copy `pid` has ended, stopping with it when it stops.
    fn wait_for(pid: Pid, saved: Option<&termios::Termios>, record: Option<&Path>) -> u8 {
        loop {
            match waitpid(pid, Some(WaitPidFlag::WUNTRACED)) {
                Ok(WaitStatus::Exited(_, code)) => {
                    return u8::try_from(code).unwrap_or(1);
                }
                Ok(WaitStatus::Signaled(_, signal, _)) => {
                    restore(saved);
                    if let Some(path) = record {
                        crate::files::output::remove_temporaries(path, pid.as_raw());
                    }
                    crate::progress::say(format!(
                        "threadlab: the live view was killed by {signal} before it could give \
                         the terminal back; the terminal is restored"
                    ));
                    return u8::try_from(128 + signal as i32).unwrap_or(255);
                }
                // The TUI gave the terminal back and stopped (SIGTSTP): the job stops too,
                // and goes on with it (`fg` continues both; a SIGCONT to the guard alone is
                // passed on).
                Ok(WaitStatus::Stopped(..)) => {
                    let _ = raise(Signal::SIGSTOP);
                    let _ = kill(pid, Signal::SIGCONT);
                }
                Ok(_) | Err(nix::errno::Errno::EINTR) => {}
                Err(_) => {
                    restore(saved);
                    return 1;
                }
            }
        }
    }

    /// The terminal as the shell had it: its saved modes, the main screen, no mouse
    /// reporting, the cursor shown.
    fn restore(saved: Option<&termios::Termios>) {
        use ratatui::crossterm::{cursor, event, execute, terminal};
        if let Some(saved) = saved {
            let _ = termios::tcsetattr(std::io::stdin(), termios::SetArg::TCSANOW, saved);
        }
        let _ = execute!(
            std::io::stdout(),
            event::DisableMouseCapture,
            terminal::LeaveAlternateScreen,
            cursor::Show
        );
    }
}

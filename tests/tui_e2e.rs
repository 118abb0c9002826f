//! The real binary in a real terminal: tmux runs a shell, the shell runs `threadlab tui`, the
//! test presses keys and reads the screen with `capture-pane`, then checks that the shell is
//! usable again (canonical mode and echo restored). CI installs tmux.

mod tmux;

use tmux::Tmux;

fn drive(width: u16, height: u16) {
    let tmux = Tmux::start(&format!("e2e-{width}x{height}"), width, height);
    let bin = env!("CARGO_BIN_EXE_threadlab");
    let line =
        format!("{bin} tui ironthread --set load.mode=closed --set load.clients=40; echo EXIT=$?");
    tmux.keys(&[&line, "Enter"]);
    tmux.wait_for("the running TUI", |s| {
        s.contains("RUNNING") && s.contains("IronThread") && s.contains("Pools")
    });
    // Strategy: 1 = sequential, logged as a change.
    tmux.keys(&["1"]);
    tmux.wait_for("the strategy change in the log", |s| {
        s.contains("strategy bulkhead -> sequential")
    });
    // Sequential uses the Tomcat pool only: + grows it by 10 %.
    tmux.keys(&["+"]);
    tmux.wait_for("the pool size change", |s| s.contains("threads 200 -> 220"));
    tmux.keys(&["Space"]);
    tmux.wait_for("the paused banner", |s| s.contains("PAUSED"));
    tmux.keys(&["?"]);
    tmux.wait_for("the help overlay", |s| {
        s.contains("Keys") && s.contains("this help")
    });
    tmux.keys(&["Escape"]);
    tmux.wait_for("the help overlay to close", |s| !s.contains("this help"));
    tmux.keys(&["q"]);
    tmux.wait_for("a clean exit", |s| s.contains("EXIT=0"));
    // The terminal is a shell's again: canonical mode, echo, the main screen, the cursor.
    tmux.assert_restored();
}

#[test]
fn keys_work_and_the_shell_is_usable_afterwards_at_80x24() {
    drive(80, 24);
}

#[test]
fn keys_work_and_the_shell_is_usable_afterwards_at_200x50() {
    drive(200, 50);
}

#[test]
fn a_too_small_terminal_says_how_big_it_must_be() {
    let tmux = Tmux::start("e2e-small", 60, 20);
    let bin = env!("CARGO_BIN_EXE_threadlab");
    tmux.keys(&[&format!("{bin} tui; echo EXIT=$?"), "Enter"]);
    tmux.wait_for("the size message", |s| {
        s.contains("needs 80x24") && s.contains("60x20")
    });
    tmux.keys(&["C-c"]);
    tmux.wait_for("a clean exit", |s| s.contains("EXIT=0"));
}

#[test]
fn escape_in_a_tour_and_in_the_fault_menu_leaves_the_program_running() {
    let tmux = Tmux::start("e2e-escape", 80, 24);
    let bin = env!("CARGO_BIN_EXE_threadlab");
    tmux.keys(&[&format!("{bin} tour ironthread; echo EXIT=$?"), "Enter"]);
    tmux.wait_for("the first caption", |s| s.contains("Tour 1/5"));
    // Esc on a caption: nothing to close, so it says how to quit instead of quitting.
    tmux.keys(&["Escape"]);
    tmux.wait_for("the hint that q quits", |s| s.contains("q quits"));
    // f, Esc, Esc, Esc: the menu closes and the program still takes keys.
    tmux.keys(&["f"]);
    tmux.wait_for("the fault menu", |s| s.contains("which service"));
    tmux.keys(&["Escape"]);
    tmux.wait_for("the menu to close", |s| !s.contains("which service"));
    tmux.keys(&["Escape"]);
    tmux.keys(&["Escape"]);
    tmux.keys(&["?"]);
    let screen = tmux.wait_for("the help overlay", |s| s.contains("this help"));
    assert!(!screen.contains("EXIT="), "the program quit:\n{screen}");
    tmux.keys(&["Escape"]);
    tmux.wait_for("the help to close", |s| !s.contains("this help"));
    // In a tour q asks first; a second q quits cleanly.
    tmux.keys(&["q"]);
    tmux.wait_for("the question", |s| s.contains("quit the tour?"));
    tmux.keys(&["q"]);
    tmux.wait_for("a clean exit", |s| s.contains("EXIT=0"));
}

/// After a tour's last step the speaker can still rewind and restart it, and q still asks.
#[test]
fn a_finished_tour_replays_its_last_step_and_restarts() {
    let tmux = Tmux::start("e2e-tour-end", 80, 24);
    let bin = env!("CARGO_BIN_EXE_threadlab");
    tmux.keys(&[&format!("{bin} tour ironthread; echo EXIT=$?"), "Enter"]);
    tmux.wait_for("the first caption", |s| s.contains("Tour 1/5"));
    tmux.keys(&["l"]);
    tmux.wait_for("the step list", |s| s.contains("Tour steps"));
    tmux.keys(&["5"]);
    tmux.wait_for("the last caption", |s| s.contains("Tour 5/5"));
    tmux.keys(&["Space"]);
    tmux.wait_for("the end of the tour", |s| s.contains("end of the tour"));
    tmux.keys(&["Left"]);
    tmux.wait_for("the last step again", |s| s.contains("Tour 5/5"));
    tmux.keys(&["Space"]);
    tmux.wait_for("the end again", |s| s.contains("end of the tour"));
    tmux.keys(&["Home"]);
    tmux.wait_for("the first step again", |s| s.contains("Tour 1/5"));
    tmux.keys(&["l"]);
    tmux.wait_for("the step list", |s| s.contains("Tour steps"));
    tmux.keys(&["5"]);
    tmux.wait_for("the last caption", |s| s.contains("Tour 5/5"));
    tmux.keys(&["Space"]);
    tmux.wait_for("the end of the tour", |s| s.contains("end of the tour"));
    tmux.keys(&["q"]);
    tmux.wait_for("the question", |s| s.contains("quit the tour?"));
    tmux.keys(&["q"]);
    tmux.wait_for("a clean exit", |s| s.contains("EXIT=0"));
}

/// `g` in a real terminal: the sweep computes while the run goes on, Enter applies the point
/// under the cursor to the live run, and quitting in the middle of a second sweep leaves a
/// usable shell.
#[test]
fn a_sweep_computes_in_the_background_applies_a_point_and_quits_cleanly() {
    let tmux = Tmux::start("e2e-sweep", 80, 24);
    let bin = env!("CARGO_BIN_EXE_threadlab");
    tmux.keys(&[&format!("{bin} tui tomcat-ceiling; echo EXIT=$?"), "Enter"]);
    tmux.wait_for("the running TUI", |s| s.contains("RUNNING"));
    tmux.keys(&["g"]);
    tmux.wait_for("the finished sweep", |s| {
        s.contains("Sweep · tomcat threads") && s.contains("17 points, each")
    });
    tmux.keys(&["Right"]);
    tmux.wait_for("the cursor on the next point", |s| s.contains("(now 200)"));
    tmux.keys(&["Enter"]);
    tmux.wait_for("the change applied and logged", |s| {
        s.contains("tomcat threads 200 -> 233") && !s.contains("Sweep ·")
    });
    tmux.keys(&["g", "q"]);
    tmux.wait_for("a clean exit", |s| s.contains("EXIT=0"));
    tmux.assert_restored();
}

/// In a real terminal: the fault form sets 40 % of user's calls failing for 5 s, the badge
/// counts down and the fault is healed at its end; `L` draws the headline in large type and
/// `Esc` gives the panels back.
#[test]
fn a_timed_fault_heals_itself_and_the_headline_shows_in_large_type() {
    let tmux = Tmux::start("e2e-presenter", 120, 40);
    let bin = env!("CARGO_BIN_EXE_threadlab");
    let line =
        format!("{bin} tui ironthread --set load.mode=closed --set load.clients=40; echo EXIT=$?");
    tmux.keys(&[&line, "Enter"]);
    tmux.wait_for("the running TUI", |s| {
        s.contains("RUNNING") && s.contains("Pools")
    });
    tmux.keys(&["f"]);
    tmux.wait_for("the fault menu", |s| s.contains("which service"));
    tmux.keys(&["1"]);
    tmux.wait_for("the form", |s| s.contains("Fault for user"));
    // effect: 50 % -> 40 %; lasts: until healed -> 5 s.
    tmux.keys(&["Down", "Left", "Left", "Down", "Right"]);
    tmux.wait_for("the form set", |s| s.contains("apply: failing 40% for 5s"));
    tmux.keys(&["Enter"]);
    tmux.wait_for("the badge counting down", |s| {
        s.contains("CHANGED") && s.contains("user failing 40% (")
    });
    tmux.keys(&[">", ">"]);
    tmux.wait_for("the heal at the end", |s| s.contains("user: healed"));
    tmux.keys(&["L"]);
    tmux.wait_for("the headline in large type", |s| {
        s.contains("Headline ·") && s.contains("goodput: answered requests") && !s.contains("Pools")
    });
    tmux.keys(&["Escape"]);
    tmux.wait_for("the panels again", |s| s.contains("Pools"));
    tmux.keys(&["q"]);
    tmux.wait_for("a clean exit", |s| s.contains("EXIT=0"));
    tmux.assert_restored();
}

/// `C` on metastable, then a variant typed all at once: the `q` in `queue_timeout` is a letter
/// of the prompt (it does not quit ahead of the keys before it), and Enter adds the row.
#[test]
fn the_variants_compare_takes_a_typed_variant_with_a_q_in_it() {
    let tmux = Tmux::start("e2e-variants", 100, 30);
    let bin = env!("CARGO_BIN_EXE_threadlab");
    tmux.run(&format!("{bin} tui metastable; echo EXIT=$?"));
    tmux.wait_for("the running TUI", |s| s.contains("RUNNING"));
    tmux.keys(&["C"]);
    tmux.wait_for("the variants compare", |s| {
        s.contains("with and without a pattern") && s.contains("adaptive LIFO")
    });
    tmux.keys(&["a"]);
    tmux.wait_for("the prompt", |s| s.contains("compare with:"));
    tmux.type_text("server.queue_timeout=250ms");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("the typed row", |s| {
        s.contains("server.queue_timeout=250ms") && !s.contains("compare with:")
    });
    assert!(!screen.contains("EXIT="), "the program quit:\n{screen}");
    tmux.keys(&["q"]);
    tmux.wait_for("a clean exit", |s| s.contains("EXIT=0"));
    tmux.assert_restored();
}

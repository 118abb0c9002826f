//! Recorded and scripted demos: `--keys FILE` replays a timed key script on a clock of frames,
//! `--record FILE.cast` tees what the TUI draws into an asciicast v2 file.

mod tmux;

use std::io::Write;
use std::process::{Command, Stdio};

use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};

use threadlab::scenario::{self, Strategy};
use threadlab::screenshot;
use threadlab::tui::Theme;
use threadlab::tui::app::App;
use threadlab::tui::record::{Cast, CastClock, Tee};
use threadlab::tui::script::{self, KeyScript};

const FPS: u32 = 30;

/// A cast's bytes, kept where the test can read them after the terminal took the writer.
#[derive(Clone, Default)]
struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("lock").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Plays `script` on ironthread for `frames` frames exactly as the TUI's frame loop does,
/// drawing each frame on a terminal whose output is recorded; returns the cast, the final
/// screen and every frame's screen as one text.
fn replay(script: &str, frames: u64) -> (String, Vec<String>, Vec<String>) {
    let s = scenario::load("ironthread", &[]).expect("preset");
    let mut app = App::new(s, Strategy::Bulkhead, Theme::Dark);
    let mut script = KeyScript::parse(script).expect("script");
    let bytes = Shared::default();
    let cast = Cast::new(
        bytes.clone(),
        (100, 30),
        CastClock::Frames { fps: FPS },
        None,
    )
    .expect("header");
    let (tee, handle) = Tee::new(std::io::sink(), Some(cast));
    let options = TerminalOptions {
        viewport: Viewport::Fixed(Rect::new(0, 0, 100, 30)),
    };
    let mut terminal =
        Terminal::with_options(CrosstermBackend::new(tee), options).expect("terminal");
    let draw = |terminal: &mut Terminal<_>, app: &App| {
        let snapshot = app.snapshot();
        terminal
            .draw(|frame| threadlab::tui::ui::render(frame, app, &snapshot))
            .expect("draws");
    };
    let rows = |app: &App| -> Vec<String> {
        let buffer = screenshot::render(app, 100, 30);
        (0..30)
            .map(|y| (0..100).map(|x| buffer[(x, y)].symbol()).collect())
            .collect()
    };
    draw(&mut terminal, &app);
    let mut seen = Vec::new();
    for frame in 1..=frames {
        if app.should_quit() {
            break;
        }
        handle.next_frame();
        script::scripted_frame(&mut app, &mut script, frame, FPS);
        draw(&mut terminal, &app);
        seen.push(rows(&app).concat());
    }
    let screen = rows(&app);
    drop(terminal);
    let cast = bytes.0.lock().expect("lock").clone();
    (String::from_utf8(cast).expect("utf-8"), screen, seen)
}

/// Checks asciicast v2: a header object, then `[time, "o", text]` events, times increasing.
/// Returns the events' text.
fn check_cast(cast: &str, size: (u64, u64)) -> Vec<String> {
    let mut lines = cast.lines();
    let header: serde_json::Value =
        serde_json::from_str(lines.next().expect("a header line")).expect("header is JSON");
    assert_eq!(header["version"], 2, "{header}");
    assert_eq!(header["width"], size.0, "{header}");
    assert_eq!(header["height"], size.1, "{header}");
    let mut last = -1.0;
    let mut texts = Vec::new();
    for line in lines {
        let event: serde_json::Value = serde_json::from_str(line).expect("event is JSON");
        let event = event.as_array().expect("an event is an array");
        assert_eq!(event.len(), 3, "{line}");
        let t = event[0].as_f64().expect("a time");
        assert!(t > last, "time {t} after {last}");
        last = t;
        assert_eq!(event[1], "o", "{line}");
        texts.push(event[2].as_str().expect("output text").to_string());
    }
    assert!(!texts.is_empty(), "no output events");
    texts
}

const SCRIPT: &str = "# a short demo\n0.5s 3\n1s c\n1.5s <Esc><Space>\n2s <Space>\n";

#[test]
fn a_key_script_replays_to_the_same_screen_and_the_same_cast_twice() {
    let (cast_a, screen_a, seen) = replay(SCRIPT, 90);
    let (cast_b, screen_b, _) = replay(SCRIPT, 90);
    assert_eq!(screen_a, screen_b);
    assert_eq!(cast_a, cast_b);
    // The script did what it says: bulkhead, compare opened and closed, paused and resumed,
    // and 90 frames at 30 fps are 3 s of simulated time (paused for 0.5 s of them).
    let top = &screen_a[0];
    assert!(top.contains("t 2.500s"), "{top}");
    assert!(seen.iter().any(|s| s.contains("Compare: same requests")));
    assert!(seen.iter().any(|s| s.contains("PAUSED")));
    let texts = check_cast(&cast_a, (100, 30));
    // At most one event a frame (91 draws) and the cursor shown again at the end.
    assert!(
        texts.len() > 30 && texts.len() <= 92,
        "{} events",
        texts.len()
    );
    assert!(texts[0].contains("IronThread"));
}

#[test]
fn a_scripted_q_ends_the_session() {
    let (_, screen, seen) = replay("1s c\n2s q\n", 300);
    assert_eq!(seen.len(), 60, "frames drawn before the quit");
    // The last frame drawn is the one of the quit (2 s), not 10 s later.
    assert!(screen[0].contains("t 2.000s"), "{}", screen[0]);
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("threadlab-record-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");
    dir.join(name)
}

/// The real binary in a real terminal: `tour --record` of a short tour driven by `--keys`.
#[test]
fn tour_record_writes_a_valid_asciicast() {
    let script = temp("tour.keys");
    // The first step shows its caption at once; → goes on; q asks, q quits.
    let mut f = std::fs::File::create(&script).expect("script");
    f.write_all(b"0.5s <Right>\n1s q\n1.1s q\n")
        .expect("written");
    let cast = temp("tour.cast");
    let tmux = tmux::Tmux::start("record", 90, 28);
    let bin = env!("CARGO_BIN_EXE_threadlab");
    let line = format!(
        "{bin} tour ironthread --keys {} --record {}; echo EXIT=$?",
        script.display(),
        cast.display()
    );
    tmux.keys(&[&line, "Enter"]);
    tmux.wait_for("the scripted tour to quit", |s| s.contains("EXIT=0"));
    tmux.assert_restored();
    let text = std::fs::read_to_string(&cast).expect("the cast");
    let texts = check_cast(&text, (90, 28));
    let all: String = texts.concat();
    assert!(
        all.contains("IronThread"),
        "the first frame draws the header"
    );
    assert!(all.contains("Partial"), "the tour's log reaches the screen");
}

#[test]
fn demo_options_without_a_terminal_are_refused() {
    let cast = temp("none.cast");
    let out = Command::new(env!("CARGO_BIN_EXE_threadlab"))
        .args(["tui", "ironthread", "--record"])
        .arg(&cast)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--record needs a terminal"));
    assert!(!cast.exists(), "an empty recording was left behind");
    let bad = temp("bad.keys");
    std::fs::write(&bad, "2s c\n1s q\n").expect("written");
    let out = Command::new(env!("CARGO_BIN_EXE_threadlab"))
        .args(["tour", "ironthread", "--keys"])
        .arg(&bad)
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.keys: line 2: time 1s comes before"),
        "{err}"
    );
}

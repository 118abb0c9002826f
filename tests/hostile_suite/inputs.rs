//! Hostile inputs played in this process: presets (mutated text and `--set` overrides), the
//! runs and reports of those that load, key scripts and key notation, config files, trace
//! files, `--vary` specs, durations and sizes, output paths, recordings, and the live view
//! under key storms. Each case either returns or its panic is caught and reported.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use threadlab::export::EXPORTERS;
use threadlab::report::RunReport;
use threadlab::scenario::{self, Scenario, Strategy};
use threadlab::sim::Engine;
use threadlab::tui::Theme;
use threadlab::tui::app::App;
use threadlab::tui::clock::BudgetSpec;
use threadlab::tui::keys::Key;

use super::generate::Gen;

/// Most events a case plays of a scenario that loaded: enough to reach its reports, cheap
/// enough for thousands of cases.
const EVENTS: u64 = 3_000;

/// Every dotted path the built-in presets write (`load.retry.attempts`,
/// `services.0.latency`, `strategy.bulkhead.0.core`...) with a value a preset gives it: the
/// `--set` keys to aim at, and values of the right kind to bend.
pub fn catalogue() -> Vec<(String, toml::Value)> {
    let mut out = Vec::new();
    for name in scenario::builtin_names() {
        out.extend(of_preset(name));
    }
    out
}

/// Every path under `prefix` in `value`, with its value (the first three of an array).
fn walk(prefix: &str, value: &toml::Value, out: &mut BTreeMap<String, toml::Value>) {
    match value {
        toml::Value::Table(t) => {
            for (k, v) in t {
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                out.insert(path.clone(), v.clone());
                walk(&path, v, out);
            }
        }
        toml::Value::Array(a) => {
            for (i, v) in a.iter().enumerate().take(3) {
                walk(&format!("{prefix}.{i}"), v, out);
            }
        }
        _ => {}
    }
}

/// The dotted paths `preset` writes, with its values.
pub fn of_preset(preset: &str) -> Vec<(String, toml::Value)> {
    let text = scenario::builtin(preset).expect("built in");
    let table: toml::Value = toml::from_str(text).expect("a built-in preset parses");
    let mut out = BTreeMap::new();
    walk("", &table, &mut out);
    out.into_iter().collect()
}

/// A value of the kind `like` has, bent: a number scaled or shifted, a duration scaled, a
/// boolean flipped; anything else as it is.
fn bend(g: &mut Gen, like: &toml::Value) -> String {
    let factor = *g.pick(&[0.0, 0.1, 0.5, 2.0, 10.0, 1000.0, -1.0]);
    match like {
        toml::Value::Integer(n) => format!("{}", (*n as f64 * factor) as i64 + g.below(3) as i64),
        toml::Value::Float(f) => format!("{:?}", f * factor),
        toml::Value::Boolean(b) => format!("{}", !b),
        toml::Value::String(text) => {
            let digits: String = text.chars().take_while(|c| c.is_ascii_digit()).collect();
            match digits.parse::<f64>() {
                Ok(v) => format!("\"{}{}\"", v * factor.abs(), &text[digits.len()..]),
                Err(_) => like.to_string(),
            }
        }
        other => other.to_string(),
    }
}

/// A `--set` override: a known key (or a cut or made-up one) and a value bent from one a
/// preset gives it, or a hostile one.
pub fn set(g: &mut Gen, keys: &[(String, toml::Value)]) -> String {
    let (known, like) = g.pick(keys).clone();
    let key = match g.below(12) {
        0 => g.text(20),
        1 => format!("{known}.{}", g.text(6)),
        2 => "a.".repeat(g.below(40)),
        _ => known,
    };
    match g.below(12) {
        0 => key,
        1 => format!("{key}=={}", g.value()),
        2..=6 => format!("{key}={}", bend(g, &like)),
        7 => format!("{key}={like}"),
        _ => format!("{key}={}", g.value()),
    }
}

/// Plays a scenario that loaded as far as a case may, and reads everything a command would
/// print of it: theory, the estimate, the tour's expectations, the snapshot, every format.
fn play(s: &Scenario, strategy: Strategy) {
    let served = threadlab::theory::served_rps(s, &Strategy::ALL);
    let within = scenario::estimate_cost(s, s.duration, served)
        .refusal()
        .is_none();
    let _ = threadlab::tui::expect::validate(s);
    if !within {
        return;
    }
    let mut engine = Engine::new(s, strategy);
    let mut events = 0;
    while events < EVENTS && !engine.is_finished() && engine.step() {
        events += 1;
    }
    let _ = engine.snapshot();
    let report = RunReport::new(s, &engine);
    for exporter in EXPORTERS {
        let _ = exporter.run(s, &report, false);
    }
}

/// A built-in preset with hostile `--set` overrides; true when it loaded.
pub fn overrides(g: &mut Gen, keys: &[(String, toml::Value)]) -> bool {
    let preset = *g.pick(&scenario::builtin_names().collect::<Vec<_>>());
    // Mostly the preset's own keys, bent; sometimes any preset's.
    let own = of_preset(preset);
    let sets: Vec<String> = (0..1 + g.below(2))
        .map(|_| {
            let from = if g.chance(75) { &own } else { keys };
            set(g, from)
        })
        .collect();
    match scenario::load(preset, &sets) {
        Ok(s) => {
            let strategy = *g.pick(&Strategy::ALL);
            play(&s, strategy);
            true
        }
        Err(_) => false,
    }
}

/// A built-in preset's text, mutated; true when it loaded.
pub fn preset_text(g: &mut Gen) -> bool {
    let name = *g.pick(&scenario::builtin_names().collect::<Vec<_>>());
    let text = g.mutate(scenario::builtin(name).expect("built in"));
    match scenario::parse("hostile.toml", &text, &[]) {
        Ok(s) => {
            play(&s, s.strategy.default);
            true
        }
        Err(_) => false,
    }
}

/// A key script's text: times and keys of every kind, out of order, hostile.
pub fn key_script(g: &mut Gen) -> bool {
    let mut text = String::new();
    for _ in 0..g.below(8) {
        let time = match g.below(5) {
            0 => g.text(6),
            1 => format!("{}s", g.below(1000)),
            2 => g.value(),
            _ => format!("{}ms", g.below(100_000)),
        };
        let keys = match g.below(4) {
            0 => g.text(10),
            1 => "<Tab><<Tab><Esc><>".to_owned(),
            2 => "space".to_owned(),
            _ => format!("{}<{}>", g.text(3), g.text(6)),
        };
        text.push_str(&format!("{time} {keys} # {}\n", g.text(4)));
    }
    let _ = threadlab::tui::script::parse_keys(&g.text(16));
    threadlab::tui::script::KeyScript::parse(&text).is_ok()
}

/// A config file: known and unknown fields, hostile values, moved keys; one that parses
/// must give back what `threadlab config` prints.
pub fn config(g: &mut Gen) -> bool {
    const NAMES: &[&str] = &[
        "compare", "pause", "quit", "help", "zoom", "nosuch", "trace",
    ];
    let mut text = String::new();
    let valid = [
        ("theme", "\"light\""),
        ("fps", "60"),
        ("preset", "\"metastable\""),
        ("bogus", "1"),
    ];
    for (field, good) in valid {
        if g.chance(50) {
            let value = if g.chance(60) {
                good.to_owned()
            } else {
                g.value()
            };
            text.push_str(&format!("{field} = {value}\n"));
        }
    }
    if g.chance(70) {
        text.push_str("[keys]\n");
        for _ in 0..g.below(4) {
            let key = match g.below(3) {
                0 => g.value(),
                1 => format!("{:?}", g.text(2)),
                _ => format!("\"{}\"", char::from(b'A' + g.below(26) as u8)),
            };
            text.push_str(&format!("{} = {key}\n", g.pick(NAMES)));
        }
    }
    if g.chance(20) {
        text = g.mutate(&text);
    }
    match threadlab::config::parse(&text, "config.toml") {
        Ok(config) => {
            let again = threadlab::config::parse(&config.to_toml(), "again");
            assert!(
                again.is_ok(),
                "`threadlab config` printed what does not parse: {again:?}\n{text}"
            );
            true
        }
        Err(_) => false,
    }
}

/// A trace file's bytes against ironthread's services: rows in order or not, cells of every
/// kind, comments, line ends, a byte-order mark, or any bytes.
pub fn trace_file(g: &mut Gen, services: &[scenario::Service]) -> bool {
    let bytes = if g.chance(15) {
        g.bytes(200)
    } else {
        let header = *g.pick(&[
            "at,user,orders,recommendations",
            "at,user",
            "\u{feff}# comment\nat,orders",
            "at,recommendations,orders",
            "at,user,user",
            "at,nosuch",
        ]);
        let columns = header.lines().last().map_or(1, |l| l.split(',').count());
        // One kind of line end a file: \n, \r\n or (old Mac) \r.
        let eol = *g.pick(&["\n", "\r\n", "\r"]);
        let mut text = header.replace('\n', eol) + eol;
        let mut at = 0;
        for _ in 0..1 + g.below(8) {
            at += g.below(50);
            let cell = |g: &mut Gen| match g.below(20) {
                0 => g.value(),
                1 | 2 => String::new(),
                3 | 4 => format!("{}s", g.below(5)),
                _ => format!("{}ms", g.below(2000)),
            };
            let mut cells = vec![if g.chance(97) {
                format!("{at}ms")
            } else {
                g.value()
            }];
            let width = if g.chance(90) { columns } else { g.below(6) };
            for _ in 1..width {
                cells.push(cell(g));
            }
            text.push_str(&cells.join(","));
            text.push_str(eol);
        }
        text.into_bytes()
    };
    scenario::parse_trace_bytes("hostile.csv", &bytes, services).is_ok()
}

/// A `--vary` spec, a duration and a screenshot size.
pub fn small_parsers(g: &mut Gen, keys: &[(String, toml::Value)]) -> bool {
    let spec = match g.below(4) {
        0 => g.text(20),
        1 => format!(
            "{}={}..{}:{}",
            g.pick(keys).0,
            g.value(),
            g.value(),
            g.value()
        ),
        2 => format!(
            "{}={}..{}*{}",
            g.pick(keys).0,
            g.value(),
            g.value(),
            g.value()
        ),
        _ => format!(
            "{}={},{},{}",
            g.pick(keys).0,
            g.value(),
            g.value(),
            g.value()
        ),
    };
    let vary = threadlab::sweep::parse_vary(&spec).is_ok();
    let _ = scenario::parse_duration(&g.text(12));
    let _ = scenario::parse_duration(&format!("{}{}", g.value(), g.pick(&["ms", "s", "h", "us"])));
    let _ = threadlab::screenshot::parse_size(&format!("{}x{}", g.value(), g.value()));
    vary
}

/// What an output path's check and write leave in a folder of every kind of entry: never a
/// changed link, device or folder, never a temporary file.
pub fn output_path(g: &mut Gen, dir: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    let names = [
        "file", "folder", "link", "dangling", "null", "full", "new", "folder/x",
    ];
    let name = *g.pick(&names);
    let path = dir.join(name);
    let kind = |p: &Path| {
        std::fs::symlink_metadata(p).map(|m| {
            let t = m.file_type();
            (
                t.is_file(),
                t.is_dir(),
                t.is_symlink(),
                t.is_char_device(),
                m.len(),
            )
        })
    };
    let before = kind(&path).ok();
    let fail = g.chance(50);
    let body = g.bytes(64);
    let written = threadlab::files::OutputFile::check(Some("--hostile"), &path).and_then(|out| {
        out.write(|w| {
            w.write_all(&body)?;
            if fail {
                Err(std::io::Error::other("injected"))
            } else {
                Ok(())
            }
        })
    });
    let after = kind(&path).ok();
    match before {
        // A file (or nothing yet) is either written whole or left as it was.
        None | Some((true, ..)) if written.is_ok() => {
            assert_eq!(std::fs::read(&path).ok().as_deref(), Some(body.as_slice()));
        }
        None | Some((true, ..)) => assert_eq!(before, after, "{name}"),
        Some(_) => assert_eq!(
            (before.map(|k| (k.0, k.1, k.2, k.3))),
            after.map(|k| (k.0, k.1, k.2, k.3)),
            "{name} changed kind"
        ),
    }
    let temps: Vec<_> = std::fs::read_dir(dir)
        .expect("dir")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(temps.is_empty(), "temporary files left: {temps:?}");
    // Put the file back for the next case.
    if name == "file" {
        std::fs::write(&path, "old").expect("reset");
    }
    if name == "new" {
        let _ = std::fs::remove_file(&path);
    }
    written.is_ok()
}

/// A recording fed hostile bytes and resizes: every line is an asciicast event, in order.
pub fn recording(g: &mut Gen) -> bool {
    use threadlab::tui::record::{Cast, CastClock, Tee};
    let cast =
        Cast::new(Vec::new(), (80, 24), CastClock::Frames { fps: 30 }, None).expect("header");
    let (mut tee, handle) = Tee::new(std::io::sink(), Some(cast));
    for _ in 0..g.below(10) {
        if g.chance(30) {
            handle.resized((g.below(1000) as u16, g.below(500) as u16));
        }
        let _ = tee.write_all(&g.bytes(40));
        let _ = tee.flush();
        if g.chance(50) {
            handle.next_frame();
        }
    }
    let bytes = tee.recording().take().expect("recording").into_inner();
    let text = String::from_utf8(bytes).expect("a cast is UTF-8");
    let mut last = -1.0;
    for line in text.lines().skip(1) {
        let event: serde_json::Value = serde_json::from_str(line).expect("an event is JSON");
        let t = event[0].as_f64().expect("a time");
        assert!(t > last, "times increase: {text}");
        last = t;
    }
    true
}

/// The live view under a storm of keys (typed variants, prompts, every view), played and
/// drawn at a random size.
pub fn key_storm(g: &mut Gen, keys: &[(String, toml::Value)]) -> bool {
    const LIVE: &[Key] = &[
        Key::Tab,
        Key::BackTab,
        Key::Up,
        Key::Down,
        Key::Left,
        Key::Right,
        Key::Home,
        Key::Enter,
        Key::Esc,
        Key::Backspace,
    ];
    let preset = *g.pick(&[
        "ironthread",
        "metastable",
        "circuit-breaker",
        "overload",
        "spike",
    ]);
    let sets: Vec<String> = (0..g.below(2)).map(|_| set(g, keys)).collect();
    let Ok(s) = scenario::load(preset, &sets) else {
        return false;
    };
    let served = threadlab::theory::served_rps(&s, &Strategy::ALL);
    if scenario::estimate_cost(&s, s.duration, served)
        .refusal()
        .is_some()
    {
        return false;
    }
    let strategy = *g.pick(&Strategy::ALL);
    let mut app = App::new(s, strategy, Theme::Dark);
    app.set_overrides(sets);
    for _ in 0..g.below(30) {
        match g.below(10) {
            0 => {
                // A typed variant with hostile overrides.
                app.press(Key::Char('C'));
                app.press(Key::Char('a'));
                // Typed only into the prompt: as live keys they could write a trace (`w`).
                if app.is_typing() {
                    for c in set(g, keys).chars() {
                        app.press(Key::Char(c));
                    }
                    app.press(Key::Enter);
                }
            }
            1 => app.press(*g.pick(LIVE)),
            2 => app.press(Key::Ctrl(*g.pick(&['c', 'z', 'l']))),
            _ => {
                let c = *g.pick(
                    &"0123456789cCgfzLtwbhrsvu+-[]<>. ?lajk"
                        .chars()
                        .collect::<Vec<_>>(),
                );
                // `w` and `p` write files into the working directory: not here.
                if c != 'w' {
                    app.press(Key::Char(c));
                }
            }
        }
        if app.should_quit() {
            break;
        }
        app.advance(Duration::from_millis(100), BudgetSpec::Events(500));
    }
    let (w, h) = (80 + g.below(60) as u16, 24 + g.below(30) as u16);
    let _ = threadlab::screenshot::render(&app, w, h);
    true
}

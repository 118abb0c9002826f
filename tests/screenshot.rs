//! `threadlab screenshot`: the TUI's screen, drawn headless, as SVG and PNG.

use std::path::{Path, PathBuf};

mod support;
use support::threadlab;

use threadlab::scenario;
use threadlab::screenshot::{self, Shot};
use threadlab::time::Nanos;
use threadlab::tui::Theme;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("threadlab-shot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");
    dir.join(name)
}

fn shoot(args: &[&str], out: &Path) {
    let mut all = vec!["screenshot"];
    all.extend_from_slice(args);
    let out_text = out.display().to_string();
    all.extend_from_slice(&["--out", &out_text]);
    let result = threadlab(&all);
    assert!(
        result.status.success(),
        "{all:?}: {}",
        String::from_utf8_lossy(&result.stderr)
    );
}

/// The screen's rows as text, from the library (the same draw code).
fn screen_rows(preset: &str, at: Nanos, size: (u16, u16), theme: Theme) -> Vec<String> {
    let s = scenario::load(preset, &[]).expect("preset");
    let strategy = s.strategy.default;
    let request = Shot {
        at,
        keys: vec![],
        size,
        theme,
    };
    let buffer = screenshot::take(s, strategy, &request);
    (0..size.1)
        .map(|y| {
            (0..size.0)
                .map(|x| buffer[(x, y)].symbol().to_string())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect()
}

/// The SVG's text laid back into rows: every character at the cell its x names.
fn svg_rows(svg: &str, size: (u16, u16)) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("the SVG parses");
    let root = doc.root_element();
    assert_eq!(
        root.attribute("width"),
        Some(&*(u32::from(size.0) * 9).to_string())
    );
    let mut rows = vec![vec![' '; usize::from(size.0)]; usize::from(size.1)];
    for text in doc.descendants().filter(|n| n.has_tag_name("text")) {
        let y: u32 = text.attribute("y").expect("y").parse().expect("y number");
        let row = (y / 18) as usize;
        let xs: Vec<u32> = text
            .attribute("x")
            .expect("x")
            .split(' ')
            .map(|x| x.parse().expect("x number"))
            .collect();
        let chars: Vec<char> = text.text().unwrap_or("").chars().collect();
        assert_eq!(xs.len(), chars.len(), "one x per character");
        for (x, c) in xs.iter().zip(chars) {
            rows[row][(x / 9) as usize] = c;
        }
    }
    rows.into_iter()
        .map(|r| r.into_iter().collect::<String>().trim_end().to_string())
        .collect()
}

#[test]
fn an_svg_screenshot_parses_and_holds_the_screens_text() {
    let out = scratch("x.svg");
    shoot(&["ironthread", "--at", "3s"], &out);
    let svg = std::fs::read_to_string(&out).expect("written");
    let rows = svg_rows(&svg, (120, 40));
    let expected = screen_rows("ironthread", Nanos::from_secs(3), (120, 40), Theme::Dark);
    assert_eq!(rows, expected);
    assert!(
        rows[0].contains("IronThread") && rows[0].contains("t 3.000s"),
        "{}",
        rows[0]
    );
}

#[test]
fn keys_are_pressed_before_the_picture_and_the_same_command_gives_the_same_bytes() {
    let (a, b) = (scratch("compare-a.svg"), scratch("compare-b.svg"));
    let args = [
        "ironthread",
        "--at",
        "3s",
        "--keys",
        "c",
        "--size",
        "100x30",
    ];
    shoot(&args, &a);
    shoot(&args, &b);
    let (a, b) = (std::fs::read(&a).expect("a"), std::fs::read(&b).expect("b"));
    assert_eq!(a, b);
    let rows = svg_rows(&String::from_utf8(a).expect("utf-8"), (100, 30));
    assert!(
        rows.iter().any(|r| r.contains("Compare: same requests")),
        "{rows:#?}"
    );
}

#[test]
fn a_png_screenshot_has_the_cells_size_and_is_not_blank() {
    let out = scratch("x.png");
    shoot(
        &[
            "ironthread",
            "--at",
            "3s",
            "--size",
            "80x24",
            "--theme",
            "light",
        ],
        &out,
    );
    let file = std::fs::File::open(&out).expect("written");
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .expect("a png");
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).expect("a frame");
    assert_eq!((info.width, info.height), (800, 480));
    let pixels = &pixels[..info.buffer_size()];
    let white = pixels.chunks(3).filter(|p| *p == [255, 255, 255]).count();
    let total = pixels.len() / 3;
    // A light screen: mostly white, with text and cells drawn on it.
    assert!(white > total / 2, "{white} of {total} white");
    assert!(
        total - white > total / 20,
        "only {} drawn pixels",
        total - white
    );
    let colours: std::collections::HashSet<&[u8]> = pixels.chunks(3).collect();
    assert!(colours.len() > 20, "{} colours", colours.len());
}

#[test]
fn bad_options_are_refused_with_exit_2() {
    let out = scratch("bad.svg").display().to_string();
    let cases: [(&[&str], &str); 4] = [
        (
            &["--size", "10x5"],
            "--size \"10x5\": allowed WIDTHxHEIGHT with width 80..=1000",
        ),
        (&["--at", "soon"], "--at \"soon\""),
        (&["--keys", "<F1>"], "--keys \"<F1>\": unknown key <F1>"),
        (
            &["--out", "x.jpg"],
            "--out \"x.jpg\": the file name must end in .svg or .png",
        ),
    ];
    for (extra, message) in cases {
        let mut args = vec!["screenshot", "ironthread"];
        args.extend_from_slice(extra);
        if !extra.contains(&"--out") {
            args.extend_from_slice(&["--out", &out]);
        }
        let result = threadlab(&args);
        assert_eq!(result.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8_lossy(&result.stderr);
        assert!(err.contains(message), "{extra:?}: {err}");
    }
}

/// The picture in the README is the one the command makes today.
#[test]
fn the_readme_screenshot_is_what_the_command_draws() {
    let out = scratch("readme.svg");
    shoot(
        &[
            "ironthread",
            "--strategy",
            "bulkhead",
            "--at",
            "3s",
            "--size",
            "100x30",
        ],
        &out,
    );
    let made = std::fs::read_to_string(&out).expect("written");
    let shipped = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/screen-ironthread.svg"),
    )
    .expect("docs/screen-ironthread.svg");
    assert!(
        made == shipped,
        "docs/screen-ironthread.svg is out of date: run `threadlab screenshot ironthread \
         --strategy bulkhead --at 3s --size 100x30 --out docs/screen-ironthread.svg`"
    );
}

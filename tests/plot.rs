//! `--plot`: the SVG parses and holds the expected series, axis titles and legend entries;
//! the PNG decodes. Checked through the document's structure, not its pixels.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn threadlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_threadlab"))
        .args(args)
        .output()
        .expect("threadlab runs")
}

fn out_path(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("plot");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

/// Every `<text>` of the SVG (trimmed) and every font size used.
struct Svg {
    texts: Vec<String>,
    /// Each text's x (its left edge unless anchored otherwise) and content.
    text_x: Vec<(f64, String)>,
    font_families: Vec<String>,
    rects: usize,
    font_px: Vec<f64>,
    polyline_strokes: Vec<String>,
    background: Option<String>,
}

fn read_svg(path: &Path) -> Svg {
    let text = std::fs::read_to_string(path).expect("the SVG was written");
    let doc = roxmltree::Document::parse(&text).expect("the SVG is well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    let nodes = || root.descendants();
    Svg {
        texts: nodes()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .map(|t| t.trim().to_owned())
            .collect(),
        text_x: nodes()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| {
                let x = n.attribute("x")?.parse().ok()?;
                Some((x, n.text()?.trim().to_owned()))
            })
            .collect(),
        font_families: nodes()
            .filter_map(|n| n.attribute("font-family"))
            .map(str::to_owned)
            .collect(),
        rects: nodes().filter(|n| n.has_tag_name("rect")).count(),
        font_px: nodes()
            .filter_map(|n| n.attribute("font-size"))
            .filter_map(|v| v.parse().ok())
            .collect(),
        polyline_strokes: nodes()
            .filter(|n| n.has_tag_name("polyline"))
            .filter_map(|n| n.attribute("stroke"))
            .map(str::to_owned)
            .collect(),
        background: nodes()
            .find(|n| n.has_tag_name("rect"))
            .and_then(|n| n.attribute("fill"))
            .map(str::to_owned),
    }
}

fn assert_has(svg: &Svg, wanted: &[&str]) {
    for w in wanted {
        assert!(
            svg.texts.iter().any(|t| t == w),
            "no text {w:?} in {:?}",
            svg.texts
        );
    }
}

#[test]
fn sweep_svg_has_goodput_and_p99_lines_theory_legend_and_the_knee() {
    let path = out_path("sweep.svg");
    let out = threadlab(&[
        "sweep",
        "tomcat-ceiling",
        "--vary",
        "server.threads=50..400:50",
        "--duration",
        "17s",
        "--plot",
        path.to_str().expect("utf-8 path"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = read_svg(&path);
    assert_has(
        &svg,
        &[
            "Tomcat ceiling: sweep of server.threads",
            "server.threads",
            "goodput (req/s)",
            "p99 latency (ms)",
            "sequential",
            "theory ceiling",
            "Little's law",
            "knee: 400",
        ],
    );
    // The measured goodput and p99 lines, in the sequential strategy's colour.
    let solid = svg
        .polyline_strokes
        .iter()
        .filter(|s| *s == "#0072B2")
        .count();
    assert!(solid >= 2, "strokes {:?}", svg.polyline_strokes);
    assert!(
        svg.font_px.iter().all(|&px| px >= 14.0),
        "sizes {:?}",
        svg.font_px
    );
    assert_eq!(svg.background.as_deref(), Some("#FFFFFF"));
}

#[test]
fn compare_svg_has_one_panel_per_series_and_every_strategy_in_the_legend() {
    let path = out_path("compare.svg");
    let p = path.to_str().expect("utf-8 path");
    let out = threadlab(&[
        "compare",
        "tomcat-ceiling",
        "--duration",
        "10s",
        "--format",
        "json",
        "--plot",
        p,
        "--theme",
        "dark",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reports: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let svg = read_svg(&path);
    assert_has(
        &svg,
        &[
            "Goodput",
            "Failures",
            // No answer in the first second: the lines start with a gap, and the title says so.
            "p99 latency (rolling window; gap: no answer)",
            "tomcat: busy threads",
            "tomcat: queue depth",
            "simulated time (s)",
            "p99 latency (ms)",
        ],
    );
    for r in reports.as_array().expect("array") {
        let name = r["strategy"].as_str().expect("strategy");
        assert!(
            svg.texts.iter().any(|t| t == name),
            "{name} not in the legend"
        );
    }
    assert_eq!(svg.background.as_deref(), Some("#18181C"));
}

#[test]
fn run_png_decodes_to_an_image_of_the_figure_size() {
    let path = out_path("run.png");
    let out = threadlab(&[
        "run",
        "tomcat-ceiling",
        "--duration",
        "10s",
        "--plot",
        path.to_str().expect("utf-8 path"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = std::fs::File::open(&path).expect("the PNG was written");
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("the PNG decodes");
    assert!(
        info.width >= 1000 && info.height >= 1000,
        "{}x{}",
        info.width,
        info.height
    );
    assert!(buf.iter().any(|&b| b != 255), "the image is not blank");
}

#[test]
fn a_plot_file_that_is_not_svg_or_png_exits_2_before_running() {
    let out = threadlab(&["run", "tomcat-ceiling", "--plot", "chart.pdf"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--plot") && err.contains(".svg or .png"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn a_chart_that_cannot_be_written_says_why_once() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("plot-into-a-directory.png");
    std::fs::create_dir_all(&dir).expect("a directory named like a chart");
    let chart = dir.to_string_lossy().into_owned();
    let out = threadlab(&["run", "ironthread", "--plot", &chart]);
    let err = String::from_utf8_lossy(&out.stderr);
    // A folder where the chart would go is refused before the run (exit 2), said once.
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("--plot {chart}: is a folder")),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains("backend error"), "{err}");
    assert!(out.stdout.is_empty(), "the run did not play");
}

fn plot_svg(name: &str, args: &[&str]) -> Svg {
    let path = out_path(name);
    let mut all = args.to_vec();
    all.extend(["--plot", path.to_str().expect("utf-8 path")]);
    let out = threadlab(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    read_svg(&path)
}

#[test]
fn a_sweep_of_words_draws_a_bar_group_per_value_named_by_it() {
    let svg = plot_svg(
        "categories.svg",
        &[
            "sweep",
            "virtual-threads",
            "--vary",
            "server.threads=200,virtual",
            "--duration",
            "3s",
        ],
    );
    assert_has(&svg, &["200", "virtual", "server.threads"]);
    assert!(
        !svg.texts
            .iter()
            .any(|t| t.contains("point number") || t == "0.1"),
        "{:?}",
        svg.texts
    );
    // The background, then two bars in each of the two panels.
    assert!(svg.rects >= 5, "{} rects", svg.rects);
}

#[test]
fn a_ceiling_far_above_the_data_is_noted_not_drawn_and_its_fall_explained() {
    // bulkhead-containment's recs pool: the ceiling (5.13 to 15.38 req/s) is up to three
    // times the goodput (~4.5 req/s), which must not be squashed under it.
    let svg = plot_svg(
        "ceiling.svg",
        &[
            "sweep",
            "bulkhead-containment",
            "--vary",
            "strategy.bulkhead.recs.core=5..30:5",
            "--set",
            "strategy.bulkhead.recs.max=60",
            "--duration",
            "20s",
        ],
    );
    let y_ticks: Vec<f64> = svg.texts.iter().filter_map(|t| t.parse().ok()).collect();
    assert!(
        !y_ticks.contains(&14.0) && !y_ticks.contains(&16.0),
        "{:?}",
        svg.texts
    );
    assert!(
        svg.texts
            .iter()
            .any(|t| t.starts_with("bulkhead theory ceiling above the chart at 5 to 15")),
        "{:?}",
        svg.texts
    );
    assert!(
        svg.texts.iter().any(|t| t
            .starts_with("ceiling falls at 20 (15.38 to 5.13 req/s): the queue no longer fills")),
        "{:?}",
        svg.texts
    );
}

#[test]
fn a_knee_at_the_first_point_labels_inside_the_plot_not_over_the_axis() {
    let svg = plot_svg(
        "knee.svg",
        &[
            "sweep",
            "tomcat-ceiling",
            "--vary",
            "server.threads=400..800:200",
            "--duration",
            "10s",
        ],
    );
    let knee = svg
        .text_x
        .iter()
        .find(|(_, t)| t == "knee: 400")
        .expect("a knee label");
    // The plot starts right of the 110 px of y tick labels and the 20 px margin.
    assert!(knee.0 >= 130.0, "{knee:?}");
}

#[test]
fn a_compare_chart_leaves_out_gauges_that_stayed_at_zero_and_names_them() {
    let svg = plot_svg(
        "zero.svg",
        &["compare", "bulkhead-containment", "--duration", "20s"],
    );
    assert!(!svg.texts.iter().any(|t| t == "user: queue depth"));
    assert_has(&svg, &["user: busy threads", "shared: queue depth"]);
    let note = svg
        .texts
        .iter()
        .find(|t| t.starts_with("Always 0, not drawn:"))
        .expect("a note naming the panels left out");
    assert!(note.contains("user: queue depth"), "{note}");
}

/// The `@font-face` of an SVG: its family and the font its data URL holds.
fn embedded_font(svg: &str) -> (String, Vec<u8>) {
    use base64::Engine as _;
    let doc = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    let style = doc
        .descendants()
        .find(|n| n.has_tag_name("style"))
        .and_then(|n| n.text())
        .expect("a <style>");
    let rule = style.strip_prefix("@font-face{").expect("an @font-face");
    let family = rule
        .strip_prefix("font-family:'")
        .and_then(|r| r.split_once('\''))
        .expect("the face's family")
        .0;
    let data = rule
        .split_once("src:url(data:font/ttf;base64,")
        .and_then(|(_, r)| r.split_once(')'))
        .expect("a data URL")
        .0;
    let font = base64::engine::general_purpose::STANDARD
        .decode(data)
        .expect("base64");
    (family.to_owned(), font)
}

/// Every character the SVG's `<text>` elements draw (line breaks aside).
fn drawn_chars(svg: &str) -> std::collections::BTreeSet<char> {
    let doc = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .flat_map(|n| n.descendants().filter_map(|t| t.text()))
        .flat_map(str::chars)
        .filter(|c| !c.is_control())
        .collect()
}

#[test]
fn the_svg_carries_its_font_cut_to_the_characters_it_draws_and_names_it_first() {
    let args = ["run", "ironthread", "--strategy", "bulkhead", "--plot"];
    let path = out_path("font.svg");
    let out = threadlab(&[&args[..], &[path.to_str().expect("utf-8 path")]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&path).expect("the SVG was written");
    let (family, data) = embedded_font(&text);

    let families = read_svg(&path).font_families;
    assert!(!families.is_empty());
    let stack = format!("{family}, DejaVu Sans, Bitstream Vera Sans, Verdana, sans-serif");
    assert!(families.iter().all(|f| *f == stack), "{families:?}");

    let full = ttf_parser::Face::parse(include_bytes!("../assets/fonts/DejaVuSans.ttf"), 0)
        .expect("DejaVu Sans");
    let cut = ttf_parser::Face::parse(&data, 0).expect("the embedded font parses");
    let chars = drawn_chars(&text);
    assert!(chars.contains(&'9') && chars.contains(&' '), "{chars:?}");
    for c in &chars {
        let old = full
            .glyph_index(*c)
            .expect("DejaVu Sans draws the chart's text");
        let new = cut
            .glyph_index(*c)
            .unwrap_or_else(|| panic!("{c:?} is not in the embedded font"));
        assert_eq!(
            full.glyph_hor_advance(old),
            cut.glyph_hor_advance(new),
            "{c:?}"
        );
    }
    // Cut to the glyphs used: far from DejaVu Sans's 6,000 and 760 KB.
    assert!(cut.number_of_glyphs() < 120, "{}", cut.number_of_glyphs());
    assert!(data.len() < 40_000, "{} bytes", data.len());

    let again = out_path("font-again.svg");
    let out = threadlab(&[&args[..], &[again.to_str().expect("utf-8 path")]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::fs::read(&again).expect("written") == text.as_bytes(),
        "the same command wrote different bytes"
    );
}

/// The README's charts are what the commands it shows draw today (but `sweep-tomcat-ceiling`,
/// eight points of 600 simulated seconds, left to CONTRIBUTING's "after a change to the
/// charts").
#[test]
fn the_readme_charts_are_what_their_commands_draw() {
    let charts: [(&str, &[&str]); 2] = [
        (
            "compare-bulkhead-containment.svg",
            &["compare", "bulkhead-containment", "--duration", "60s"],
        ),
        (
            "sweep-bulkhead-containment.svg",
            &[
                "sweep",
                "bulkhead-containment",
                "--vary",
                "strategy.bulkhead.recs.core=5..60:5",
                "--set",
                "strategy.bulkhead.recs.max=60",
            ],
        ),
    ];
    for (name, args) in charts {
        let path = out_path(&format!("readme-{name}"));
        let mut all = args.to_vec();
        all.extend(["--plot", path.to_str().expect("utf-8 path")]);
        let out = threadlab(&all);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let drawn = std::fs::read(&path).expect("the chart was written");
        let docs = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("docs")
            .join(name);
        assert!(
            std::fs::read(&docs).expect("the README's chart") == drawn,
            "docs/{name} is out of date: run `threadlab {} --plot docs/{name}`",
            args.join(" ")
        );
    }
}

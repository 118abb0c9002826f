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

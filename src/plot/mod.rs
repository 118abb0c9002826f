//! Charts for slides and articles: a [`Figure`] of panels drawn to SVG or PNG with plotters'
//! pure-Rust backends and an embedded font (DejaVu Sans), so no system library is needed. An
//! SVG carries the font too, cut down to the glyphs its text draws ([`font`]).

mod draw;
pub mod font;
mod resilience;
pub mod sweep;
pub mod timeline;

use std::path::Path;

use plotters::style::RGBColor;

use crate::files::OutputFile;
use crate::scenario::Strategy;

/// Light for printed pages and white projector screens, dark for dark slides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChartTheme {
    #[default]
    Light,
    Dark,
}

/// How a line is drawn. Series lines are solid with a marker that differs per series (so
/// they stay apart in greyscale); theory is dashed or dotted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stroke {
    Solid,
    Dashed,
    Dotted,
}

/// One line of a panel.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// The legend entry; `None` keeps the line out of the legend.
    pub label: Option<String>,
    /// A point whose y is NaN is a gap: nothing to draw there (no answer, no latency).
    pub points: Vec<(f64, f64)>,
    /// An index into the theme's palette (and the marker shapes).
    pub colour: usize,
    pub stroke: Stroke,
    /// A reference line (theory's ceiling) that does not stretch the y axis: the axis fits the
    /// other lines, and where this one is above it the panel says so, naming it by this.
    pub off_chart: Option<String>,
}

/// A labelled point on a panel (the knee of a curve).
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub at: (f64, f64),
    pub label: String,
    pub colour: usize,
}

/// A stretch of the x axis shaded across the whole panel (a circuit breaker open from 32 s to
/// 42 s), drawn under the lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    pub from: f64,
    pub to: f64,
    /// An index into the theme's palette.
    pub colour: usize,
    /// The legend entry (bands of one label share it: give it on the first only).
    pub label: Option<String>,
}

/// One chart: a title, axis titles with units, lines, marks.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChartPanel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub lines: Vec<Line>,
    pub marks: Vec<Mark>,
    /// Names of the x positions 0, 1, 2...: the x axis is categories and each solid line a
    /// bar per category, side by side (theory as a short mark across its bar). Empty: numbers.
    pub categories: Vec<String>,
    /// Lines of text under the panel (what is above the chart, what a jump means).
    pub notes: Vec<String>,
    /// Shaded stretches of the x axis, under the lines.
    pub bands: Vec<Band>,
}

/// Panels laid out in a grid under one title.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Figure {
    pub title: String,
    pub panels: Vec<ChartPanel>,
    pub columns: usize,
    /// A line under the title (the panels left out, and why).
    pub note: Option<String>,
}

/// Why a chart could not be written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("--plot {0:?}: the file name must end in .svg or .png")]
    Extension(String),
    #[error("--plot {path:?}: {error}")]
    Draw {
        path: String,
        error: draw::DrawError,
    },
    #[error("--plot {path:?}: {error}")]
    Font {
        path: String,
        error: font::FontError,
    },
    #[error("--plot {path:?}: {error}")]
    Encode {
        path: String,
        error: ::png::EncodingError,
    },
    /// The file could not be written (nothing was: the path is as it was).
    #[error("{0}")]
    Output(#[from] crate::files::OutputError),
}

/// Checks a `--plot` path before any work is done.
pub fn check_path(path: &Path) -> Result<(), PlotError> {
    match extension(path) {
        Some("svg" | "png") => Ok(()),
        _ => Err(PlotError::Extension(path.display().to_string())),
    }
}

fn extension(path: &Path) -> Option<&str> {
    path.extension().and_then(|e| e.to_str())
}

/// Draws `figure` to `out` (`.svg` or `.png`, by its name), whole or not at all.
pub fn write(figure: &Figure, out: OutputFile, theme: ChartTheme) -> Result<(), PlotError> {
    let path = out.path().to_path_buf();
    check_path(&path)?;
    let path_text = || path.display().to_string();
    let drawing = |error| PlotError::Draw {
        path: path_text(),
        error,
    };
    draw::register_font().map_err(drawing)?;
    let size = draw::size(figure);
    let bytes = if extension(&path) == Some("svg") {
        let mut svg = String::new();
        let root = plotters::prelude::SVGBackend::with_string(&mut svg, size);
        draw::figure(root, figure, theme).map_err(drawing)?;
        font::embed(&svg, draw::FONT_BYTES)
            .map_err(|error| PlotError::Font {
                path: path_text(),
                error,
            })?
            .into_bytes()
    } else {
        let mut pixels = vec![0u8; size.0 as usize * size.1 as usize * 3];
        let root = plotters::prelude::BitMapBackend::with_buffer(&mut pixels, size);
        draw::figure(root, figure, theme).map_err(drawing)?;
        rgb_png(size, &pixels).map_err(|error| PlotError::Encode {
            path: path_text(),
            error,
        })?
    };
    out.write(|w| w.write_all(&bytes))?;
    Ok(())
}

/// `pixels` (RGB, 8 bits each, row by row) of a `(width, height)` picture as a PNG file.
pub fn rgb_png(
    (width, height): (u32, u32),
    pixels: &[u8],
) -> Result<Vec<u8>, ::png::EncodingError> {
    let mut out = Vec::new();
    {
        let mut encoder = ::png::Encoder::new(&mut out, width, height);
        encoder.set_color(::png::ColorType::Rgb);
        encoder.set_depth(::png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(pixels)?;
    }
    Ok(out)
}

/// Okabe and Ito's colour-blind-safe palette, ordered so neighbours differ in lightness too
/// (they stay apart when printed in grey).
const LIGHT: [RGBColor; 7] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(230, 159, 0),   // orange
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(0, 0, 0),       // black
];

/// The same palette for a dark background: black becomes white, deep blue becomes sky blue.
const DARK: [RGBColor; 7] = [
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(240, 228, 66),
    RGBColor(213, 94, 0),
    RGBColor(255, 255, 255),
];

impl ChartTheme {
    fn palette(self) -> &'static [RGBColor; 7] {
        match self {
            ChartTheme::Light => &LIGHT,
            ChartTheme::Dark => &DARK,
        }
    }

    fn colour(self, i: usize) -> RGBColor {
        let p = self.palette();
        p[i % p.len()]
    }

    fn background(self) -> RGBColor {
        match self {
            ChartTheme::Light => RGBColor(255, 255, 255),
            ChartTheme::Dark => RGBColor(24, 24, 28),
        }
    }

    fn foreground(self) -> RGBColor {
        match self {
            ChartTheme::Light => RGBColor(20, 20, 20),
            ChartTheme::Dark => RGBColor(235, 235, 235),
        }
    }

    fn grid(self) -> RGBColor {
        match self {
            ChartTheme::Light => RGBColor(225, 225, 225),
            ChartTheme::Dark => RGBColor(60, 60, 66),
        }
    }
}

/// A strategy's colour: its place in the strategy list, the same in every chart.
pub fn strategy_colour(strategy: Strategy) -> usize {
    Strategy::ALL
        .iter()
        .position(|&s| s == strategy)
        .unwrap_or(0)
}

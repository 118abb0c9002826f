//! Renders a [`Figure`] on any plotters backend: the same code writes SVG and PNG.

use plotters::chart::SeriesAnno;
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::{Figure, Line, Panel, Stroke, Theme};

const FONT: &str = "sans-serif";
static FONT_BYTES: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Pixel sizes: slides want large text (nothing below 18 px at the chart's own size).
const TITLE_PX: u32 = 36;
const CAPTION_PX: u32 = 28;
const AXIS_PX: u32 = 24;
const TICK_PX: u32 = 20;
const LEGEND_PX: u32 = 20;
/// The most markers on one line.
const MARKERS: usize = 12;
const PANEL_W: u32 = 1000;
const PANEL_H: u32 = 560;

/// Makes the embedded font the one charts use (plotters looks fonts up by family name).
pub fn register_font() -> Result<(), String> {
    plotters::style::register_font(FONT, FontStyle::Normal, FONT_BYTES)
        .map_err(|_| "the embedded font could not be read".to_string())
}

/// The picture's size in pixels for `figure`'s grid of panels.
pub fn size(figure: &Figure) -> (u32, u32) {
    let (rows, cols) = grid(figure);
    (PANEL_W * cols as u32, 90 + PANEL_H * rows as u32)
}

fn grid(figure: &Figure) -> (usize, usize) {
    let cols = figure.columns.clamp(1, figure.panels.len().max(1));
    (figure.panels.len().div_ceil(cols).max(1), cols)
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Draws the whole figure and writes the file.
pub fn figure<DB: DrawingBackend>(
    backend: DB,
    figure: &Figure,
    theme: Theme,
) -> Result<(), String> {
    let root = backend.into_drawing_area();
    root.fill(&theme.background()).map_err(err)?;
    let title = (FONT, TITLE_PX).into_font().color(&theme.foreground());
    let root = root.titled(&figure.title, title).map_err(err)?;
    let areas = root.split_evenly(grid(figure));
    for (panel, area) in figure.panels.iter().zip(areas.iter()) {
        draw_panel(area, panel, theme)?;
    }
    root.present().map_err(err)
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &Panel,
    theme: Theme,
) -> Result<(), String> {
    let fg = theme.foreground();
    let (xs, ys) = bounds(panel);
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, (FONT, CAPTION_PX).into_font().color(&fg))
        .margin(20)
        .margin_right(50)
        .x_label_area_size(80)
        .y_label_area_size(110)
        .build_cartesian_2d(xs, ys)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(&panel.x_label)
        .y_desc(&panel.y_label)
        .axis_desc_style((FONT, AXIS_PX).into_font().color(&fg))
        .label_style((FONT, TICK_PX).into_font().color(&fg))
        .axis_style(fg)
        .bold_line_style(theme.grid())
        .max_light_lines(0)
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .draw()
        .map_err(err)?;
    for line in &panel.lines {
        draw_line(&mut chart, line, theme)?;
    }
    for mark in &panel.marks {
        let style = ShapeStyle::from(theme.colour(mark.colour)).stroke_width(3);
        let font = (FONT, LEGEND_PX).into_font().color(&fg);
        let knee = EmptyElement::at(mark.at)
            + Circle::new((0, 0), 12, style)
            + Text::new(mark.label.clone(), (-60, -44), font);
        chart.draw_series(std::iter::once(knee)).map_err(err)?;
    }
    if panel.lines.iter().any(|l| l.label.is_some()) {
        chart
            .configure_series_labels()
            .position(legend_position(panel))
            .margin(16)
            .legend_area_size(50)
            .background_style(theme.background().mix(0.9))
            .border_style(fg)
            .label_font((FONT, LEGEND_PX).into_font().color(&fg))
            .draw()
            .map_err(err)?;
    }
    Ok(())
}

type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

fn draw_line<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    line: &Line,
    theme: Theme,
) -> Result<(), String> {
    let colour = theme.colour(line.colour);
    let points = line.points.clone();
    let shape = match line.stroke {
        Stroke::Solid => marker_shape(line.colour),
        Stroke::Dashed | Stroke::Dotted => Vec::new(),
    };
    // A NaN y is a gap: each run of drawable points is its own series, the first carries the
    // legend entry (an empty one when the whole line is a gap).
    let runs: Vec<Vec<(f64, f64)>> = points
        .split(|p| !p.1.is_finite())
        .filter(|run| !run.is_empty())
        .map(<[(f64, f64)]>::to_vec)
        .collect();
    let style = match line.stroke {
        Stroke::Solid => ShapeStyle::from(colour).stroke_width(3),
        Stroke::Dashed | Stroke::Dotted => ShapeStyle::from(colour).stroke_width(2),
    };
    if line.stroke == Stroke::Solid {
        let fill = colour.filled();
        let dots = shape.clone();
        let drawable: Vec<(f64, f64)> = runs.iter().flatten().copied().collect();
        // A dozen markers tell the lines apart; one per sample would hide a long series. A
        // point alone between gaps gets its marker too, or it would not show at all.
        let every = drawable.len().div_ceil(MARKERS).max(1);
        let lone = runs.iter().filter(|r| r.len() == 1).map(|r| r[0]);
        let marked: Vec<(f64, f64)> = drawable
            .iter()
            .copied()
            .step_by(every)
            .chain(lone)
            .collect();
        chart
            .draw_series(
                marked
                    .into_iter()
                    .map(move |p| EmptyElement::at(p) + Polygon::new(dots.clone(), fill)),
            )
            .map_err(err)?;
    }
    let mut runs = runs.into_iter();
    let first = runs.next().unwrap_or_default();
    for run in runs {
        series(chart, line.stroke, run, style)?;
    }
    let anno = series(chart, line.stroke, first, style)?;
    if let Some(label) = &line.label {
        let segments = legend_segments(line.stroke);
        let width = if line.stroke == Stroke::Solid { 3 } else { 2 };
        let style = ShapeStyle::from(colour).stroke_width(width);
        let marker: Vec<(i32, i32)> = shape.iter().map(|&(x, y)| (x + 18, y)).collect();
        anno.label(label.clone()).legend(move |at| {
            let seg =
                |k: usize| PathElement::new(vec![(segments[k].0, 0), (segments[k].1, 0)], style);
            EmptyElement::at(at)
                + seg(0)
                + seg(1)
                + seg(2)
                + seg(3)
                + Polygon::new(marker.clone(), colour.filled())
        });
    }
    Ok(())
}

/// One unbroken run of a line, solid or dashed.
fn series<'a, 'b, DB: DrawingBackend + 'a>(
    chart: &'b mut Chart<'a, DB>,
    stroke: Stroke,
    run: Vec<(f64, f64)>,
    style: ShapeStyle,
) -> Result<&'b mut SeriesAnno<'a, DB>, String> {
    match stroke {
        Stroke::Solid => chart.draw_series(LineSeries::new(run, style)),
        Stroke::Dashed | Stroke::Dotted => {
            let (dash, gap) = dash(stroke);
            chart.draw_series(DashedLineSeries::new(run, dash, gap, style))
        }
    }
    .map_err(err)
}

fn dash(stroke: Stroke) -> (i32, i32) {
    match stroke {
        Stroke::Dotted => (3, 7),
        _ => (14, 8),
    }
}

/// The legend's sample of a line in four pieces: joined when solid, apart when dashed.
fn legend_segments(stroke: Stroke) -> [(i32, i32); 4] {
    match stroke {
        Stroke::Solid => [(0, 9), (9, 18), (18, 27), (27, 36)],
        Stroke::Dashed => [(0, 14), (22, 36), (36, 36), (36, 36)],
        Stroke::Dotted => [(0, 3), (10, 13), (20, 23), (30, 33)],
    }
}

/// A marker polygon around the origin: series `i` gets its own shape (octagon, triangle,
/// square, diamond, inverted triangle), so lines differ without colour.
fn marker_shape(i: usize) -> Vec<(i32, i32)> {
    match i % 5 {
        0 => vec![
            (-3, -7),
            (3, -7),
            (7, -3),
            (7, 3),
            (3, 7),
            (-3, 7),
            (-7, 3),
            (-7, -3),
        ],
        1 => vec![(0, -8), (8, 6), (-8, 6)],
        2 => vec![(-6, -6), (6, -6), (6, 6), (-6, 6)],
        3 => vec![(0, -8), (8, 0), (0, 8), (-8, 0)],
        _ => vec![(-8, -6), (8, -6), (0, 8)],
    }
}

/// Tick labels without needless decimals: 400, 2.5, 0.25.
fn tick(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.to_owned() }
}

fn bounds(panel: &Panel) -> (std::ops::Range<f64>, std::ops::Range<f64>) {
    let pts = || panel.lines.iter().flat_map(|l| l.points.iter());
    let x0 = pts().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let x1 = pts().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let y1 = pts().map(|p| p.1).fold(0.0, f64::max);
    let (x0, x1) = if x0.is_finite() && x1 > x0 {
        (x0, x1)
    } else if x0.is_finite() {
        (x0 - 1.0, x0 + 1.0)
    } else {
        (0.0, 1.0)
    };
    let y1 = if y1 > 0.0 { y1 * 1.15 } else { 1.0 };
    (x0..x1, 0.0..y1)
}

/// The legend goes in the corner with the fewest points (a box of 45 % by 40 % of the plot).
fn legend_position(panel: &Panel) -> SeriesLabelPosition {
    let (xs, ys) = bounds(panel);
    let fx = |x: f64| (x - xs.start) / (xs.end - xs.start);
    let fy = |y: f64| (y - ys.start) / (ys.end - ys.start);
    let corners = [
        (SeriesLabelPosition::UpperLeft, false, true),
        (SeriesLabelPosition::UpperRight, true, true),
        (SeriesLabelPosition::LowerRight, true, false),
        (SeriesLabelPosition::LowerLeft, false, false),
    ];
    let crowd = |right: bool, upper: bool| {
        panel
            .lines
            .iter()
            .flat_map(|l| l.points.iter())
            .filter(|&&(x, y)| {
                let inside_x = if right { fx(x) >= 0.55 } else { fx(x) <= 0.45 };
                let inside_y = if upper { fy(y) >= 0.6 } else { fy(y) <= 0.4 };
                inside_x && inside_y
            })
            .count()
    };
    corners
        .into_iter()
        .min_by_key(|&(_, right, upper)| crowd(right, upper))
        .map_or(SeriesLabelPosition::UpperRight, |(p, _, _)| p)
}

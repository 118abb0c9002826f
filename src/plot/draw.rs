//! Renders a [`Figure`] on any plotters backend: the same code writes SVG and PNG.

use plotters::chart::SeriesAnno;
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{ChartPanel, ChartTheme, Figure, Line, Stroke};

/// The family the SVG names: the DejaVu Sans it carries ([`super::font::EMBEDDED_FAMILY`]),
/// the same the PNG is drawn with, then, for a viewer that does not read the SVG's
/// `@font-face`, DejaVu Sans installed, the fonts with its metrics (Bitstream Vera, from which
/// it derives; Verdana), and any sans-serif.
const FONT: &str = "DejaVu Sans Embedded, DejaVu Sans, Bitstream Vera Sans, Verdana, sans-serif";
pub static FONT_BYTES: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Pixel sizes: slides want large text (nothing below 18 px at the chart's own size).
const TITLE_PX: u32 = 36;
const CAPTION_PX: u32 = 28;
const AXIS_PX: u32 = 24;
const TICK_PX: u32 = 20;
const LEGEND_PX: u32 = 20;
const NOTE_PX: u32 = 18;
/// The height of one line of a note (under the title, under a panel).
const NOTE_ROW: u32 = 30;
/// The most markers on one line.
const MARKERS: usize = 12;
const PANEL_W: u32 = 1000;
const PANEL_H: u32 = 560;
/// The share of the plot's height the lines may use when the legend must sit above them.
const UNDER_LEGEND: f64 = 0.58;

/// Why a figure could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum DrawError {
    #[error("the embedded font could not be read")]
    Font,
    /// What the drawing library said, once (see [`err`]).
    #[error("{0}")]
    Backend(String),
}

/// Makes the embedded font the one charts use (plotters looks fonts up by family name).
pub fn register_font() -> Result<(), DrawError> {
    plotters::style::register_font(FONT, FontStyle::Normal, FONT_BYTES).map_err(|_| DrawError::Font)
}

/// The picture's size in pixels for `figure`'s grid of panels.
pub fn size(figure: &Figure) -> (u32, u32) {
    let (rows, cols) = grid(figure);
    let note = if figure.note.is_some() { NOTE_ROW } else { 0 };
    let panel_notes = figure
        .panels
        .iter()
        .map(|p| p.notes.len())
        .max()
        .unwrap_or(0);
    let panel_h = PANEL_H + NOTE_ROW * panel_notes as u32;
    (PANEL_W * cols as u32, 90 + note + panel_h * rows as u32)
}

fn grid(figure: &Figure) -> (usize, usize) {
    let cols = figure.columns.clamp(1, figure.panels.len().max(1));
    (figure.panels.len().div_ceil(cols).max(1), cols)
}

/// A drawing error as one message: plotters wraps the backend's own error twice, each layer
/// with its prefix ("backend error: Drawing backend error: ..."); the backend's says it all.
fn err(e: impl std::fmt::Display) -> DrawError {
    let text = e.to_string();
    let inner = text.strip_prefix("backend error: ").unwrap_or(&text);
    DrawError::Backend(
        inner
            .strip_prefix("Drawing backend error: ")
            .unwrap_or(inner)
            .to_owned(),
    )
}

#[cfg(test)]
#[test]
fn a_drawing_error_is_said_once() {
    assert_eq!(
        err("backend error: Drawing backend error: Is a directory (os error 21)").to_string(),
        "Is a directory (os error 21)"
    );
    assert_eq!(
        err("no room for the chart").to_string(),
        "no room for the chart"
    );
}

#[cfg(test)]
#[test]
fn the_charts_name_the_face_the_svg_carries_first() {
    assert!(FONT.starts_with(&format!("{}, DejaVu Sans,", super::font::EMBEDDED_FAMILY)));
}

/// Draws the whole figure and writes the file.
pub fn figure<DB: DrawingBackend>(
    backend: DB,
    figure: &Figure,
    theme: ChartTheme,
) -> Result<(), DrawError> {
    let root = backend.into_drawing_area();
    root.fill(&theme.background()).map_err(err)?;
    let fg = theme.foreground();
    let title = (FONT, TITLE_PX).into_font().color(&fg);
    let mut root = root.titled(&figure.title, title).map_err(err)?;
    if let Some(note) = &figure.note {
        let (top, rest) = root.split_vertically(NOTE_ROW);
        let style = (FONT, NOTE_PX)
            .into_font()
            .color(&fg)
            .pos(Pos::new(HPos::Center, VPos::Top));
        let w = i32::try_from(top.dim_in_pixel().0 / 2).unwrap_or(0);
        top.draw_text(note, &style, (w, 0)).map_err(err)?;
        root = rest;
    }
    let areas = root.split_evenly(grid(figure));
    for (panel, area) in figure.panels.iter().zip(areas.iter()) {
        draw_panel(area, panel, theme)?;
    }
    root.present().map_err(err)
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &ChartPanel,
    theme: ChartTheme,
) -> Result<(), DrawError> {
    let fg = theme.foreground();
    let (xs, ys) = bounds(panel);
    let (ys, legend) = legend_room(panel, xs.clone(), ys);
    let (lines, mut notes) = clip(panel, ys.end);
    notes.extend(panel.notes.iter().cloned());
    let note_h = NOTE_ROW * notes.len() as u32;
    let (area, note_area) = area.split_vertically(area.dim_in_pixel().1.saturating_sub(note_h));
    let note_style = (FONT, NOTE_PX).into_font().color(&fg);
    for (i, note) in notes.iter().enumerate() {
        let y = i32::try_from(NOTE_ROW as usize * i).unwrap_or(0);
        note_area
            .draw_text(note, &note_style, (130, y))
            .map_err(err)?;
    }
    let categories = &panel.categories;
    let mut chart = ChartBuilder::on(&area)
        .caption(&panel.title, (FONT, CAPTION_PX).into_font().color(&fg))
        .margin(20)
        .margin_right(50)
        .x_label_area_size(80)
        .y_label_area_size(110)
        .build_cartesian_2d(xs, ys)
        .map_err(err)?;
    let category = |v: &f64| {
        let i = v.round();
        let name = (i >= 0.0 && (v - i).abs() < 1e-6)
            .then(|| categories.get(i as usize))
            .flatten();
        name.cloned().unwrap_or_default()
    };
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(&panel.x_label)
        .y_desc(&panel.y_label)
        .axis_desc_style((FONT, AXIS_PX).into_font().color(&fg))
        .label_style((FONT, TICK_PX).into_font().color(&fg))
        .axis_style(fg)
        .bold_line_style(theme.grid())
        .max_light_lines(0)
        .y_label_formatter(&|v| tick(*v));
    if categories.is_empty() {
        mesh.x_label_formatter(&|v| tick(*v));
    } else {
        // A tick on every whole number, named by its category; none between.
        mesh.disable_x_mesh()
            .x_labels(categories.len() * 4 + 1)
            .x_label_formatter(&category);
    }
    mesh.draw().map_err(err)?;
    draw_bands(&mut chart, panel, theme)?;
    if categories.is_empty() {
        for line in &lines {
            draw_line(&mut chart, line, theme)?;
        }
    } else {
        draw_bars(&mut chart, &lines, theme)?;
        for line in &lines {
            let legend_only = Line {
                points: Vec::new(),
                ..line.clone()
            };
            draw_line(&mut chart, &legend_only, theme)?;
        }
    }
    draw_marks(&mut chart, panel, theme)?;
    if lines.iter().any(|l| l.label.is_some()) {
        chart
            .configure_series_labels()
            .position(legend)
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

/// The marks (knees). Each label goes where it covers the fewest points of the lines (traced
/// between samples) and no label placed before it, inside the plot: beside, above or under
/// its mark, never over the axis.
fn draw_marks<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    panel: &ChartPanel,
    theme: ChartTheme,
) -> Result<(), DrawError> {
    let fg = theme.foreground();
    let font = (FONT, LEGEND_PX).into_font().color(&fg);
    let (px, py) = chart.plotting_area().get_pixel_range();
    let drawn: Vec<(i32, i32)> = traced(panel).map(|p| chart.backend_coord(&p)).collect();
    let mut placed: Vec<Box2> = Vec::new();
    let mut marks: Vec<&super::Mark> = panel.marks.iter().collect();
    marks.sort_by(|a, b| a.at.0.total_cmp(&b.at.0));
    for mark in marks {
        let at = chart.backend_coord(&mark.at);
        let w = i32::try_from(mark.label.chars().count() * 11).unwrap_or(200);
        let h = 22;
        let candidates = [
            (-w / 2, -44),
            (16, -44),
            (-w - 16, -44),
            (18, -h / 2),
            (-w - 18, -h / 2),
            (-w / 2, 20),
            (16, 20),
            (-w - 16, 20),
        ];
        let score = |&(dx, dy): &(i32, i32)| {
            let b = Box2 {
                x: at.0 + dx,
                y: at.1 + dy,
                w,
                h,
            };
            let inside =
                b.x >= px.start && b.x + w <= px.end && b.y >= py.start && b.y + h <= py.end;
            let covered = drawn.iter().filter(|&&p| b.grown(4).holds(p)).count();
            let clash = placed.iter().any(|o| o.meets(&b));
            (!inside, clash, covered)
        };
        let best = candidates
            .iter()
            .min_by_key(|c| score(c))
            .copied()
            .unwrap_or((16, -44));
        placed.push(Box2 {
            x: at.0 + best.0,
            y: at.1 + best.1,
            w,
            h,
        });
        let style = ShapeStyle::from(theme.colour(mark.colour)).stroke_width(3);
        let knee = EmptyElement::at(mark.at)
            + Circle::new((0, 0), 12, style)
            + Text::new(mark.label.clone(), best, font.clone());
        chart.draw_series(std::iter::once(knee)).map_err(err)?;
    }
    Ok(())
}

/// A label's box in pixels.
#[derive(Debug, Clone, Copy)]
struct Box2 {
    x: i32,
    y: i32,
    w: i32,
    h: i32,
}

impl Box2 {
    fn grown(self, by: i32) -> Box2 {
        Box2 {
            x: self.x - by,
            y: self.y - by,
            w: self.w + 2 * by,
            h: self.h + 2 * by,
        }
    }

    fn holds(&self, (x, y): (i32, i32)) -> bool {
        x >= self.x && x <= self.x + self.w && y >= self.y && y <= self.y + self.h
    }

    fn meets(&self, o: &Box2) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }
}

/// Bars: one per solid line in each category, side by side in the lines' order, a marker on
/// top (greyscale tells them apart); a dashed or dotted line of the same colour is a short
/// mark across its bar.
fn draw_bars<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    lines: &[Line],
    theme: ChartTheme,
) -> Result<(), DrawError> {
    let bars: Vec<&Line> = lines.iter().filter(|l| l.stroke == Stroke::Solid).collect();
    let width = 0.8 / bars.len().max(1) as f64;
    let slot = |colour: usize| bars.iter().position(|b| b.colour == colour);
    let left = |k: usize, x: f64| x - 0.4 + width * k as f64;
    for (k, bar) in bars.iter().enumerate() {
        let colour = theme.colour(bar.colour);
        let shape = marker_shape(bar.colour);
        let drawn = bar.points.iter().filter(|p| p.1.is_finite());
        chart
            .draw_series(drawn.clone().map(|&(x, y)| {
                let x0 = left(k, x) + width * 0.05;
                let x1 = left(k, x) + width * 0.95;
                Rectangle::new([(x0, 0.0), (x1, y)], colour.mix(0.85).filled())
            }))
            .map_err(err)?;
        let dots = shape.clone();
        chart
            .draw_series(drawn.map(move |&(x, y)| {
                let top = (left(k, x) + width / 2.0, y);
                EmptyElement::at(top) + Polygon::new(dots.clone(), theme.foreground().filled())
            }))
            .map_err(err)?;
    }
    for line in lines.iter().filter(|l| l.stroke != Stroke::Solid) {
        let Some(k) = slot(line.colour) else { continue };
        let style = ShapeStyle::from(theme.colour(line.colour)).stroke_width(3);
        for &(x, y) in line.points.iter().filter(|p| p.1.is_finite()) {
            let run = vec![(left(k, x), y), (left(k, x) + width, y)];
            series(chart, line.stroke, run, style)?;
        }
    }
    Ok(())
}

/// The lines as drawn on a y axis ending at `top`: a reference line's points above it become
/// gaps, and a note says where it was and how high it went.
fn clip(panel: &ChartPanel, top: f64) -> (Vec<Line>, Vec<String>) {
    let mut notes = Vec::new();
    let lines = panel
        .lines
        .iter()
        .map(|line| {
            let Some(name) = &line.off_chart else {
                return line.clone();
            };
            // Runs of consecutive points above the axis, as x ranges: `5 to 15, 25 to 60`.
            let mut runs: Vec<(f64, f64)> = Vec::new();
            let mut high = f64::NEG_INFINITY;
            let mut low = f64::INFINITY;
            let mut open = false;
            for &(x, y) in &line.points {
                let above = y.is_finite() && y > top;
                if above {
                    high = high.max(y);
                    low = low.min(y);
                    match runs.last_mut() {
                        Some(run) if open => run.1 = x,
                        _ => runs.push((x, x)),
                    }
                }
                open = above;
            }
            if !runs.is_empty() {
                let at = |x: f64| panel_x(panel, x);
                let spans: Vec<String> = runs
                    .iter()
                    .map(|&(a, b)| {
                        if a == b {
                            at(a)
                        } else {
                            format!("{} to {}", at(a), at(b))
                        }
                    })
                    .collect();
                let values = if high - low > 1e-9 {
                    format!("{} to {}", tick(low), tick(high))
                } else {
                    tick(high)
                };
                notes.push(format!(
                    "{name} above the chart at {}: {values}",
                    spans.join(", ")
                ));
            }
            let points = line
                .points
                .iter()
                .map(|&(x, y)| if y > top { (x, f64::NAN) } else { (x, y) })
                .collect();
            Line {
                points,
                ..line.clone()
            }
        })
        .collect();
    (lines, notes)
}

/// An x value as its tick would read (the category's name on a category axis).
fn panel_x(panel: &ChartPanel, x: f64) -> String {
    if panel.categories.is_empty() {
        tick(x)
    } else {
        let i = x.round().max(0.0) as usize;
        panel.categories.get(i).cloned().unwrap_or_else(|| tick(x))
    }
}

type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

fn draw_line<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    line: &Line,
    theme: ChartTheme,
) -> Result<(), DrawError> {
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

/// The panel's bands: each a translucent rectangle over its stretch of the x axis, the full
/// height of the panel, with a legend entry where it has a label.
fn draw_bands<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    panel: &ChartPanel,
    theme: ChartTheme,
) -> Result<(), DrawError> {
    let (ys, xs) = (chart.y_range(), chart.x_range());
    for band in &panel.bands {
        let from = band.from.max(xs.start);
        let to = band.to.min(xs.end);
        if to <= from {
            continue;
        }
        let colour = theme.colour(band.colour);
        let area = Rectangle::new([(from, ys.start), (to, ys.end)], colour.mix(0.22).filled());
        let anno = chart.draw_series(std::iter::once(area)).map_err(err)?;
        if let Some(label) = &band.label {
            anno.label(label.clone()).legend(move |(x, y)| {
                Rectangle::new([(x, y - 8), (x + 36, y + 8)], colour.mix(0.45).filled())
            });
        }
    }
    Ok(())
}

/// One unbroken run of a line, solid or dashed.
fn series<'a, 'b, DB: DrawingBackend + 'a>(
    chart: &'b mut Chart<'a, DB>,
    stroke: Stroke,
    run: Vec<(f64, f64)>,
    style: ShapeStyle,
) -> Result<&'b mut SeriesAnno<'a, DB>, DrawError> {
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

fn bounds(panel: &ChartPanel) -> (std::ops::Range<f64>, std::ops::Range<f64>) {
    let pts = || panel.lines.iter().flat_map(|l| l.points.iter());
    let fitting = || {
        panel
            .lines
            .iter()
            .filter(|l| l.off_chart.is_none())
            .flat_map(|l| l.points.iter())
            .chain(panel.marks.iter().map(|m| &m.at))
            .filter(|p| p.1.is_finite())
    };
    let x0 = pts().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let x1 = pts().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let y1 = fitting().map(|p| p.1).fold(0.0, f64::max);
    // A reference line with nothing else to fit (no data yet) sets the axis after all.
    let y1 = if y1 > 0.0 {
        y1
    } else {
        pts()
            .map(|p| p.1)
            .filter(|y| y.is_finite())
            .fold(0.0, f64::max)
    };
    let (x0, x1) = if !panel.categories.is_empty() {
        (-0.5, panel.categories.len() as f64 - 0.5)
    } else if x0.is_finite() && x1 > x0 {
        (x0, x1)
    } else if x0.is_finite() {
        (x0 - 1.0, x0 + 1.0)
    } else {
        (0.0, 1.0)
    };
    let y1 = if y1 > 0.0 { y1 * 1.15 } else { 1.0 };
    (x0..x1, 0.0..y1)
}

/// The legend's corner and the y axis it needs: the corner of the plot (45 % by 40 %) that no
/// line crosses; when every corner is crossed, the axis grows so the lines keep to the lower
/// part and the legend takes the emptier upper corner. Bars fill from the bottom, so a chart
/// of bars always keeps its top free.
fn legend_room(
    panel: &ChartPanel,
    xs: std::ops::Range<f64>,
    ys: std::ops::Range<f64>,
) -> (std::ops::Range<f64>, SeriesLabelPosition) {
    let corners = [
        (SeriesLabelPosition::UpperLeft, false, true),
        (SeriesLabelPosition::UpperRight, true, true),
        (SeriesLabelPosition::LowerRight, true, false),
        (SeriesLabelPosition::LowerLeft, false, false),
    ];
    let crowd = |ys: &std::ops::Range<f64>, right: bool, upper: bool| {
        let fx = |x: f64| (x - xs.start) / (xs.end - xs.start);
        let fy = |y: f64| (y - ys.start) / (ys.end - ys.start);
        traced(panel)
            .filter(|&(x, y)| {
                let inside_x = if right { fx(x) >= 0.5 } else { fx(x) <= 0.5 };
                let inside_y = if upper { fy(y) >= 0.55 } else { fy(y) <= 0.45 };
                inside_x && inside_y
            })
            .count()
    };
    let pick = |ys: &std::ops::Range<f64>, upper_only: bool| {
        corners
            .iter()
            .filter(|c| c.2 || !upper_only)
            .map(|(p, right, upper)| (crowd(ys, *right, *upper), p.clone()))
            .min_by_key(|(n, _)| *n)
    };
    let bars = !panel.categories.is_empty();
    if !bars && let Some((0, corner)) = pick(&ys, false) {
        return (ys, corner);
    }
    let raised = ys.start..ys.start + (ys.end - ys.start) / 1.15 / UNDER_LEGEND;
    let corner = pick(&raised, true).map_or(SeriesLabelPosition::UpperRight, |(_, p)| p);
    (raised, corner)
}

/// Points along every drawn line (and every bar, top to bottom), close enough together that
/// a line crossing a corner is seen there even between its samples.
fn traced(panel: &ChartPanel) -> impl Iterator<Item = (f64, f64)> + '_ {
    const STEPS: usize = 16;
    let bars = !panel.categories.is_empty();
    panel.lines.iter().flat_map(move |l| {
        let pts: Vec<(f64, f64)> = l
            .points
            .iter()
            .copied()
            .filter(|p| p.1.is_finite())
            .collect();
        let mut out: Vec<(f64, f64)> = Vec::new();
        if bars {
            for &(x, y) in &pts {
                out.extend((0..=STEPS).map(|k| (x, y * k as f64 / STEPS as f64)));
            }
        } else {
            out.extend(pts.first().copied());
            for w in l.points.windows(2) {
                let ((x0, y0), (x1, y1)) = (w[0], w[1]);
                if !(y0.is_finite() && y1.is_finite()) {
                    out.extend([w[1]].into_iter().filter(|p| p.1.is_finite()));
                    continue;
                }
                out.extend((1..=STEPS).map(|k| {
                    let t = k as f64 / STEPS as f64;
                    (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t)
                }));
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panel(lines: Vec<Vec<(f64, f64)>>) -> ChartPanel {
        ChartPanel {
            lines: lines
                .into_iter()
                .map(|points| Line {
                    label: Some("a".into()),
                    points,
                    colour: 0,
                    stroke: Stroke::Solid,
                    off_chart: None,
                })
                .collect(),
            ..ChartPanel::default()
        }
    }

    #[test]
    fn the_legend_takes_a_corner_no_line_crosses() {
        // Two lines from corner to corner: their samples sit only at the ends, but their
        // segments cross every corner, so the axis grows and the legend goes above them.
        let p = panel(vec![
            vec![(0.0, 0.0), (10.0, 10.0)],
            vec![(0.0, 10.0), (10.0, 0.0)],
        ]);
        let (xs, ys) = bounds(&p);
        let (raised, corner) = legend_room(&p, xs, ys.clone());
        assert!(10.0 / raised.end <= UNDER_LEGEND + 1e-9, "{raised:?}");
        assert!(matches!(
            corner,
            SeriesLabelPosition::UpperLeft | SeriesLabelPosition::UpperRight
        ));
        // One rising line leaves the upper left free: nothing moves.
        let p = panel(vec![vec![(0.0, 0.0), (10.0, 10.0)]]);
        let (xs, ys) = bounds(&p);
        let (same, corner) = legend_room(&p, xs, ys.clone());
        assert_eq!(same, ys);
        assert!(matches!(corner, SeriesLabelPosition::UpperLeft));
    }
}

//! Pictures of the TUI for slides: a screen drawn by the TUI's own render code (on ratatui's
//! `TestBackend`, or the frame the terminal just showed) written as SVG or PNG.
//!
//! One cell is a fixed box in both: the SVG places every character at its cell's x (so any
//! monospace font lines up, and the text stays text you can select and search), and the PNG
//! is rasterised here with the font the charts embed (`assets/fonts/DejaVuSans.ttf`, through
//! ab_glyph), box-drawing and block characters drawn as lines and fills so borders join.

use std::fmt::Write as _;
use std::path::Path;

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

use crate::files::{OutputError, OutputFile};
use crate::scenario::{Scenario, Strategy};
use crate::time::Nanos;
use crate::tui::Theme;
use crate::tui::app::App;
use crate::tui::keys::Key;
use crate::tui::script;

static FONT_BYTES: &[u8] = include_bytes!("../assets/fonts/DejaVuSans.ttf");

/// SVG cell, in pixels (a 15 px monospace font advances about 9 px).
const SVG_CELL: (u32, u32) = (9, 18);
const SVG_FONT_PX: u32 = 15;
/// The fonts an SVG asks for: all draw box-drawing glyphs at one cell's width.
const FONT_STACK: &str = "'DejaVu Sans Mono', 'Cascadia Mono', Menlo, Consolas, \
                          'Liberation Mono', 'Noto Sans Mono', monospace";
/// PNG cell, in pixels, and the font size drawn in it.
const PNG_CELL: (u32, u32) = (10, 20);
const PNG_FONT_PX: f32 = 16.0;

/// Why a picture could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ScreenshotError {
    #[error("--out {0:?}: the file name must end in .svg or .png")]
    Extension(String),
    /// Not written (a full disk, a path that is not a file to replace): the path is as it
    /// was.
    #[error("{0}")]
    Output(#[from] OutputError),
    #[error("{path}: cannot write the picture: {error}")]
    Encode { path: String, error: PngError },
    /// `p` found `threadlab-screen-<stamp>.svg` and its `-2` to `-999` all taken.
    #[error("{path}: cannot write the picture: 999 pictures already have this second's name")]
    NamesTaken { path: String },
}

/// Why the screen could not be made a PNG.
#[derive(Debug, thiserror::Error)]
pub enum PngError {
    #[error("the embedded font is unreadable")]
    Font,
    #[error("{0}")]
    Encode(#[from] ::png::EncodingError),
}

/// A `--size` that is not `WIDTHxHEIGHT` within [`COLUMNS`] and [`ROWS`]; it holds the text
/// given (elided).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "--size {0:?}: allowed WIDTHxHEIGHT with width {w0}..={w1} and height {h0}..={h1}, e.g. \
     120x40",
    w0 = COLUMNS.start(),
    w1 = COLUMNS.end(),
    h0 = ROWS.start(),
    h1 = ROWS.end()
)]
pub struct SizeError(pub String);

/// The picture formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Svg,
    Png,
}

/// The format a file name asks for (`.svg` or `.png`).
pub fn format_of(path: &Path) -> Result<Format, ScreenshotError> {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("svg") => Ok(Format::Svg),
        Some(e) if e.eq_ignore_ascii_case("png") => Ok(Format::Png),
        _ => Err(ScreenshotError::Extension(path.display().to_string())),
    }
}

/// The screen `app` shows on a `width` x `height` terminal, drawn by the TUI's own code.
pub fn render(app: &App, width: u16, height: u16) -> Buffer {
    let backend = TestBackend::new(width, height);
    // A TestBackend cannot fail to draw: the error type is Infallible.
    let mut terminal = match Terminal::new(backend) {
        Ok(t) => t,
        Err(never) => match never {},
    };
    let snapshot = app.snapshot();
    if let Err(never) = terminal.draw(|frame| crate::tui::ui::render(frame, app, &snapshot)) {
        match never {}
    }
    terminal.backend().buffer().clone()
}

/// What to photograph: the screen after `at` of simulated time and then `keys`.
#[derive(Debug, Clone, PartialEq)]
pub struct Shot {
    pub at: Nanos,
    pub keys: Vec<Key>,
    /// Columns and rows.
    pub size: (u16, u16),
    pub theme: Theme,
}

/// The sizes a picture may have, in cells: at least the smallest screen the TUI draws (a
/// smaller one shows only that it needs more room), at most what a slide could show.
pub const COLUMNS: std::ops::RangeInclusive<u16> = crate::tui::ui::MIN_WIDTH..=1000;
pub const ROWS: std::ops::RangeInclusive<u16> = crate::tui::ui::MIN_HEIGHT..=500;

/// `120x40` as (columns, rows), within [`COLUMNS`] and [`ROWS`].
pub fn parse_size(text: &str) -> Result<(u16, u16), SizeError> {
    let parsed = text
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse::<u16>().ok()?, h.trim().parse::<u16>().ok()?)));
    match parsed {
        Some((w, h)) if COLUMNS.contains(&w) && ROWS.contains(&h) => Ok((w, h)),
        _ => Err(SizeError(crate::scenario::elide(text, 20))),
    }
}

/// Plays `scenario` under `strategy` headless as [`Shot`] says and draws the screen, with
/// the same render code, clock and keys as the TUI: the same request gives the same picture.
pub fn take(scenario: Scenario, strategy: Strategy, request: &Shot) -> Buffer {
    take_after(scenario, strategy, request, &[])
}

/// [`take`], pressing each of `steps`' keys at its simulated time on the way to the shot's
/// `at` (a step after it is pressed at it).
pub fn take_after(
    scenario: Scenario,
    strategy: Strategy,
    request: &Shot,
    steps: &[(Nanos, Vec<Key>)],
) -> Buffer {
    let mut app = App::new(scenario, strategy, request.theme);
    // A timeline opened by the keys shows the threads since t 0, not since the keys.
    app.record_timelines();
    for (at, keys) in steps {
        script::play_to(&mut app, (*at).min(request.at));
        for &key in keys {
            app.press(key);
        }
        script::settle(&mut app);
    }
    script::play_to(&mut app, request.at);
    for &key in &request.keys {
        app.press(key);
    }
    script::settle(&mut app);
    render(&app, request.size.0, request.size.1)
}

/// Keys pressed at simulated times, in order.
pub type KeySteps = Vec<(Nanos, Vec<Key>)>;

/// `--keys` with times: `TIME KEYS; TIME KEYS` (`"30s C; 70s z"`), each step's keys pressed
/// at its simulated time, in order. `None` when `text` is not of that form (its first word is
/// no duration followed by keys): then it is keys pressed at `--at`.
pub fn timed_keys(text: &str) -> Option<Result<KeySteps, String>> {
    let (first, _) = text.trim_start().split_once(char::is_whitespace)?;
    crate::scenario::parse_duration(first).ok()?;
    let mut steps: KeySteps = Vec::new();
    for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let parsed = part
            .split_once(char::is_whitespace)
            .and_then(|(time, keys)| {
                let at = crate::scenario::parse_duration(time).ok()?;
                Some((at, keys.trim()))
            });
        let Some((at, keys)) = parsed else {
            return Some(Err(format!(
                "{part:?}: write each step as TIME KEYS (\"30s C; 70s z\")"
            )));
        };
        if let Some((before, _)) = steps.last()
            && at < *before
        {
            return Some(Err(format!(
                "{part:?}: the steps go in time order ({at} comes before {before})"
            )));
        }
        match script::parse_keys(keys) {
            Ok(keys) => steps.push((at, keys)),
            Err(e) => return Some(Err(format!("{part:?}: {e}"))),
        }
    }
    Some(Ok(steps))
}

/// Writes `buffer` to `out` as SVG or PNG (by its extension), whole or not at all.
pub fn write(buffer: &Buffer, theme: Theme, out: OutputFile) -> Result<(), ScreenshotError> {
    write_scaled(buffer, theme, out, 1)
}

/// The most `--scale` a picture takes.
pub const MAX_SCALE: u32 = 4;

/// [`write`], `scale` times the size (2: for a high-DPI slide; a PNG is drawn at that size,
/// an SVG says that size and keeps its drawing).
pub fn write_scaled(
    buffer: &Buffer,
    theme: Theme,
    out: OutputFile,
    scale: u32,
) -> Result<(), ScreenshotError> {
    let scale = scale.clamp(1, MAX_SCALE);
    let path = out.path();
    let bytes = match format_of(path)? {
        Format::Svg => svg_scaled(buffer, theme, scale).into_bytes(),
        Format::Png => {
            png_scaled(buffer, theme, scale).map_err(|error| ScreenshotError::Encode {
                path: path.display().to_string(),
                error,
            })?
        }
    };
    out.write(|w| w.write_all(&bytes))?;
    Ok(())
}

/// `20261202-031502` for a moment, in UTC, for file names.
pub fn utc_stamp(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// Howard Hinnant's days-to-civil: (year, month, day) of a day count since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Saves `buffer` as `threadlab-screen-<stamp>.svg` in `dir` (`""`: the working directory;
/// `-2`, `-3`... when that name is taken: a picture never overwrites another), whole or not at
/// all. Returns the path.
pub fn save_new(
    buffer: &Buffer,
    theme: Theme,
    dir: &Path,
    stamp: &str,
) -> Result<std::path::PathBuf, ScreenshotError> {
    let text = svg(buffer, theme);
    let names = (1..1000).map(|n| {
        if n == 1 {
            format!("threadlab-screen-{stamp}.svg")
        } else {
            format!("threadlab-screen-{stamp}-{n}.svg")
        }
    });
    crate::files::save_new(dir, names, text.as_bytes())?.ok_or_else(|| {
        ScreenshotError::NamesTaken {
            path: format!("threadlab-screen-{stamp}.svg"),
        }
    })
}

/// The picture's size in pixels for a buffer: (SVG, PNG).
pub fn pixel_size(width: u16, height: u16, format: Format) -> (u32, u32) {
    let (w, h) = match format {
        Format::Svg => SVG_CELL,
        Format::Png => PNG_CELL,
    };
    (u32::from(width) * w, u32::from(height) * h)
}

/// A cell's colours and weight, resolved against the theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Look {
    fg: Rgb,
    bg: Rgb,
    bold: bool,
}

type Rgb = (u8, u8, u8);

fn look(cell: &ratatui::buffer::Cell, theme: Theme) -> Look {
    let (default_fg, default_bg) = defaults(theme);
    let mut fg = rgb(cell.fg).unwrap_or(default_fg);
    let mut bg = rgb(cell.bg).unwrap_or(default_bg);
    if cell.modifier.contains(Modifier::REVERSED) {
        std::mem::swap(&mut fg, &mut bg);
    }
    if cell.modifier.contains(Modifier::DIM) {
        fg = mix(fg, bg, 0.5);
    }
    Look {
        fg,
        bg,
        bold: cell.modifier.contains(Modifier::BOLD),
    }
}

/// The terminal's own text and background colours a theme is drawn on.
fn defaults(theme: Theme) -> (Rgb, Rgb) {
    match theme {
        Theme::Light => ((0, 0, 0), (255, 255, 255)),
        Theme::Dark | Theme::NoColor => ((229, 229, 229), (24, 24, 24)),
    }
}

/// A colour as RGB; `None` for the terminal's default.
fn rgb(color: Color) -> Option<Rgb> {
    let c = match color {
        Color::Reset => return None,
        Color::Rgb(r, g, b) => (r, g, b),
        Color::Indexed(i) => indexed(i),
        Color::Black => ANSI[0],
        Color::Red => ANSI[1],
        Color::Green => ANSI[2],
        Color::Yellow => ANSI[3],
        Color::Blue => ANSI[4],
        Color::Magenta => ANSI[5],
        Color::Cyan => ANSI[6],
        Color::Gray => ANSI[7],
        Color::DarkGray => ANSI[8],
        Color::LightRed => ANSI[9],
        Color::LightGreen => ANSI[10],
        Color::LightYellow => ANSI[11],
        Color::LightBlue => ANSI[12],
        Color::LightMagenta => ANSI[13],
        Color::LightCyan => ANSI[14],
        Color::White => ANSI[15],
    };
    Some(c)
}

/// The 16 ANSI colours as xterm draws them.
const ANSI: [Rgb; 16] = [
    (0, 0, 0),
    (205, 0, 0),
    (0, 205, 0),
    (205, 205, 0),
    (0, 0, 238),
    (205, 0, 205),
    (0, 205, 205),
    (229, 229, 229),
    (127, 127, 127),
    (255, 0, 0),
    (0, 255, 0),
    (255, 255, 0),
    (92, 92, 255),
    (255, 0, 255),
    (0, 255, 255),
    (255, 255, 255),
];

/// xterm's 256 colours: the 16 ANSI, a 6x6x6 cube, 24 greys.
pub(crate) fn indexed(i: u8) -> Rgb {
    const LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    match i {
        0..=15 => ANSI[usize::from(i)],
        16..=231 => {
            let n = usize::from(i - 16);
            (LEVELS[n / 36], LEVELS[(n / 6) % 6], LEVELS[n % 6])
        }
        _ => {
            let g = 8 + 10 * (i - 232);
            (g, g, g)
        }
    }
}

fn mix(a: Rgb, b: Rgb, t: f32) -> Rgb {
    let m = |x: u8, y: u8| (f32::from(x) * (1.0 - t) + f32::from(y) * t).round() as u8;
    (m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
}

fn hex((r, g, b): Rgb) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// The screen as SVG: a rectangle per run of one background, a `<text>` per run of one
/// colour and weight with every character at its cell's x.
pub fn svg(buffer: &Buffer, theme: Theme) -> String {
    svg_scaled(buffer, theme, 1)
}

/// [`svg`], shown `scale` times the size: the same drawing in a larger frame.
pub fn svg_scaled(buffer: &Buffer, theme: Theme, scale: u32) -> String {
    let area = buffer.area;
    let (cw, ch) = SVG_CELL;
    let (width, height) = pixel_size(area.width, area.height, Format::Svg);
    let (_, page) = defaults(theme);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" \
         viewBox=\"0 0 {width} {height}\">",
        width * scale,
        height * scale
    );
    let _ = writeln!(
        out,
        "<style>text{{font-family:{FONT_STACK};font-size:{SVG_FONT_PX}px;white-space:pre}}\
         .b{{font-weight:bold}}</style>"
    );
    let _ = writeln!(
        out,
        "<rect width=\"100%\" height=\"100%\" fill=\"{}\"/>",
        hex(page)
    );
    for y in 0..area.height {
        let row: Vec<(String, Look)> = (0..area.width)
            .map(|x| {
                let cell = &buffer[(area.x + x, area.y + y)];
                (cell.symbol().to_string(), look(cell, theme))
            })
            .collect();
        let top = u32::from(y) * ch;
        for (start, len, l) in runs(&row, |a, b| a.bg == b.bg) {
            if l.bg != page {
                let _ = writeln!(
                    out,
                    "<rect x=\"{}\" y=\"{top}\" width=\"{}\" height=\"{ch}\" fill=\"{}\"/>",
                    start as u32 * cw,
                    len as u32 * cw,
                    hex(l.bg)
                );
            }
        }
        // The baseline sits a fifth of the cell above its bottom.
        let baseline = top + ch - ch / 5;
        for (start, len, l) in runs(&row, |a, b| a.fg == b.fg && a.bold == b.bold) {
            let cells = &row[start..start + len];
            // Trailing blanks draw nothing: left out.
            let kept = cells
                .iter()
                .rposition(|(s, _)| !s.trim().is_empty())
                .map_or(0, |i| i + 1);
            if kept == 0 {
                continue;
            }
            let cells = &cells[..kept];
            let mut xs = String::new();
            let mut text = String::new();
            for (i, (symbol, _)) in cells.iter().enumerate() {
                // A wide character's second cell is empty: it has no x of its own.
                if symbol.is_empty() {
                    continue;
                }
                for c in symbol.chars() {
                    let _ = write!(xs, "{} ", (start + i) as u32 * cw);
                    escape(c, &mut text);
                }
            }
            let class = if l.bold { " class=\"b\"" } else { "" };
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{baseline}\" fill=\"{}\"{class}>{text}</text>",
                xs.trim_end(),
                hex(l.fg)
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

/// Runs of neighbouring cells that `same` groups: (start, length, look).
fn runs(row: &[(String, Look)], same: impl Fn(&Look, &Look) -> bool) -> Vec<(usize, usize, Look)> {
    let mut out: Vec<(usize, usize, Look)> = Vec::new();
    for (i, (_, l)) in row.iter().enumerate() {
        match out.last_mut() {
            Some((_, len, last)) if same(last, l) => *len += 1,
            _ => out.push((i, 1, *l)),
        }
    }
    out
}

fn escape(c: char, out: &mut String) {
    match c {
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        c if c.is_control() => out.push(' '),
        c => out.push(c),
    }
}

/// The screen as PNG (RGB, 8 bits), rasterised here.
pub fn png(buffer: &Buffer, theme: Theme) -> Result<Vec<u8>, PngError> {
    png_scaled(buffer, theme, 1)
}

/// [`png`] drawn `scale` times the size: cells, font and lines all `scale` times larger.
pub fn png_scaled(buffer: &Buffer, theme: Theme, scale: u32) -> Result<Vec<u8>, PngError> {
    let area = buffer.area;
    let (width, height) = pixel_size(area.width, area.height, Format::Png);
    let (width, height) = (width * scale, height * scale);
    let font = FontRef::try_from_slice(FONT_BYTES).map_err(|_| PngError::Font)?;
    let size = (PNG_CELL.0 * scale, PNG_CELL.1 * scale);
    let mut canvas = Canvas {
        width,
        pixels: vec![0; (width * height * 3) as usize],
        cell: size,
        font_px: PNG_FONT_PX * scale as f32,
        line: scale,
    };
    for y in 0..area.height {
        for x in 0..area.width {
            let cell = &buffer[(area.x + x, area.y + y)];
            let l = look(cell, theme);
            let (left, top) = (u32::from(x) * size.0, u32::from(y) * size.1);
            canvas.fill(left, top, size.0, size.1, l.bg, 1.0);
            let mut chars = cell.symbol().chars();
            if let (Some(c), None) = (chars.next(), chars.next())
                && !c.is_whitespace()
                && !canvas.shape(c, left, top, l)
            {
                canvas.glyph(&font, c, left, top, l);
            }
        }
    }
    let mut out = Vec::new();
    {
        let mut encoder = ::png::Encoder::new(&mut out, width, height);
        encoder.set_color(::png::ColorType::Rgb);
        encoder.set_depth(::png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&canvas.pixels)?;
    }
    Ok(out)
}

/// An RGB picture being drawn.
struct Canvas {
    width: u32,
    pixels: Vec<u8>,
    /// A cell's size, the font's and a box line's thickness, in pixels.
    cell: (u32, u32),
    font_px: f32,
    line: u32,
}

impl Canvas {
    /// Blends `color` over the rectangle with `alpha` (0..=1).
    fn fill(&mut self, x: u32, y: u32, w: u32, h: u32, color: Rgb, alpha: f32) {
        for py in y..y + h {
            for px in x..x + w {
                self.blend(px, py, color, alpha);
            }
        }
    }

    fn blend(&mut self, x: u32, y: u32, (r, g, b): Rgb, alpha: f32) {
        let i = ((y * self.width + x) * 3) as usize;
        if x >= self.width || i + 2 >= self.pixels.len() {
            return;
        }
        let a = alpha.clamp(0.0, 1.0);
        for (k, c) in [r, g, b].into_iter().enumerate() {
            let old = f32::from(self.pixels[i + k]);
            self.pixels[i + k] = (old + (f32::from(c) - old) * a).round() as u8;
        }
    }

    /// Box-drawing lines and block fills, drawn so neighbouring cells join; false for any
    /// other character.
    fn shape(&mut self, c: char, x: u32, y: u32, l: Look) -> bool {
        let (w, h) = self.cell;
        let t = self.line;
        let (cx, cy) = (x + w / 2, y + h / 2);
        let shade = |alpha: f32, canvas: &mut Canvas| canvas.fill(x, y, w, h, l.fg, alpha);
        match c {
            '█' => shade(1.0, self),
            '▓' => shade(0.75, self),
            '▒' => shade(0.5, self),
            '░' => shade(0.25, self),
            '▀' => self.fill(x, y, w, h / 2, l.fg, 1.0),
            // Lower eighths (sparklines, bars): n eighths of the cell from its bottom.
            '▁'..='▇' => {
                let eighths = c as u32 - '▁' as u32 + 1;
                let filled = h * eighths / 8;
                self.fill(x, y + h - filled, w, filled, l.fg, 1.0);
            }
            // Left eighths (gauges): ▉ is seven eighths of the width, ▏ one.
            '▉'..='▏' => {
                let eighths = 7 - (c as u32 - '▉' as u32);
                self.fill(x, y, w * eighths / 8, h, l.fg, 1.0);
            }
            _ => {
                let Some([up, down, left, right]) = box_arms(c) else {
                    return false;
                };
                if up {
                    self.fill(cx, y, t, h / 2 + t, l.fg, 1.0);
                }
                if down {
                    self.fill(cx, cy, t, h - h / 2, l.fg, 1.0);
                }
                if left {
                    self.fill(x, cy, w / 2 + t, t, l.fg, 1.0);
                }
                if right {
                    self.fill(cx, cy, w - w / 2, t, l.fg, 1.0);
                }
            }
        }
        true
    }

    /// A character from the font, centred in its cell on a common baseline.
    fn glyph(&mut self, font: &FontRef<'_>, c: char, x: u32, y: u32, l: Look) {
        let id = font.glyph_id(c);
        // A glyph wider than its cell (`m`, `W` in a proportional font) is narrowed to fit.
        let (cell, font_px) = (self.cell, self.font_px);
        let natural = font.as_scaled(PxScale::from(font_px)).h_advance(id);
        let narrow = (cell.0 as f32 / natural).min(1.0);
        let scale = PxScale {
            x: font_px * narrow,
            y: font_px,
        };
        let scaled = font.as_scaled(scale);
        let advance = scaled.h_advance(id);
        let left = x as f32 + ((cell.0 as f32 - advance) / 2.0).max(0.0);
        let baseline = y as f32 + (cell.1 as f32 + scaled.ascent() + scaled.descent()) / 2.0;
        let glyph = id.with_scale_and_position(scale, point(left, baseline));
        let Some(outlined) = font.outline_glyph(glyph) else {
            return;
        };
        let bounds = outlined.px_bounds();
        let weight = if l.bold { 1.35 } else { 1.0 };
        outlined.draw(|gx, gy, coverage| {
            let px = bounds.min.x + gx as f32;
            let py = bounds.min.y + gy as f32;
            if px >= 0.0 && py >= 0.0 {
                self.blend(px as u32, py as u32, l.fg, coverage * weight);
            }
        });
    }
}

/// Which arms (up, down, left, right) a light or heavy box-drawing character has.
fn box_arms(c: char) -> Option<[bool; 4]> {
    let arms = match c {
        '─' | '━' | '═' => [false, false, true, true],
        '│' | '┃' | '║' => [true, true, false, false],
        '┌' | '╭' | '┏' | '╔' => [false, true, false, true],
        '┐' | '╮' | '┓' | '╗' => [false, true, true, false],
        '└' | '╰' | '┗' | '╚' => [true, false, false, true],
        '┘' | '╯' | '┛' | '╝' => [true, false, true, false],
        '├' | '┣' | '╠' => [true, true, false, true],
        '┤' | '┫' | '╣' => [true, true, true, false],
        '┬' | '┳' | '╦' => [false, true, true, true],
        '┴' | '┻' | '╩' => [true, false, true, true],
        '┼' | '╋' | '╬' => [true, true, true, true],
        _ => return None,
    };
    Some(arms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    fn buffer() -> Buffer {
        let mut b = Buffer::empty(Rect::new(0, 0, 6, 2));
        b.set_string(0, 0, "┌a<&┐", Style::new().fg(Color::Red));
        b.set_string(0, 1, "└──█┘", Style::new().bg(Color::Indexed(21)));
        b
    }

    #[test]
    fn svg_places_each_character_in_its_cell_and_escapes_markup() {
        let svg = svg(&buffer(), Theme::Dark);
        let doc = roxmltree::Document::parse(&svg).expect("well-formed");
        let texts: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .collect();
        let first = texts[0];
        assert_eq!(first.text(), Some("┌a<&┐"));
        assert_eq!(first.attribute("x"), Some("0 9 18 27 36"));
        assert_eq!(first.attribute("fill"), Some("#cd0000"));
        // The blue background of the second row is a rectangle five cells wide.
        assert!(
            svg.contains("<rect x=\"0\" y=\"18\" width=\"45\" height=\"18\" fill=\"#0000ff\"/>")
        );
    }

    #[test]
    fn a_saved_screen_never_overwrites_another() {
        let dir = std::env::temp_dir().join(format!("threadlab-save-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp folder");
        let first = save_new(&buffer(), Theme::Dark, &dir, "20260101-000000").expect("saved");
        let second = save_new(&buffer(), Theme::Dark, &dir, "20260101-000000").expect("saved");
        assert_eq!(first, dir.join("threadlab-screen-20260101-000000.svg"));
        assert_eq!(second, dir.join("threadlab-screen-20260101-000000-2.svg"));
        let text = std::fs::read_to_string(&second).expect("written");
        assert_eq!(text, svg(&buffer(), Theme::Dark));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn p_asks_the_frame_loop_for_the_screen_once() {
        let scenario = crate::scenario::load("ironthread", &[]).expect("preset");
        let mut app = App::new(scenario, Strategy::Bulkhead, Theme::Dark);
        assert!(!app.take_screen_request());
        app.press(Key::Char('p'));
        assert!(app.take_screen_request());
        assert!(!app.take_screen_request());
    }

    /// The README's example: the timeline opened by the keys at 3 s shows the IronThread
    /// threads' calls of the first 3 s, not an empty view recording from 3 s.
    #[test]
    fn a_timeline_in_a_screenshot_shows_the_threads_since_t_0() {
        let scenario = crate::scenario::load("ironthread", &[]).expect("preset");
        let shot = Shot {
            at: Nanos::from_secs(3),
            keys: crate::tui::script::parse_keys("3<Tab>t").expect("keys"),
            size: (80, 24),
            theme: Theme::Dark,
        };
        let buffer = take(scenario, Strategy::Bulkhead, &shot);
        let text: String = buffer
            .content
            .iter()
            .map(ratatui::buffer::Cell::symbol)
            .collect();
        assert!(!text.contains("no thread has worked"), "{text}");
        // Requests 1 to 3 (0, 1 and 2 s) each ran three calls on IronThread-1 to -9.
        for thread in ["IronThread-3", "IronThread-6", "IronThread-9"] {
            assert!(text.contains(thread), "{thread}");
        }
    }

    #[test]
    fn stamps_are_utc_calendar_times() {
        let at = |s: u64| utc_stamp(std::time::UNIX_EPOCH + std::time::Duration::from_secs(s));
        assert_eq!(at(0), "19700101-000000");
        // 2024-02-29 23:59:59, a leap day.
        assert_eq!(at(1_709_251_199), "20240229-235959");
        assert_eq!(at(1_764_646_502), "20251202-033502");
    }

    #[test]
    fn png_fills_blocks_and_joins_box_lines() {
        let bytes = png(&buffer(), Theme::Light).expect("encodes");
        let decoder = ::png::Decoder::new(bytes.as_slice());
        let mut reader = decoder.read_info().expect("a png");
        let mut pixels = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut pixels).expect("a frame");
        assert_eq!((info.width, info.height), (60, 40));
        let at = |x: u32, y: u32| {
            let i = ((y * info.width + x) * 3) as usize;
            (pixels[i], pixels[i + 1], pixels[i + 2])
        };
        // `█` in cell (3, 1) is the text colour over the whole cell.
        assert_eq!(at(35, 30), (0, 0, 0));
        // `─` in cells (1, 1) and (2, 1) is one line across the cell edge.
        assert_eq!(at(19, 30), (0, 0, 0));
        assert_eq!(at(20, 30), (0, 0, 0));
        // The `a` leaves ink in its cell; the empty cell (5, 0) none.
        let ink = (10..20)
            .flat_map(|x| (0..20).map(move |y| (x, y)))
            .filter(|&(x, y)| at(x, y) != (255, 255, 255))
            .count();
        assert!(ink > 10, "{ink}");
        assert!((50..60).all(|x| (0..20).all(|y| at(x, y) == (255, 255, 255))));
    }

    #[test]
    fn a_size_is_width_x_height_within_the_ranges() {
        assert_eq!(parse_size("120x40"), Ok((120, 40)));
        assert_eq!(parse_size(" 80 X 24 "), Ok((80, 24)));
        assert_eq!(
            parse_size("10x10").expect_err("too small").to_string(),
            "--size \"10x10\": allowed WIDTHxHEIGHT with width 80..=1000 and height 24..=500, \
             e.g. 120x40"
        );
        // What the TUI cannot draw is not a picture of it.
        assert!(parse_size("79x24").is_err());
        assert!(parse_size("80x23").is_err());
        assert!(parse_size("120").is_err());
    }
}

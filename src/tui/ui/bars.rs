//! Bars a second where zero is drawn: a sparkline leaves a bar of 0 blank, so a collapse
//! (goodput 0 for 40 s) looks like data that is missing. Here a 0 is a low bar in its own
//! colour (the failures' red) and any count above 0 is at least one eighth of a row high, so
//! blank only ever means "no second yet".
//!
//! ```text
//! ▇▇█▇▇▇▆▂▁▁▁▁▁▁▁▁▁▁      90 a second, then 0 (red) after the spike
//! ```

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::widgets::Widget;

/// Eighths of a cell, from one to eight.
const EIGHTHS: [&str; 8] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];

/// A bar per value, left to right, all on one scale (`max` fills the area's height).
pub struct Bars<'a> {
    pub data: &'a [u64],
    pub max: u64,
    pub style: Style,
    /// The style of a zero's low bar.
    pub zero: Style,
}

impl Bars<'_> {
    /// Eighths of a cell a value's bar takes in `rows` rows: 0 only for 0.
    fn eighths(&self, value: u64, rows: u16) -> u64 {
        if value == 0 {
            return 0;
        }
        let full = u64::from(rows) * 8;
        let scaled = value.saturating_mul(full) / self.max.max(1);
        scaled.clamp(1, full)
    }
}

impl Widget for Bars<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.is_empty() {
            return;
        }
        let bottom = area.bottom() - 1;
        for (i, &value) in self.data.iter().take(usize::from(area.width)).enumerate() {
            let x = area.x + u16::try_from(i).unwrap_or(u16::MAX);
            if value == 0 {
                buf[(x, bottom)].set_symbol(EIGHTHS[0]).set_style(self.zero);
                continue;
            }
            let mut left = self.eighths(value, area.height);
            for y in (area.y..=bottom).rev() {
                if left == 0 {
                    break;
                }
                let part = left.min(8);
                let index = usize::try_from(part - 1).unwrap_or(7);
                buf[(x, y)].set_symbol(EIGHTHS[index]).set_style(self.style);
                left -= part;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use ratatui::style::{Color, Style};

    use super::*;

    #[test]
    fn zero_is_a_low_bar_of_its_own_colour_and_a_small_count_is_never_blank() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 5, 2));
        let red = Style::default().fg(Color::Red);
        Bars {
            data: &[100, 50, 1, 0],
            max: 100,
            style: Style::default(),
            zero: red,
        }
        .render(buf.area, &mut buf);
        let mut expected = Buffer::with_lines(["█    ", "██▁▁ "]);
        expected[(3, 1)].set_style(red);
        assert_eq!(buf, expected);
    }
}

/// Attempts a second as two stacked parts (new requests at the bottom, retries on top) on one
/// scale, with a level (the server's capacity) drawn as a line in the empty cells at its
/// height: `▁` on the row above when the level is a row's top, `─` across the row it falls
/// in otherwise. A retry storm is the bars crossing the line while their bottom part, the
/// new requests, stays under it. Bars taller than the area are cut at its top.
///
/// ```text
///           ██████████████      retries (magenta), cut at the top
/// ▁▁▁▁▁▁▁▁▁▁██████████████      capacity: the top of the first row
/// ▇▇▇▇▇▇▇▇▇▇██████████████      new requests (blue)
/// ```
pub struct StackedBars<'a> {
    /// (bottom part, top part) per column.
    pub data: &'a [(u64, u64)],
    pub max: u64,
    pub bottom: Style,
    pub top: Style,
    /// A level drawn as a line, and its style.
    pub line: Option<(u64, Style)>,
}

impl StackedBars<'_> {
    /// Where the level's line goes: the row (from the bottom) and its glyph.
    fn line_cell(&self, rows: u16) -> Option<(u64, &'static str, Style)> {
        let (level, style) = self.line?;
        let scale = Bars {
            data: &[],
            max: self.max,
            style: Style::default(),
            zero: Style::default(),
        };
        let eighths = scale.eighths(level, rows).max(1);
        if eighths.is_multiple_of(8) {
            let row = eighths / 8;
            (row < u64::from(rows)).then_some((row, "▁", style))
        } else {
            Some((eighths / 8, "─", style))
        }
    }
}

impl Widget for StackedBars<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.is_empty() {
            return;
        }
        let scale = Bars {
            data: &[],
            max: self.max,
            style: Style::default(),
            zero: Style::default(),
        };
        let rows = area.height;
        let line = self.line_cell(rows);
        for (i, &(low, high)) in self.data.iter().take(usize::from(area.width)).enumerate() {
            let x = area.x + u16::try_from(i).unwrap_or(u16::MAX);
            let total = scale.eighths(low + high, rows);
            let below = scale.eighths(low, rows).min(total);
            for row in 0..rows {
                let y = area.bottom() - 1 - row;
                let floor = u64::from(row) * 8;
                let cell = &mut buf[(x, y)];
                if total <= floor {
                    if let Some((at, glyph, style)) = line
                        && at == u64::from(row)
                    {
                        cell.set_symbol(glyph).set_style(style);
                    }
                    continue;
                }
                let filled = (total - floor).min(8);
                let low_part = below.saturating_sub(floor).min(8);
                let index = usize::try_from(filled - 1).unwrap_or(7);
                if low_part == 0 {
                    cell.set_symbol(EIGHTHS[index]).set_style(self.top);
                } else if low_part >= filled {
                    cell.set_symbol(EIGHTHS[index]).set_style(self.bottom);
                } else if filled == 8 {
                    // The two parts meet in this cell: the bottom part's eighths in its
                    // colour over the top part's colour.
                    let low_index = usize::try_from(low_part - 1).unwrap_or(7);
                    let behind = self.top.fg.unwrap_or_default();
                    cell.set_symbol(EIGHTHS[low_index])
                        .set_style(self.bottom.bg(behind));
                } else {
                    // Both end in this cell: the larger part's colour.
                    let style = if low_part * 2 >= filled {
                        self.bottom
                    } else {
                        self.top
                    };
                    cell.set_symbol(EIGHTHS[index]).set_style(style);
                }
            }
        }
    }
}

#[cfg(test)]
mod stacked_tests {
    use ratatui::style::{Color, Style};

    use super::*;

    #[test]
    fn new_requests_sit_under_the_retries_and_capacity_is_drawn_where_the_bars_are_not() {
        // 2 rows, 16 eighths for 160: capacity 40 is 4 eighths, across the bottom row.
        let mut buf = Buffer::empty(Rect::new(0, 0, 3, 2));
        let (blue, magenta, white) = (
            Style::default().fg(Color::Blue),
            Style::default().fg(Color::Magenta),
            Style::default().fg(Color::White),
        );
        StackedBars {
            data: &[(0, 0), (40, 120), (20, 0)],
            max: 160,
            bottom: blue,
            top: magenta,
            line: Some((40, white)),
        }
        .render(buf.area, &mut buf);
        let mut expected = Buffer::with_lines([" █ ", "─▄▂"]);
        expected[(0, 1)].set_style(white);
        expected[(1, 0)].set_style(magenta);
        expected[(1, 1)].set_style(blue.bg(Color::Magenta));
        expected[(2, 1)].set_style(blue);
        assert_eq!(buf, expected);
    }

    #[test]
    fn a_level_at_a_rows_top_is_drawn_at_the_bottom_of_the_row_above_and_tall_bars_are_cut() {
        // A row is 100: capacity 100 tops the first row; 90 new requests fill 7 eighths of
        // it; 90 new + 900 retries are cut at the top of the 3 rows.
        let mut buf = Buffer::empty(Rect::new(0, 0, 2, 3));
        let (blue, magenta, white) = (
            Style::default().fg(Color::Blue),
            Style::default().fg(Color::Magenta),
            Style::default().fg(Color::White),
        );
        StackedBars {
            data: &[(90, 0), (90, 900)],
            max: 300,
            bottom: blue,
            top: magenta,
            line: Some((100, white)),
        }
        .render(buf.area, &mut buf);
        let mut expected = Buffer::with_lines([" █", "▁█", "▇▇"]);
        expected[(0, 1)].set_style(white);
        expected[(0, 2)].set_style(blue);
        expected[(1, 0)].set_style(magenta);
        expected[(1, 1)].set_style(magenta);
        expected[(1, 2)].set_style(blue.bg(Color::Magenta));
        assert_eq!(buf, expected);
    }
}

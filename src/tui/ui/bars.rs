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

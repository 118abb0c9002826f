//! Styles for each theme. Panels ask for a role (`busy`, `outcome(Failed)`...), never a
//! colour, so `NoColor` and `Light` need no special cases elsewhere.

use ratatui::style::{Color, Modifier, Style};

use crate::metrics::Outcome;

use super::Theme;

/// The styles of one theme.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Palette {
    pub text: Style,
    /// Secondary text: labels, pools not in use.
    pub dim: Style,
    /// Titles and the current tab.
    pub title: Style,
    /// The selected pool, the menu cursor.
    pub selected: Style,
    pub busy: Style,
    pub idle: Style,
    pub queue: Style,
    /// A change a person made (log) and informative status messages.
    pub change: Style,
    /// An engine error in the status line.
    pub error: Style,
    /// RUNNING / PAUSED / FINISHED.
    pub running: Style,
    pub paused: Style,
    pub finished: Style,
    pub border: Style,
    /// The screen's own background and text colour (`None`: the terminal's). The light theme
    /// sets white, so it reads the same on a terminal with a dark background.
    pub background: Option<(Color, Color)>,
    success: Style,
    partial: Style,
    failed: Style,
    timeout: Style,
    refused: Style,
    /// Calls of each service, by service index (cycling), in the timeline.
    services: [Style; 4],
}

impl Palette {
    pub fn of(theme: Theme) -> Palette {
        match theme {
            Theme::Dark => DARK,
            Theme::Light => LIGHT,
            Theme::NoColor => NO_COLOR,
        }
    }

    /// Each outcome keeps one colour everywhere: counters, sparkline markers, log rows.
    pub fn outcome(&self, outcome: Outcome) -> Style {
        match outcome {
            Outcome::Success => self.success,
            Outcome::Partial => self.partial,
            Outcome::Failed => self.failed,
            Outcome::Timeout => self.timeout,
            Outcome::Refused => self.refused,
        }
    }

    /// A circuit breaker's state as the Hystrix dashboard's circle colours it: closed
    /// green, half-open yellow, open red (the success, partial and failed colours).
    pub fn breaker(&self, state: crate::flow::BreakerState) -> Style {
        use crate::flow::BreakerState;
        match state {
            BreakerState::Closed => self.success,
            BreakerState::HalfOpen => self.partial,
            BreakerState::Open => self.failed,
        }
    }

    /// A service keeps one colour: its bars in the timeline.
    pub fn service(&self, index: usize) -> Style {
        self.services[index % self.services.len()]
    }
}

const fn fg(color: Color) -> Style {
    Style::new().fg(color)
}

// Greys are 256-colour indices, not palette colour 8 (which many terminals draw too dark
// to read on black): dim text 245 is 6:1 on black, idle cells and borders 241 are 3.4:1.
const DARK: Palette = Palette {
    text: Style::new(),
    dim: fg(Color::Indexed(245)),
    title: Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
    selected: Style::new().fg(Color::Black).bg(Color::Cyan),
    busy: fg(Color::LightGreen),
    idle: fg(Color::Indexed(241)),
    queue: fg(Color::LightBlue),
    change: fg(Color::Cyan),
    error: Style::new()
        .fg(Color::LightRed)
        .add_modifier(Modifier::BOLD),
    running: Style::new()
        .fg(Color::Black)
        .bg(Color::Green)
        .add_modifier(Modifier::BOLD),
    paused: Style::new()
        .fg(Color::Black)
        .bg(Color::Yellow)
        .add_modifier(Modifier::BOLD),
    finished: Style::new()
        .fg(Color::Black)
        .bg(Color::Gray)
        .add_modifier(Modifier::BOLD),
    border: fg(Color::Indexed(241)),
    background: None,
    success: fg(Color::Green),
    partial: fg(Color::Yellow),
    failed: fg(Color::Red),
    timeout: fg(Color::Magenta),
    refused: fg(Color::Gray),
    services: [
        fg(Color::LightYellow),
        fg(Color::LightMagenta),
        fg(Color::LightCyan),
        fg(Color::LightGreen),
    ],
};

// Dark text for white projector screens: 256-colour indices at least 4.5:1 on white for
// text and 3:1 for cells and borders (pinned by a test), on a white background it sets.
const LIGHT: Palette = Palette {
    text: fg(Color::Indexed(16)),
    dim: fg(Color::Indexed(243)),
    title: Style::new()
        .fg(Color::Indexed(25))
        .add_modifier(Modifier::BOLD),
    selected: Style::new().fg(Color::Indexed(231)).bg(Color::Indexed(25)),
    busy: fg(Color::Indexed(28)),
    idle: fg(Color::Indexed(245)),
    queue: fg(Color::Indexed(25)),
    change: fg(Color::Indexed(25)),
    error: Style::new()
        .fg(Color::Indexed(160))
        .add_modifier(Modifier::BOLD),
    running: Style::new()
        .fg(Color::Indexed(231))
        .bg(Color::Indexed(28))
        .add_modifier(Modifier::BOLD),
    paused: Style::new()
        .fg(Color::Indexed(16))
        .bg(Color::Indexed(220))
        .add_modifier(Modifier::BOLD),
    finished: Style::new()
        .fg(Color::Indexed(231))
        .bg(Color::Indexed(243))
        .add_modifier(Modifier::BOLD),
    border: fg(Color::Indexed(245)),
    background: Some((Color::Indexed(231), Color::Indexed(16))),
    success: fg(Color::Indexed(28)),
    partial: fg(Color::Indexed(130)),
    failed: fg(Color::Indexed(160)),
    timeout: fg(Color::Indexed(90)),
    refused: fg(Color::Indexed(243)),
    services: [
        fg(Color::Indexed(130)),
        fg(Color::Indexed(90)),
        fg(Color::Indexed(25)),
        fg(Color::Indexed(28)),
    ],
};

// NO_COLOR: modifiers only. Cells and markers differ by glyph, so nothing relies on colour.
const NO_COLOR: Palette = Palette {
    text: Style::new(),
    dim: Style::new(),
    title: Style::new().add_modifier(Modifier::BOLD),
    selected: Style::new().add_modifier(Modifier::REVERSED),
    busy: Style::new(),
    idle: Style::new(),
    queue: Style::new(),
    change: Style::new().add_modifier(Modifier::ITALIC),
    error: Style::new().add_modifier(Modifier::BOLD),
    running: Style::new().add_modifier(Modifier::BOLD),
    paused: Style::new().add_modifier(Modifier::REVERSED.union(Modifier::BOLD)),
    finished: Style::new().add_modifier(Modifier::REVERSED),
    border: Style::new(),
    background: None,
    success: Style::new(),
    partial: Style::new().add_modifier(Modifier::ITALIC),
    failed: Style::new().add_modifier(Modifier::BOLD),
    timeout: Style::new().add_modifier(Modifier::UNDERLINED),
    refused: Style::new().add_modifier(Modifier::DIM),
    // The timeline tells services apart by the letter each bar starts with.
    services: [Style::new(); 4],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_uses_no_colours_at_all() {
        let p = Palette::of(Theme::NoColor);
        let mut styles = vec![
            p.text, p.dim, p.title, p.selected, p.busy, p.idle, p.queue, p.change, p.error,
            p.running, p.paused, p.finished, p.border,
        ];
        styles.extend(Outcome::ALL.map(|o| p.outcome(o)));
        for s in styles {
            assert_eq!((s.fg, s.bg), (None, None), "{s:?}");
        }
    }

    /// An xterm 256-colour index as RGB, as a screenshot draws it; the 16 ANSI colours
    /// differ from one terminal to the next, so a theme's contrast cannot rest on them.
    fn rgb(i: u8) -> [f64; 3] {
        assert!(
            i >= 16,
            "only the fixed 256-colour indices have a known RGB"
        );
        let (r, g, b) = crate::screenshot::indexed(i);
        [r, g, b].map(f64::from)
    }

    /// WCAG contrast ratio of two colours.
    fn contrast(a: Color, b: Color) -> f64 {
        let luminance = |c: Color| {
            let Color::Indexed(i) = c else {
                panic!("{c:?} is not a 256-colour index")
            };
            let [r, g, b] = rgb(i).map(|v| {
                let v = v / 255.0;
                if v <= 0.039_28 {
                    v / 12.92
                } else {
                    ((v + 0.055) / 1.055).powf(2.4)
                }
            });
            0.2126 * r + 0.7152 * g + 0.0722 * b
        };
        let (x, y) = (luminance(a), luminance(b));
        (x.max(y) + 0.05) / (x.min(y) + 0.05)
    }

    #[test]
    fn the_light_theme_sets_white_and_its_text_and_cells_contrast_enough() {
        let p = Palette::of(Theme::Light);
        let (bg, text) = p.background.expect("the light theme sets its background");
        assert!(contrast(text, bg) >= 4.5);
        let mut texts = vec![p.text, p.dim, p.title, p.change, p.error, p.queue];
        texts.extend(Outcome::ALL.map(|o| p.outcome(o)));
        for s in texts {
            let c = contrast(s.fg.expect("a colour"), bg);
            assert!(c >= 4.5, "{s:?}: {c:.2}:1");
        }
        for s in [p.busy, p.idle, p.border] {
            let c = contrast(s.fg.expect("a colour"), bg);
            assert!(c >= 3.0, "{s:?}: {c:.2}:1");
        }
    }

    #[test]
    fn the_dark_theme_never_uses_palette_colour_8_and_its_greys_read_on_black() {
        let p = Palette::of(Theme::Dark);
        let black = Color::Indexed(16);
        assert!(contrast(p.dim.fg.expect("dim"), black) >= 4.5);
        assert!(contrast(p.idle.fg.expect("idle"), black) >= 3.0);
        let mut all = vec![
            p.text, p.dim, p.title, p.selected, p.busy, p.idle, p.queue, p.change, p.error,
            p.running, p.paused, p.finished, p.border,
        ];
        all.extend(Outcome::ALL.map(|o| p.outcome(o)));
        for s in all {
            assert_ne!(s.fg, Some(Color::DarkGray), "{s:?}");
        }
    }

    #[test]
    fn every_outcome_has_its_own_colour() {
        for theme in [Theme::Dark, Theme::Light] {
            let p = Palette::of(theme);
            let colours: std::collections::HashSet<_> =
                Outcome::ALL.iter().map(|&o| p.outcome(o).fg).collect();
            assert_eq!(colours.len(), 5, "{theme:?}");
        }
    }
}

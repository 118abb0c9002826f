//! The terminal's bytes turned into key and mouse events, never waiting on a sequence that
//! cannot complete: a byte that does not belong to the escape sequence under way ends it, and
//! the bytes of a sequence this parser does not know are handed on as the keys they are
//! (`ESC [ < q` is Alt+`[`, `<`, `q`). What is left incomplete waits for more bytes, and
//! [`Parser::flush`] (called when none came for a moment) hands it on the same way.
//!
//! It knows what the TUI uses and what terminals send for it: printable characters (UTF-8),
//! control keys, Alt+key as `ESC key`, the cursor and editing keys of xterm's CSI and SS3
//! forms with their modifiers, F1-F12, and SGR mouse reports (`ESC [ < b ; x ; y M|m`, the
//! mode crossterm's `EnableMouseCapture` asks for).

use ratatui::crossterm::event::{
    Event, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

const ESC: u8 = 0x1B;
/// The longest escape sequence waited for; a longer one is handed on as keys.
const MAX_SEQUENCE: usize = 64;

/// Bytes not yet turned into events.
#[derive(Debug, Default)]
pub struct Parser {
    pending: Vec<u8>,
}

/// What the bytes at the front of the buffer are.
enum ParseStep {
    /// Events (possibly none: a sequence read and ignored) and how many bytes they took.
    Read(Option<Event>, usize),
    /// The start of a sequence that may still complete.
    Incomplete,
}

impl Parser {
    /// Appends `bytes` and pushes every event they complete to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<Event>) {
        self.pending.extend_from_slice(bytes);
        let mut at = 0;
        while at < self.pending.len() {
            match step(&self.pending[at..]) {
                ParseStep::Read(event, used) => {
                    out.extend(event);
                    at += used;
                }
                ParseStep::Incomplete => break,
            }
        }
        self.pending.drain(..at);
    }

    /// True while the start of a sequence waits for the rest.
    pub fn is_waiting(&self) -> bool {
        !self.pending.is_empty()
    }

    /// No more bytes came: what waits is handed on as the keys it is made of (a lone `ESC`
    /// is the Escape key, `ESC [` Alt+`[`), and an incomplete UTF-8 character is dropped.
    pub fn flush(&mut self, out: &mut Vec<Event>) {
        while !self.pending.is_empty() {
            let (event, used) = literal(&self.pending);
            out.extend(event);
            let rest = self.pending.split_off(used.min(self.pending.len()));
            self.pending.clear();
            self.feed(&rest, out);
        }
    }
}

/// The event at the front of `buf` (not empty).
fn step(buf: &[u8]) -> ParseStep {
    match buf[0] {
        ESC => escape(buf),
        byte if byte < 0x20 || byte == 0x7F => ParseStep::Read(control(byte), 1),
        _ => match char_at(buf) {
            Some((c, used)) => ParseStep::Read(Some(key(char_key(c), KeyModifiers::NONE)), used),
            None if buf.len() < utf8_len(buf[0]) => ParseStep::Incomplete,
            // Not UTF-8: skipped.
            None => ParseStep::Read(None, 1),
        },
    }
}

/// `buf` starts with ESC.
fn escape(buf: &[u8]) -> ParseStep {
    let Some(&next) = buf.get(1) else {
        return ParseStep::Incomplete;
    };
    match next {
        b'[' => csi(buf),
        b'O' => match buf.get(2) {
            None => ParseStep::Incomplete,
            Some(&last) => match cursor_key(last) {
                Some(code) => ParseStep::Read(Some(key(code, KeyModifiers::NONE)), 3),
                None => literal_step(buf),
            },
        },
        // ESC then a control byte or another ESC: the Escape key, then that byte.
        byte if byte < 0x20 || byte == 0x7F => ParseStep::Read(Some(key(KeyCode::Esc, none())), 1),
        _ => match char_at(&buf[1..]) {
            Some((c, used)) => ParseStep::Read(Some(key(char_key(c), KeyModifiers::ALT)), 1 + used),
            None if buf.len() - 1 < utf8_len(next) => ParseStep::Incomplete,
            None => ParseStep::Read(Some(key(KeyCode::Esc, none())), 1),
        },
    }
}

/// `buf` starts with `ESC [`: a control sequence (parameter bytes, intermediate bytes, one
/// final byte, as ECMA-48 writes them). A byte outside that form ends it as keys.
fn csi(buf: &[u8]) -> ParseStep {
    if buf.get(2) == Some(&b'<') {
        return sgr_mouse(buf);
    }
    let mut i = 2;
    while let Some(&b) = buf.get(i) {
        match b {
            0x30..=0x3F if buf[2..i].iter().all(|b| (0x30..=0x3F).contains(b)) => {}
            0x20..=0x2F => {}
            0x40..=0x7E => {
                let params = std::str::from_utf8(&buf[2..i]).unwrap_or("");
                return match csi_key(params, b) {
                    Known::Key(event) => ParseStep::Read(Some(event), i + 1),
                    Known::Ignored => ParseStep::Read(None, i + 1),
                    Known::Unknown => literal_step(buf),
                };
            }
            _ => return literal_step(buf),
        }
        i += 1;
        if i > MAX_SEQUENCE {
            return literal_step(buf);
        }
    }
    ParseStep::Incomplete
}

/// What a complete control sequence is to the TUI.
enum Known {
    Key(Event),
    /// Well formed and understood, but nothing the TUI acts on (focus, other keys).
    Ignored,
    /// Not a sequence a key or the mouse sends: its bytes are keys.
    Unknown,
}

/// The key of `ESC [ params final`.
fn csi_key(params: &str, last: u8) -> Known {
    let numbers: Vec<Option<u16>> = params.split(';').map(|p| p.parse().ok()).collect();
    let Some(numbers) = numbers
        .into_iter()
        .collect::<Option<Vec<u16>>>()
        .or_else(|| {
            // No parameters at all.
            params.is_empty().then(Vec::new)
        })
    else {
        return Known::Unknown;
    };
    let modifiers = numbers.get(1).map_or(KeyModifiers::NONE, |&m| modifiers(m));
    let code = match last {
        b'Z' => Some(KeyCode::BackTab),
        b'~' => match numbers.first() {
            Some(1 | 7) => Some(KeyCode::Home),
            Some(4 | 8) => Some(KeyCode::End),
            Some(2) => Some(KeyCode::Insert),
            Some(3) => Some(KeyCode::Delete),
            Some(5) => Some(KeyCode::PageUp),
            Some(6) => Some(KeyCode::PageDown),
            Some(&n @ 11..=15) => Some(KeyCode::F((n - 10) as u8)),
            Some(&n @ 17..=21) => Some(KeyCode::F((n - 11) as u8)),
            Some(&n @ 23..=24) => Some(KeyCode::F((n - 12) as u8)),
            _ => return Known::Ignored,
        },
        // Focus in and out.
        b'I' | b'O' if numbers.is_empty() => return Known::Ignored,
        other => cursor_key(other),
    };
    match code {
        Some(KeyCode::BackTab) => Known::Key(key(KeyCode::BackTab, KeyModifiers::SHIFT)),
        Some(code) => Known::Key(key(code, modifiers)),
        None => Known::Unknown,
    }
}

/// `ESC [ < b ; x ; y M` (press) or `m` (release): digits and `;` only, else keys.
fn sgr_mouse(buf: &[u8]) -> ParseStep {
    let mut i = 3;
    while let Some(&b) = buf.get(i) {
        match b {
            b'0'..=b'9' | b';' if i < MAX_SEQUENCE => {}
            b'M' | b'm' => {
                let body = std::str::from_utf8(&buf[3..i]).unwrap_or("");
                return match mouse(body, b == b'm') {
                    Some(event) => ParseStep::Read(Some(event), i + 1),
                    None => literal_step(buf),
                };
            }
            _ => return literal_step(buf),
        }
        i += 1;
    }
    ParseStep::Incomplete
}

/// The mouse event of an SGR report's `b;x;y` (xterm's button encoding).
fn mouse(body: &str, released: bool) -> Option<Event> {
    let mut parts = body.split(';').map(str::parse::<u16>);
    let (Some(Ok(cb)), Some(Ok(x)), Some(Ok(y)), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    let button = (cb & 0b11) | ((cb & 0b1100_0000) >> 4);
    let dragging = cb & 0b10_0000 != 0;
    let pressed = |b| {
        if released {
            MouseEventKind::Up(b)
        } else if dragging {
            MouseEventKind::Drag(b)
        } else {
            MouseEventKind::Down(b)
        }
    };
    let kind = match (button, dragging) {
        (0, _) => pressed(MouseButton::Left),
        (1, _) => pressed(MouseButton::Middle),
        (2, _) => pressed(MouseButton::Right),
        (3, false) => MouseEventKind::Up(MouseButton::Left),
        (3..=5, true) => MouseEventKind::Moved,
        (4, false) => MouseEventKind::ScrollUp,
        (5, false) => MouseEventKind::ScrollDown,
        (6, false) => MouseEventKind::ScrollLeft,
        (7, false) => MouseEventKind::ScrollRight,
        _ => return None,
    };
    let mut modifiers = KeyModifiers::NONE;
    for (bit, m) in [
        (4, KeyModifiers::SHIFT),
        (8, KeyModifiers::ALT),
        (16, KeyModifiers::CONTROL),
    ] {
        if cb & bit != 0 {
            modifiers |= m;
        }
    }
    Some(Event::Mouse(MouseEvent {
        kind,
        column: x.saturating_sub(1),
        row: y.saturating_sub(1),
        modifiers,
    }))
}

/// A sequence that is not one: its `ESC x` start as Alt+x; the bytes after are read again.
fn literal_step(buf: &[u8]) -> ParseStep {
    let (event, used) = literal(buf);
    ParseStep::Read(event, used)
}

/// The first key of what waits in `buf`, taken as typed: `ESC` alone is Escape, `ESC x`
/// Alt+x; anything else is read as usual, or dropped when it cannot be read.
fn literal(buf: &[u8]) -> (Option<Event>, usize) {
    match buf {
        [] => (None, 0),
        [ESC] => (Some(key(KeyCode::Esc, none())), 1),
        [ESC, next, ..] if next.is_ascii() && !next.is_ascii_control() => {
            (Some(key(char_key(char::from(*next)), KeyModifiers::ALT)), 2)
        }
        [ESC, ..] => (Some(key(KeyCode::Esc, none())), 1),
        _ => match step(buf) {
            ParseStep::Read(event, used) => (event, used),
            // An incomplete UTF-8 character.
            ParseStep::Incomplete => (None, buf.len()),
        },
    }
}

/// A control byte's key: Enter, Tab, Backspace, or Ctrl+letter.
fn control(byte: u8) -> Option<Event> {
    let code = match byte {
        b'\r' | b'\n' => KeyCode::Enter,
        b'\t' => KeyCode::Tab,
        0x7F | 0x08 => KeyCode::Backspace,
        0x01..=0x1A => {
            return Some(key(
                KeyCode::Char(char::from(byte - 1 + b'a')),
                KeyModifiers::CONTROL,
            ));
        }
        0x00 => return Some(key(KeyCode::Char(' '), KeyModifiers::CONTROL)),
        _ => return None,
    };
    Some(key(code, none()))
}

/// The key a final byte names in both the CSI and SS3 forms.
fn cursor_key(last: u8) -> Option<KeyCode> {
    Some(match last {
        b'A' => KeyCode::Up,
        b'B' => KeyCode::Down,
        b'C' => KeyCode::Right,
        b'D' => KeyCode::Left,
        b'H' => KeyCode::Home,
        b'F' => KeyCode::End,
        b'P'..=b'S' => KeyCode::F(1 + last - b'P'),
        _ => return None,
    })
}

/// xterm's modifier parameter: 1 + (1 Shift, 2 Alt, 4 Ctrl).
fn modifiers(param: u16) -> KeyModifiers {
    let bits = param.saturating_sub(1);
    let mut m = KeyModifiers::NONE;
    for (bit, flag) in [
        (1, KeyModifiers::SHIFT),
        (2, KeyModifiers::ALT),
        (4, KeyModifiers::CONTROL),
    ] {
        if bits & bit != 0 {
            m |= flag;
        }
    }
    m
}

/// A typed character's key code (an upper-case letter keeps its case, as crossterm's does).
fn char_key(c: char) -> KeyCode {
    KeyCode::Char(c)
}

fn key(code: KeyCode, modifiers: KeyModifiers) -> Event {
    let modifiers = match code {
        KeyCode::Char(c) if c.is_ascii_uppercase() => modifiers | KeyModifiers::SHIFT,
        _ => modifiers,
    };
    Event::Key(KeyEvent::new(code, modifiers))
}

fn none() -> KeyModifiers {
    KeyModifiers::NONE
}

/// The UTF-8 character at the front of `buf`, with its length.
fn char_at(buf: &[u8]) -> Option<(char, usize)> {
    let len = utf8_len(*buf.first()?);
    let text = std::str::from_utf8(buf.get(..len)?).ok()?;
    text.chars().next().map(|c| (c, len))
}

/// The length of the UTF-8 character a lead byte starts (1 for a byte that starts none).
fn utf8_len(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(bytes: &[u8]) -> (Vec<Event>, bool) {
        let mut p = Parser::default();
        let mut out = Vec::new();
        p.feed(bytes, &mut out);
        (out, p.is_waiting())
    }

    fn k(code: KeyCode) -> Event {
        key(code, none())
    }

    fn ch(c: char) -> Event {
        k(KeyCode::Char(c))
    }

    #[test]
    fn characters_controls_and_alt_keys() {
        let (out, waiting) = events("aQé\r\t\x7f\x03\x1bx".as_bytes());
        assert_eq!(
            out,
            vec![
                ch('a'),
                key(KeyCode::Char('Q'), KeyModifiers::SHIFT),
                ch('é'),
                k(KeyCode::Enter),
                k(KeyCode::Tab),
                k(KeyCode::Backspace),
                key(KeyCode::Char('c'), KeyModifiers::CONTROL),
                key(KeyCode::Char('x'), KeyModifiers::ALT),
            ]
        );
        assert!(!waiting);
    }

    #[test]
    fn cursor_keys_in_both_forms_with_modifiers() {
        let (out, _) = events(b"\x1b[A\x1bOB\x1b[1;5C\x1b[Z\x1b[5~\x1b[15~\x1b[H");
        assert_eq!(
            out,
            vec![
                k(KeyCode::Up),
                k(KeyCode::Down),
                key(KeyCode::Right, KeyModifiers::CONTROL),
                key(KeyCode::BackTab, KeyModifiers::SHIFT),
                k(KeyCode::PageUp),
                k(KeyCode::F(5)),
                k(KeyCode::Home),
            ]
        );
    }

    #[test]
    fn sgr_mouse_reports() {
        let (out, _) = events(b"\x1b[<0;10;5M\x1b[<0;10;5m\x1b[<65;1;1M");
        let at = |kind| {
            Event::Mouse(MouseEvent {
                kind,
                column: 9,
                row: 4,
                modifiers: none(),
            })
        };
        assert_eq!(out[0], at(MouseEventKind::Down(MouseButton::Left)));
        assert_eq!(out[1], at(MouseEventKind::Up(MouseButton::Left)));
        let Event::Mouse(wheel) = out[2] else {
            panic!("{:?}", out[2]);
        };
        assert_eq!(wheel.kind, MouseEventKind::ScrollDown);
    }

    #[test]
    fn a_sequence_split_across_reads_waits_for_its_end() {
        let mut p = Parser::default();
        let mut out = Vec::new();
        p.feed(b"\x1b[<0;1", &mut out);
        assert!(out.is_empty() && p.is_waiting());
        p.feed(b"0;5M", &mut out);
        assert!(matches!(out[..], [Event::Mouse(_)]), "{out:?}");
        assert!(!p.is_waiting());
    }

    #[test]
    fn a_byte_that_cannot_continue_a_mouse_report_ends_it_as_keys() {
        // crossterm waited for `m` here and swallowed every key meanwhile.
        let (out, waiting) = events(b"\x1b[<q");
        assert_eq!(
            out,
            vec![key(KeyCode::Char('['), KeyModifiers::ALT), ch('<'), ch('q')]
        );
        assert!(!waiting);
        let (out, _) = events(b"\x1b[<\x03");
        assert_eq!(
            out.last(),
            Some(&key(KeyCode::Char('c'), KeyModifiers::CONTROL))
        );
    }

    #[test]
    fn an_unknown_sequence_is_handed_on_as_its_keys() {
        // `ESC [ ?` waited for `u` in crossterm.
        let (out, waiting) = events(b"\x1b[?q");
        assert_eq!(
            out,
            vec![key(KeyCode::Char('['), KeyModifiers::ALT), ch('?'), ch('q')]
        );
        assert!(!waiting);
    }

    #[test]
    fn flushing_hands_on_what_waits_as_the_keys_typed() {
        for (bytes, first) in [
            (&b"\x1b"[..], k(KeyCode::Esc)),
            (b"\x1b[<", key(KeyCode::Char('['), KeyModifiers::ALT)),
            (b"\x1b[?", key(KeyCode::Char('['), KeyModifiers::ALT)),
            (
                b"\x1bO",
                key(KeyCode::Char('O'), KeyModifiers::SHIFT | KeyModifiers::ALT),
            ),
        ] {
            let mut p = Parser::default();
            let mut out = Vec::new();
            p.feed(bytes, &mut out);
            assert!(out.is_empty() && p.is_waiting(), "{bytes:?}");
            p.flush(&mut out);
            assert_eq!(out.first(), Some(&first), "{bytes:?}");
            assert_eq!(out.len(), bytes.len().max(2) - 1, "{bytes:?}: {out:?}");
            assert!(!p.is_waiting());
            // And the next key is a key.
            p.feed(b"q", &mut out);
            assert_eq!(out.last(), Some(&ch('q')));
        }
    }

    #[test]
    fn a_sequence_longer_than_any_key_sends_is_handed_on() {
        let mut bytes = b"\x1b[".to_vec();
        bytes.extend(std::iter::repeat_n(b'1', MAX_SEQUENCE + 8));
        let (out, waiting) = events(&bytes);
        assert_eq!(out.len(), 1 + MAX_SEQUENCE + 8);
        assert!(!waiting);
    }
}

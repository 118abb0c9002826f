//! A one-line text prompt at the bottom of the screen (`compare with: `): printable
//! characters are typed at the end, Backspace takes the last one off, Enter hands the text
//! on, Esc drops it. The fault menu sets its values by stepping through lists; this is the
//! TUI's only place where text is typed, so it stays this small: no cursor movement, no
//! history, as a shell's `read` line without readline.

/// The longest line the prompt takes, in characters: a dozen overrides of `--set` length.
pub const MAX_CHARS: usize = 400;

/// The text typed so far after a fixed question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    question: &'static str,
    text: String,
}

impl Prompt {
    pub fn new(question: &'static str) -> Prompt {
        Prompt {
            question,
            text: String::new(),
        }
    }

    /// What the prompt asks, `compare with: `.
    pub fn question(&self) -> &'static str {
        self.question
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Types `c` at the end; control characters (an escape sequence's bytes) and anything
    /// past [`MAX_CHARS`] are left out, so the line never drives the terminal.
    pub fn type_char(&mut self, c: char) {
        if !c.is_control() && self.text.chars().count() < MAX_CHARS {
            self.text.push(c);
        }
    }

    /// Takes the last character off (nothing when empty).
    pub fn backspace(&mut self) {
        self.text.pop();
    }
}

/// `KEY=VALUE, KEY=VALUE` as `--set` takes them one by one: split at the commas outside
/// brackets, braces and quotes (a value may hold commas itself, as a `load.phases` array
/// does), trimmed, the empty ones dropped.
pub fn split_sets(line: &str) -> Vec<String> {
    let mut sets = Vec::new();
    let mut current = String::new();
    let (mut depth, mut quote) = (0_usize, None::<char>);
    for c in line.chars() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => depth = depth.saturating_sub(1),
            (None, ',') if depth == 0 => {
                sets.push(std::mem::take(&mut current));
                continue;
            }
            (None, _) => {}
        }
        current.push(c);
    }
    sets.push(current);
    sets.into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_and_backspace_edit_the_end_of_the_line() {
        let mut p = Prompt::new("compare with: ");
        for c in "server.threadsx".chars() {
            p.type_char(c);
        }
        p.backspace();
        p.type_char('=');
        p.type_char('\u{1b}');
        p.type_char('2');
        assert_eq!(p.text(), "server.threads=2");
        for _ in 0..20 {
            p.backspace();
        }
        assert_eq!(p.text(), "");
    }

    #[test]
    fn the_line_stops_at_its_longest() {
        let mut p = Prompt::new("? ");
        for _ in 0..MAX_CHARS + 5 {
            p.type_char('x');
        }
        assert_eq!(p.text().len(), MAX_CHARS);
    }

    #[test]
    fn overrides_split_at_commas_that_start_a_key() {
        assert_eq!(
            split_sets(" server.threads=20,  load.rate=50 ,"),
            ["server.threads=20", "load.rate=50"]
        );
        // A comma inside a value (an inline array, a quoted string) stays in it.
        assert_eq!(
            split_sets("load.phases=[{ at = \"30s\", rate = 200.0 }], server.threads=20"),
            [
                "load.phases=[{ at = \"30s\", rate = 200.0 }]",
                "server.threads=20"
            ]
        );
        assert!(split_sets(" , ").is_empty());
    }
}

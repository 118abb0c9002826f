//! The one CSV cell writer, shared by every CSV output (a run's, a comparison's, a sweep's).

/// One CSV cell, written by every CSV writer. Quoted when it holds a comma, quote or line
/// break (RFC 4180). Other control characters (an escape sequence in a preset path) are
/// written as `\u{1b}`, so printing the CSV cannot drive the terminal. A text that a
/// spreadsheet would take for a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage
/// return) gets a leading single quote, as OWASP recommends against CSV injection; a number
/// (`-1`, `-0.5`) is left as it is.
pub fn field(s: &str) -> String {
    let formula = s.starts_with(['=', '+', '-', '@', '\t', '\r'])
        && !s.parse::<f64>().is_ok_and(f64::is_finite);
    let s = if formula {
        format!("'{s}")
    } else {
        s.to_owned()
    };
    let s: String = s
        .chars()
        .map(|c| match c {
            '\n' | '\r' => c.to_string(),
            c if c.is_control() => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect();
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::field;

    #[test]
    fn a_field_with_separators_is_quoted_and_its_quotes_doubled() {
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("two\r\nlines"), "\"two\r\nlines\"");
        assert_eq!(field("plain"), "plain");
    }

    #[test]
    fn a_text_a_spreadsheet_would_read_as_a_formula_gets_a_leading_quote() {
        assert_eq!(field("=cmd|' /C calc'!A0"), "'=cmd|' /C calc'!A0");
        assert_eq!(field("+1+cmd"), "'+1+cmd");
        assert_eq!(field("-2+3"), "'-2+3");
        assert_eq!(field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(field("\tx"), "'\\u{9}x");
        assert_eq!(field("\r=x"), "\"'\r=x\"");
        assert_eq!(field("=a,b"), "\"'=a,b\"");
        assert_eq!(field("-1"), "-1");
        assert_eq!(field("-0.25"), "-0.25");
        assert_eq!(field("a=b"), "a=b");
    }

    #[test]
    fn control_characters_are_escaped_not_written_raw() {
        assert_eq!(field("x\u{1b}]0;owned\u{7}"), "x\\u{1b}]0;owned\\u{7}");
    }
}

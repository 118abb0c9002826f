//! An explanation with figures from the run: `{pools.tomcat.max} threads / {theory.handler_hold_ms
//! / 1000} s = {answer} req/s`. Each `{...}` is an expression ([`super::expr`]) written as
//! [`super::units::number`] writes figures, or to N decimals with `{expr:.N}`; `{{` and `}}`
//! are braces.

use super::expr::{Expr, ExprError, parse_expr};
use super::units::number;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Template {
    parts: Vec<Piece>,
}

#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Text(String),
    Figure { expr: Expr, decimals: Option<usize> },
}

/// Why a text is not a template: which figure (from 1) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("a {{ is not closed: write {{{{ for a brace")]
    Unclosed,
    #[error("a }} has no {{: write }}}} for a brace")]
    Unopened,
    #[error("figure {index} {{{text}}}: {error}")]
    Figure {
        index: usize,
        text: String,
        error: ExprError,
    },
    #[error("figure {index} {{{text}}}: decimals are written :.0 to :.6")]
    Decimals { index: usize, text: String },
}

impl Template {
    pub fn parse(text: &str) -> Result<Template, TemplateError> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    literal.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    literal.push('}');
                }
                '}' => return Err(TemplateError::Unopened),
                '{' => {
                    let mut inner = String::new();
                    loop {
                        match chars.next() {
                            Some('}') => break,
                            Some(c) => inner.push(c),
                            None => return Err(TemplateError::Unclosed),
                        }
                    }
                    if !literal.is_empty() {
                        parts.push(Piece::Text(std::mem::take(&mut literal)));
                    }
                    let index = parts
                        .iter()
                        .filter(|p| matches!(p, Piece::Figure { .. }))
                        .count()
                        + 1;
                    parts.push(figure(index, &inner)?);
                }
                c => literal.push(c),
            }
        }
        if !literal.is_empty() {
            parts.push(Piece::Text(literal));
        }
        Ok(Template { parts })
    }

    /// Every figure's expression.
    pub fn exprs(&self) -> impl Iterator<Item = &Expr> {
        self.parts.iter().filter_map(|p| match p {
            Piece::Figure { expr, .. } => Some(expr),
            Piece::Text(_) => None,
        })
    }

    /// The text with each figure's value; a figure the run does not have is `-`.
    pub fn fill(&self, lookup: &dyn Fn(&str) -> Option<f64>) -> String {
        self.parts
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.clone(),
                Piece::Figure { expr, decimals } => match (expr.eval(lookup), decimals) {
                    (Ok(v), None) => number(v),
                    (Ok(v), Some(d)) => format!("{v:.d$}"),
                    (Err(_), _) => "-".to_owned(),
                },
            })
            .collect()
    }
}

/// `expr` or `expr:.N`.
fn figure(index: usize, inner: &str) -> Result<Piece, TemplateError> {
    let (expr, decimals) = match inner.rsplit_once(":.") {
        Some((expr, d)) => {
            let d = d
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|d| *d <= 6)
                .ok_or_else(|| TemplateError::Decimals {
                    index,
                    text: inner.to_owned(),
                })?;
            (expr, Some(d))
        }
        None => (inner, None),
    };
    let expr = parse_expr(expr).map_err(|error| TemplateError::Figure {
        index,
        text: inner.to_owned(),
        error,
    })?;
    Ok(Piece::Figure { expr, decimals })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(name: &str) -> Option<f64> {
        match name {
            "goodput_rps" => Some(116.666),
            "pools.tomcat.max" => Some(200.0),
            _ => None,
        }
    }

    #[test]
    fn figures_are_filled_from_the_run() {
        let t = Template::parse(
            "{pools.tomcat.max} threads: {goodput_rps} req/s, {goodput_rps:.0} {{exact}}",
        )
        .expect("template");
        assert_eq!(t.fill(&lookup), "200 threads: 116.7 req/s, 117 {exact}");
        assert_eq!(t.exprs().count(), 3);
        let t = Template::parse("{nothing * 2} left").expect("template");
        assert_eq!(t.fill(&lookup), "- left");
        assert_eq!(Template::parse("").expect("empty").fill(&lookup), "");
    }

    #[test]
    fn a_malformed_figure_names_itself() {
        let said = |t: &str| Template::parse(t).expect_err("malformed").to_string();
        assert_eq!(
            said("{a} and {b +}"),
            "figure 2 {b +}: it ends where a name, a number or ( was expected"
        );
        assert_eq!(said("x {a"), "a { is not closed: write {{ for a brace");
        assert_eq!(said("x } y"), "a } has no {: write }} for a brace");
        assert_eq!(
            said("{a:.9}"),
            "figure 1 {a:.9}: decimals are written :.0 to :.6"
        );
    }
}

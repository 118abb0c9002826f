//! Expressions over a run report: the arithmetic a lesson's answers and explanations are
//! computed with (`pools.tomcat.max / (theory.handler_hold_ms / 1000)`), and the conditions
//! that pick a choice or a misconception (`latency_ms.mean > 1500 and requests.failed == 0`).
//!
//! A name is a path of the report (`latency_ms.p99`, `compare.shared.goodput_rps`,
//! `goodput_timeline.50-60`): letters, digits, `_`, `.` and `-`, so a `-` between two
//! characters of a name belongs to it and a subtraction is written with spaces (`a - b`).
//! Numbers, `+ - * /`, parentheses and `min(...)`, `max(...)`, `abs(...)`; a condition is
//! comparisons (`< <= > >= == !=`) joined by `and`.

use std::fmt;

/// An arithmetic expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Number(f64),
    Name(String),
    Neg(Box<Expr>),
    Binary(Box<Expr>, Op, Box<Expr>),
    Call(Func, Vec<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    Min,
    Max,
    Abs,
}

impl Func {
    const ALL: [(&'static str, Func); 3] =
        [("min", Func::Min), ("max", Func::Max), ("abs", Func::Abs)];
}

/// A comparison of two expressions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Cmp {
    fn holds(self, a: f64, b: f64) -> bool {
        // Equal as figures are: within a billionth of their size.
        let equal = (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0);
        match self {
            Cmp::Lt => a < b && !equal,
            Cmp::Le => a < b || equal,
            Cmp::Gt => a > b && !equal,
            Cmp::Ge => a > b || equal,
            Cmp::Eq => equal,
            Cmp::Ne => !equal,
        }
    }
}

/// Comparisons that must all hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Predicate {
    pub clauses: Vec<(Expr, Cmp, Expr)>,
}

/// Why a text is not an expression or a condition.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExprError {
    #[error("it is empty")]
    Empty,
    #[error("{found:?} at character {at}: expected {expected}")]
    Unexpected {
        at: usize,
        found: String,
        expected: &'static str,
    },
    #[error("it ends where {expected} was expected")]
    End { expected: &'static str },
    #[error("{0}() is not a function: allowed min(), max(), abs()")]
    UnknownFunction(String),
    #[error("abs() takes one value, min() and max() at least one")]
    Arity,
}

/// Why an expression has no value on a report.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// The report has no figure of that name (or it is not a number yet).
    #[error("no {0} in the run report")]
    Missing(String),
    #[error("it divides by zero")]
    NotFinite,
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Number(f64),
    Name(String),
    Sym(&'static str),
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Number(n) => write!(f, "{n}"),
            Token::Name(n) => f.write_str(n),
            Token::Sym(s) => f.write_str(s),
        }
    }
}

/// The symbols, longest first so `<=` is not read as `<` then `=`.
const SYMBOLS: [&str; 13] = [
    "<=", ">=", "==", "!=", "<", ">", "+", "-", "*", "/", "(", ")", ",",
];

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// The tokens of `text`, each with the character it starts at (from 1).
fn tokens(text: &str) -> Result<Vec<(usize, Token)>, ExprError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let at = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            if i < chars.len() && matches!(chars[i], 'e' | 'E') {
                let mut j = i + 1;
                if j < chars.len() && matches!(chars[j], '+' | '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    i = j;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let written: String = chars[start..i].iter().collect();
            let n = written.parse().map_err(|_| ExprError::Unexpected {
                at,
                found: written.clone(),
                expected: "a number",
            })?;
            out.push((at, Token::Number(n)));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() {
                let d = chars[i];
                // A `-` between two characters of a name is part of it (`60-70`, `half-open`).
                let dash = d == '-'
                    && chars.get(i + 1).is_some_and(|&n| n.is_ascii_alphanumeric())
                    && i > start;
                if is_name_char(d) || dash {
                    i += 1;
                } else {
                    break;
                }
            }
            out.push((at, Token::Name(chars[start..i].iter().collect())));
        } else {
            let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
            let Some(sym) = SYMBOLS.iter().find(|s| rest.starts_with(**s)) else {
                return Err(ExprError::Unexpected {
                    at,
                    found: c.to_string(),
                    expected: "a name, a number or one of + - * / ( ) < <= > >= == !=",
                });
            };
            i += sym.chars().count();
            out.push((at, Token::Sym(sym)));
        }
    }
    Ok(out)
}

/// A recursive-descent parser over the tokens.
struct ExprParser {
    tokens: Vec<(usize, Token)>,
    next: usize,
}

impl ExprParser {
    fn new(text: &str) -> Result<ExprParser, ExprError> {
        let tokens = tokens(text)?;
        if tokens.is_empty() {
            return Err(ExprError::Empty);
        }
        Ok(ExprParser { tokens, next: 0 })
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.next).map(|(_, t)| t)
    }

    fn eat(&mut self, sym: &str) -> bool {
        if matches!(self.peek(), Some(Token::Sym(s)) if *s == sym) {
            self.next += 1;
            true
        } else {
            false
        }
    }

    fn unexpected(&self, expected: &'static str) -> ExprError {
        match self.tokens.get(self.next) {
            Some((at, t)) => ExprError::Unexpected {
                at: *at,
                found: t.to_string(),
                expected,
            },
            None => ExprError::End { expected },
        }
    }

    fn expect(&mut self, sym: &'static str, expected: &'static str) -> Result<(), ExprError> {
        if self.eat(sym) {
            Ok(())
        } else {
            Err(self.unexpected(expected))
        }
    }

    fn done(&self) -> Result<(), ExprError> {
        if self.next == self.tokens.len() {
            Ok(())
        } else {
            Err(self.unexpected("an operator or the end"))
        }
    }

    fn sum(&mut self) -> Result<Expr, ExprError> {
        let mut left = self.product()?;
        loop {
            let op = if self.eat("+") {
                Op::Add
            } else if self.eat("-") {
                Op::Sub
            } else {
                return Ok(left);
            };
            left = Expr::Binary(Box::new(left), op, Box::new(self.product()?));
        }
    }

    fn product(&mut self) -> Result<Expr, ExprError> {
        let mut left = self.unary()?;
        loop {
            let op = if self.eat("*") {
                Op::Mul
            } else if self.eat("/") {
                Op::Div
            } else {
                return Ok(left);
            };
            left = Expr::Binary(Box::new(left), op, Box::new(self.unary()?));
        }
    }

    fn unary(&mut self) -> Result<Expr, ExprError> {
        if self.eat("-") {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Expr, ExprError> {
        const WANTED: &str = "a name, a number or (";
        match self.peek().cloned() {
            Some(Token::Number(n)) => {
                self.next += 1;
                Ok(Expr::Number(n))
            }
            Some(Token::Name(name)) => {
                self.next += 1;
                if self.eat("(") {
                    return self.call(&name);
                }
                Ok(Expr::Name(name))
            }
            Some(Token::Sym("(")) => {
                self.next += 1;
                let inner = self.sum()?;
                self.expect(")", ")")?;
                Ok(inner)
            }
            _ => Err(self.unexpected(WANTED)),
        }
    }

    /// `name(` has been read: the arguments and `)`.
    fn call(&mut self, name: &str) -> Result<Expr, ExprError> {
        let Some(&(_, func)) = Func::ALL.iter().find(|(n, _)| *n == name) else {
            return Err(ExprError::UnknownFunction(name.to_owned()));
        };
        let mut args = vec![self.sum()?];
        while self.eat(",") {
            args.push(self.sum()?);
        }
        self.expect(")", ", or )")?;
        if func == Func::Abs && args.len() != 1 {
            return Err(ExprError::Arity);
        }
        Ok(Expr::Call(func, args))
    }

    fn comparison(&mut self) -> Result<(Expr, Cmp, Expr), ExprError> {
        let left = self.sum()?;
        let cmp = [
            ("<=", Cmp::Le),
            (">=", Cmp::Ge),
            ("==", Cmp::Eq),
            ("!=", Cmp::Ne),
            ("<", Cmp::Lt),
            (">", Cmp::Gt),
        ]
        .into_iter()
        .find(|(sym, _)| self.eat(sym))
        .map(|(_, c)| c)
        .ok_or_else(|| self.unexpected("one of < <= > >= == !="))?;
        Ok((left, cmp, self.sum()?))
    }
}

/// Parses an arithmetic expression.
pub fn parse_expr(text: &str) -> Result<Expr, ExprError> {
    let mut p = ExprParser::new(text)?;
    let e = p.sum()?;
    p.done()?;
    Ok(e)
}

/// Parses comparisons joined by `and`.
pub fn parse_condition(text: &str) -> Result<Predicate, ExprError> {
    let mut p = ExprParser::new(text)?;
    let mut clauses = vec![p.comparison()?];
    while p.peek() == Some(&Token::Name("and".into())) {
        p.next += 1;
        clauses.push(p.comparison()?);
    }
    p.done()?;
    Ok(Predicate { clauses })
}

impl Expr {
    /// The value, reading each name through `lookup`.
    pub fn eval(&self, lookup: &dyn Fn(&str) -> Option<f64>) -> Result<f64, EvalError> {
        let v = match self {
            Expr::Number(n) => *n,
            Expr::Name(name) => lookup(name).ok_or_else(|| EvalError::Missing(name.clone()))?,
            Expr::Neg(e) => -e.eval(lookup)?,
            Expr::Binary(a, op, b) => {
                let (a, b) = (a.eval(lookup)?, b.eval(lookup)?);
                match op {
                    Op::Add => a + b,
                    Op::Sub => a - b,
                    Op::Mul => a * b,
                    Op::Div => a / b,
                }
            }
            Expr::Call(func, args) => {
                let values = args
                    .iter()
                    .map(|a| a.eval(lookup))
                    .collect::<Result<Vec<f64>, _>>()?;
                match func {
                    Func::Min => values.into_iter().fold(f64::INFINITY, f64::min),
                    Func::Max => values.into_iter().fold(f64::NEG_INFINITY, f64::max),
                    Func::Abs => values.first().copied().unwrap_or_default().abs(),
                }
            }
        };
        if v.is_finite() {
            Ok(v)
        } else {
            Err(EvalError::NotFinite)
        }
    }

    /// Every name the expression reads, in order.
    pub fn names(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect_names(&mut out);
        out
    }

    fn collect_names<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Expr::Number(_) => {}
            Expr::Name(n) => out.push(n),
            Expr::Neg(e) => e.collect_names(out),
            Expr::Binary(a, _, b) => {
                a.collect_names(out);
                b.collect_names(out);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.collect_names(out)),
        }
    }
}

impl Predicate {
    /// Whether every comparison holds.
    pub fn holds(&self, lookup: &dyn Fn(&str) -> Option<f64>) -> Result<bool, EvalError> {
        for (a, cmp, b) in &self.clauses {
            if !cmp.holds(a.eval(lookup)?, b.eval(lookup)?) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Every name the condition reads.
    pub fn names(&self) -> Vec<&str> {
        self.clauses
            .iter()
            .flat_map(|(a, _, b)| a.names().into_iter().chain(b.names()))
            .collect()
    }
}

#[cfg(test)]
#[path = "expr_tests.rs"]
mod tests;

//! Tests of `expr.rs`.
use super::*;

fn report(name: &str) -> Option<f64> {
    match name {
        "pools.tomcat.max" => Some(200.0),
        "theory.handler_hold_ms" => Some(1700.0),
        "goodput_timeline.50-60" => Some(0.0),
        "resilience.breakers.recs.half-open" => Some(1.0),
        _ => None,
    }
}

fn value(text: &str) -> Result<f64, EvalError> {
    parse_expr(text).expect("parses").eval(&report)
}

#[test]
fn arithmetic_reads_report_names_with_the_usual_precedence() {
    let x = value("pools.tomcat.max / (theory.handler_hold_ms / 1000)").expect("value");
    assert!((x - 117.647).abs() < 0.001, "{x}");
    assert_eq!(value("1 + 2 * 3"), Ok(7.0));
    assert_eq!(value("(1 + 2) * 3"), Ok(9.0));
    assert_eq!(value("10 - 4 - 3"), Ok(3.0));
    assert_eq!(value("-2 * -3"), Ok(6.0));
    assert_eq!(value("max(200, 500, 1000) + min(1, 2)"), Ok(1001.0));
    assert_eq!(value("abs(3 - 5)"), Ok(2.0));
    assert_eq!(value("1.5e3"), Ok(1500.0));
}

#[test]
fn a_dash_inside_a_name_belongs_to_it_and_spaces_make_it_a_minus() {
    assert_eq!(value("goodput_timeline.50-60"), Ok(0.0));
    assert_eq!(value("resilience.breakers.recs.half-open"), Ok(1.0));
    assert_eq!(value("pools.tomcat.max - 1"), Ok(199.0));
    assert_eq!(
        value("pools.tomcat.max-1"),
        Err(EvalError::Missing("pools.tomcat.max-1".into()))
    );
    assert_eq!(parse_expr("a - b").expect("parses").names(), ["a", "b"]);
}

#[test]
fn a_missing_name_or_a_division_by_zero_has_no_value() {
    assert_eq!(value("nope + 1"), Err(EvalError::Missing("nope".into())));
    assert_eq!(value("1 / 0"), Err(EvalError::NotFinite));
}

#[test]
fn malformed_expressions_say_where_and_what_was_expected() {
    let said = |t: &str| parse_expr(t).expect_err("malformed").to_string();
    assert_eq!(said(""), "it is empty");
    assert_eq!(
        said("1 +"),
        "it ends where a name, a number or ( was expected"
    );
    assert_eq!(said("(1 + 2"), "it ends where ) was expected");
    assert_eq!(
        said("1 2"),
        "\"2\" at character 3: expected an operator or the end"
    );
    assert_eq!(
        said("a % 2"),
        "\"%\" at character 3: expected a name, a number or one of + - * / ( ) < <= > >= == !="
    );
    assert_eq!(
        said("sqrt(4)"),
        "sqrt() is not a function: allowed min(), max(), abs()"
    );
    assert_eq!(
        said("abs(1, 2)"),
        "abs() takes one value, min() and max() at least one"
    );
}

#[test]
fn conditions_join_comparisons_with_and() {
    let c = parse_condition("pools.tomcat.max >= 200 and theory.handler_hold_ms < 2000")
        .expect("parses");
    assert_eq!(c.holds(&report), Ok(true));
    let c = parse_condition("pools.tomcat.max > 200").expect("parses");
    assert_eq!(c.holds(&report), Ok(false));
    let c = parse_condition("pools.tomcat.max == 200.0000000001").expect("parses");
    assert_eq!(c.holds(&report), Ok(true));
    assert_eq!(c.names(), ["pools.tomcat.max"]);
    let err = parse_condition("pools.tomcat.max").expect_err("no comparison");
    assert_eq!(
        err.to_string(),
        "it ends where one of < <= > >= == != was expected"
    );
    let err = parse_condition("a > 1 or b > 2").expect_err("no or");
    assert_eq!(
        err.to_string(),
        "\"or\" at character 7: expected an operator or the end"
    );
}

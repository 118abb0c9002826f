//! Spring Boot's value forms turned into a preset's: durations (`2s`, `500ms`, `PT1M30S`, a
//! plain number of milliseconds), whole numbers, numbers and booleans. Each error says what
//! the value should look like; the caller names the file, line and key.

/// A Spring `Duration` as a preset duration (`"1500ms"`): a number with Spring's units
/// (`ns`, `us`, `ms`, `s`, `m`, `h`, `d`), an ISO-8601 duration (`PT2S`, `PT1M30S`, `P1D`), or
/// a plain number of milliseconds (Spring's default unit for these properties).
pub fn duration(text: &str) -> Result<String, String> {
    let t = text.trim();
    let bad = || {
        format!(
            "{t:?} is not a duration: write it as Spring Boot does (\"500ms\", \"2s\", \"PT1M30S\" \
             or a number of milliseconds)"
        )
    };
    if let Ok(ms) = t.parse::<u64>() {
        return Ok(format!("{ms}ms"));
    }
    if let Some(iso) = t.strip_prefix("PT").or_else(|| t.strip_prefix("pt")) {
        let nanos = iso_time(iso).ok_or_else(bad)?;
        return Ok(format!("{nanos}ns"));
    }
    if let Some(days) = t
        .strip_prefix('P')
        .and_then(|d| d.strip_suffix('D'))
        .and_then(|d| d.parse::<u64>().ok())
    {
        return Ok(format!("{}h", days * 24));
    }
    let split = t.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
    let (number, unit) = t.split_at(split);
    let n: u64 = number.parse().map_err(|_| bad())?;
    match unit.trim().to_ascii_lowercase().as_str() {
        "ns" | "us" | "ms" | "s" | "m" | "h" => Ok(format!("{n}{}", unit.trim().to_lowercase())),
        "d" => Ok(format!("{}h", n * 24)),
        _ => Err(bad()),
    }
}

/// `1M30.5S`: hours, minutes and (fractional) seconds, in nanoseconds.
fn iso_time(text: &str) -> Option<u64> {
    let mut total = 0.0;
    let mut number = String::new();
    for c in text.chars() {
        match c.to_ascii_uppercase() {
            d if d.is_ascii_digit() || d == '.' => number.push(d),
            unit @ ('H' | 'M' | 'S') => {
                let x: f64 = number.parse().ok()?;
                number.clear();
                total += x * match unit {
                    'H' => 3600.0,
                    'M' => 60.0,
                    _ => 1.0,
                };
            }
            _ => return None,
        }
    }
    (number.is_empty() && total.is_finite()).then(|| (total * 1e9).round() as u64)
}

/// A whole number.
pub fn whole(text: &str) -> Result<i64, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("{:?} is not a whole number", text.trim()))
}

/// A number.
pub fn number(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| format!("{:?} is not a number", text.trim()))
}

/// `true` or `false`, in any case, as Spring reads them.
pub fn boolean(text: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "on" | "yes" => Ok(true),
        "false" | "off" | "no" => Ok(false),
        _ => Err(format!("{:?} is not true or false", text.trim())),
    }
}

/// A preset number: integers as integers, others with their decimals.
pub fn toml_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spring_durations_become_preset_durations() {
        for (spring, preset) in [
            ("2s", "2s"),
            ("500ms", "500ms"),
            ("1500", "1500ms"),
            ("PT2S", "2000000000ns"),
            ("PT1M30.5S", "90500000000ns"),
            ("1d", "24h"),
            ("10 s", "10s"),
        ] {
            assert_eq!(duration(spring).as_deref(), Ok(preset), "{spring}");
        }
        assert!(duration("soon").is_err());
        assert!(duration("5 parsecs").is_err());
    }
}

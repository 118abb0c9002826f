//! The user's settings file: `config.toml` in the platform's config folder
//! (`$XDG_CONFIG_HOME/threadlab/config.toml`, else `~/.config/threadlab/config.toml`; on
//! Windows `%APPDATA%\threadlab\config.toml`). It sets what the command line leaves out:
//! the TUI's theme and frame rate, the preset opened by default, and key overrides. A flag
//! given on the command line always wins.
//!
//! Validated like a preset: an unknown field, a wrong type or a value out of range is an
//! error that names the file, the field, the value and what is allowed (exit 2).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::scenario::{elide, plain_types};
use crate::tui::keys::{self, Key};

/// Frames per second the TUI accepts, the same as `--fps`.
pub const FPS: std::ops::RangeInclusive<u32> = 1..=120;

/// Largest config file read, like a preset's limit but smaller: it holds a few lines.
const MAX_BYTES: u64 = 1 << 20;

/// The settings, validated. Absent fields are `None`: the command line's defaults apply.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    /// Where it was read from, if a file existed.
    pub source: Option<PathBuf>,
    pub theme: Option<ConfigTheme>,
    pub fps: Option<u32>,
    /// The preset `threadlab` and `threadlab tui` open when none is named.
    pub preset: Option<String>,
    /// Key overrides: pressing `.0` does what the key table's `.1` does (which no longer does it).
    pub keys: KeyMap,
}

/// `theme = "dark" | "light" | "none"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigTheme {
    Dark,
    Light,
    /// No colours, as `--no-color`.
    NoColor,
}

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    theme: Option<String>,
    fps: Option<i64>,
    preset: Option<String>,
    #[serde(default)]
    keys: BTreeMap<String, String>,
}

/// A config file that cannot be used. Exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: cannot read the config file: {error}")]
    Read {
        path: String,
        #[source]
        error: std::io::Error,
    },
    #[error("{path}: invalid config: {message}")]
    Syntax { path: String, message: String },
    /// Displays as `path: field = value reason`, like a preset's errors.
    #[error("{path}: {field} = {value} {reason}")]
    Invalid {
        path: String,
        field: String,
        value: String,
        reason: String,
    },
}

/// Where the config file is read from, whether or not it exists; `None` when neither
/// `XDG_CONFIG_HOME` nor a home folder is known.
pub fn path() -> Option<PathBuf> {
    path_from(&|name| std::env::var_os(name))
}

/// [`path`] with the environment given (tests).
pub fn path_from(env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let dir = |name: &str| {
        env(name)
            .map(PathBuf::from)
            // The XDG spec: a relative path in the variable is invalid and ignored.
            .filter(|p| p.is_absolute())
    };
    let base = if cfg!(windows) {
        dir("APPDATA")
    } else {
        dir("XDG_CONFIG_HOME").or_else(|| dir("HOME").map(|home| home.join(".config")))
    };
    base.map(|b| b.join("threadlab").join("config.toml"))
}

/// Reads the config file at [`path`]; no file is an empty config.
pub fn load() -> Result<Config, ConfigError> {
    match path() {
        Some(p) => load_from(&p),
        None => Ok(Config::default()),
    }
}

/// Reads the config file at `path`; no file there is an empty config.
pub fn load_from(path: &Path) -> Result<Config, ConfigError> {
    let shown = path.display().to_string();
    let read_error = |error| ConfigError::Read {
        path: shown.clone(),
        error,
    };
    // What is read is counted, not what the file says its size is (0 for a device).
    let bytes = match crate::files::read_at_most(path, MAX_BYTES) {
        Err(crate::files::InputError::Read(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Config::default());
        }
        Err(crate::files::InputError::Read(e)) => return Err(read_error(e)),
        Err(crate::files::InputError::TooLarge { .. }) => {
            return Err(ConfigError::Syntax {
                path: shown,
                message: format!("more than {MAX_BYTES} bytes; a config file holds at most that"),
            });
        }
        Ok(bytes) => bytes,
    };
    let text = String::from_utf8(bytes)
        .map_err(|e| read_error(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
    let mut config = parse(&text, &shown)?;
    config.source = Some(path.to_path_buf());
    Ok(config)
}

/// Parses and validates a config file's text; `origin` names it in errors.
pub fn parse(text: &str, origin: &str) -> Result<Config, ConfigError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let table: toml::Table = toml::from_str(text).map_err(|e| ConfigError::Syntax {
        path: origin.to_owned(),
        message: e.message().to_owned(),
    })?;
    let raw: RawConfig = serde_path_to_error::deserialize(table).map_err(|e| {
        let at = e.path().to_string();
        let at = if at.is_empty() || at == "." {
            String::new()
        } else {
            format!("{at}: ")
        };
        // What a config file writes, not serde's Rust types; the frame rate's range with it.
        let allowed = if e.path().to_string() == "fps" {
            format!(" (allowed {}..={})", FPS.start(), FPS.end())
        } else {
            String::new()
        };
        ConfigError::Syntax {
            path: origin.to_owned(),
            message: format!("{at}{}{allowed}", plain_types(e.inner().message())),
        }
    })?;
    validate(raw, origin)
}

fn validate(raw: RawConfig, origin: &str) -> Result<Config, ConfigError> {
    let invalid = |field: &str, value: String, reason: String| ConfigError::Invalid {
        path: origin.to_owned(),
        field: field.to_owned(),
        value,
        reason,
    };
    let theme = match raw.theme.as_deref() {
        None => None,
        Some("dark") => Some(ConfigTheme::Dark),
        Some("light") => Some(ConfigTheme::Light),
        Some("none") => Some(ConfigTheme::NoColor),
        Some(other) => {
            return Err(invalid(
                "theme",
                format!("{:?}", elide(other, 40)),
                "is not a theme: allowed \"dark\", \"light\", \"none\"".into(),
            ));
        }
    };
    let fps = match raw.fps {
        None => None,
        Some(f) => Some(
            u32::try_from(f)
                .ok()
                .filter(|f| FPS.contains(f))
                .ok_or_else(|| {
                    invalid(
                        "fps",
                        f.to_string(),
                        format!("is out of range: allowed {}..={}", FPS.start(), FPS.end()),
                    )
                })?,
        ),
    };
    if let Some(p) = &raw.preset
        && (p.is_empty() || p.chars().any(char::is_control))
    {
        return Err(invalid(
            "preset",
            format!("{:?}", elide(p, 40)),
            "is not a preset: a built-in name (threadlab presets) or a path to a .toml file".into(),
        ));
    }
    let keys = KeyMap::new(&raw.keys).map_err(|(field, value, reason)| {
        invalid(&format!("keys.{field}"), format!("{value:?}"), reason)
    })?;
    Ok(Config {
        source: None,
        theme,
        fps,
        preset: raw.preset,
        keys,
    })
}

/// Key overrides from `[keys]`: `compare = "x"` makes `x` open the compare view instead of
/// `c`. Each name is the word the footer shows for a live key (`keys::rebindable`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyMap {
    /// (the key pressed, the table's key it stands for)
    moved: Vec<(Key, Key)>,
}

impl KeyMap {
    /// Validates `name = "key"` pairs: a known name, one visible character, not a key that
    /// another live binding keeps. Errors are (name, value, reason).
    fn new(pairs: &BTreeMap<String, String>) -> Result<KeyMap, (String, String, String)> {
        let names: Vec<&str> = keys::rebindable().iter().map(|(n, _)| *n).collect();
        let mut moved = Vec::new();
        for (name, value) in pairs {
            let Some(&(_, from)) = keys::rebindable().iter().find(|(n, _)| n == name) else {
                return Err((
                    name.clone(),
                    elide(value, 40),
                    format!("names no key: allowed names {}", names.join(", ")),
                ));
            };
            let mut chars = value.chars();
            let (Some(c), None) = (chars.next(), chars.next()) else {
                return Err((
                    name.clone(),
                    elide(value, 40),
                    "is not one key: allowed one visible character, e.g. \"x\"".into(),
                ));
            };
            // A key is typed and shown: not a control, a space, or a character that takes no
            // cell (a zero-width space or joiner, a bidi control).
            let zero_width = unicode_width::UnicodeWidthChar::width(c).is_none_or(|w| w == 0);
            if c.is_control() || c.is_whitespace() || zero_width {
                return Err((
                    name.clone(),
                    value.clone(),
                    "is not one key: allowed one visible character, e.g. \"x\"".into(),
                ));
            }
            moved.push((Key::Char(c), from));
        }
        let map = KeyMap { moved };
        map.check_clashes()?;
        Ok(map)
    }

    /// A new key may not be one that a live binding still uses, or another override's.
    fn check_clashes(&self) -> Result<(), (String, String, String)> {
        for (i, &(to, from)) in self.moved.iter().enumerate() {
            let name = keys::rebindable()
                .iter()
                .find(|(_, k)| *k == from)
                .map_or("", |(n, _)| n);
            let given_up = |k: Key| self.moved.iter().any(|&(_, f)| f == k);
            let taken_by_table = keys::live_label_of(to).filter(|_| !given_up(to) && to != from);
            let taken_by_override = self.moved[..i].iter().any(|&(t, _)| t == to);
            if let Some(label) = taken_by_table {
                return Err((
                    name.to_owned(),
                    key_text(to),
                    format!("is already the key for {label}: allowed a key no other binding uses"),
                ));
            }
            if taken_by_override {
                return Err((
                    name.to_owned(),
                    key_text(to),
                    "is given to two names: allowed one name per key".into(),
                ));
            }
        }
        Ok(())
    }

    /// The key of the table that `key` stands for: itself when not moved, `None` when its
    /// binding moved to another key.
    pub fn resolve(&self, key: Key) -> Option<Key> {
        if let Some(&(_, from)) = self.moved.iter().find(|&&(to, _)| to == key) {
            return Some(from);
        }
        if self.moved.iter().any(|&(_, from)| from == key) {
            return None;
        }
        Some(key)
    }

    /// The key a binding of the table's `key` is now pressed with.
    pub fn shown(&self, key: Key) -> Option<Key> {
        self.moved
            .iter()
            .find(|&&(_, from)| from == key)
            .map(|&(to, _)| to)
    }

    pub fn is_empty(&self) -> bool {
        self.moved.is_empty()
    }

    /// `name = "key"` lines, as the file would say them.
    pub fn lines(&self) -> Vec<String> {
        self.moved
            .iter()
            .map(|&(to, from)| {
                let name = keys::rebindable()
                    .iter()
                    .find(|(_, k)| *k == from)
                    .map_or("?", |(n, _)| n);
                format!("{name} = {}", toml_string(&key_text(to)))
            })
            .collect()
    }
}

/// `text` as a TOML string (Rust's `{:?}` escapes are not all TOML's).
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

fn key_text(key: Key) -> String {
    match key {
        Key::Char(c) => c.to_string(),
        other => format!("{other:?}"),
    }
}

impl Config {
    /// The settings as a config file would write them (`threadlab config`).
    pub fn to_toml(&self) -> String {
        let mut out = String::new();
        if let Some(t) = self.theme {
            let name = match t {
                ConfigTheme::Dark => "dark",
                ConfigTheme::Light => "light",
                ConfigTheme::NoColor => "none",
            };
            out.push_str(&format!("theme = {name:?}\n"));
        }
        if let Some(f) = self.fps {
            out.push_str(&format!("fps = {f}\n"));
        }
        if let Some(p) = &self.preset {
            out.push_str(&format!("preset = {}\n", toml_string(p)));
        }
        if !self.keys.is_empty() {
            out.push_str("\n[keys]\n");
            for line in self.keys.lines() {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(
        pairs: &'static [(&'static str, &'static str)],
    ) -> impl Fn(&str) -> Option<std::ffi::OsString> {
        move |name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| std::ffi::OsString::from(v))
        }
    }

    #[test]
    fn the_path_follows_xdg_config_home_then_home() {
        let xdg = path_from(&env(&[("XDG_CONFIG_HOME", "/x/cfg"), ("HOME", "/home/a")]));
        assert_eq!(xdg, Some(PathBuf::from("/x/cfg/threadlab/config.toml")));
        let home = path_from(&env(&[("HOME", "/home/a")]));
        assert_eq!(
            home,
            Some(PathBuf::from("/home/a/.config/threadlab/config.toml"))
        );
        // A relative XDG_CONFIG_HOME is ignored, as the spec says.
        let relative = path_from(&env(&[("XDG_CONFIG_HOME", "cfg"), ("HOME", "/home/a")]));
        assert_eq!(relative, home);
        assert_eq!(path_from(&env(&[])), None);
    }

    #[test]
    fn a_full_config_parses() {
        let c = parse(
            "theme = \"light\"\nfps = 60\npreset = \"overload\"\n[keys]\ncompare = \"x\"\n",
            "c.toml",
        )
        .expect("valid");
        assert_eq!(c.theme, Some(ConfigTheme::Light));
        assert_eq!(c.fps, Some(60));
        assert_eq!(c.preset.as_deref(), Some("overload"));
        assert_eq!(c.keys.resolve(Key::Char('x')), Some(Key::Char('c')));
        assert_eq!(c.keys.resolve(Key::Char('c')), None);
        assert_eq!(c.keys.resolve(Key::Char('t')), Some(Key::Char('t')));
        assert_eq!(
            parse(&c.to_toml(), "again").expect("round trip").keys,
            c.keys
        );
    }

    fn error(text: &str) -> String {
        parse(text, "c.toml").expect_err("refused").to_string()
    }

    #[test]
    fn a_key_that_takes_no_cell_is_refused_and_what_config_prints_parses_back() {
        for key in ["\\u200B", "\\u200D", "\\u202E", "\\u0301"] {
            let err = error(&format!("[keys]\ncompare = \"{key}\"\n"));
            assert!(err.contains("is not one key"), "{key}: {err}");
        }
        // A key or preset that Rust's escapes would write as `\u{...}` is written as TOML.
        let c = parse(
            "preset = \"a\\u00ADb\\\\\\\"c\\\".toml\"\n[keys]\ncompare = \"é\"\n",
            "c.toml",
        )
        .expect("valid");
        let again = parse(&c.to_toml(), "again").expect("round trip");
        assert_eq!(again.preset, c.preset);
        assert_eq!(again.keys, c.keys);
    }

    #[test]
    fn bad_values_name_the_file_field_value_and_range() {
        assert_eq!(
            error("fps = 0"),
            "c.toml: fps = 0 is out of range: allowed 1..=120"
        );
        assert_eq!(
            error("theme = \"blue\""),
            "c.toml: theme = \"blue\" is not a theme: allowed \"dark\", \"light\", \"none\""
        );
        let unknown = error("fsp = 30");
        assert!(
            unknown.starts_with("c.toml: invalid config: fsp: unknown field `fsp`"),
            "{unknown}"
        );
        let key = error("[keys]\ncompare = \"t\"");
        assert!(
            key.starts_with("c.toml: keys.compare = \"t\" is already the key for timeline"),
            "{key}"
        );
        let name = error("[keys]\nfly = \"x\"");
        assert!(
            name.contains("keys.fly = \"x\" names no key: allowed names"),
            "{name}"
        );
        let two = error("[keys]\ncompare = \"xy\"");
        assert!(two.contains("is not one key"), "{two}");
        // A wrong type says what to write, in the file's words, and the range.
        assert_eq!(
            error("fps = \"fast\""),
            "c.toml: invalid config: fps: got the string \"fast\", expected an integer \
             (allowed 1..=120)"
        );
    }

    #[test]
    fn swapping_two_keys_is_allowed() {
        let c = parse("[keys]\ncompare = \"t\"\ntimeline = \"c\"", "c.toml").expect("a swap");
        assert_eq!(c.keys.resolve(Key::Char('t')), Some(Key::Char('c')));
        assert_eq!(c.keys.resolve(Key::Char('c')), Some(Key::Char('t')));
    }

    #[test]
    fn a_moved_key_does_its_binding_and_the_old_key_no_longer_does() {
        use crate::tui::{Theme, app::App};
        use ratatui::crossterm::event::{KeyCode, KeyEvent};
        let scenario = crate::scenario::load("ironthread", &[]).expect("preset");
        let mut app = App::new(scenario, crate::scenario::Strategy::Bulkhead, Theme::Dark);
        app.set_key_map(
            parse("[keys]\ncompare = \"x\"", "c.toml")
                .expect("valid")
                .keys,
        );
        app.handle_key(KeyEvent::from(KeyCode::Char('c')));
        assert!(app.compare_engines().is_none(), "c still opens compare");
        app.handle_key(KeyEvent::from(KeyCode::Char('x')));
        assert!(app.compare_engines().is_some(), "x does not open compare");
        let compare = keys::LIVE
            .iter()
            .find(|b| b.keys == [Key::Char('c')])
            .expect("the compare binding");
        assert_eq!(app.key_label(compare), "x");
    }

    #[test]
    fn every_rebindable_key_is_a_live_binding_of_its_own() {
        for &(name, key) in keys::rebindable() {
            let binding = keys::LIVE.iter().find(|b| b.keys.contains(&key));
            assert!(binding.is_some_and(|b| b.keys.len() == 1), "{name}");
        }
    }
}

//! A lesson file as written: serde structs that mirror the README's "Write a lesson" section
//! field for field. Every table denies unknown fields, so a typo is an error naming it.

use serde::Deserialize;

/// A whole lesson file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLesson {
    pub lesson: RawHeader,
    #[serde(default)]
    pub parts: Vec<RawPart>,
}

/// `[lesson]`: what the lesson is, for the list and the handout.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHeader {
    pub title: String,
    #[serde(default)]
    pub about: String,
    pub minutes: i64,
    #[serde(default)]
    pub goals: Vec<String>,
}

/// `[[parts]]`: a preset played from t = 0, and the steps taken on it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPart {
    pub preset: String,
    pub strategy: Option<String>,
    #[serde(default)]
    pub set: Vec<String>,
    pub duration: Option<String>,
    #[serde(default)]
    pub steps: Vec<RawStep>,
}

/// `[[parts.steps]]`: a caption (as a tour's), a question, or both.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStep {
    pub at: String,
    #[serde(default)]
    pub keys: String,
    pub panel: Option<String>,
    pub caption: Option<String>,
    #[serde(default)]
    pub expect: Vec<String>,
    /// The question; with it one of `answer`, `choices`, `order`.
    pub ask: Option<String>,
    pub answer: Option<String>,
    pub unit: Option<String>,
    pub tolerance: Option<f64>,
    pub within: Option<f64>,
    pub choices: Option<Vec<RawChoice>>,
    pub order: Option<Vec<RawItem>>,
    pub descending: Option<bool>,
    pub reveal: Option<String>,
    pub reveal_keys: Option<String>,
    pub explain: Option<String>,
    #[serde(default)]
    pub misconceptions: Vec<RawMisconception>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawChoice {
    pub text: String,
    pub when: Option<String>,
    pub why: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawItem {
    pub text: String,
    pub value: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMisconception {
    pub when: String,
    pub explain: String,
}

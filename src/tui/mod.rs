//! The live terminal UI.

use crate::scenario::{Scenario, Strategy};

/// Colours to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    #[default]
    Dark,
    Light,
    /// `NO_COLOR` or `--no-color`: no colours at all.
    NoColor,
}

/// How the TUI runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TuiOptions {
    /// Frames per second while running.
    pub fps: u32,
    pub theme: Theme,
}

/// Runs the TUI on `scenario`, starting with `strategy`, until the user quits.
pub fn run(_scenario: Scenario, _strategy: Strategy, _options: TuiOptions) -> anyhow::Result<()> {
    anyhow::bail!("the TUI is not built yet: use `threadlab run` or `threadlab compare`")
}

//! The fault the `f` menu is setting for a service: its kind (slow, hang, fail, or heal), how
//! strong it is (how much slower, how long a call hangs, what share of calls fail) and how
//! long it lasts in simulated time (or until healed). Each line steps with `←` `→` (`-` `+`)
//! through values the engine's faults take as they are. The menu's last line doubles the
//! load for a while ([`DoubleLoad`]).

use crate::sim::Fault;
use crate::time::Nanos;

/// What the fault does to the service's calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    Slow,
    Hang,
    Fail,
    /// No fault: the service's calls behave as the preset says.
    Heal,
}

impl FaultKind {
    const ORDER: [FaultKind; 4] = [
        FaultKind::Slow,
        FaultKind::Hang,
        FaultKind::Fail,
        FaultKind::Heal,
    ];

    fn name(self) -> &'static str {
        match self {
            FaultKind::Slow => "slow",
            FaultKind::Hang => "hang",
            FaultKind::Fail => "fail",
            FaultKind::Heal => "heal",
        }
    }
}

/// How many times its drawn latency a slow call takes.
pub const SLOW_FACTORS: [u32; 6] = [2, 3, 5, 10, 20, 50];
/// How long each call of a hanging service hangs, in seconds.
pub const HANG_SECONDS: [u64; 7] = [1, 2, 5, 10, 30, 60, 120];
/// The share of failing calls moves in steps of this many percent.
pub const FAIL_STEP: u8 = 5;
/// How long a fault lasts moves in steps of this many simulated seconds, up to [`MAX_LASTS`].
pub const LASTS_STEP: u32 = 5;
pub const MAX_LASTS: u32 = 600;

/// The lines of the form, in order (line n of the menu is `LINES[n - 1]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormLine {
    Kind,
    Strength,
    Lasts,
    Apply,
}

impl FormLine {
    pub const LINES: [FormLine; 4] = [
        FormLine::Kind,
        FormLine::Strength,
        FormLine::Lasts,
        FormLine::Apply,
    ];

    /// The line at `index` (from 0); the last line for anything beyond.
    pub fn at(index: usize) -> FormLine {
        FormLine::LINES
            .get(index)
            .copied()
            .unwrap_or(FormLine::Apply)
    }

    /// Whether `←` `→` change a value on this line.
    pub fn adjustable(self) -> bool {
        self != FormLine::Apply
    }
}

/// The fault being set, with every kind's strength kept, so going from fail to slow and back
/// keeps the share chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultForm {
    pub kind: FaultKind,
    /// Index into [`SLOW_FACTORS`].
    slow: usize,
    /// Index into [`HANG_SECONDS`].
    hang: usize,
    /// Percent of calls that fail, 0..=100.
    fail_percent: u8,
    /// Simulated seconds the fault lasts from when it is applied; 0: until healed.
    lasts_s: u32,
}

impl Default for FaultForm {
    /// Half the calls failing, until healed.
    fn default() -> Self {
        FaultForm {
            kind: FaultKind::Fail,
            slow: 2,
            hang: 4,
            fail_percent: 50,
            lasts_s: 0,
        }
    }
}

impl FaultForm {
    /// The form for a service with `current` fault: that fault, to change it, or the default.
    pub fn for_current(current: Option<Fault>) -> FaultForm {
        let mut form = FaultForm::default();
        match current {
            None => {}
            Some(Fault::Slow { factor }) => {
                form.kind = FaultKind::Slow;
                form.slow = nearest(&SLOW_FACTORS.map(f64::from), factor);
            }
            Some(Fault::Hang { duration }) => {
                form.kind = FaultKind::Hang;
                form.hang = nearest(&HANG_SECONDS.map(|s| s as f64), duration.as_secs_f64());
            }
            Some(Fault::Fail { probability }) => {
                form.kind = FaultKind::Fail;
                let steps = (probability.clamp(0.0, 1.0) * 100.0 / f64::from(FAIL_STEP)).round();
                form.fail_percent = (steps as u8).saturating_mul(FAIL_STEP).min(100);
            }
        }
        form
    }

    /// The share of failing calls set to `percent` (held to 0..=100).
    #[cfg(test)]
    pub fn with_fail_percent(self, percent: u8) -> FaultForm {
        FaultForm {
            fail_percent: percent.min(100),
            ..self
        }
    }

    /// One step more (`→`, `+`) or less (`←`, `-`) of the value on `line`. The kind goes
    /// round; the other values stop at their ends.
    pub fn adjust(&mut self, line: FormLine, more: bool) {
        let step = |i: usize, len: usize| {
            if more {
                (i + 1).min(len - 1)
            } else {
                i.saturating_sub(1)
            }
        };
        match line {
            FormLine::Kind => {
                let n = FaultKind::ORDER.len();
                let i = FaultKind::ORDER
                    .iter()
                    .position(|&k| k == self.kind)
                    .unwrap_or(0);
                let i = if more { (i + 1) % n } else { (i + n - 1) % n };
                self.kind = FaultKind::ORDER[i];
            }
            FormLine::Strength => match self.kind {
                FaultKind::Slow => self.slow = step(self.slow, SLOW_FACTORS.len()),
                FaultKind::Hang => self.hang = step(self.hang, HANG_SECONDS.len()),
                FaultKind::Fail if more => {
                    self.fail_percent = self.fail_percent.saturating_add(FAIL_STEP).min(100);
                }
                FaultKind::Fail => self.fail_percent = self.fail_percent.saturating_sub(FAIL_STEP),
                FaultKind::Heal => {}
            },
            FormLine::Lasts if self.kind == FaultKind::Heal => {}
            FormLine::Lasts if more => {
                self.lasts_s = (self.lasts_s + LASTS_STEP).min(MAX_LASTS);
            }
            FormLine::Lasts => self.lasts_s = self.lasts_s.saturating_sub(LASTS_STEP),
            FormLine::Apply => {}
        }
    }

    /// The fault to inject (`None`: heal).
    pub fn fault(&self) -> Option<Fault> {
        match self.kind {
            FaultKind::Slow => Some(Fault::Slow {
                factor: f64::from(SLOW_FACTORS[self.slow.min(SLOW_FACTORS.len() - 1)]),
            }),
            FaultKind::Hang => Some(Fault::Hang {
                duration: Nanos::from_secs(HANG_SECONDS[self.hang.min(HANG_SECONDS.len() - 1)]),
            }),
            FaultKind::Fail => Some(Fault::Fail {
                probability: f64::from(self.fail_percent) / 100.0,
            }),
            FaultKind::Heal => None,
        }
    }

    /// How long the fault lasts once applied (`None`: until healed, or a heal).
    pub fn lasts(&self) -> Option<Nanos> {
        (self.kind != FaultKind::Heal && self.lasts_s > 0)
            .then(|| Nanos::from_secs(u64::from(self.lasts_s)))
    }

    /// What line `line` says its value is (`-` where the kind has none).
    pub fn value_text(&self, line: FormLine) -> String {
        match (line, self.fault()) {
            (FormLine::Kind, _) => self.kind.name().to_string(),
            (FormLine::Strength, Some(Fault::Slow { factor })) => {
                format!("calls take x{factor} as long")
            }
            (FormLine::Strength, Some(Fault::Hang { duration })) => {
                format!("every call hangs {duration}")
            }
            (FormLine::Strength, Some(Fault::Fail { .. })) => {
                format!("{} % of calls fail", self.fail_percent)
            }
            (FormLine::Lasts, Some(_)) => match self.lasts() {
                Some(d) => format!("{d} (simulated)"),
                None => "until healed".to_string(),
            },
            (FormLine::Apply, Some(fault)) => match self.lasts() {
                Some(d) => format!("{fault} for {d}"),
                None => format!("{fault} until healed"),
            },
            (FormLine::Apply, None) => "heal now".to_string(),
            (FormLine::Strength | FormLine::Lasts, None) => "-".to_string(),
        }
    }
}

/// How long the fault menu's "double the load" lasts: from [`LASTS_STEP`] to [`MAX_LASTS`]
/// simulated seconds in steps of [`LASTS_STEP`], the fault durations' steps. A doubling always
/// ends: it has no "until healed" (the load keys change the load for good).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DoubleLoad {
    lasts_s: u32,
}

impl Default for DoubleLoad {
    /// Half a minute: long enough for a queue to build and a breaker to open.
    fn default() -> Self {
        DoubleLoad { lasts_s: 30 }
    }
}

impl DoubleLoad {
    /// One step longer (`→`, `+`) or shorter (`←`, `-`), held to its range.
    pub fn adjust(&mut self, more: bool) {
        self.lasts_s = if more {
            self.lasts_s.saturating_add(LASTS_STEP).min(MAX_LASTS)
        } else {
            self.lasts_s.saturating_sub(LASTS_STEP).max(LASTS_STEP)
        };
    }

    /// How long the load stays doubled once applied.
    pub fn lasts(self) -> Nanos {
        Nanos::from_secs(u64::from(self.lasts_s))
    }
}

/// The index of the value in `values` nearest to `v`.
fn nearest(values: &[f64], v: f64) -> usize {
    let mut best = 0;
    for (i, x) in values.iter().enumerate() {
        if (x - v).abs() < (values[best] - v).abs() {
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_failure_share_steps_by_five_percent_and_stops_at_0_and_100() {
        let mut form = FaultForm::default();
        assert_eq!(
            form.fault(),
            Some(Fault::Fail { probability: 0.5 }),
            "half the calls by default"
        );
        for _ in 0..20 {
            form.adjust(FormLine::Strength, true);
        }
        assert_eq!(form.fault(), Some(Fault::Fail { probability: 1.0 }));
        form.adjust(FormLine::Strength, false);
        assert_eq!(form.value_text(FormLine::Strength), "95 % of calls fail");
        for _ in 0..30 {
            form.adjust(FormLine::Strength, false);
        }
        assert_eq!(form.fault(), Some(Fault::Fail { probability: 0.0 }));
    }

    #[test]
    fn the_duration_steps_by_five_seconds_from_until_healed() {
        let mut form = FaultForm::default();
        assert_eq!(form.lasts(), None);
        assert_eq!(form.value_text(FormLine::Lasts), "until healed");
        form.adjust(FormLine::Lasts, true);
        form.adjust(FormLine::Lasts, true);
        assert_eq!(form.lasts(), Some(Nanos::from_secs(10)));
        assert_eq!(form.value_text(FormLine::Apply), "failing 50% for 10s");
        form.adjust(FormLine::Lasts, false);
        form.adjust(FormLine::Lasts, false);
        form.adjust(FormLine::Lasts, false);
        assert_eq!(form.lasts(), None, "stops at until healed");
        for _ in 0..1000 {
            form.adjust(FormLine::Lasts, true);
        }
        assert_eq!(form.lasts(), Some(Nanos::from_secs(u64::from(MAX_LASTS))));
    }

    #[test]
    fn the_kind_goes_round_and_keeps_each_kinds_strength() {
        let mut form = FaultForm::default().with_fail_percent(35);
        form.adjust(FormLine::Kind, true);
        assert_eq!(form.kind, FaultKind::Heal);
        assert_eq!(form.fault(), None);
        assert_eq!(form.value_text(FormLine::Strength), "-");
        assert_eq!(form.value_text(FormLine::Apply), "heal now");
        form.adjust(FormLine::Lasts, true);
        assert_eq!(form.lasts(), None, "a heal has no duration");
        form.adjust(FormLine::Kind, true);
        assert_eq!(form.fault(), Some(Fault::Slow { factor: 5.0 }));
        form.adjust(FormLine::Kind, false);
        form.adjust(FormLine::Kind, false);
        assert_eq!(form.fault(), Some(Fault::Fail { probability: 0.35 }));
    }

    #[test]
    fn doubling_the_load_lasts_5_s_to_10_min_in_5_s_steps() {
        let mut double = DoubleLoad::default();
        assert_eq!(double.lasts(), Nanos::from_secs(30));
        for _ in 0..10 {
            double.adjust(false);
        }
        assert_eq!(
            double.lasts(),
            Nanos::from_secs(5),
            "never 0: it always ends"
        );
        double.adjust(true);
        assert_eq!(double.lasts(), Nanos::from_secs(10));
        for _ in 0..1000 {
            double.adjust(true);
        }
        assert_eq!(double.lasts(), Nanos::from_secs(600));
    }

    #[test]
    fn a_service_with_a_fault_opens_the_form_on_that_fault() {
        let form = FaultForm::for_current(Some(Fault::Hang {
            duration: Nanos::from_secs(30),
        }));
        assert_eq!(
            form.fault(),
            Some(Fault::Hang {
                duration: Nanos::from_secs(30)
            })
        );
        let form = FaultForm::for_current(Some(Fault::Fail { probability: 0.2 }));
        assert_eq!(form.value_text(FormLine::Strength), "20 % of calls fail");
        let form = FaultForm::for_current(Some(Fault::Slow { factor: 5.0 }));
        assert_eq!(form.value_text(FormLine::Strength), "calls take x5 as long");
    }
}

//! The fault menu's form and timed faults: step a line's value, apply the form's fault to
//! every engine driven, and heal a timed fault when the simulated clock reaches its end (the
//! engine has no fault that ends by itself, so the app keeps the ends and sends the heal).
//! The menu's "double the load" is timed the same way: the app sets the load back at its end
//! with the load keys' commands (`SetRate`, `SetClients`).

use super::super::fault_form::{DoubleLoad, FaultForm, FormLine};
use super::{Action, App, LoadBoost, LoadLevel, Overlay, Status, TimedFault};
use crate::scenario::ServiceId;
use crate::sim::Command;
use crate::time::Nanos;

impl App {
    /// `←` `→` (`-` `+`): the highlighted line's value, or line `line`'s (from 1), one step.
    pub(super) fn adjust_in_menu(&mut self, line: Option<usize>, more: bool) {
        let Overlay::Faults(mut menu) = self.overlay else {
            return;
        };
        if menu.service.is_none() {
            // Only the last line, "double the load", has a value in the list.
            if menu.cursor >= self.source.scenario().services.len() {
                menu.double.adjust(more);
                self.overlay = Overlay::Faults(menu);
            }
            return;
        }
        if let Some(n) = line.filter(|&n| n >= 1 && n <= FormLine::LINES.len()) {
            menu.cursor = n - 1;
        }
        menu.form.adjust(FormLine::at(menu.cursor), more);
        self.overlay = Overlay::Faults(menu);
    }

    /// Injects the form's fault into `service` (or heals it), in every engine driven; a
    /// fault with a duration is healed when the simulated clock reaches its end.
    pub fn apply_fault(&mut self, service: ServiceId, form: FaultForm) {
        let Some(fault) = form.fault() else {
            self.fault_ends.retain(|t| t.service != service);
            self.command(Command::ClearFault { service });
            return;
        };
        let Ok(text) = self.try_command(Command::InjectFault { service, fault }) else {
            return;
        };
        self.fault_ends.retain(|t| t.service != service);
        if let Some(lasts) = form.lasts() {
            let end = self.source.now() + lasts;
            let text = format!(
                "{text} for {lasts}, healed at t {}",
                super::super::ui::clock_text(end)
            );
            self.fault_ends.push(TimedFault {
                service,
                fault,
                end,
            });
            self.info(text);
        }
    }

    /// The load doubled (open: the rate; closed: the clients) for `double`'s duration, in
    /// every engine driven; the app sets it back at the end. A run whose load keys are
    /// refused refuses it too, and a doubled load is not doubled again.
    pub fn double_load(&mut self, double: DoubleLoad) {
        if let Some(why) = self.refusal(Action::MoreLoad) {
            self.status = Some(Status::Error(why.to_string()));
            return;
        }
        if let Some(boost) = self.load_boost {
            self.info(format!(
                "the load is already doubled, until t {}",
                super::super::ui::clock_text(boost.end)
            ));
            return;
        }
        let Some(before) = LoadLevel::of(&self.source.scenario().load.mode) else {
            self.info("double the load works on open and closed load".to_string());
            return;
        };
        let Ok(text) = self.try_command(before.doubled().command()) else {
            return;
        };
        let Some(doubled) = LoadLevel::of(&self.source.scenario().load.mode) else {
            return;
        };
        let lasts = double.lasts();
        let end = self.source.now() + lasts;
        self.load_boost = Some(LoadBoost {
            before,
            doubled,
            end,
        });
        self.info(format!(
            "{text} for {lasts}, back at t {}",
            super::super::ui::clock_text(end)
        ));
    }

    /// Forgets every timed fault, a doubled load and the live changes (a reset, a restart:
    /// a new run).
    pub(super) fn forget_timed(&mut self) {
        self.fault_ends.clear();
        self.load_boost = None;
        self.live_changes.clear();
    }

    /// The earliest end of a timed fault or of the doubled load.
    pub(super) fn next_fault_end(&self) -> Option<Nanos> {
        self.fault_ends
            .iter()
            .map(|t| t.end)
            .chain(self.load_boost.map(|b| b.end))
            .min()
    }

    /// Sets the doubled load back if its end has come and nothing changed the load since
    /// (a load key, a `[[load.phases]]` entry: then the load stays as they set it); returns
    /// what it did.
    fn end_due_boost(&mut self, now: Nanos) -> Option<String> {
        let boost = self.load_boost.filter(|b| b.end <= now)?;
        self.load_boost = None;
        if LoadLevel::of(&self.source.scenario().load.mode) != Some(boost.doubled) {
            return Some(
                "the doubled load's time was up; the load had changed since, so it stays"
                    .to_string(),
            );
        }
        self.try_command(boost.before.command())
            .ok()
            .map(|text| format!("{text} (the doubled load's time was up)"))
    }

    /// Heals every timed fault whose end the run on screen has reached (the engine's
    /// fault is still the one timed: nothing replaced it since), and says so on the status
    /// line; returns what it said, if it healed any.
    pub(super) fn end_due_faults(&mut self) -> Option<String> {
        let now = self.source.now();
        if self.next_fault_end().is_none_or(|end| end > now) {
            return None;
        }
        let (due, keep): (Vec<TimedFault>, Vec<TimedFault>) =
            self.fault_ends.iter().partition(|t| t.end <= now);
        self.fault_ends = keep;
        let live = self.source.snapshot().services;
        let mut said: Vec<String> = self.end_due_boost(now).into_iter().collect();
        for t in due {
            let still = live.get(t.service.0).and_then(|s| s.fault) == Some(t.fault);
            if !still {
                continue;
            }
            if let Ok(text) = self.try_command(Command::ClearFault { service: t.service }) {
                said.push(format!("{text} (its time was up)"));
            }
        }
        if said.is_empty() {
            return None;
        }
        let text = said.join(" · ");
        self.info(text.clone());
        Some(text)
    }

    /// Every engine driven runs to `at` (as a tour's replay does), healing timed faults at
    /// their ends on the way.
    pub(super) fn run_until_healing(&mut self, at: Nanos) {
        loop {
            let end = self.next_fault_end().filter(|&end| end < at);
            let to = end.unwrap_or(at);
            for engine in self.driven_mut() {
                engine.run_until(to);
            }
            // A finished run's clock stays put: nothing more is due.
            if end.is_none() || self.source.now() < to {
                return;
            }
            self.end_due_faults();
        }
    }
}

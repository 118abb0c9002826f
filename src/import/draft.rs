//! The preset an import writes, before it is text: tables of fields, each with its TOML value
//! and where the number came from (a file and line, a measurement, or an assumption), written
//! as a comment beside it so the preset says where each number came from.

use std::fmt::Write as _;

/// One field: `name = value  # from`.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    /// The TOML value as written (`50`, `"2s"`, `{ dist = ... }`).
    pub value: String,
    pub from: String,
}

/// A table's fields in the order they were first set; setting one again replaces it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldTable {
    pub fields: Vec<Field>,
}

impl FieldTable {
    pub fn set(&mut self, name: &str, value: impl Into<String>, from: impl Into<String>) {
        let field = Field {
            name: name.to_owned(),
            value: value.into(),
            from: from.into(),
        };
        match self.fields.iter_mut().find(|f| f.name == name) {
            Some(f) => *f = field,
            None => self.fields.push(field),
        }
    }

    pub fn get(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }
}

/// A service and its guards.
#[derive(Debug, Clone, Default)]
pub struct ServiceDraft {
    pub name: String,
    pub own: FieldTable,
    pub breaker: FieldTable,
    pub retry: FieldTable,
    pub rate_limit: FieldTable,
}

/// A named table of an array (`[[strategy.bulkhead]]`, `[[resources]]`).
#[derive(Debug, Clone, Default)]
pub struct Named {
    pub name: String,
    pub table: FieldTable,
}

/// The whole preset.
#[derive(Debug, Clone, Default)]
pub struct Draft {
    /// Comment lines at the top.
    pub header: Vec<String>,
    pub scenario: FieldTable,
    pub load: FieldTable,
    pub server: FieldTable,
    pub services: Vec<ServiceDraft>,
    pub resources: Vec<Named>,
    pub stages: Vec<Vec<String>>,
    pub stages_from: String,
    pub strategy: FieldTable,
    pub unbounded: FieldTable,
    pub semaphore: FieldTable,
    pub bulkheads: Vec<Named>,
}

/// A TOML string.
pub fn quote(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

impl Draft {
    pub fn service_mut(&mut self, name: &str) -> &mut ServiceDraft {
        let i = match self.services.iter().position(|s| s.name == name) {
            Some(i) => i,
            None => {
                self.services.push(ServiceDraft {
                    name: name.to_owned(),
                    ..ServiceDraft::default()
                });
                self.services.len() - 1
            }
        };
        &mut self.services[i]
    }

    pub fn bulkhead_mut(&mut self, name: &str) -> &mut Named {
        named_mut(&mut self.bulkheads, name)
    }

    pub fn resource_mut(&mut self, name: &str) -> &mut Named {
        named_mut(&mut self.resources, name)
    }

    /// Every field with its preset path, as the validator names it (`server.threads`,
    /// `services[1].breaker.window_size`, `strategy.bulkhead[0].core`).
    pub fn paths(&self) -> Vec<(String, &Field)> {
        let mut out = Vec::new();
        let mut tables: Vec<(String, &FieldTable)> = vec![
            ("scenario".into(), &self.scenario),
            ("load".into(), &self.load),
            ("server".into(), &self.server),
            ("strategy".into(), &self.strategy),
            ("strategy.unbounded".into(), &self.unbounded),
            ("strategy.semaphore".into(), &self.semaphore),
        ];
        for (i, s) in self.services.iter().enumerate() {
            tables.push((format!("services[{i}]"), &s.own));
            tables.push((format!("services[{i}].breaker"), &s.breaker));
            tables.push((format!("services[{i}].retry"), &s.retry));
            tables.push((format!("services[{i}].rate_limit"), &s.rate_limit));
        }
        for (i, b) in self.bulkheads.iter().enumerate() {
            tables.push((format!("strategy.bulkhead[{i}]"), &b.table));
        }
        for (i, r) in self.resources.iter().enumerate() {
            tables.push((format!("resources[{i}]"), &r.table));
        }
        for (prefix, t) in tables {
            for f in &t.fields {
                out.push((format!("{prefix}.{}", f.name), f));
            }
        }
        out
    }

    /// The preset as TOML text.
    pub fn to_toml(&self) -> String {
        let mut out = String::new();
        for line in &self.header {
            let _ = writeln!(out, "# {line}");
        }
        section(&mut out, "[scenario]", &self.scenario);
        section(&mut out, "[load]", &self.load);
        section(&mut out, "[server]", &self.server);
        for s in &self.services {
            let _ = writeln!(out, "\n[[services]]\nname = {}", quote(&s.name));
            fields(&mut out, &s.own);
            for (name, t) in [
                ("breaker", &s.breaker),
                ("retry", &s.retry),
                ("rate_limit", &s.rate_limit),
            ] {
                if !t.is_empty() {
                    section(&mut out, &format!("[services.{name}]"), t);
                }
            }
        }
        for r in &self.resources {
            let _ = writeln!(out, "\n[[resources]]\nname = {}", quote(&r.name));
            fields(&mut out, &r.table);
        }
        let stages: Vec<String> = self
            .stages
            .iter()
            .map(|st| {
                let names: Vec<String> = st.iter().map(|n| quote(n)).collect();
                format!("[{}]", names.join(", "))
            })
            .collect();
        let _ = writeln!(
            out,
            "\n[endpoint]\nstages = [{}]{}",
            stages.join(", "),
            comment(&self.stages_from)
        );
        section(&mut out, "[strategy]", &self.strategy);
        if !self.unbounded.is_empty() {
            section(&mut out, "[strategy.unbounded]", &self.unbounded);
        }
        if !self.semaphore.is_empty() {
            section(&mut out, "[strategy.semaphore]", &self.semaphore);
        }
        for b in &self.bulkheads {
            let _ = writeln!(out, "\n[[strategy.bulkhead]]\nname = {}", quote(&b.name));
            fields(&mut out, &b.table);
        }
        out
    }
}

fn named_mut<'a>(list: &'a mut Vec<Named>, name: &str) -> &'a mut Named {
    let i = match list.iter().position(|n| n.name == name) {
        Some(i) => i,
        None => {
            list.push(Named {
                name: name.to_owned(),
                table: FieldTable::default(),
            });
            list.len() - 1
        }
    };
    &mut list[i]
}

fn comment(from: &str) -> String {
    if from.is_empty() {
        String::new()
    } else {
        format!("  # {}", from.replace('\n', " "))
    }
}

fn section(out: &mut String, header: &str, t: &FieldTable) {
    let _ = writeln!(out, "\n{header}");
    fields(out, t);
}

fn fields(out: &mut String, t: &FieldTable) {
    for f in &t.fields {
        let _ = writeln!(out, "{} = {}{}", f.name, f.value, comment(&f.from));
    }
}

//! Spring Boot's relaxed binding and its order of property sources, for the files imported:
//!
//! - a key's elements match whatever their case and their `-` and `_`
//!   (`accept-count`, `acceptCount` and `accept_count` are one property), except a map's key
//!   (a resilience4j instance name), which keeps its spelling; `[a.b]` is one element;
//! - documents apply in order, files in the order given, and a later value wins;
//! - a document with `spring.config.activate.on-profile` (or the older `spring.profiles`)
//!   applies only while that profile is active: the `--profile` flags, else the last
//!   `spring.profiles.active` of a document for every profile.

use super::source::{ConfigEntry, Document};

/// One property after binding: its elements (canonical, map keys as written), the entry that
/// wins and the ones it replaced.
#[derive(Debug, Clone)]
pub struct Property {
    pub elements: Vec<String>,
    pub entry: ConfigEntry,
    pub replaced: Vec<ConfigEntry>,
}

impl Property {
    /// Whether the canonical key is `pattern`, where `*` stands for one element (a name).
    pub fn is(&self, pattern: &str) -> bool {
        let parts: Vec<&str> = pattern.split('.').collect();
        parts.len() == self.elements.len()
            && parts
                .iter()
                .zip(&self.elements)
                .all(|(p, e)| *p == "*" || canonical(p) == *e)
    }
}

/// What binding left: the properties in the order their first value appears, and the
/// entries of documents for profiles that are not active.
#[derive(Debug, Clone, Default)]
pub struct Bound {
    pub properties: Vec<Property>,
    pub inactive: Vec<(ConfigEntry, String)>,
    pub profiles: Vec<String>,
}

/// Keys whose next element is a map key (an instance or config name), kept as written.
const NAMED: [&str; 2] = ["instances", "configs"];

/// A key's elements: split at dots outside brackets; an element in brackets kept as it is.
pub fn elements(key: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0;
    for c in key.chars() {
        match c {
            '[' => {
                if depth == 0 && !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
                depth += 1;
                current.push(c);
            }
            ']' => {
                depth -= 1;
                current.push(c);
                if depth == 0 {
                    out.push(std::mem::take(&mut current));
                }
            }
            '.' if depth == 0 => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
            }
            _ => current.push(c),
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    // A map key follows `instances` / `configs`: as written, brackets taken off.
    let mut named = false;
    out.into_iter()
        .map(|e| {
            let element = if named {
                e.trim_start_matches('[').trim_end_matches(']').to_owned()
            } else if e.starts_with('[') {
                e
            } else {
                canonical(&e)
            };
            named = NAMED.contains(&element.as_str());
            element
        })
        .collect()
}

/// An element as relaxed binding compares it: lower case, without `-` and `_`.
pub fn canonical(element: &str) -> String {
    element
        .chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The profile expression of a document, if it has one.
fn on_profile(doc: &Document) -> Option<&ConfigEntry> {
    doc.entries.iter().find(|e| {
        let k = elements(&e.key);
        k == ["spring", "config", "activate", "onprofile"] || k == ["spring", "profiles"]
    })
}

/// Whether a profile expression (`prod`, `prod,eu`, `!dev`) holds for `active`.
fn profile_holds(expression: &str, active: &[String]) -> bool {
    expression
        .split(',')
        .map(str::trim)
        .any(|p| match p.strip_prefix('!') {
            Some(not) => !active.iter().any(|a| a == not.trim()),
            None => active.iter().any(|a| a == p),
        })
}

/// Binds the documents of every file, in order, for the `profiles` given (none: the files'
/// own `spring.profiles.active`).
pub fn bind(docs: &[Document], profiles: &[String]) -> Bound {
    let mut active: Vec<String> = profiles.to_vec();
    if active.is_empty() {
        for doc in docs.iter().filter(|d| on_profile(d).is_none()) {
            for e in &doc.entries {
                if elements(&e.key) == ["spring", "profiles", "active"] {
                    active = e.value.split(',').map(|p| p.trim().to_owned()).collect();
                    active.retain(|p| !p.is_empty());
                }
            }
        }
    }
    let mut bound = Bound {
        profiles: active.clone(),
        ..Bound::default()
    };
    for doc in docs {
        if let Some(expr) = on_profile(doc)
            && !profile_holds(&expr.value, &active)
        {
            let why = format!("its document is for profile {:?}, not active", expr.value);
            bound
                .inactive
                .extend(doc.entries.iter().map(|e| (e.clone(), why.clone())));
            continue;
        }
        for e in &doc.entries {
            let els = elements(&e.key);
            match bound.properties.iter_mut().find(|p| p.elements == els) {
                Some(p) => {
                    let old = std::mem::replace(&mut p.entry, e.clone());
                    p.replaced.push(old);
                }
                None => bound.properties.push(Property {
                    elements: els,
                    entry: e.clone(),
                    replaced: Vec::new(),
                }),
            }
        }
    }
    bound
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::source::yaml_documents;

    #[test]
    fn kebab_camel_and_underscores_name_one_property_but_instance_names_keep_their_case() {
        for key in [
            "server.tomcat.accept-count",
            "server.tomcat.acceptCount",
            "server.tomcat.accept_count",
            "Server.Tomcat.ACCEPT-COUNT",
        ] {
            assert_eq!(elements(key), ["server", "tomcat", "acceptcount"], "{key}");
        }
        assert_eq!(
            elements("resilience4j.retry.instances.backendA.maxAttempts"),
            [
                "resilience4j",
                "retry",
                "instances",
                "backendA",
                "maxattempts"
            ]
        );
        assert_eq!(
            elements("resilience4j.retry.instances[backend.a].max-attempts"),
            [
                "resilience4j",
                "retry",
                "instances",
                "backend.a",
                "maxattempts"
            ]
        );
    }

    #[test]
    fn later_documents_win_and_profile_documents_apply_only_when_active() {
        let text = "spring.profiles.active: prod\na:\n  b-c: 1\n---\nspring.config.activate.on-profile: prod\na.bC: 2\n---\nspring.config.activate.on-profile: dev\na.b_c: 3\n";
        let docs = yaml_documents("a.yml", text).expect("yaml");
        let b = bind(&docs, &[]);
        let p = b.properties.iter().find(|p| p.is("a.b-c")).expect("a.b-c");
        assert_eq!((p.entry.value.as_str(), p.entry.line), ("2", 6));
        assert_eq!(p.replaced.len(), 1);
        assert_eq!(b.inactive.len(), 2);
        // Another profile asked for on the command line.
        let b = bind(&docs, &["dev".to_owned()]);
        let p = b.properties.iter().find(|p| p.is("a.b-c")).expect("a.b-c");
        assert_eq!(p.entry.value, "3");
    }
}

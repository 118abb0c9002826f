//! The source tree's shape: the layers of this crate use each other one way (the engines'
//! crates below it cannot name it at all: cargo refuses), and each type name is defined once
//! in the workspace.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, with its text.
fn sources(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).expect("the source folder reads") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("a source file reads");
                out.push((path, text));
            }
        }
    }
    out.sort();
    out
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The source folders of every crate of the workspace.
fn workspace_sources() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = sources(&root.join("src"));
    for entry in std::fs::read_dir(root.join("crates")).expect("the crates folder reads") {
        let krate = entry.expect("a folder entry").path().join("src");
        out.extend(sources(&krate));
    }
    out
}

/// The name a line defines, if it starts a `struct` or an `enum` (of any visibility).
fn defined_type(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    if let Some(r) = rest.strip_prefix("pub") {
        rest = r.trim_start();
        if rest.starts_with('(') {
            rest = rest[rest.find(')')? + 1..].trim_start();
        }
    }
    let rest = rest
        .strip_prefix("struct ")
        .or_else(|| rest.strip_prefix("enum "))?;
    let end = rest
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(rest.len());
    let name = &rest[..end];
    name.starts_with(|c: char| c.is_ascii_uppercase())
        .then_some(name)
}

#[test]
fn each_struct_and_enum_name_is_defined_once_in_the_workspace() {
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, text) in workspace_sources() {
        for (n, line) in text.lines().enumerate() {
            if let Some(name) = defined_type(line) {
                let place = format!("{}:{}", path.display(), n + 1);
                seen.entry(name.to_owned()).or_default().push(place);
            }
        }
    }
    let twice: Vec<_> = seen.into_iter().filter(|(_, at)| at.len() > 1).collect();
    assert!(
        twice.is_empty(),
        "type names defined more than once: {twice:#?}"
    );
}

/// Whether `text` names the module `crate::<module>` (in a path or a `use`).
fn names_module(text: &str, module: &str) -> bool {
    let needle = format!("crate::{module}");
    text.match_indices(&needle).any(|(at, _)| {
        !text[at + needle.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[test]
fn report_uses_neither_sweep_nor_export_and_sweep_uses_neither_real_nor_export() {
    let below = |module: &str, forbidden: &[&str]| {
        for (path, text) in sources(&src().join(module)) {
            for f in forbidden {
                assert!(
                    !names_module(&text, f),
                    "{} uses crate::{f}",
                    path.display()
                );
            }
        }
    };
    below("report", &["sweep", "export"]);
    below("sweep", &["real", "export"]);
}

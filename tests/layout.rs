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

/// A module path (`["flow", "call"]`) for each file of a crate's `src`, with its text outside
/// comments and tests.
fn crate_modules(krate: &str) -> BTreeMap<Vec<String>, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates")
        .join(krate)
        .join("src");
    let mut out = BTreeMap::new();
    for (path, text) in sources(&dir) {
        let rel = path.strip_prefix(&dir).expect("a file under src");
        let mut parts: Vec<String> = rel
            .with_extension("")
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
            parts.pop();
        }
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        let code: String = code
            .lines()
            .map(|l| l.split("//").next().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n");
        out.insert(parts, code);
    }
    out
}

/// The files a module's code names through `crate::` and `super::` paths: the longest prefix
/// of each path that is a file, leaving out the module's own ancestors (a child may use what
/// its parent declares).
fn file_edges(modules: &BTreeMap<Vec<String>, String>) -> BTreeMap<Vec<String>, Vec<Vec<String>>> {
    let mut edges = BTreeMap::new();
    for (module, code) in modules {
        let mut to = Vec::new();
        for (prefix, base) in [
            ("crate::", Vec::new()),
            ("super::", module[..module.len().saturating_sub(1)].to_vec()),
        ] {
            for (at, _) in code.match_indices(prefix) {
                if at > 0 && code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let path: Vec<String> = code[at + prefix.len()..]
                    .split(|c: char| !c.is_alphanumeric() && c != '_' && c != ':')
                    .next()
                    .unwrap_or_default()
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect();
                let target = (0..=path.len()).rev().find_map(|k| {
                    let mut t = base.clone();
                    t.extend(path[..k].iter().cloned());
                    modules.contains_key(&t).then_some(t)
                });
                if let Some(t) = target {
                    let ancestor = t.len() < module.len() && module[..t.len()] == t[..];
                    if t != *module && !ancestor && !to.contains(&t) {
                        to.push(t);
                    }
                }
            }
        }
        edges.insert(module.clone(), to);
    }
    edges
}

/// A cycle among the files, if any (as the path that closes it).
fn a_cycle(edges: &BTreeMap<Vec<String>, Vec<Vec<String>>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        at: &Vec<String>,
        edges: &BTreeMap<Vec<String>, Vec<Vec<String>>>,
        marks: &mut BTreeMap<Vec<String>, Mark>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match marks.get(at) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                stack.push(at.join("/"));
                return Some(stack.clone());
            }
            None => {}
        }
        marks.insert(at.clone(), Mark::Open);
        stack.push(at.join("/"));
        for next in edges.get(at).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, marks, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        marks.insert(at.clone(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    edges
        .keys()
        .find_map(|m| visit(m, edges, &mut marks, &mut Vec::new()))
}

#[test]
fn the_model_and_engine_crates_have_no_cycle_between_their_files() {
    for krate in ["model", "sim", "real"] {
        let modules = crate_modules(krate);
        assert!(modules.len() > 10, "{krate}: its files were found");
        let edges = file_edges(&modules);
        assert!(
            edges.values().any(|to| !to.is_empty()),
            "{krate}: the files' imports were read"
        );
        assert_eq!(
            a_cycle(&edges),
            None,
            "crates/{krate}: a cycle between files"
        );
    }
}

#[test]
fn a_cycle_between_files_is_found() {
    let modules: BTreeMap<Vec<String>, String> = [
        (vec!["a".to_owned()], "use crate::b::X;".to_owned()),
        (vec!["b".to_owned()], "use super::c::Y;".to_owned()),
        (vec!["c".to_owned()], "fn f() { crate::a::g() }".to_owned()),
    ]
    .into();
    let cycle = a_cycle(&file_edges(&modules)).expect("a → b → c → a");
    assert_eq!(cycle, ["a", "b", "c", "a"]);
}

#[test]
fn the_model_crate_depends_on_no_runtime_terminal_plotting_or_cli_crate_and_the_engines_not_on_each_other()
 {
    let manifest = |krate: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("crates")
            .join(krate)
            .join("Cargo.toml");
        let text = std::fs::read_to_string(path).expect("the manifest reads");
        let table: toml::Table = text.parse().expect("the manifest parses");
        ["dependencies", "build-dependencies"]
            .iter()
            .filter_map(|k| table.get(*k).and_then(|d| d.as_table()))
            .flat_map(|d| d.keys().cloned())
            .collect::<Vec<_>>()
    };
    let model = manifest("model");
    assert!(
        model.iter().any(|d| d == "rand"),
        "model's dependencies were read: {model:?}"
    );
    for banned in [
        "tokio",
        "tokio-metrics",
        "ratatui",
        "crossterm",
        "plotters",
        "rayon",
        "clap",
    ] {
        assert!(
            !model.iter().any(|d| d == banned),
            "the model crate depends on {banned}"
        );
    }
    assert!(!manifest("sim").iter().any(|d| d == "threadlab-real"));
    assert!(!manifest("real").iter().any(|d| d == "threadlab-sim"));
    assert!(manifest("real").iter().any(|d| d == "threadlab-model"));
}

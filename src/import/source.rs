//! Spring Boot configuration files read into flat `key = value` entries, each with the file
//! and line it came from: `application.yml` / `.yaml` (every document of the stream) and
//! `application.properties` (documents split by `#---` or `!---`, as Spring Boot does).

use std::borrow::Cow;
use std::path::Path;

use saphyr_parser::{Event, Parser, Span, SpannedEventReceiver};

use super::ImportError;

/// One property as the file writes it: the flattened key (`server.tomcat.threads.max`,
/// `list[0]`), the value as text, and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigEntry {
    pub key: String,
    pub value: String,
    pub file: String,
    pub line: usize,
}

impl ConfigEntry {
    /// `application.yml:4`
    pub fn at(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// One document of a file: its entries in file order.
#[derive(Debug, Clone, Default)]
pub struct Document {
    pub entries: Vec<ConfigEntry>,
}

/// The most a configuration file may hold, as for presets.
const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// Reads a file as text (UTF-8, a byte-order mark skipped), at most 64 MiB.
pub fn read_text(path: &Path) -> Result<String, ImportError> {
    let file = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| ImportError::file(&file, e.to_string()))?;
    if meta.len() > MAX_BYTES {
        return Err(ImportError::file(
            &file,
            format!("is {} bytes: at most 64 MiB", meta.len()),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| ImportError::file(&file, e.to_string()))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| ImportError::file(&file, format!("is not UTF-8 ({e})")))?;
    Ok(text.strip_prefix('\u{feff}').unwrap_or(&text).to_owned())
}

/// Reads a Spring configuration file by its extension: `.yml`/`.yaml` or `.properties`.
pub fn read_spring_file(path: &Path) -> Result<Vec<Document>, ImportError> {
    let file = path.display().to_string();
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let text = read_text(path)?;
    match ext {
        "yml" | "yaml" => yaml_documents(&file, &text),
        "properties" => properties_documents(&file, &text),
        _ => Err(ImportError::file(
            &file,
            "is neither .yml, .yaml nor .properties: name the file as Spring Boot does",
        )),
    }
}

/// Every document of a YAML stream, flattened.
pub fn yaml_documents(file: &str, text: &str) -> Result<Vec<Document>, ImportError> {
    let mut flat = Flattener {
        file: file.to_owned(),
        docs: Vec::new(),
        stack: Vec::new(),
        error: None,
    };
    Parser::new_from_str(text)
        .load(&mut flat, true)
        .map_err(|e| ImportError {
            file: file.to_owned(),
            line: Some(e.marker().line()),
            key: None,
            message: format!("not YAML: {}", e.info()),
        })?;
    if let Some(e) = flat.error {
        return Err(e);
    }
    Ok(flat.docs)
}

/// Where the YAML event stream is: a mapping waiting for a key or for the value of `key`, or
/// a sequence at its next index; each with the flattened path that leads to it.
enum Frame {
    Map {
        prefix: String,
        key: Option<(String, usize)>,
    },
    Seq {
        prefix: String,
        line: usize,
        next: usize,
    },
}

struct Flattener {
    file: String,
    docs: Vec<Document>,
    stack: Vec<Frame>,
    error: Option<ImportError>,
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_owned()
    } else {
        format!("{prefix}.{key}")
    }
}

impl Flattener {
    /// The path and line a value (scalar or collection) starting now is bound to.
    fn bind(&mut self, line: usize) -> Option<(String, usize)> {
        match self.stack.last_mut()? {
            Frame::Map { prefix, key } => {
                let (k, at) = key.take()?;
                Some((join(prefix, &k), at))
            }
            Frame::Seq { prefix, next, .. } => {
                let path = format!("{prefix}[{next}]");
                *next += 1;
                Some((path, line))
            }
        }
    }

    fn push_entry(&mut self, key: String, value: String, line: usize) {
        if let Some(doc) = self.docs.last_mut() {
            doc.entries.push(ConfigEntry {
                key,
                value,
                file: self.file.clone(),
                line,
            });
        }
    }

    fn fail(&mut self, line: usize, message: String) {
        if self.error.is_none() {
            self.error = Some(ImportError {
                file: self.file.clone(),
                line: Some(line),
                key: None,
                message,
            });
        }
    }
}

impl<'input> SpannedEventReceiver<'input> for Flattener {
    fn on_event(&mut self, ev: Event<'input>, span: Span) {
        let line = span.start.line();
        match ev {
            Event::DocumentStart(_) => {
                self.docs.push(Document::default());
                self.stack.clear();
            }
            Event::MappingStart(..) => {
                if matches!(self.stack.last(), Some(Frame::Map { key: None, .. })) {
                    self.fail(line, "a mapping used as a key: keys are plain text".into());
                }
                let prefix = self.bind(line).map(|(p, _)| p).unwrap_or_default();
                self.stack.push(Frame::Map { prefix, key: None });
            }
            Event::SequenceStart(..) => {
                let (prefix, at) = self.bind(line).unwrap_or_default();
                self.stack.push(Frame::Seq {
                    prefix,
                    line: at,
                    next: 0,
                });
            }
            Event::MappingEnd => {
                self.stack.pop();
            }
            Event::SequenceEnd => {
                // An empty list is still a key the file names.
                if let Some(Frame::Seq { prefix, line, next }) = self.stack.pop()
                    && next == 0
                {
                    self.push_entry(prefix, "[]".into(), line);
                }
            }
            Event::Scalar(text, ..) => self.scalar(text, line),
            Event::Alias(_) => {
                if let Some((key, at)) = self.bind(line) {
                    self.push_entry(key, "*alias".into(), at);
                }
            }
            _ => {}
        }
    }
}

impl Flattener {
    fn scalar(&mut self, text: Cow<'_, str>, line: usize) {
        match self.stack.last_mut() {
            Some(Frame::Map {
                key: key @ None, ..
            }) => *key = Some((text.into_owned(), line)),
            Some(_) => {
                if let Some((key, at)) = self.bind(line) {
                    let value = if text == "~" {
                        String::new()
                    } else {
                        text.into_owned()
                    };
                    self.push_entry(key, value, at);
                }
            }
            // A document that is one bare value names no key.
            None => self.fail(line, format!("{text:?} is not a key: value mapping")),
        }
    }
}

/// A `.properties` file: `key=value`, `key: value` or `key value` lines (continuations and
/// escapes as `java.util.Properties` reads them); `#---` or `!---` starts a new document.
pub fn properties_documents(file: &str, text: &str) -> Result<Vec<Document>, ImportError> {
    let mut docs = vec![Document::default()];
    for line in java_properties::PropertiesIter::new(text.as_bytes()) {
        let line = line.map_err(|e| ImportError {
            file: file.to_owned(),
            line: e.line_number(),
            key: None,
            message: format!("not a properties file: {e}"),
        })?;
        let number = line.line_number();
        match line.consume_content() {
            java_properties::LineContent::Comment(c) if c.trim() == "---" => {
                docs.push(Document::default());
            }
            java_properties::LineContent::Comment(_) => {}
            java_properties::LineContent::KVPair(key, value) => {
                if let Some(doc) = docs.last_mut() {
                    doc.entries.push(ConfigEntry {
                        key,
                        value,
                        file: file.to_owned(),
                        line: number,
                    });
                }
            }
        }
    }
    Ok(docs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(docs: &[Document]) -> Vec<(String, String, usize)> {
        docs.iter()
            .flat_map(|d| &d.entries)
            .map(|e| (e.key.clone(), e.value.clone(), e.line))
            .collect()
    }

    #[test]
    fn yaml_flattens_nested_keys_dotted_keys_and_lists_with_their_lines() {
        let text = "server:\n  tomcat:\n    threads.max: 50\n    accept-count: 20\nlist:\n  - a\n  - b\n---\nx: 1\n";
        let docs = yaml_documents("a.yml", text).expect("yaml");
        assert_eq!(docs.len(), 2);
        assert_eq!(
            keys(&docs),
            vec![
                ("server.tomcat.threads.max".into(), "50".into(), 3),
                ("server.tomcat.accept-count".into(), "20".into(), 4),
                ("list[0]".into(), "a".into(), 6),
                ("list[1]".into(), "b".into(), 7),
                ("x".into(), "1".into(), 9),
            ]
        );
    }

    #[test]
    fn bad_yaml_names_the_line() {
        let e = yaml_documents("a.yml", "a:\n  b: 1\n c: [\n").expect_err("bad");
        assert_eq!(e.file, "a.yml");
        assert!(e.line.is_some_and(|l| l >= 3), "{e}");
    }

    #[test]
    fn properties_split_documents_at_the_separator() {
        let text = "a.b=1\n# a comment\nc.d : two words\n#---\ne=3\n";
        let docs = properties_documents("a.properties", text).expect("props");
        assert_eq!(docs.len(), 2);
        assert_eq!(
            keys(&docs),
            vec![
                ("a.b".into(), "1".into(), 1),
                ("c.d".into(), "two words".into(), 3),
                ("e".into(), "3".into(), 5),
            ]
        );
    }
}

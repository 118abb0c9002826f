//! `w` in the TUI: the recorded timelines written as a Perfetto / Chrome trace.

use crate::files::{OutputError, OutputFile};
use crate::report::perfetto;
use crate::scenario::Strategy;
use crate::sim::Engine;
use crate::time::Nanos;

/// `threadlab-trace-<strategy>-<ms>ms.json`: a new name at each simulated instant.
pub fn trace_file_name(strategy: Strategy, now: Nanos) -> String {
    format!(
        "threadlab-trace-{strategy}-{}ms.json",
        now.as_nanos() / 1_000_000
    )
}

/// Writes `engine`'s timelines to `path` in the working directory, whole or not at all (a
/// file there is replaced, a link is not followed), and says what it wrote (and what the live
/// view's rings had already forgotten).
///
/// # Errors
/// The file cannot be written; the message names it.
pub fn write_trace(engine: &Engine, path: &str) -> Result<String, OutputError> {
    let out = OutputFile::check(None, std::path::Path::new(path))?;
    let runs = [("", engine)];
    let summary = out.write(|w| perfetto::write_trace(w, &runs))?;
    let mut text = format!("wrote {path} ({} events)", summary.events);
    if let Some(msg) = perfetto::left_out_message(&runs) {
        text.push_str("; ");
        text.push_str(&msg);
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_written_trace_parses_and_the_message_counts_its_events() {
        let s = crate::scenario::load("ironthread", &[]).expect("preset loads");
        let mut engine = Engine::new(&s, Strategy::Bulkhead);
        engine.record_timeline(crate::sim::Retention::LIVE);
        engine.run_until(Nanos::from_secs(3));
        let path = std::env::temp_dir().join(format!("threadlab-test-{}.json", std::process::id()));
        let path = path.to_string_lossy().to_string();
        let text = write_trace(&engine, &path).expect("written");
        let bytes = std::fs::read(&path).expect("read back");
        let _ = std::fs::remove_file(&path);
        let doc: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
        let events = doc["traceEvents"].as_array().map_or(0, Vec::len);
        assert!(text.contains(&format!("({events} events)")), "{text}");
        assert_eq!(
            trace_file_name(Strategy::Bulkhead, Nanos::from_millis(3200)),
            "threadlab-trace-bulkhead-3200ms.json"
        );
    }

    #[test]
    fn a_trace_that_cannot_be_created_names_the_file() {
        let s = crate::scenario::load("ironthread", &[]).expect("preset loads");
        let mut engine = Engine::new(&s, Strategy::Bulkhead);
        engine.record_timeline(crate::sim::Retention::LIVE);
        let path = std::env::temp_dir()
            .join("threadlab-no-such-folder")
            .join("t.json");
        let path = path.to_string_lossy().to_string();
        let err = write_trace(&engine, &path).expect_err("no folder");
        assert!(err.is_refusal(), "{err:?}");
        assert!(
            err.to_string()
                .starts_with(&format!("{path}: there is no folder ")),
            "{err}"
        );
    }
}

//! `--record FILE.cast`: what the TUI writes to the terminal, teed into an asciicast v2 file
//! (asciinema's format: a JSON header line, then one `[time, "o", data]` line per frame).
//!
//! Times come from a [`CastClock`]: the wall clock for a live session, or the frame count
//! for a scripted demo (`--keys FILE`), where each frame is exactly 1/fps of presentation time,
//! so the same script, preset and seed record the same bytes.

use std::io::{self, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Where a cast's times come from.
#[derive(Debug, Clone, Copy)]
pub enum CastClock {
    /// Seconds since the recording started.
    Wall(Instant),
    /// `frame / fps` seconds: the frame loop counts frames ([`TeeHandle::next_frame`]).
    Frames { fps: u32 },
}

/// An asciicast v2 file being written.
#[derive(Debug)]
pub struct Cast<W: Write> {
    out: W,
    clock: CastClock,
    /// The frame count, shared with the frame loop's [`TeeHandle`].
    frame: Arc<AtomicU64>,
    /// The last event's time: each next one is later, by at least a microsecond.
    last: Option<f64>,
}

impl<W: Write> Cast<W> {
    /// Starts a cast of a `width` x `height` terminal: writes the header line. `timestamp`
    /// (Unix seconds) is left out of a scripted cast so that it records the same bytes.
    pub fn new(
        mut out: W,
        (width, height): (u16, u16),
        clock: CastClock,
        timestamp: Option<u64>,
    ) -> io::Result<Cast<W>> {
        // Written by hand to keep asciinema's field order (version first).
        let timestamp = timestamp.map_or(String::new(), |t| format!(", \"timestamp\": {t}"));
        writeln!(
            out,
            "{{\"version\": 2, \"width\": {width}, \"height\": {height}{timestamp}}}"
        )?;
        Ok(Cast {
            out,
            clock,
            frame: Arc::new(AtomicU64::new(0)),
            last: None,
        })
    }

    /// The writer, once the cast is over.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn seconds(&self) -> f64 {
        match self.clock {
            CastClock::Wall(start) => start.elapsed().as_secs_f64(),
            CastClock::Frames { fps } => {
                self.frame.load(Ordering::Relaxed) as f64 / f64::from(fps.max(1))
            }
        }
    }

    /// One output event: `data` as the terminal received it.
    pub fn output(&mut self, data: &[u8]) -> io::Result<()> {
        let text = String::from_utf8_lossy(data);
        self.event("o", &text)?;
        self.out.flush()
    }

    /// The terminal is now `width` x `height` (asciicast v2's resize event, `"r"`).
    pub fn resize(&mut self, (width, height): (u16, u16)) -> io::Result<()> {
        self.event("r", &format!("{width}x{height}"))
    }

    /// One event line, later than the one before by at least a microsecond.
    fn event(&mut self, code: &str, data: &str) -> io::Result<()> {
        let mut t = self.seconds();
        if let Some(last) = self.last
            && t <= last
        {
            t = last + 0.000_001;
        }
        self.last = Some(t);
        let line = serde_json::json!([round6(t), code, data]);
        writeln!(self.out, "{line}")
    }
}

/// Microsecond precision, as asciinema writes times.
fn round6(t: f64) -> f64 {
    (t * 1e6).round() / 1e6
}

/// A writer that sends everything to the terminal and, when recording, the same bytes to a
/// cast, one event per flush (ratatui flushes once per frame).
#[derive(Debug)]
pub struct Tee<T: Write, C: Write> {
    terminal: T,
    cast: Recording<C>,
    pending: Vec<u8>,
    handle: TeeHandle,
}

/// The cast a [`Tee`] records into, shared so it can be taken out and finished when the
/// session is over (the tee itself belongs to the terminal).
#[derive(Debug)]
pub struct Recording<C: Write>(Arc<Mutex<Option<Cast<C>>>>);

impl<C: Write> Recording<C> {
    /// The cast, taken out (the terminal is no longer recorded).
    pub fn take(&self) -> Option<Cast<C>> {
        self.0.lock().ok().and_then(|mut c| c.take())
    }
}

/// What the frame loop keeps of a [`Tee`] it handed to the terminal: the frame count of a
/// scripted cast, and why the recording stopped if it did.
#[derive(Debug, Clone, Default)]
pub struct TeeHandle {
    frame: Arc<AtomicU64>,
    /// A cast that failed to write stops recording; the error is kept to report at the end.
    failed: Arc<Mutex<Option<io::Error>>>,
    /// The terminal's new size, recorded before the next output.
    resized: Arc<Mutex<Option<(u16, u16)>>>,
}

impl TeeHandle {
    /// A scripted cast's clock moves on by one frame.
    pub fn next_frame(&self) {
        self.frame.fetch_add(1, Ordering::Relaxed);
    }

    /// The terminal was resized to `size`: the cast says so before the next frame.
    pub fn resized(&self, size: (u16, u16)) {
        if let Ok(mut resized) = self.resized.lock() {
            *resized = Some(size);
        }
    }

    /// Why the recording stopped early, if it did.
    pub fn take_error(&self) -> Option<io::Error> {
        self.failed.lock().ok().and_then(|mut f| f.take())
    }
}

impl<T: Write, C: Write> Tee<T, C> {
    pub fn new(terminal: T, mut cast: Option<Cast<C>>) -> (Self, TeeHandle) {
        let handle = TeeHandle::default();
        if let Some(c) = &mut cast {
            c.frame = handle.frame.clone();
        }
        let tee = Tee {
            terminal,
            cast: Recording(Arc::new(Mutex::new(cast))),
            pending: Vec::new(),
            handle: handle.clone(),
        };
        (tee, handle)
    }

    /// The recording, to take its cast out once the session is over.
    pub fn recording(&self) -> Recording<C> {
        Recording(Arc::clone(&self.cast.0))
    }
}

impl<T: Write, C: Write> Write for Tee<T, C> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.terminal.write(buf)?;
        if self.cast.0.lock().is_ok_and(|c| c.is_some()) {
            self.pending.extend_from_slice(&buf[..n]);
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.terminal.flush()?;
        let resized = self.handle.resized.lock().ok().and_then(|mut r| r.take());
        let Ok(mut slot) = self.cast.0.lock() else {
            return Ok(());
        };
        let Some(cast) = slot.as_mut() else {
            return Ok(());
        };
        let mut written = match resized {
            Some(size) => cast.resize(size),
            None => Ok(()),
        };
        if written.is_ok() && !self.pending.is_empty() {
            written = cast.output(&self.pending);
        }
        self.pending.clear();
        if let Err(e) = written {
            *slot = None;
            if let Ok(mut failed) = self.handle.failed.lock() {
                *failed = Some(e);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cast_is_a_header_then_timed_output_events() {
        let clock = CastClock::Frames { fps: 10 };
        let cast = Cast::new(Vec::new(), (80, 24), clock, None).expect("header");
        let (mut tee, handle) = Tee::new(io::sink(), Some(cast));
        tee.write_all(b"\x1b[2Jhello").expect("write");
        tee.flush().expect("flush");
        handle.next_frame();
        tee.write_all("wörld".as_bytes()).expect("write");
        tee.flush().expect("flush");
        // A flush with nothing written is no event; one at the same frame is a microsecond later.
        tee.flush().expect("flush");
        tee.write_all(b"!").expect("write");
        tee.flush().expect("flush");
        let bytes = tee.recording().take().expect("recording").into_inner();
        let text = String::from_utf8(bytes).expect("utf-8");
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect();
        assert_eq!(
            lines[0],
            serde_json::json!({"version": 2, "width": 80, "height": 24})
        );
        assert_eq!(lines[1], serde_json::json!([0.0, "o", "\u{1b}[2Jhello"]));
        assert_eq!(lines[2], serde_json::json!([0.1, "o", "wörld"]));
        assert_eq!(lines[3], serde_json::json!([0.100001, "o", "!"]));
        assert_eq!(lines.len(), 4);
    }

    #[test]
    fn a_resize_is_recorded_as_an_r_event_before_the_next_frame() {
        let clock = CastClock::Frames { fps: 10 };
        let cast = Cast::new(Vec::new(), (80, 24), clock, None).expect("header");
        let (mut tee, handle) = Tee::new(io::sink(), Some(cast));
        tee.write_all(b"a").expect("write");
        tee.flush().expect("flush");
        handle.next_frame();
        handle.resized((100, 30));
        tee.write_all(b"b").expect("write");
        tee.flush().expect("flush");
        let bytes = tee.recording().take().expect("recording").into_inner();
        let text = String::from_utf8(bytes).expect("utf-8");
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect();
        assert_eq!(lines[1], serde_json::json!([0.0, "o", "a"]));
        assert_eq!(lines[2], serde_json::json!([0.1, "r", "100x30"]));
        assert_eq!(lines[3], serde_json::json!([0.100001, "o", "b"]));
        assert_eq!(lines.len(), 4);
    }
}

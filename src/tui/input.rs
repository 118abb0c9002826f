//! Terminal input, read on threads of their own into a channel, so that everything the
//! terminal has sent is in the channel, however much arrived at once: the loop then sees a
//! `q` behind thousands of keys and quits first.
//!
//! The bytes come from `/dev/tty` and are turned into events by [`parser`] rather than by
//! crossterm's reader, whose parser waits for the end of any escape sequence it has begun:
//! `ESC [ <` (Alt+`[` then `<`) made it wait for the `m` ending a mouse report and swallow
//! every key until then, `q` and Ctrl-C included. Here a byte that cannot continue a sequence
//! ends it, and a sequence still incomplete when no byte came for [`ESCAPE_WAIT`] is handed
//! on as the keys it is made of. A window size change arrives as a resize event (from
//! SIGWINCH), so a paused screen redraws at the new size.

mod parser;

use std::io::{self, Read};
use std::sync::mpsc as std_mpsc;
use std::time::Duration;

use ratatui::crossterm::event::Event;
use tokio::sync::mpsc;

pub use parser::Parser;

/// How long the start of an escape sequence waits for its end. A terminal writes a key's or a
/// mouse report's sequence at once; a person typing Escape then `[` takes far longer.
pub const ESCAPE_WAIT: Duration = Duration::from_millis(50);

/// The terminal's events, in the order they came.
pub struct Input {
    events: mpsc::UnboundedReceiver<io::Result<Event>>,
}

impl Input {
    /// Starts the reading threads. They end at the first read error (the terminal closed) or
    /// when the `Input` is dropped and the next event finds no one to take it.
    pub fn start() -> io::Result<Input> {
        let (tx, events) = mpsc::unbounded_channel();
        let mut tty = std::fs::File::open("/dev/tty")?;
        let (bytes_tx, bytes) = std_mpsc::channel::<io::Result<Vec<u8>>>();
        std::thread::Builder::new()
            .name("threadlab-tty".into())
            .spawn(move || {
                let mut buf = [0u8; 4096];
                loop {
                    let read = match tty.read(&mut buf) {
                        Ok(0) => Err(io::Error::from(io::ErrorKind::UnexpectedEof)),
                        Ok(n) => Ok(buf[..n].to_vec()),
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => Err(e),
                    };
                    let failed = read.is_err();
                    if bytes_tx.send(read).is_err() || failed {
                        return;
                    }
                }
            })?;
        let parsed = tx.clone();
        std::thread::Builder::new()
            .name("threadlab-input".into())
            .spawn(move || parse(&bytes, &parsed))?;
        watch_resize(tx)?;
        Ok(Input { events })
    }

    /// The next event, waiting for it; `None` once the reading thread has ended.
    pub async fn next(&mut self) -> Option<io::Result<Event>> {
        self.events.recv().await
    }

    /// The next event if one is waiting.
    pub fn try_next(&mut self) -> Option<io::Result<Event>> {
        self.events.try_recv().ok()
    }
}

/// Turns the bytes into events until the terminal or the receiver goes away; an incomplete
/// sequence waits [`ESCAPE_WAIT`] for more bytes, then is handed on as keys.
fn parse(
    bytes: &std_mpsc::Receiver<io::Result<Vec<u8>>>,
    tx: &mpsc::UnboundedSender<io::Result<Event>>,
) {
    let mut parser = Parser::default();
    let mut out = Vec::new();
    loop {
        let next = if parser.is_waiting() {
            match bytes.recv_timeout(ESCAPE_WAIT) {
                Ok(read) => Some(read),
                Err(std_mpsc::RecvTimeoutError::Timeout) => None,
                Err(std_mpsc::RecvTimeoutError::Disconnected) => return,
            }
        } else {
            match bytes.recv() {
                Ok(read) => Some(read),
                Err(_) => return,
            }
        };
        match next {
            Some(Ok(chunk)) => parser.feed(&chunk, &mut out),
            None => parser.flush(&mut out),
            Some(Err(e)) => {
                let _ = tx.send(Err(e));
                return;
            }
        }
        for event in out.drain(..) {
            if tx.send(Ok(event)).is_err() {
                return;
            }
        }
    }
}

/// Sends a resize event on each SIGWINCH, until the receiver goes away.
fn watch_resize(tx: mpsc::UnboundedSender<io::Result<Event>>) -> io::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([signal_hook::consts::SIGWINCH])?;
    std::thread::Builder::new()
        .name("threadlab-resize".into())
        .spawn(move || {
            for _ in signals.forever() {
                let (w, h) = ratatui::crossterm::terminal::size().unwrap_or((0, 0));
                if tx.send(Ok(Event::Resize(w, h))).is_err() {
                    return;
                }
            }
        })?;
    Ok(())
}

//! Terminal input, read on a thread of its own into a channel, so that everything the
//! terminal has sent is in the channel, however much arrived at once: the loop then sees a
//! `q` behind thousands of keys and quits first.
//!
//! crossterm's default reader (mio, edge-triggered) reads the terminal 1 KiB at a time and
//! only reads again when new bytes arrive, so keys beyond the first KiB of one burst wait for
//! the next key press; its `use-dev-tty` reader polls level-triggered and reads on while bytes
//! are waiting. Its zero-timeout `poll` never reports new input, so nothing here polls: the
//! thread blocks in `read` and the loop drains the channel.

use std::io;

use ratatui::crossterm::event::{self, Event};
use tokio::sync::mpsc;

/// The terminal's events, in the order they came.
pub struct Input {
    events: mpsc::UnboundedReceiver<io::Result<Event>>,
}

impl Input {
    /// Starts the reading thread. It ends at the first read error (the terminal closed) or
    /// when the `Input` is dropped and the next event finds no one to take it.
    pub fn start() -> io::Result<Input> {
        let (tx, events) = mpsc::unbounded_channel();
        std::thread::Builder::new()
            .name("threadlab-input".into())
            .spawn(move || {
                loop {
                    let event = event::read();
                    let failed = event.is_err();
                    if tx.send(event).is_err() || failed {
                        return;
                    }
                }
            })?;
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

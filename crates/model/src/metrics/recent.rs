//! The newest runs (and, in the engine, changes), for a live view: a ring of at most its
//! capacity, newest last. Both engines keep their log in one.

use std::collections::VecDeque;

#[derive(Debug)]
pub struct RecentLog<T> {
    entries: VecDeque<T>,
    /// The most entries kept; 0 when nobody watches.
    capacity: usize,
}

impl<T> RecentLog<T> {
    pub fn new(capacity: usize) -> Self {
        RecentLog {
            entries: VecDeque::new(),
            capacity,
        }
    }

    /// Keeps nothing from now on: a headless run's report never reads the log.
    pub fn unwatched(&mut self) {
        self.capacity = 0;
        self.entries.clear();
    }

    /// Adds `entry`, dropping the oldest when full. Inlined: unwatched, the entry is not
    /// even built.
    #[inline(always)]
    pub fn push(&mut self, entry: T) {
        if self.capacity == 0 {
            return;
        }
        if self.entries.len() == self.capacity {
            self.entries.pop_front();
        }
        self.entries.push_back(entry);
    }

    /// The newest `n` entries (fewer when it holds fewer), oldest first.
    pub fn newest(&self, n: usize) -> impl Iterator<Item = &T> {
        self.entries
            .iter()
            .skip(self.entries.len().saturating_sub(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(i: u64) -> String {
        i.to_string()
    }

    #[test]
    fn the_log_keeps_its_newest_entries_and_nothing_once_unwatched() {
        let mut log = RecentLog::new(3);
        (1..=5).for_each(|i| log.push(change(i)));
        let newest: Vec<_> = log.newest(2).cloned().collect();
        assert_eq!(newest, vec![change(4), change(5)]);
        assert_eq!(log.newest(10).count(), 3);
        log.unwatched();
        log.push(change(6));
        assert_eq!(log.newest(usize::MAX).count(), 0);
    }
}

//! A fixed-capacity ring buffer of samples, oldest first, for sparklines.

use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub struct Series {
    samples: VecDeque<f64>,
    capacity: usize,
}

impl Series {
    pub fn new(capacity: usize) -> Self {
        Series {
            samples: VecDeque::with_capacity(capacity.max(1)),
            capacity: capacity.max(1),
        }
    }

    pub fn push(&mut self, value: f64) {
        if self.samples.len() == self.capacity {
            self.samples.pop_front();
        }
        self.samples.push_back(value);
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    pub fn last(&self) -> Option<f64> {
        self.samples.back().copied()
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = f64> + '_ {
        self.samples.iter().copied()
    }

    /// The newest `n` samples, oldest first.
    pub fn tail(&self, n: usize) -> Vec<f64> {
        let skip = self.samples.len().saturating_sub(n);
        self.samples.iter().skip(skip).copied().collect()
    }

    pub fn max(&self) -> f64 {
        self.samples.iter().copied().fold(0.0, f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_newest_samples() {
        let mut s = Series::new(3);
        for v in 1..=5 {
            s.push(f64::from(v));
        }
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![3.0, 4.0, 5.0]);
        assert_eq!(s.tail(2), vec![4.0, 5.0]);
        assert_eq!(s.max(), 5.0);
    }
}

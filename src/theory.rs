//! Queueing-theory predictions shown beside measurements.

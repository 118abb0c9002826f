//! Why a key's change did not happen, for the status line.

use std::sync::Arc;

use crate::real::RealError;
use crate::sim::CommandError;

/// A change the run on screen (or a compared one) did not take.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Refusal {
    /// A real run's keys that would change it are refused before they get here.
    #[error("a real run takes no commands")]
    RealRun,
    /// The engine refused the command (a pool it lacks, a size out of range, ...).
    #[error(transparent)]
    Command(#[from] CommandError),
    /// A compared run has no pool playing the role of the one changed.
    #[error("it has no such pool")]
    NoSuchPool,
    /// The run could not start again from t = 0.
    #[error(transparent)]
    Restart(Arc<RealError>),
}

impl From<RealError> for Refusal {
    fn from(error: RealError) -> Self {
        Refusal::Restart(Arc::new(error))
    }
}

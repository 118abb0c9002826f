//! Input files read up to a size: what is read is counted, not what the file system says its
//! size is (a device or a pipe says 0: `/dev/zero` would fill memory).

use std::io::Read;
use std::path::Path;

/// Why an input file was not read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{0}")]
    Read(#[from] std::io::Error),
    /// More than `limit` bytes were there to read.
    #[error("more than {limit} bytes: a file of this kind holds at most {limit}")]
    TooLarge { limit: u64 },
}

/// The bytes of `path`, at most `limit` of them: reading stops one byte past it.
///
/// # Errors
/// The file cannot be opened or read, or it holds more than `limit` bytes.
pub fn read_at_most(path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(InputError::TooLarge { limit });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_that_reports_no_size_is_read_only_up_to_the_limit() {
        // /dev/zero has size 0 and never ends: only limit + 1 bytes are read.
        let err = read_at_most(Path::new("/dev/zero"), 4096).expect_err("endless");
        assert!(
            matches!(err, InputError::TooLarge { limit: 4096 }),
            "{err:?}"
        );
        let path = std::env::temp_dir().join(format!("threadlab-in-{}", std::process::id()));
        std::fs::write(&path, "0.5s c\n").expect("write");
        let read = read_at_most(&path, 7);
        let _ = std::fs::remove_file(&path);
        assert_eq!(read.expect("7 bytes fit"), b"0.5s c\n");
    }
}

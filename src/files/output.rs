//! The one way every output file is written (`--trace`, `--plot`, `--record`, `screenshot
//! --out`, the TUI's `w` and `p`): whole or not at all, and never by replacing what is not a
//! file of ours to replace.
//!
//! [`OutputFile::check`] looks at the path before any work: a file, or nothing yet, is
//! written to a hidden temporary file beside it (created then, so a folder that cannot be
//! written is said before the work), which replaces the path by a rename once it is whole; a
//! pipe, a terminal or `/dev/null` (also through a symbolic link: `/dev/stdout`, `/dev/fd/3`,
//! a shell's `>(...)`) is written in place, as a shell's `>` would; anything else (a folder, a
//! symbolic link to a file or to nothing, a block device, another character device, a
//! socket) is refused, naming the path and what it is. The path itself is not touched until
//! the output is whole, so a run refused after the check, a failed write or a full disk
//! leaves it as it was, and dropping an [`OutputFile`] or a [`Staged`] writer that was not
//! committed removes its temporary file.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// An output path checked before the work: where and how its bytes will go.
#[derive(Debug)]
pub struct OutputFile {
    /// How messages name it: `--trace out.json`, or the path alone.
    shown: String,
    path: PathBuf,
    target: Destination,
}

#[derive(Debug)]
enum Destination {
    /// A regular file or nothing yet: the bytes go to `temp`, renamed over the path at the end.
    Replace { temp: PathBuf, file: Option<File> },
    /// A pipe, a terminal or `/dev/null`: written in place.
    Stream,
}

/// Why an output cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// Refused before any work (bad input, exit 2): no such folder, or not a file to write.
    #[error("{shown}: {why}")]
    Refused { shown: String, why: String },
    /// The bytes could not be written (a full disk, an I/O error: exit 1); the path is as it
    /// was.
    #[error("{shown}: cannot write it: {error}")]
    Write { shown: String, error: io::Error },
}

impl OutputError {
    /// A refusal before the work (exit 2), not a failed write (exit 1).
    pub fn is_refusal(&self) -> bool {
        matches!(self, OutputError::Refused { .. })
    }
}

/// What a refused target is, for the message; and what would be accepted.
const ACCEPTED: &str = "name a file (it is replaced once the output is whole), a pipe, a \
                        terminal or /dev/null";

impl OutputFile {
    /// Checks `path` for the output `flag` names (`--trace`; `None`: the path alone) before
    /// any work: its folder exists, and it is a file (or nothing yet), a pipe, a terminal or
    /// `/dev/null`. For a file, the temporary file it is written to is created now.
    ///
    /// # Errors
    /// [`OutputError::Refused`] naming the path and why; [`OutputError::Write`] when the
    /// temporary file cannot be created (a folder that cannot be written).
    pub fn check(flag: Option<&str>, path: &Path) -> Result<OutputFile, OutputError> {
        let shown = match flag {
            Some(flag) => format!("{flag} {}", path.display()),
            None => path.display().to_string(),
        };
        let refused = |why: String| OutputError::Refused {
            shown: shown.clone(),
            why,
        };
        if path.as_os_str().is_empty() || path.file_name().is_none() {
            return Err(refused(format!("is not a file name; {ACCEPTED}")));
        }
        let folder = folder_of(path);
        if !folder.is_dir() {
            return Err(refused(format!("there is no folder {}", folder.display())));
        }
        let streamed = match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => false,
            Err(e) => return Err(refused(format!("cannot look at it: {e}"))),
            Ok(m) if m.file_type().is_file() => false,
            Ok(m) if m.file_type().is_symlink() => match std::fs::metadata(path) {
                Ok(target) if streamable(&target) => true,
                Ok(target) => {
                    return Err(refused(format!(
                        "is a symbolic link to {}, which is not replaced through it; {ACCEPTED}",
                        kind_of(&target)
                    )));
                }
                Err(_) => {
                    return Err(refused(format!(
                        "is a symbolic link to nothing, which is not followed; {ACCEPTED}"
                    )));
                }
            },
            Ok(m) if streamable(&m) => true,
            Ok(m) => return Err(refused(format!("is {}; {ACCEPTED}", kind_of(&m)))),
        };
        let target = if streamed {
            Destination::Stream
        } else {
            let (temp, file) = temporary_beside(path).map_err(|error| OutputError::Write {
                shown: shown.clone(),
                error,
            })?;
            Destination::Replace {
                temp,
                file: Some(file),
            }
        };
        Ok(OutputFile {
            shown,
            path: path.to_path_buf(),
            target,
        })
    }

    /// The path the output goes to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the whole output with `write`, then puts it in place (for a file: the
    /// temporary file renamed over the path).
    ///
    /// # Errors
    /// [`OutputError::Write`] when a byte cannot be written or the rename fails; the path is
    /// then as it was and the temporary file removed.
    pub fn write<T>(
        self,
        write: impl FnOnce(&mut dyn Write) -> io::Result<T>,
    ) -> Result<T, OutputError> {
        let mut staged = self.open()?;
        let value = write(&mut staged).map_err(|error| staged.failed(error))?;
        staged.commit()?;
        Ok(value)
    }

    /// Opens the output for bytes that come over time (a recording): [`Staged::commit`] puts
    /// it in place; dropped without it, a file's temporary file is removed.
    ///
    /// # Errors
    /// A pipe or terminal that cannot be opened for writing.
    pub fn open(mut self) -> Result<Staged, OutputError> {
        let file = match &mut self.target {
            Destination::Replace { file, .. } => file.take(),
            Destination::Stream => None,
        };
        let file = match file {
            Some(file) => file,
            None => std::fs::OpenOptions::new()
                .write(true)
                .open(&self.path)
                .map_err(|error| OutputError::Write {
                    shown: self.shown.clone(),
                    error,
                })?,
        };
        Ok(Staged {
            out: BufWriter::new(file),
            output: self,
        })
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if let Destination::Replace { temp, .. } = &self.target {
            let _ = std::fs::remove_file(temp);
        }
    }
}

/// An output being written: [`Write`] into it, then [`Staged::commit`].
#[derive(Debug)]
pub struct Staged {
    out: BufWriter<File>,
    output: OutputFile,
}

impl Write for Staged {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl Staged {
    /// The output is whole: flushed (and for a file synced, then renamed over the path).
    ///
    /// # Errors
    /// A byte that cannot be written, or the rename; the path is then as it was.
    pub fn commit(mut self) -> Result<(), OutputError> {
        if let Err(error) = self.out.flush() {
            return Err(self.failed(error));
        }
        let Destination::Replace { temp, .. } = &self.output.target else {
            return Ok(());
        };
        if let Err(error) = self.out.get_ref().sync_all() {
            return Err(self.failed(error));
        }
        // What was a file (or nothing) at the check must still be one: a path turned into
        // a link or a device meanwhile is not replaced.
        if let Ok(m) = std::fs::symlink_metadata(&self.output.path)
            && !m.file_type().is_file()
        {
            let why = format!("became {} while the output was made; {ACCEPTED}", {
                kind_of(&m)
            });
            return Err(OutputError::Refused {
                shown: self.output.shown.clone(),
                why,
            });
        }
        match std::fs::rename(temp, &self.output.path) {
            Ok(()) => {
                // Renamed: nothing is left for the drop to remove.
                self.output.target = Destination::Stream;
                Ok(())
            }
            Err(error) => Err(self.failed(error)),
        }
    }

    /// The output could not be written: the error names it (the temporary file goes with
    /// the drop).
    pub fn failed(&self, error: io::Error) -> OutputError {
        OutputError::Write {
            shown: self.output.shown.clone(),
            error,
        }
    }
}

/// Writes `bytes` in `dir` under the first of `names` that no file has yet (never replacing
/// one), whole or not at all: a temporary file is written first, then linked to the name.
/// Returns the path written.
///
/// # Errors
/// The bytes cannot be written (the name is then left free), or every name is taken
/// (`Ok(None)`).
pub fn save_new(
    dir: &Path,
    names: impl IntoIterator<Item = String>,
    bytes: &[u8],
) -> Result<Option<PathBuf>, OutputError> {
    let shown = |p: &Path| p.display().to_string();
    let mut names = names.into_iter().peekable();
    // Messages name the picture that was to be written, not the temporary file.
    let Some(first) = names.peek().map(|n| dir.join(n)) else {
        return Ok(None);
    };
    let cannot = |error| OutputError::Write {
        shown: shown(&first),
        error,
    };
    let (temp, mut file) = temporary_beside(&first).map_err(cannot)?;
    // Removed on every way out once it has been linked or renamed (or failed).
    let _guard = RemoveOnDrop(temp.clone());
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(cannot)?;
    for name in names {
        let path = dir.join(&name);
        match std::fs::hard_link(&temp, &path) {
            Ok(()) => return Ok(Some(path)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            // A file system without hard links: claim the name, then put the bytes on it.
            Err(_) => match File::create_new(&path) {
                Ok(_) => {
                    return std::fs::rename(&temp, &path)
                        .map(|()| Some(path.clone()))
                        .map_err(|error| {
                            let _ = std::fs::remove_file(&path);
                            OutputError::Write {
                                shown: shown(&path),
                                error,
                            }
                        });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(error) => {
                    return Err(OutputError::Write {
                        shown: shown(&path),
                        error,
                    });
                }
            },
        }
    }
    Ok(None)
}

/// Removes the temporary files process `pid` left beside `path` (killed while it wrote).
pub fn remove_temporaries(path: &Path, pid: i32) {
    let Some(name) = path.file_name() else {
        return;
    };
    let prefix = format!(".{}.{pid}-", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(folder_of(path)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(&prefix)
            && name.ends_with(".tmp")
            && entry.file_type().is_ok_and(|t| t.is_file())
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The folder `path` is in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A new hidden file beside `path` (`.name.<pid>-<n>.tmp`), created so that nothing already
/// there (a file, a link an attacker left) is opened or followed.
fn temporary_beside(path: &Path) -> io::Result<(PathBuf, File)> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let folder = folder_of(path);
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let temp = folder.join(format!(".{name}.{}-{n}.tmp", std::process::id()));
        match File::create_new(&temp) {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 1_000_000 => continue,
            Err(e) => return Err(e),
        }
    }
}

/// A pipe, a terminal or `/dev/null`: what a shell's `>` writes into without harm, and what
/// naming it clearly asks for.
#[cfg(unix)]
fn streamable(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let kind = m.file_type();
    if kind.is_fifo() {
        return true;
    }
    if !kind.is_char_device() {
        return false;
    }
    let same = |p: &str| std::fs::metadata(p).is_ok_and(|d| d.rdev() == m.rdev());
    same("/dev/null") || same("/dev/tty") || is_a_terminal_of_ours(m.rdev())
}

#[cfg(not(unix))]
fn streamable(_: &std::fs::Metadata) -> bool {
    false
}

/// Whether one of this process's standard streams is the terminal device `rdev`.
#[cfg(unix)]
fn is_a_terminal_of_ours(rdev: u64) -> bool {
    use std::io::IsTerminal;
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let of = |fd: std::os::fd::BorrowedFd<'_>| {
        fd.is_terminal()
            && fd
                .try_clone_to_owned()
                .ok()
                .map(File::from)
                .and_then(|f| f.metadata().ok())
                .is_some_and(|m| m.rdev() == rdev)
    };
    of(io::stdin().as_fd()) || of(io::stdout().as_fd()) || of(io::stderr().as_fd())
}

/// What a file system entry is, for a message: `a folder`, `a block device`...
fn kind_of(m: &std::fs::Metadata) -> &'static str {
    let kind = m.file_type();
    if kind.is_dir() {
        return "a folder";
    }
    if kind.is_symlink() {
        return "a symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_char_device() {
            return "a character device (not a terminal or /dev/null)";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_fifo() {
            return "a pipe";
        }
    }
    if kind.is_file() {
        "a file"
    } else {
        "not a file"
    }
}

#[cfg(test)]
#[path = "output_tests.rs"]
mod tests;

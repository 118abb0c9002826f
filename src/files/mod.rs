//! The files threadlab reads and writes besides presets: output files written whole or not at
//! all ([`output`]), and input files read up to a size ([`input`]).

pub mod input;
pub mod output;

pub use input::{InputError, read_at_most};
pub use output::{OutputError, OutputFile, Staged, save_new};

/// Writes `text` to `path` (named by `flag` in messages, as `--results`), checked and put in
/// place as every output is ([`OutputFile`]).
///
/// # Errors
/// The path's refusal, or a failed write (the path is then as it was).
pub fn write_text(
    flag: Option<&str>,
    path: &std::path::Path,
    text: &str,
) -> Result<(), OutputError> {
    OutputFile::check(flag, path)?.write(|w| w.write_all(text.as_bytes()))
}

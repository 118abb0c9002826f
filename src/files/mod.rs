//! The files threadlab reads and writes besides presets: output files written whole or not at
//! all ([`output`]), and input files read up to a size ([`input`]).

pub mod input;
pub mod output;

pub use input::{InputError, read_at_most};
pub use output::{OutputError, OutputFile, Staged, save_new};

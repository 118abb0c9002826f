use std::io::Write;
use std::path::{Path, PathBuf};

use super::*;

/// A fresh folder of this test's own, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let dir = std::env::temp_dir().join(format!("threadlab-out-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        Dir(dir)
    }

    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// The names in the folder, sorted (hidden temporary files included).
    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn write_text(path: &Path, text: &str) -> Result<(), OutputError> {
    OutputFile::check(Some("--trace"), path)?.write(|w| w.write_all(text.as_bytes()))
}

#[test]
fn a_file_is_replaced_only_once_the_new_one_is_whole() {
    let dir = Dir::new("whole");
    let path = dir.join("t.json");
    std::fs::write(&path, "old").expect("write");
    let failed = OutputFile::check(Some("--trace"), &path)
        .expect("a file may be replaced")
        .write(|w| {
            w.write_all(b"{\"half")?;
            Err::<(), _>(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                "No space left on device",
            ))
        })
        .expect_err("the write failed");
    assert!(!failed.is_refusal());
    assert_eq!(
        failed.to_string(),
        format!(
            "--trace {}: cannot write it: No space left on device",
            path.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "old");
    assert_eq!(dir.names(), ["t.json"], "no temporary file is left");
    write_text(&path, "new").expect("written");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "new");
    assert_eq!(dir.names(), ["t.json"]);
}

#[test]
fn a_checked_output_that_is_never_written_leaves_the_path_untouched() {
    let dir = Dir::new("refused-later");
    let path = dir.join("demo.cast");
    std::fs::write(&path, "an earlier recording").expect("write");
    let checked = OutputFile::check(Some("--record"), &path).expect("a file");
    assert_eq!(dir.names().len(), 2, "the temporary file exists meanwhile");
    drop(checked);
    assert_eq!(dir.names(), ["demo.cast"]);
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        "an earlier recording"
    );
    // The same for a staged writer that is dropped before its commit.
    let mut staged = OutputFile::check(Some("--record"), &path)
        .expect("a file")
        .open()
        .expect("opens");
    staged.write_all(b"half a recording").expect("buffered");
    drop(staged);
    assert_eq!(dir.names(), ["demo.cast"]);
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        "an earlier recording"
    );
}

#[test]
fn a_symbolic_link_to_a_file_is_refused_and_neither_it_nor_its_target_changes() {
    let dir = Dir::new("link");
    let target = dir.join("precious");
    std::fs::write(&target, "keep").expect("write");
    let link = dir.join("t.json");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    let err = write_text(&link, "trace").expect_err("refused");
    assert!(err.is_refusal());
    assert!(
        err.to_string().starts_with(&format!(
            "--trace {}: is a symbolic link to a file, which is not replaced through it",
            link.display()
        )),
        "{err}"
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("still there")
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&target).expect("read"), "keep");
    // A dangling link is not followed into creating its target either.
    let dangling = dir.join("d.json");
    std::os::unix::fs::symlink(dir.join("nowhere"), &dangling).expect("symlink");
    let err = write_text(&dangling, "trace").expect_err("refused");
    assert!(
        err.to_string().contains("a symbolic link to nothing"),
        "{err}"
    );
    assert!(!dir.join("nowhere").exists());
    assert_eq!(dir.names(), ["d.json", "precious", "t.json"]);
}

#[test]
fn a_folder_a_missing_folder_and_a_device_are_refused_naming_the_path() {
    let dir = Dir::new("kinds");
    let err = write_text(&dir.0, "x").expect_err("a folder");
    assert!(err.to_string().contains("is a folder"), "{err}");
    let err = write_text(&dir.join("no/such/t.json"), "x").expect_err("no folder");
    assert!(
        err.to_string().ends_with(&format!(
            "there is no folder {}",
            dir.join("no/such").display()
        )),
        "{err}"
    );
    // A character device that is not a terminal or /dev/null (reached through a link in our
    // own folder: /dev itself is only looked at).
    let full = dir.join("full");
    std::os::unix::fs::symlink("/dev/full", &full).expect("symlink");
    let err = write_text(&full, "x").expect_err("a device");
    assert!(err.is_refusal());
    assert!(
        err.to_string()
            .contains("a character device (not a terminal or /dev/null)"),
        "{err}"
    );
    assert!(
        std::fs::symlink_metadata(&full)
            .expect("kept")
            .file_type()
            .is_symlink()
    );
    assert_eq!(dir.names(), ["full"], "no temporary file");
}

#[test]
fn a_pipe_and_dev_null_are_written_in_place_and_stay_what_they_are() {
    use std::os::unix::fs::FileTypeExt;
    let dir = Dir::new("stream");
    let null = dir.join("null.json");
    std::os::unix::fs::symlink("/dev/null", &null).expect("symlink");
    write_text(&null, "into the void").expect("written in place");
    assert!(
        std::fs::symlink_metadata(&null)
            .expect("kept")
            .file_type()
            .is_symlink()
    );
    let fifo = dir.join("pipe.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).expect("reads the pipe"))
    };
    write_text(&fifo, "streamed").expect("written in place");
    assert_eq!(reader.join().expect("reader"), "streamed");
    assert!(
        std::fs::symlink_metadata(&fifo)
            .expect("kept")
            .file_type()
            .is_fifo()
    );
    assert_eq!(dir.names(), ["null.json", "pipe.json"]);
}

#[test]
fn save_new_never_replaces_a_file_and_takes_the_next_free_name() {
    let dir = Dir::new("new");
    std::fs::write(dir.join("a.svg"), "first").expect("write");
    std::os::unix::fs::symlink(dir.join("elsewhere"), dir.join("b.svg")).expect("symlink");
    let names = ["a.svg", "b.svg", "c.svg"].map(String::from);
    let path = save_new(&dir.0, names.clone(), b"<svg/>")
        .expect("written")
        .expect("a free name");
    assert_eq!(path, dir.join("c.svg"));
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "<svg/>");
    assert_eq!(
        std::fs::read_to_string(dir.join("a.svg")).expect("read"),
        "first"
    );
    assert!(!dir.join("elsewhere").exists(), "the link was not followed");
    assert_eq!(save_new(&dir.0, names, b"<svg/>").expect("no error"), None);
    assert_eq!(dir.names(), ["a.svg", "b.svg", "c.svg"]);
}

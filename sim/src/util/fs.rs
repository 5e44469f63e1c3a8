//! Files written whole or not at all: every summary, scenario, result file, log and corpus
//! entry goes through [`write_atomically`], so a run stopped at any moment leaves either
//! the old file or the new one, never half of one.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Write `bytes` to `path` atomically (temp file in the same directory, then rename).
///
/// The file gets the mode a plain `create` would (0666 less the umask), not the temp
/// file's 0600. A path that exists and is not a regular file (`/dev/stdout`, a FIFO,
/// `/dev/full`) is written in place: renaming over it would replace the device. Errors
/// name what went wrong in words: a parent that is not a directory, a directory that
/// cannot be created.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::{Error, ErrorKind};
    if let Ok(meta) = std::fs::metadata(path) {
        if meta.is_dir() {
            return Err(Error::new(
                ErrorKind::IsADirectory,
                format!("{} is a directory, not a file", path.display()),
            ));
        }
        if !meta.is_file() {
            let mut f = std::fs::OpenOptions::new().write(true).open(path)?;
            return f.write_all(bytes).and_then(|()| f.flush());
        }
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        let not_a_dir = std::fs::metadata(&dir).is_ok_and(|m| !m.is_dir());
        return Err(if not_a_dir {
            Error::new(
                ErrorKind::NotADirectory,
                format!("{} is not a directory", dir.display()),
            )
        } else {
            Error::new(
                e.kind(),
                format!("cannot create the directory {}: {e}", dir.display()),
            )
        });
    }
    let mut tmp = tempfile::Builder::new()
        .permissions(<std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o666))
        .tempfile_in(&dir)?;
    // Through the file itself: the temp file's own errors name its random path.
    tmp.as_file_mut().write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

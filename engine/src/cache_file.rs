//! One file in one of keel's caches (the repository's `.git/keel/`, the user's cache of
//! agent logs): what can go wrong with it, reading it, writing it atomically (a temporary
//! file in its folder, named as `keel cache clear` finds it, then a rename) from a body
//! in memory or streamed as it is produced ([`write_streamed`], the memo), and its header
//! line (`<format> <build> <CRC-32 of the body> <body length>`), checked before a byte of
//! the body is used.
//!
//! Owns: these mechanics. Does not own: where a cache is or what its files hold
//! (`crate::cache`, `crate::memo`, `crate::kept_lint`, `crate::agents`).

use std::io::Write;
use std::path::{Path, PathBuf};

/// The writer's temporary files: `<PREFIX><RANDOM alphanumerics><SUFFIX>`.
pub(crate) const TEMPORARY_PREFIX: &str = ".keel-";
pub(crate) const TEMPORARY_SUFFIX: &str = ".tmp";
pub(crate) const TEMPORARY_RANDOM: usize = 6;

/// How builds before [`TEMPORARY_PREFIX`] named them (`tempfile`'s default): `.tmp` and
/// six alphanumerics.
pub(crate) const LEGACY_TEMPORARY_PREFIX: &str = ".tmp";

/// What keel was doing when the file system refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheAction {
    Read,
    Write,
    Remove,
}

impl std::fmt::Display for CacheAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Read => "read",
            Self::Write => "written",
            Self::Remove => "removed",
        })
    }
}

/// Why keel cannot use its cache folder or a file in it. Each names the path, what is
/// wrong (with the OS's own reason) and the repair.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CacheTrouble {
    /// Something other than a folder is at the folder's path.
    #[error(
        "{folder}: not a folder ({reason}), where keel keeps its memo and kept answers; repair: remove it (`rm {folder}`), keel makes the folder again"
    )]
    NotAFolder { folder: PathBuf, reason: String },
    /// The OS refused this user (the folder or file belongs to another user, or its mode
    /// shuts this user out).
    #[error(
        "{path}: cannot be {action}: {reason}; repair: give the folder back to your user (`sudo chown -R \"$USER\" {folder}`) or remove it (`sudo rm -rf {folder}`: it holds only keel's cache)"
    )]
    Denied {
        folder: PathBuf,
        path: PathBuf,
        action: CacheAction,
        reason: String,
    },
    /// Any other failure: a full or read-only disk, an I/O error, a folder where a file
    /// belongs.
    #[error(
        "{path}: cannot be {action}: {reason}; repair: remove the folder (`rm -rf {folder}`: it holds only keel's cache); if that fails too, check the disk (full, or mounted read-only)"
    )]
    Failed {
        folder: PathBuf,
        path: PathBuf,
        action: CacheAction,
        reason: String,
    },
}

impl CacheTrouble {
    /// The trouble `err` shows while `action` on `path` in `folder`: a stray file at the
    /// folder's path explains any failure inside it.
    pub(crate) fn of(
        folder: &Path,
        path: &Path,
        action: CacheAction,
        err: &std::io::Error,
    ) -> Self {
        let reason = err.to_string();
        let folder = folder.to_owned();
        if std::fs::metadata(&folder).is_ok_and(|meta| !meta.is_dir()) {
            return Self::NotAFolder { folder, reason };
        }
        let path = path.to_owned();
        if err.kind() == std::io::ErrorKind::PermissionDenied {
            Self::Denied {
                folder,
                path,
                action,
                reason,
            }
        } else {
            Self::Failed {
                folder,
                path,
                action,
                reason,
            }
        }
    }

    /// The path the trouble is with.
    pub fn path(&self) -> &Path {
        match self {
            Self::NotAFolder { folder, .. } => folder,
            Self::Denied { path, .. } | Self::Failed { path, .. } => path,
        }
    }

    /// Is the trouble with the folder itself (then no file in it can be written either),
    /// not with one file in it?
    pub fn with_the_folder(&self) -> bool {
        match self {
            Self::NotAFolder { .. } => true,
            Self::Denied { folder, path, .. } | Self::Failed { folder, path, .. } => folder == path,
        }
    }
}

/// Why a memo file was not used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemoDiscard {
    #[error("written by another keel build ({0})")]
    OtherBuild(String),
    /// Not a file of the expected format (named: `keel-memo 3`).
    #[error("not a keel file of format {0}")]
    OtherFormat(&'static str),
    #[error("truncated or corrupt (its length or digest does not match)")]
    Corrupt,
    #[error("its body could not be read ({0})")]
    Unreadable(String),
    #[error(
        "written before the repository's shallow boundary, grafts or object replacements changed"
    )]
    OtherHistory,
}

/// The cache folder's entries; `None` when there is no folder yet.
pub(crate) fn open_folder(folder: &Path) -> Result<Option<std::fs::ReadDir>, CacheTrouble> {
    match std::fs::read_dir(folder) {
        Ok(entries) => Ok(Some(entries)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(CacheTrouble::of(folder, folder, CacheAction::Read, &err)),
    }
}

/// Reads `path` in the cache folder: `None` when there is no such file.
pub(crate) fn read_file(path: &Path) -> Result<Option<Vec<u8>>, CacheTrouble> {
    let folder = folder_of(path);
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => {
            // When the folder is what keeps keel out, the trouble names it, not the file.
            open_folder(folder)?;
            Err(CacheTrouble::of(folder, path, CacheAction::Read, &err))
        }
    }
}

/// Removes `path` in the cache folder; `false` when there was none.
pub(crate) fn remove_file(path: &Path) -> Result<bool, CacheTrouble> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(err) => Err(CacheTrouble::of(
            folder_of(path),
            path,
            CacheAction::Remove,
            &err,
        )),
    }
}

/// Writes `header` and `body` to `path` through a temporary file in the same folder and a
/// rename: a reader sees the old file or the new one, never a mix.
pub(crate) fn write_atomically(path: &Path, header: &str, body: &[u8]) -> Result<(), CacheTrouble> {
    let folder = folder_of(path);
    let in_folder =
        |err: std::io::Error| CacheTrouble::of(folder, folder, CacheAction::Write, &err);
    let mut temporary = temporary_in(folder).map_err(in_folder)?;
    temporary
        .write_all(header.as_bytes())
        .and_then(|()| temporary.write_all(body))
        .map_err(|err| CacheTrouble::of(folder, temporary.path(), CacheAction::Write, &err))?;
    temporary
        .persist(path)
        .map_err(|err| CacheTrouble::of(folder, path, CacheAction::Write, &err.error))?;
    Ok(())
}

/// A new temporary file in `folder` (made if missing), named as `keel cache clear` finds
/// the writer's leftovers.
fn temporary_in(folder: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    std::fs::create_dir_all(folder)?;
    tempfile::Builder::new()
        .prefix(TEMPORARY_PREFIX)
        .suffix(TEMPORARY_SUFFIX)
        .rand_bytes(TEMPORARY_RANDOM)
        .tempfile_in(folder)
}

/// The folder a cache file is in.
pub(crate) fn folder_of(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new("."))
}

/// Is `name` a temporary file of the writer (this build's naming or the one before)?
pub(crate) fn is_temporary_name(name: &str) -> bool {
    let random = |middle: &str| {
        middle.len() == TEMPORARY_RANDOM && middle.bytes().all(|b| b.is_ascii_alphanumeric())
    };
    let current = name
        .strip_prefix(TEMPORARY_PREFIX)
        .and_then(|rest| rest.strip_suffix(TEMPORARY_SUFFIX))
        .is_some_and(random);
    let legacy = name
        .strip_prefix(LEGACY_TEMPORARY_PREFIX)
        .is_some_and(random);
    current || legacy
}

/// The header fields.
pub(crate) struct Fields<'a> {
    pub(crate) build: &'a str,
    digest: &'a str,
    length: usize,
}

impl Fields<'_> {
    /// Is `body` the body this header describes, written by `build`?
    pub(crate) fn check(&self, build: &str, body: &[u8]) -> Result<(), MemoDiscard> {
        if self.build != build {
            return Err(MemoDiscard::OtherBuild(self.build.to_owned()));
        }
        if body.len() != self.length || digest(body) != self.digest {
            return Err(MemoDiscard::Corrupt);
        }
        Ok(())
    }
}

/// The header line of a file of `format` (its first word and version) holding `body`.
pub(crate) fn header(format: &str, build: &str, body: &[u8]) -> String {
    format!("{format} {build} {} {}\n", digest(body), body.len())
}

/// The body of a file of `format` that `build` wrote, checked against its header.
pub(crate) fn checked_body<'a>(
    format: &'static str,
    build: &str,
    bytes: &'a [u8],
) -> Result<&'a [u8], MemoDiscard> {
    let (fields, body) = split(format, bytes).ok_or(MemoDiscard::OtherFormat(format))?;
    fields.check(build, body).map(|()| body)
}

/// `first` length-prefixed (its length as 8 little-endian bytes), then `rest`: what
/// [`split_prefixed`] splits.
pub fn prefixed(first: &[u8], rest: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(8 + first.len() + rest.len());
    // Writing to a `Vec` cannot fail.
    let _ = write_prefix(&mut bytes, first);
    bytes.extend_from_slice(rest);
    bytes
}

/// Writes `first` length-prefixed to `out`, the start of what [`prefixed`] makes, for a
/// body whose rest is written after it as it is produced.
pub(crate) fn write_prefix(out: &mut dyn Write, first: &[u8]) -> std::io::Result<()> {
    out.write_all(&(first.len() as u64).to_le_bytes())?;
    out.write_all(first)
}

/// A body whose first part is length-prefixed (its length as 8 little-endian bytes):
/// that part and the rest; `None` when the prefix is missing or overruns the body.
pub fn split_prefixed(body: &[u8]) -> Option<(&[u8], &[u8])> {
    let (length, rest) = body.split_first_chunk::<8>()?;
    let length = usize::try_from(u64::from_le_bytes(*length)).ok()?;
    (length <= rest.len()).then(|| rest.split_at(length))
}

/// The header's fields and the body after it; `None` when the file is not of `format`.
pub(crate) fn split<'a>(format: &str, bytes: &'a [u8]) -> Option<(Fields<'a>, &'a [u8])> {
    let newline = bytes.iter().position(|&byte| byte == b'\n')?;
    let line = std::str::from_utf8(&bytes[..newline]).ok()?;
    let rest = line.strip_prefix(format)?.strip_prefix(' ')?;
    let mut words = rest.split(' ');
    let fields = Fields {
        build: words.next()?,
        digest: words.next()?,
        length: words.next()?.parse().ok()?,
    };
    words
        .next()
        .is_none()
        .then_some((fields, &bytes[newline + 1..]))
}

/// The body's check: a CRC-32, which catches truncation and torn or flipped bytes (what
/// the check is for: the memo is keel's own file, not a signed one) at a small part of a
/// SHA-256's cost on every run, read and write.
fn digest(body: &[u8]) -> String {
    format!("{:08x}", crc32fast::hash(body))
}

/// What [`write_streamed`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Streamed {
    /// The file holds the body, of this many bytes.
    Written(u64),
    /// The body grew past the bound: nothing was written (the writing stopped there).
    TooLarge,
}

/// Why [`write_streamed`] failed: the file system refused, or the body's producer did.
#[derive(Debug)]
pub(crate) enum StreamFailure<E> {
    Cache(CacheTrouble),
    Body(E),
}

/// Writes a file of `format` whose body `produce` writes as it goes, atomically (as
/// [`write_atomically`]): the body goes to the temporary file while its digest and length
/// are taken, and the header is written last over a placeholder of its own width (the
/// length zero-padded to a fixed width, which [`split`] reads like any number). So the
/// largest body never sits in memory whole. A body longer than `max_body` bytes stops
/// the writing and leaves no file ([`Streamed::TooLarge`]).
pub(crate) fn write_streamed<E>(
    path: &Path,
    format: &str,
    build: &str,
    max_body: u64,
    produce: impl FnOnce(&mut dyn std::io::Write) -> Result<(), E>,
) -> Result<Streamed, StreamFailure<E>> {
    use std::io::{Seek as _, SeekFrom};
    let folder = folder_of(path);
    let failed = |at: &Path, err: &std::io::Error| {
        StreamFailure::Cache(CacheTrouble::of(folder, at, CacheAction::Write, err))
    };
    let temporary = temporary_in(folder).map_err(|err| failed(folder, &err))?;
    let temporary_path = temporary.path().to_owned();
    let placeholder = fixed_width_header(format, build, 0, 0);
    let mut body = std::io::BufWriter::with_capacity(
        STREAM_BUFFER,
        CheckedBody {
            file: temporary,
            digest: crc32fast::Hasher::new(),
            length: 0,
            max_length: max_body,
            trouble: None,
        },
    );
    let produced = body
        .get_mut()
        .file
        .write_all(placeholder.as_bytes())
        .map_err(|err| failed(&temporary_path, &err))
        .map(|()| produce(&mut body));
    let flushed = body.flush();
    match body.get_mut().trouble.take() {
        // Dropping the writer drops the temporary file.
        Some(BodyTrouble::TooLong) => return Ok(Streamed::TooLarge),
        Some(BodyTrouble::Io(err)) => return Err(failed(&temporary_path, &err)),
        None => {}
    }
    produced?.map_err(StreamFailure::Body)?;
    flushed.map_err(|err| failed(&temporary_path, &err))?;
    let mut checked = body
        .into_inner()
        .map_err(|err| failed(&temporary_path, err.error()))?;
    let header = fixed_width_header(format, build, checked.digest.finalize(), checked.length);
    checked
        .file
        .seek(SeekFrom::Start(0))
        .and_then(|_| checked.file.write_all(header.as_bytes()))
        .map_err(|err| failed(&temporary_path, &err))?;
    checked
        .file
        .persist(path)
        .map_err(|err| failed(path, &err.error))?;
    Ok(Streamed::Written(checked.length))
}

/// The buffer between a streamed body's producer and its file.
const STREAM_BUFFER: usize = 256 << 10;

/// The digits of a streamed file's length field: any `u64`.
const LENGTH_DIGITS: usize = 20;

/// [`header`]'s line for a body with this digest and length, the length zero-padded to
/// [`LENGTH_DIGITS`]: every such line of one format and build is as wide as another.
fn fixed_width_header(format: &str, build: &str, digest: u32, length: u64) -> String {
    format!("{format} {build} {digest:08x} {length:0LENGTH_DIGITS$}\n")
}

/// The file a streamed body goes to, with the body's digest and length so far.
struct CheckedBody {
    file: tempfile::NamedTempFile,
    digest: crc32fast::Hasher,
    length: u64,
    max_length: u64,
    /// What stopped the writing, kept so it is told apart from the producer's own errors.
    trouble: Option<BodyTrouble>,
}

/// Why a streamed body's writing stopped.
#[derive(Debug)]
enum BodyTrouble {
    TooLong,
    Io(std::io::Error),
}

impl std::io::Write for CheckedBody {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.length + bytes.len() as u64 > self.max_length {
            self.trouble = Some(BodyTrouble::TooLong);
            return Err(std::io::Error::other("the body is past its bound"));
        }
        match self.file.write(bytes) {
            Ok(written) => {
                self.digest.update(&bytes[..written]);
                self.length += written as u64;
                Ok(written)
            }
            Err(err) => {
                let reported = std::io::Error::new(err.kind(), err.to_string());
                self.trouble.get_or_insert(BodyTrouble::Io(err));
                Err(reported)
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORMAT: &str = "keel-test 1";

    fn stream(path: &Path, body: &[u8], max_body: u64) -> Result<Streamed, StreamFailure<String>> {
        write_streamed(path, FORMAT, "b1", max_body, |out| {
            // Small writes, as an encoder makes them, so the buffer is crossed many times.
            for chunk in body.chunks(7) {
                out.write_all(chunk).map_err(|err| err.to_string())?;
            }
            Ok(())
        })
    }

    #[test]
    fn a_streamed_body_reads_back_as_a_file_written_whole() {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let path = folder.path().join("memo.bin");
        let body: Vec<u8> = (0..(3 * STREAM_BUFFER + 11))
            .map(|n| (n % 251) as u8)
            .collect();
        let written = stream(&path, &body, u64::MAX).expect("written");
        assert_eq!(written, Streamed::Written(body.len() as u64));
        let bytes = std::fs::read(&path).expect("the file");
        assert_eq!(
            checked_body(FORMAT, "b1", &bytes).expect("a good body"),
            body
        );
        let (fields, _) = split(FORMAT, &bytes).expect("a header");
        assert_eq!(fields.digest, digest(&body));
        assert_eq!(fields.length, body.len());
        let whole = header(FORMAT, "b1", &body);
        let line = bytes.split(|&b| b == b'\n').next().expect("a first line");
        assert_ne!(
            line,
            whole.trim_end().as_bytes(),
            "the length is zero-padded"
        );
    }

    #[test]
    fn a_body_past_its_bound_leaves_no_file_and_removes_nothing_else() {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let path = folder.path().join("memo.bin");
        assert_eq!(
            stream(&path, b"12345", 5).expect("fits"),
            Streamed::Written(5)
        );
        assert_eq!(
            stream(&path, b"123456", 5).expect("stopped"),
            Streamed::TooLarge
        );
        let names: Vec<_> = std::fs::read_dir(folder.path())
            .expect("the folder")
            .map(|entry| entry.expect("an entry").file_name())
            .collect();
        assert_eq!(names, ["memo.bin"], "no temporary file is left");
        let bytes = std::fs::read(&path).expect("the earlier file");
        assert_eq!(
            checked_body(FORMAT, "b1", &bytes).expect("intact"),
            b"12345"
        );
    }

    #[test]
    fn a_producer_that_fails_writes_nothing() {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let path = folder.path().join("memo.bin");
        let failed = write_streamed(&path, FORMAT, "b1", u64::MAX, |out| {
            out.write_all(b"half").map_err(|err| err.to_string())?;
            Err("the encoder refused".to_owned())
        });
        assert!(
            matches!(failed, Err(StreamFailure::Body(reason)) if reason == "the encoder refused")
        );
        assert_eq!(
            std::fs::read_dir(folder.path())
                .expect("the folder")
                .count(),
            0
        );
    }

    #[test]
    fn a_folder_that_cannot_be_made_is_the_cache_s_trouble() {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let file = folder.path().join("keel");
        std::fs::write(&file, b"not a folder").expect("a file");
        let failed = stream(&file.join("memo.bin"), b"body", u64::MAX);
        assert!(matches!(
            failed,
            Err(StreamFailure::Cache(CacheTrouble::NotAFolder { .. }))
        ));
    }
}

//! Problems in the input, reported as `path:line:col: message`, or `path: message` for a
//! problem with the whole file (it cannot be read, it is empty, it holds no kind).

use std::fmt;
use std::path::{Path, PathBuf};

use super::yaml::Pos;

/// One problem at one place of one input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The input file.
    pub path: PathBuf,
    /// Where in it (1-based line and column); line 0 is the whole file.
    pub pos: Pos,
    /// What is wrong, and what to write instead where that is known.
    pub message: String,
}

impl Diagnostic {
    /// A problem at `pos` of `path`.
    pub fn new(path: &Path, pos: Pos, message: impl Into<String>) -> Self {
        Self {
            path: path.to_owned(),
            pos,
            message: message.into(),
        }
    }
}

/// The largest input file read, in bytes. The largest real CRD bundle in use is a few MiB;
/// generation needs about 16 bytes of memory per input byte (`bench/hostile_inputs.sh`), so
/// this bounds a run to about 1 GiB whatever it is given.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// The most all the input files of one run may hold together, in bytes: four files at the
/// [`MAX_INPUT_BYTES`] limit. A run over many files stays bounded as one over a single file
/// is; the corpus of real CRDs (`corpus/`) is about a tenth of it.
pub const MAX_TOTAL_INPUT_BYTES: u64 = 256 << 20;

/// The text of an input file, or the problem reading it (including a file over
/// [`MAX_INPUT_BYTES`], refused before it is read, and a file that is not a regular one: a
/// FIFO, a device or a socket, refused before it is read, which could block or never end).
pub fn read_input(path: &Path) -> Result<String, Diagnostic> {
    let problem = |message: String| Diagnostic::new(path, Pos::default(), message);
    let (file, len) = open_regular(path).map_err(problem)?;
    if len > MAX_INPUT_BYTES {
        return Err(problem(too_large()));
    }
    // The room for the whole file at once (`len` is at most the limit here): grown by
    // doubling, a large CRD was copied a dozen times on the way (issue 48).
    read_limited_into(file, Vec::with_capacity(len as usize)).map_err(problem)
}

/// `path` opened for reading if it is a regular file (through symbolic links), with its
/// length; otherwise why not, in words for a message after the path. Opening never waits:
/// on Unix the file is opened non-blocking (a FIFO with no writer would block a plain open
/// for ever), and the type is read from the opened handle, so a file swapped for a FIFO
/// after a check of its path is refused too.
pub fn open_regular(path: &Path) -> Result<(std::fs::File, u64), String> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    #[cfg(not(unix))]
    {
        // No non-blocking open: the path's type is checked first (the handle's after).
        let metadata = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
        if !metadata.is_file() {
            return Err(not_regular(&metadata));
        }
    }
    let file = options
        .open(path)
        .map_err(|e| format!("cannot read: {e}"))?;
    let metadata = file.metadata().map_err(|e| format!("cannot read: {e}"))?;
    if !metadata.is_file() {
        return Err(not_regular(&metadata));
    }
    Ok((file, metadata.len()))
}

/// Why a file of this type is not read: `not a regular file (a FIFO)`, say.
pub fn not_regular(metadata: &std::fs::Metadata) -> String {
    format!(
        "not a regular file ({}); kondition reads and writes only regular files",
        file_kind(metadata)
    )
}

/// What a file that is not a regular one is, in words: `a FIFO`, `a folder`, ...
pub fn file_kind(metadata: &std::fs::Metadata) -> &'static str {
    let file_type = metadata.file_type();
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else {
        special_file(file_type)
    }
}

#[cfg(unix)]
fn special_file(file_type: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else if file_type.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_file(_: std::fs::FileType) -> &'static str {
    "a special file"
}

/// Whether input files of these sizes, read in this order, stay within
/// [`MAX_TOTAL_INPUT_BYTES`] together; if not, the problem at the first file that passes it
/// (`already` bytes were read before them, from stdin say). Checked from the files' sizes,
/// before any is read.
pub fn within_total<'a>(
    sized: impl IntoIterator<Item = (&'a Path, u64)>,
    already: u64,
) -> Result<(), Diagnostic> {
    let mut total = already;
    for (path, size) in sized {
        total = total.saturating_add(size);
        if total > MAX_TOTAL_INPUT_BYTES {
            return Err(Diagnostic::new(
                path,
                Pos::default(),
                format!(
                    "the inputs up to this file hold {} MiB, more than the {} MiB kondition \
                     reads in one run; name fewer files at a time",
                    total.div_ceil(1 << 20),
                    MAX_TOTAL_INPUT_BYTES >> 20
                ),
            ));
        }
    }
    Ok(())
}

fn too_large() -> String {
    format!(
        "the input is larger than {} MiB, the most kondition reads",
        MAX_INPUT_BYTES >> 20
    )
}

/// Reads all of `reader` as UTF-8, refusing more than [`MAX_INPUT_BYTES`].
pub fn read_limited(reader: impl std::io::Read) -> Result<String, String> {
    read_limited_into(reader, Vec::new())
}

/// [`read_limited`] into `bytes` (empty, with the room the caller expects to need).
fn read_limited_into(reader: impl std::io::Read, mut bytes: Vec<u8>) -> Result<String, String> {
    std::io::Read::read_to_end(&mut reader.take(MAX_INPUT_BYTES + 1), &mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "cannot read: not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pos.line == 0 {
            // The whole file: no place in it to point at.
            return write!(f, "{}: {}", self.path.display(), self.message);
        }
        write!(
            f,
            "{}:{}:{}: {}",
            self.path.display(),
            self.pos.line,
            self.pos.col,
            self.message
        )
    }
}

/// Every problem found in one run, in input order; never empty when returned as an error.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Records a problem.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.0.push(diagnostic);
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `Ok(value)` when nothing was recorded, else the problems (sorted by file and place).
    pub fn into_result<T>(mut self, value: T) -> Result<T, Self> {
        if self.0.is_empty() {
            Ok(value)
        } else {
            self.0
                .sort_by(|a, b| (&a.path, a.pos).cmp(&(&b.path, b.pos)));
            self.0.dedup();
            Err(self)
        }
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for diagnostic in &self.0 {
            writeln!(f, "{diagnostic}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

impl From<Diagnostic> for Diagnostics {
    fn from(diagnostic: Diagnostic) -> Self {
        Self(vec![diagnostic])
    }
}

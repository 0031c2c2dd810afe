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

/// The text of an input file, or the problem reading it (including a file over
/// [`MAX_INPUT_BYTES`], refused before it is read).
pub fn read_input(path: &Path) -> Result<String, Diagnostic> {
    let problem = |message: String| Diagnostic::new(path, Pos::default(), message);
    let file = std::fs::File::open(path).map_err(|e| problem(format!("cannot read: {e}")))?;
    if file.metadata().is_ok_and(|m| m.len() > MAX_INPUT_BYTES) {
        return Err(problem(too_large()));
    }
    read_limited(file).map_err(problem)
}

fn too_large() -> String {
    format!(
        "the input is larger than {} MiB, the most kondition reads",
        MAX_INPUT_BYTES >> 20
    )
}

/// Reads all of `reader` as UTF-8, refusing more than [`MAX_INPUT_BYTES`].
pub fn read_limited(reader: impl std::io::Read) -> Result<String, String> {
    let mut bytes = Vec::new();
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

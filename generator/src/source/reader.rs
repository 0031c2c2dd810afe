//! Typed reads from a YAML mapping that report every problem at its place: a missing key, a
//! value of the wrong kind, and (when the reading is done) every key nobody asked for, with
//! the nearest known key suggested.

use std::cell::RefCell;
use std::path::Path;

use crate::source::diagnostic::{Diagnostic, Diagnostics};
use crate::source::yaml::{Node, Pos, Value};
use kondition_names::{Quote, hint};

/// Where problems go while one file is read.
pub struct Sink<'a> {
    path: &'a Path,
    diagnostics: RefCell<Diagnostics>,
}

impl<'a> Sink<'a> {
    /// Problems of the file at `path`.
    pub fn new(path: &'a Path) -> Self {
        Self {
            path,
            diagnostics: RefCell::new(Diagnostics::default()),
        }
    }

    /// Records a problem at `pos`.
    pub fn error(&self, pos: Pos, message: impl Into<String>) {
        self.diagnostics
            .borrow_mut()
            .push(Diagnostic::new(self.path, pos, message));
    }

    /// Records `problems`, found apart (a CRD's versions are read in parallel), after those
    /// recorded so far.
    pub fn absorb(&self, problems: Diagnostics) {
        self.diagnostics.borrow_mut().0.extend(problems.0);
    }

    /// Whether nothing was recorded yet.
    pub fn is_empty(&self) -> bool {
        self.diagnostics.borrow().is_empty()
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        self.path
    }

    /// Everything recorded.
    pub fn finish(self) -> Diagnostics {
        self.diagnostics.into_inner()
    }
}

/// Reads the keys of one mapping: each value's kind checked, a problem at its place in the
/// same words for both front-ends.
pub struct MapReader<'n, 's> {
    node: &'n Node,
    what: &'static str,
    /// Every key the mapping may have; `None` when its other keys are not this reader's to
    /// judge (a CRD's, which the API types check).
    known: Option<&'static [&'static str]>,
    sink: &'s Sink<'s>,
}

impl<'n, 's> MapReader<'n, 's> {
    /// A reader over `node`, which must be a mapping (else the problem is recorded and every
    /// read finds nothing). `what` names it in messages; `known` lists every key it may have.
    pub fn new(
        node: &'n Node,
        what: &'static str,
        known: &'static [&'static str],
        sink: &'s Sink<'s>,
    ) -> Self {
        let reader = Self::open(node, what, sink);
        let reader = Self {
            known: Some(known),
            ..reader
        };
        reader.check_keys();
        reader
    }

    /// A reader over `node`, which must be a mapping, whose keys beyond those read are not
    /// checked: a CRD's, which holds many keys the generator does not read and the API types
    /// check.
    pub fn open(node: &'n Node, what: &'static str, sink: &'s Sink<'s>) -> Self {
        if node.as_map().is_none() {
            sink.error(
                node.pos,
                format!("{what} must be a mapping, found {}", node.value.describe()),
            );
        }
        Self {
            node,
            what,
            known: None,
            sink,
        }
    }

    /// The mapping's position.
    pub fn pos(&self) -> Pos {
        self.node.pos
    }

    fn check_keys(&self) {
        let Some(known) = self.known else {
            return;
        };
        for (key, _) in self.node.as_map().unwrap_or_default() {
            let Some(name) = key.as_str() else {
                self.sink
                    .error(key.pos, format!("keys of {} must be strings", self.what));
                continue;
            };
            if !known.contains(&name) {
                let hint = hint(name, known, Quote::Code, || {
                    format!("expected one of: {}", known.join(", "))
                });
                self.sink.error(
                    key.pos,
                    format!("unknown key `{name}` in {}{hint}", self.what),
                );
            }
        }
    }

    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&'n Node> {
        debug_assert!(
            self.known.is_none_or(|known| known.contains(&key)),
            "{key} is not a known key of {}",
            self.what
        );
        self.node.get(key)
    }

    /// Where `key` itself is written, if present.
    pub fn key_pos(&self, key: &str) -> Option<Pos> {
        self.node
            .as_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(k, _)| k.pos)
    }

    /// The value under `key`, which must be present.
    pub fn required(&self, key: &str) -> Option<&'n Node> {
        let node = self.get(key);
        if node.is_none() {
            self.sink
                .error(self.node.pos, format!("{} needs `{key}`", self.what));
        }
        node
    }

    /// The string under `key`, if present (else a problem if it is not a string).
    pub fn string(&self, key: &str) -> Option<String> {
        self.str(key).map(str::to_owned)
    }

    /// The string under `key`, borrowed, if present (else a problem if it is not a string).
    pub fn str(&self, key: &str) -> Option<&'n str> {
        self.get(key).and_then(|node| self.expect_str(key, node))
    }

    /// The string under `key`, which must be present.
    pub fn required_string(&self, key: &str) -> Option<(String, Pos)> {
        let node = self.required(key)?;
        self.expect_str(key, node).map(|s| (s.to_owned(), node.pos))
    }

    /// The string under `key`, borrowed, which must be present.
    pub fn required_str(&self, key: &str) -> Option<&'n str> {
        let node = self.required(key)?;
        self.expect_str(key, node)
    }

    fn expect_str(&self, key: &str, node: &'n Node) -> Option<&'n str> {
        match &node.value {
            Value::Str(s) => Some(s),
            other => {
                self.sink.error(
                    node.pos,
                    format!("`{key}` must be a string, found {}", other.describe()),
                );
                None
            }
        }
    }

    /// The boolean under `key`, if present.
    pub fn boolean(&self, key: &str) -> Option<bool> {
        let node = self.get(key)?;
        match node.value {
            Value::Bool(b) => Some(b),
            ref other => {
                self.sink.error(
                    node.pos,
                    format!("`{key}` must be true or false, found {}", other.describe()),
                );
                None
            }
        }
    }

    /// The non-negative integer under `key`, if present.
    pub fn count(&self, key: &str) -> Option<u64> {
        let node = self.get(key)?;
        match node.value {
            Value::Int(i) if i >= 0 => u64::try_from(i).ok(),
            ref other => {
                self.sink.error(
                    node.pos,
                    format!(
                        "`{key}` must be a non-negative integer, found {}",
                        other.describe()
                    ),
                );
                None
            }
        }
    }

    /// The integer under `key`, if present.
    pub fn int(&self, key: &str) -> Option<i64> {
        let node = self.get(key)?;
        match node.value {
            Value::Int(i) => Some(i),
            ref other => {
                self.sink.error(
                    node.pos,
                    format!("`{key}` must be an integer, found {}", other.describe()),
                );
                None
            }
        }
    }

    /// The number under `key`, if present.
    pub fn number(&self, key: &str) -> Option<f64> {
        let node = self.get(key)?;
        match node.value {
            #[allow(clippy::cast_precision_loss)]
            Value::Int(i) => Some(i as f64),
            Value::Float(f) => Some(f),
            ref other => {
                self.sink.error(
                    node.pos,
                    format!("`{key}` must be a number, found {}", other.describe()),
                );
                None
            }
        }
    }

    /// The list of strings under `key` (empty if absent).
    pub fn strings(&self, key: &str) -> Vec<(String, Pos)> {
        self.list(key)
            .iter()
            .filter_map(|item| match &item.value {
                Value::Str(s) => Some((s.clone(), item.pos)),
                other => {
                    self.sink.error(
                        item.pos,
                        format!(
                            "items of `{key}` must be strings, found {}",
                            other.describe()
                        ),
                    );
                    None
                }
            })
            .collect()
    }

    /// The items of the list under `key` (empty if absent).
    pub fn list(&self, key: &str) -> &'n [Node] {
        let Some(node) = self.get(key) else {
            return &[];
        };
        node.as_seq().unwrap_or_else(|| {
            self.sink.error(
                node.pos,
                format!("`{key}` must be a list, found {}", node.value.describe()),
            );
            &[]
        })
    }

    /// The entries of the mapping under `key` (empty if absent).
    pub fn entries(&self, key: &str) -> &'n [(Node, Node)] {
        let Some(node) = self.get(key) else {
            return &[];
        };
        node.as_map().unwrap_or_else(|| {
            self.sink.error(
                node.pos,
                format!("`{key}` must be a mapping, found {}", node.value.describe()),
            );
            &[]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_and_wrong_kinds_are_reported_where_they_are() {
        let docs = crate::source::yaml::parse("plural: x\nshortName: [a]\nsingular: 3\n")
            .expect("valid YAML");
        let path = Path::new("k.yaml");
        let sink = Sink::new(path);
        let reader = MapReader::new(
            &docs[0],
            "names",
            &["plural", "singular", "shortNames"],
            &sink,
        );
        assert_eq!(reader.string("plural").as_deref(), Some("x"));
        assert_eq!(reader.string("singular"), None);
        let messages: Vec<String> = sink.finish().0.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            [
                "k.yaml:2:1: unknown key `shortName` in names; did you mean `shortNames`?",
                "k.yaml:3:11: `singular` must be a string, found an integer",
            ]
        );
    }
}

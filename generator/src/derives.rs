//! The derives of the generated data types that a user can go without
//! (`Builder::without_derives`, `kondition generate
//! --without-derive`): fewer derives, less code for the compiler to check.
//!
//! Every generated struct and enum derives serde's `Serialize` and `Deserialize`, `Clone` and
//! `Debug`: those stay, since kube's `Api` and kondition's status chokepoint need the object
//! type to be `Clone`, `Debug` and deserializable, and a derive on the object type needs the
//! same of every type it holds. What can be left out is what only the user's own code would
//! call: `PartialEq` (with it `Eq`), `Eq` and `Hash` on enums, and `Default` on the structs
//! whose fields are all optional.
//!
//! Two places keep them whatever is asked, because kondition's own code needs them:
//! - the types a `KubeStatus` status holds keep `PartialEq` (and their enums `Eq`): the
//!   status's apply configuration, which the chokepoint compares with what is stored, holds
//!   them and derives `PartialEq`;
//! - that status struct keeps `Default`: the chokepoint creates an empty status to fill.

use std::fmt;
use std::str::FromStr;

/// A derive of the generated data types that can be left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Derive {
    /// `PartialEq` on every struct and enum, and on the object types; `Eq` goes with it.
    /// Kept by the types a `KubeStatus` status holds.
    PartialEq,
    /// `Eq` on the string enums. Kept where `PartialEq` is kept and `Eq` is not left out.
    Eq,
    /// `Hash` on the string enums.
    Hash,
    /// `Default` on the structs whose fields are all optional. Kept by the `KubeStatus`
    /// status struct.
    Default,
}

impl Derive {
    /// Every derive that can be left out, in the order they are listed in messages.
    pub const ALL: [Derive; 4] = [Derive::PartialEq, Derive::Eq, Derive::Hash, Derive::Default];

    /// The derive's name as written in `#[derive(...)]`.
    pub fn name(self) -> &'static str {
        match self {
            Derive::PartialEq => "PartialEq",
            Derive::Eq => "Eq",
            Derive::Hash => "Hash",
            Derive::Default => "Default",
        }
    }
}

impl fmt::Display for Derive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Derive {
    type Err = DeriveError;

    /// A derive by its name as written in `#[derive(...)]` (`PartialEq`); a derive the
    /// generated code cannot go without, or no derive of the generated code, is an error
    /// that says why.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let name = text.trim();
        if let Some(derive) = Derive::ALL.into_iter().find(|d| d.name() == name) {
            return Ok(derive);
        }
        let reason = match name {
            "Clone" | "Debug" => Reason::Required(
                "kube's `Api` and kondition's status chokepoint need the object type to be \
                 `Clone` and `Debug`, and so every type it holds",
            ),
            "Serialize" | "Deserialize" => Reason::Required(
                "objects are read and written through serde's `Serialize` and `Deserialize`",
            ),
            "Copy" => Reason::Required("`Copy` on the string enums costs the compiler nothing"),
            "KubeStatus" => Reason::Required("it gives the status its standard block"),
            _ => Reason::Unknown,
        };
        Err(DeriveError {
            name: name.to_owned(),
            reason,
        })
    }
}

/// A derive that [`Derive::from_str`] does not accept: one the generated code needs, or a
/// name that is no derive of it. Its message says which, and which derives can be left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeriveError {
    name: String,
    reason: Reason,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Reason {
    /// A derive the generated code needs, and why.
    Required(&'static str),
    /// No derive of the generated code.
    Unknown,
}

impl DeriveError {
    /// The name that was given.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for DeriveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let choices: Vec<&str> = Derive::ALL.iter().map(|d| d.name()).collect();
        match &self.reason {
            Reason::Required(why) => write!(
                f,
                "`{}` cannot be left out: {why}; the derives that can: {}",
                self.name,
                choices.join(", ")
            ),
            Reason::Unknown => write!(
                f,
                "`{}` is not a derive of the generated types that can be left out; those that can: {}",
                self.name,
                choices.join(", ")
            ),
        }
    }
}

impl std::error::Error for DeriveError {}

/// A set of [`Derive`]s: those left out (empty by default: every derive).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Derives(u8);

impl Derives {
    /// No derive.
    pub const NONE: Derives = Derives(0);

    fn bit(derive: Derive) -> u8 {
        1 << (derive as u8)
    }

    /// Whether `derive` is in the set.
    pub fn contains(self, derive: Derive) -> bool {
        self.0 & Self::bit(derive) != 0
    }

    /// The set with `derive` added.
    #[must_use]
    pub fn with(self, derive: Derive) -> Derives {
        Derives(self.0 | Self::bit(derive))
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl FromIterator<Derive> for Derives {
    fn from_iter<I: IntoIterator<Item = Derive>>(derives: I) -> Self {
        derives.into_iter().fold(Derives::NONE, Derives::with)
    }
}

impl Extend<Derive> for Derives {
    fn extend<I: IntoIterator<Item = Derive>>(&mut self, derives: I) {
        for derive in derives {
            *self = self.with(derive);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for derive in Derive::ALL {
            assert_eq!(derive.name().parse::<Derive>(), Ok(derive));
        }
    }

    #[test]
    fn a_needed_derive_says_why() {
        let error = "Clone".parse::<Derive>().expect_err("Clone is needed");
        assert_eq!(
            error.to_string(),
            "`Clone` cannot be left out: kube's `Api` and kondition's status chokepoint need \
             the object type to be `Clone` and `Debug`, and so every type it holds; the derives \
             that can: PartialEq, Eq, Hash, Default"
        );
        let error = "PartialOrd".parse::<Derive>().expect_err("no such derive");
        assert_eq!(
            error.to_string(),
            "`PartialOrd` is not a derive of the generated types that can be left out; those \
             that can: PartialEq, Eq, Hash, Default"
        );
    }

    #[test]
    fn sets() {
        let set: Derives = [Derive::PartialEq, Derive::Default].into_iter().collect();
        assert!(set.contains(Derive::PartialEq) && set.contains(Derive::Default));
        assert!(!set.contains(Derive::Eq) && !set.contains(Derive::Hash));
        assert!(Derives::default().is_empty());
    }
}

//! Who asked for a generation, so that an error about a choice names it the way the caller
//! wrote it: a flag on the command line, a `Builder` method in a build script.

use std::path::Path;

/// Where the options of a run come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Caller {
    /// The `kondition` command: `--kind`, `--profile`, `--conditions`.
    #[default]
    CommandLine,
    /// A build script's [`Builder`](crate::Builder): `Builder::kinds`, `Builder::profile`,
    /// `Builder::conditions`, `Builder::versions`.
    BuildScript,
}

impl Caller {
    /// The place an error about the options is reported at, in place of a file.
    pub fn place(self) -> &'static Path {
        Path::new(match self {
            Self::CommandLine => "<command line>",
            Self::BuildScript => "<build script>",
        })
    }

    /// How the caller chose the kind `selector` (`Kind`, `Kind/version`, `Kind.group`).
    pub fn kind(self, selector: &str) -> String {
        match self {
            Self::CommandLine => format!("`--kind {selector}`"),
            Self::BuildScript => format!("`Builder::kinds([{selector:?}])`"),
        }
    }

    /// How the caller chose the versions.
    pub fn versions(self, versions: &[String]) -> String {
        let list: Vec<String> = versions.iter().map(|v| format!("{v:?}")).collect();
        match self {
            // The command line has no flag for it; only a build script reaches here.
            Self::CommandLine => format!("the versions {}", versions.join(", ")),
            Self::BuildScript => format!("`Builder::versions([{}])`", list.join(", ")),
        }
    }

    /// How the caller gave `kind` the profile `profile`.
    pub fn profile(self, kind: &str, profile: &str) -> String {
        match self {
            Self::CommandLine => format!("`--profile {kind}={profile}`"),
            Self::BuildScript => format!("`Builder::profile({kind:?}, {profile:?})`"),
        }
    }

    /// How the caller gave `kind` condition types.
    pub fn conditions(self, kind: &str) -> String {
        match self {
            Self::CommandLine => format!("`--conditions {kind}=...`"),
            Self::BuildScript => format!("`Builder::conditions({kind:?}, ...)`"),
        }
    }

    /// How the caller named `kind`'s summary condition.
    pub fn summary(self, kind: &str, summary: &str) -> String {
        match self {
            Self::CommandLine => format!("`--summary {kind}={summary}`"),
            Self::BuildScript => format!("`Builder::summary({kind:?}, {summary:?})`"),
        }
    }

    /// How the caller left driving off for `kind`.
    pub fn no_drive(self, kind: &str) -> String {
        match self {
            Self::CommandLine => format!("`--no-drive {kind}`"),
            Self::BuildScript => format!("`Builder::drive({kind:?}, false)`"),
        }
    }

    /// How the caller acknowledges what an atomic `conditions` list of `kind` means.
    pub fn acknowledge_atomic_list(self, kind: &str) -> String {
        match self {
            Self::CommandLine => format!("`--acknowledge-atomic-list {kind}`"),
            Self::BuildScript => format!("`Builder::acknowledge_atomic_list([{kind:?}])`"),
        }
    }
}

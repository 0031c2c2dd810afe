//! One condition type across many objects, merged into one condition.

use std::collections::BTreeMap;

use super::{
    MergeError, MergeStrategy, Operation, Owned, Owner, Priority, finish, indent_if_multiline,
    not_yet_reported, plural,
};
use crate::condition::{Condition, Polarity};

/// Merges one condition type across many objects, as Cluster API's `NewAggregateCondition`
/// does: a missing condition counts as Unknown (`NotYetReported`); the result is False when
/// one object reports an issue, else Unknown when one is Unknown, else True.
///
/// Its message shows at most three messages: those of issues and unknowns, or, when all is
/// well, the non-empty info ones. Messages are grouped by kind (kinds in alphabetical order)
/// and ordered by: a control plane Machine reports it, then issue before unknown before
/// info, then how many objects report it, then their names. Each names up to three objects
/// (control plane Machines first, then by name), and how many more; the objects of the
/// messages left out are counted per kind and group: "And 2 Machines with other issues",
/// "And 1 Machine with status unknown", "And 1 Machine with additional info".
///
/// ```
/// use kondition::merge::{Aggregate, Owner};
/// use kondition::{Condition, ConditionStatus::*};
///
/// let ready = |status, message: &str| [Condition::new("Ready", status, "R").with_message(message)];
/// let (m0, m1, m2) = (ready(False, "disk full"), ready(False, "disk full"), ready(True, ""));
/// let merged = Aggregate::new("Ready")
///     .compute([
///         (Owner::new("Machine", "m0"), &m0[..]),
///         (Owner::new("Machine", "m1"), &m1[..]),
///         (Owner::new("Machine", "m2"), &m2[..]),
///     ])
///     .expect("objects");
/// assert_eq!(merged.status, False);
/// assert_eq!(merged.reason, "IssuesReported");
/// assert_eq!(merged.message, "* Machines m0, m1: disk full");
/// ```
#[derive(Clone, Debug)]
pub struct Aggregate {
    source_type: String,
    target_type: Option<String>,
    negative_polarity: bool,
    strategy: Option<MergeStrategy>,
}

impl Aggregate {
    /// Aggregates the condition of this type, into one of the same type.
    pub fn new(source_type: impl Into<String>) -> Self {
        Self {
            source_type: source_type.into(),
            target_type: None,
            negative_polarity: false,
            strategy: None,
        }
    }

    /// The type of the merged condition, instead of the source's.
    #[must_use]
    pub fn target_type(mut self, type_: impl Into<String>) -> Self {
        self.target_type = Some(type_.into());
        self
    }

    /// The aggregated type is of negative polarity (healthy when False, as ScalingUp or
    /// Stalled): an object with it True is an issue, and the merged condition is True when
    /// one is.
    #[must_use]
    pub fn negative_polarity(mut self) -> Self {
        self.negative_polarity = true;
        self
    }

    /// A strategy of the caller's instead of the default one (which follows the polarity
    /// given with [`negative_polarity`](Self::negative_polarity)).
    #[must_use]
    pub fn strategy(mut self, strategy: MergeStrategy) -> Self {
        self.strategy = Some(strategy);
        self
    }

    /// The merged condition of `objects`, each with its conditions.
    pub fn compute<'a, I>(&self, objects: I) -> Result<Condition, MergeError>
    where
        I: IntoIterator<Item = (Owner, &'a [Condition])>,
    {
        let in_scope: Vec<Owned> = objects
            .into_iter()
            .map(|(owner, conditions)| {
                let condition = conditions
                    .iter()
                    .find(|c| c.type_ == self.source_type)
                    .cloned()
                    .unwrap_or_else(|| {
                        not_yet_reported(
                            &self.source_type,
                            format!("Condition {} not yet reported", self.source_type),
                        )
                    });
                Owned { owner, condition }
            })
            .collect();
        if in_scope.is_empty() {
            return Err(MergeError::NoObjects);
        }
        let default;
        let strategy = match &self.strategy {
            Some(strategy) => strategy,
            None => {
                let mut strategy = MergeStrategy::new();
                if self.negative_polarity {
                    strategy = strategy
                        .negative_polarity([self.source_type.clone()])
                        .target_polarity(Polarity::Negative);
                }
                default = strategy;
                &default
            }
        };
        let (status, reason, message) = strategy.merge(
            Operation::Aggregate,
            in_scope,
            std::slice::from_ref(&self.source_type),
        );
        let type_ = self.target_type.as_deref().unwrap_or(&self.source_type);
        Ok(finish(type_, status, &reason, message))
    }
}

/// One distinct message: who reports it, how urgent it is, whether it goes first.
#[derive(Default)]
struct Reported<'a> {
    names: Vec<&'a str>,
}

/// The message lines for `conditions`, at most `budget` of them showing a message (the
/// budget is spent here), then the counts of the objects left out. `drop_empty` leaves out
/// conditions without a message altogether (info ones).
pub(super) fn messages(
    strategy: &MergeStrategy,
    conditions: &[&Owned],
    budget: &mut usize,
    drop_empty: bool,
) -> Vec<String> {
    // By kind, then message: the names reporting it. Priority and "goes first" are kept by
    // message alone, across kinds, as Cluster API keeps them.
    let mut by_kind: BTreeMap<&str, BTreeMap<&str, Reported<'_>>> = BTreeMap::new();
    let mut priority: BTreeMap<&str, Priority> = BTreeMap::new();
    let mut first: BTreeMap<&str, bool> = BTreeMap::new();
    let mut control_plane: Vec<&str> = Vec::new();
    for Owned { owner, condition } in conditions.iter().copied() {
        if drop_empty && condition.message.is_empty() {
            continue;
        }
        let message = condition.message.as_str();
        by_kind
            .entry(owner.kind.as_str())
            .or_default()
            .entry(message)
            .or_default()
            .names
            .push(owner.name.as_str());
        if owner.control_plane_machine {
            control_plane.push(owner.name.as_str());
            first.insert(message, true);
        }
        // The most urgent priority a message is reported with is its own.
        let this = strategy.priority_of(condition);
        priority
            .entry(message)
            .and_modify(|p| *p = (*p).min(this))
            .or_insert(this);
    }

    let mut lines = Vec::new();
    for (kind, reported) in &by_kind {
        let kinds = plural(kind);
        let mut order: Vec<(&str, &Reported<'_>)> = reported.iter().map(|(m, r)| (*m, r)).collect();
        order.sort_by(|(a, ra), (b, rb)| {
            let goes_first = |m: &str| first.get(m).copied().unwrap_or(false);
            goes_first(b)
                .cmp(&goes_first(a))
                .then(priority[a].cmp(&priority[b]))
                .then(rb.names.len().cmp(&ra.names.len()))
                .then(ra.names.join(",").cmp(&rb.names.join(",")))
        });
        let mut others: BTreeMap<Priority, usize> = BTreeMap::new();
        for (message, reported) in order {
            if *budget == 0 {
                *others.entry(priority[message]).or_default() += reported.names.len();
                continue;
            }
            let mut names = reported.names.clone();
            names.sort_by(|a, b| {
                let cp = |n: &str| control_plane.contains(&n);
                cp(b).cmp(&cp(a)).then(a.cmp(b))
            });
            let heading = match names.len() {
                1 => format!("* {kind} {}:", names[0]),
                2 | 3 => format!("* {kinds} {}:", names.join(", ")),
                n => format!("* {kinds} {}, ... ({} more):", names[..3].join(", "), n - 3),
            };
            lines.push(format!("{heading}{}", indent_if_multiline(message)));
            *budget -= 1;
        }
        for (priority, count) in others {
            let what = match (priority, drop_empty) {
                (Priority::Issue, false) => "with other issues",
                (Priority::Unknown, false) => "with status unknown",
                (Priority::Info, true) => "with additional info",
                // Cluster API names only the groups each call is for.
                _ => continue,
            };
            let noun = if count == 1 { *kind } else { kinds.as_str() };
            lines.push(format!("And {count} {noun} {what}"));
        }
    }
    lines
}

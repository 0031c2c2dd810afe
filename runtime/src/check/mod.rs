//! An object's status checked offline, for an operator's unit tests: every violation of the
//! API conventions kondition enforces before sending, and of kstatus' conventions, each with
//! its JSON path, without a cluster.
//!
//! Two rule sets, both on by default:
//!
//! - **conventions** (ids `condition-*`, `observed-generation`): what the API server's
//!   condition schema refuses (type and reason patterns and lengths, the status words, the
//!   required fields, messages within 32,768 bytes, `observedGeneration >= 0`, types unique)
//!   and what kondition holds itself to (`lastTransitionTime` in whole seconds, no
//!   `observedGeneration`, of the status or of a condition, above `metadata.generation`).
//! - **kstatus** (ids `kstatus-*`): statuses whose conditions contradict each other in ways
//!   that make kstatus (`kubectl wait`, Helm 4, Flux) read them wrong: Ready True while
//!   Reconciling or Stalled is True, or while a type of negative polarity is True; Ready True
//!   while `observedGeneration` is behind `metadata.generation`; Ready False with both
//!   Reconciling and Stalled False (kstatus reads InProgress for ever, and `helm --wait`
//!   hangs). These are the rules of Flux's `runtime/conditions/check` (FAIL0001, FAIL0003,
//!   FAIL0004, FAIL0006, FAIL0007) that hold for any status, plus the last one.
//!
//! [`Checker::flux`] adds the rest of Flux's checker, which states Flux's own controllers'
//! conventions (Ready always present, only one of Reconciling and Stalled present, every
//! condition carrying the generation, ...): kondition's `kstatus` profile keeps Reconciling
//! and Stalled both present (False when not in use), which Flux's FAIL0005 refuses, so they
//! are not on by default. Flux's WARN0002 (Ready copies the negative condition of highest
//! priority) needs the controller's priority order and is not checked.
//!
//! Given the CRD ([`Checker::crd`], [`Checker::for_resource`]) or a version's schema
//! ([`Checker::schema`]), a third set checks the status against the CRD's own structural
//! schema (ids `schema-*`, see [`schema`](self#schema-rules) below): types, required fields,
//! enums, patterns, bounds, formats, list-map keys unique, unknown fields the server would
//! drop; and, with the feature `cel`, its CEL rules (`x-kubernetes-validations`), evaluated
//! with kube's CEL support (ids `schema-cel`; `schema-cel-transition` and
//! `schema-cel-unchecked` at [`Level::Unchecked`] for rules it cannot evaluate). As the API
//! server, it skips the CEL rules when the schema found a wrong type or format, a value
//! outside an enum, a missing required field or a text, list or map too long, and says so
//! (`schema-cel-not-evaluated`, [`Level::Unchecked`]).
//!
//! Every rule, its [`Level`] and what it finds are in one catalogue, [`rules::RULES`], which
//! the table of rules in kondition's user guide (`docs/guide/src/testing.md`) is tested
//! against.
//!
//! # Schema rules
//!
//! What the API server's validation refuses is [`Level::Fail`], with a message worded as the
//! server's field error: `Unsupported value: "Bad": supported values: "A", "B"`. What it
//! drops without a word (a field the schema does not name, a `null` the schema does not
//! allow) is [`Level::Dropped`]. A pattern the `regex` crate cannot compile is
//! [`Level::Unchecked`]: never passed silently.
//!
//! ```
//! use kondition::check::Checker;
//! use serde_json::json;
//!
//! let object = json!({
//!     "metadata": {"generation": 3},
//!     "status": {"observedGeneration": 2, "conditions": [
//!         {"type": "Ready", "status": "True", "reason": "Succeeded", "message": "",
//!          "lastTransitionTime": "2024-01-01T00:00:00.5Z"},
//!     ]},
//! });
//! let found: Vec<String> = Checker::new().check(&object).iter().map(ToString::to_string).collect();
//! assert_eq!(found, [
//!     ".status.conditions[0].lastTransitionTime: condition-time: not in whole seconds: \
//!      2024-01-01T00:00:00.5Z",
//!     ".status: kstatus-ready-behind: Ready is True while observedGeneration 2 is behind \
//!      metadata.generation 3 (kstatus reads InProgress)",
//! ]);
//! ```

use std::fmt;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, JSONSchemaProps,
};
use k8s_openapi::jiff::Timestamp;
use kube_core::CustomResourceExt;
use serde_json::Value;

#[cfg(feature = "cel")]
mod cel;
pub mod rules;
mod schema;

use rules::Rule;

use crate::condition::NegativeTypes;
use crate::validation::{
    MAX_MESSAGE_BYTES, MAX_REASON_LEN, MAX_TYPE_LEN, is_valid_reason, is_valid_type,
};

/// How serious a violation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// The status is wrong: the API server refuses it, or kstatus reads it wrong.
    Fail,
    /// Flux's warnings: legal, but against its conventions.
    Warn,
    /// The API server takes the status but silently drops this part: a field the schema
    /// does not name (pruned), a `null` where the schema is not nullable.
    Dropped,
    /// A rule the checker cannot evaluate (a pattern the `regex` crate cannot compile, a CEL
    /// transition rule, a CEL function kube-cel lacks): reported rather than passed.
    Unchecked,
}

/// One thing found wrong with a status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Which rule: `condition-reason`, `kstatus-ready-behind`, Flux's `FAIL0005`, ... (the
    /// id of one of [`rules::RULES`]).
    pub rule: &'static str,
    /// How serious it is.
    pub level: Level,
    /// Where, as a JSON path from the object's root: `.status.conditions[1].reason`.
    pub path: String,
    /// What is wrong, with the value found.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.level {
            Level::Fail => "",
            Level::Warn => " (warning)",
            Level::Dropped => " (dropped)",
            Level::Unchecked => " (unchecked)",
        };
        write!(f, "{}: {}{level}: {}", self.path, self.rule, self.message)
    }
}

/// Checks statuses; [`Checker::new`] has the conventions and kstatus rules.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Checker {
    negative_polarity: NegativeTypes,
    flux: bool,
    /// The CRDs whose schemas statuses are checked against, picked by apiVersion and kind.
    crds: Vec<CustomResourceDefinition>,
    /// A version's `openAPIV3Schema`, for every object.
    schema: Option<JSONSchemaProps>,
}

/// kstatus' own abnormal-true condition types.
const RECONCILING: &str = "Reconciling";
const STALLED: &str = "Stalled";
const READY: &str = "Ready";

impl Checker {
    /// The conventions and kstatus rules; Reconciling and Stalled of negative polarity.
    pub fn new() -> Self {
        Self::default()
    }

    /// Further condition types of negative polarity (healthy when False: Degraded, ...),
    /// beside Reconciling and Stalled.
    #[must_use]
    pub fn negative_polarity<I, S>(mut self, types: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.negative_polarity.extend(types);
        self
    }

    /// Also checks statuses against `crd`'s schema: of the version the object's apiVersion
    /// names. Repeatable: each object is checked against the CRD of its group and kind, and
    /// an object no CRD given describes is a violation (`schema-version`).
    #[must_use]
    pub fn crd(mut self, crd: &CustomResourceDefinition) -> Self {
        self.crds.push(crd.clone());
        self
    }

    /// The conventions and kstatus rules, and the schema of `K`'s CRD (`K::crd()`).
    pub fn for_resource<K: CustomResourceExt>() -> Self {
        Self::new().crd(&K::crd())
    }

    /// Also checks every status against `root`, a version's `openAPIV3Schema` (the whole
    /// object's schema: its `status` property is what is checked), whatever the object's
    /// apiVersion.
    #[must_use]
    pub fn schema(mut self, root: &JSONSchemaProps) -> Self {
        self.schema = Some(root.clone());
        self
    }

    /// Adds the rest of Flux's `runtime/conditions/check` (its controllers' conventions).
    #[must_use]
    pub fn flux(mut self) -> Self {
        self.flux = true;
        self
    }

    /// Every violation in `object`'s status (an object as JSON: `metadata.generation` and
    /// `status` are read, and `apiVersion` and `kind` to pick a CRD), in the order: schema,
    /// conventions, kstatus, Flux.
    pub fn check(&self, object: &Value) -> Vec<Violation> {
        let mut found = Found(Vec::new());
        self.schema_rules(&mut found, object);
        let generation = object
            .pointer("/metadata/generation")
            .and_then(Value::as_i64);
        let status = object.get("status");
        let observed = status.and_then(|s| s.get("observedGeneration"));
        let observed = match observed {
            None => None,
            Some(value) => match value.as_i64() {
                Some(observed) => {
                    generation_rule(
                        &mut found,
                        ".status.observedGeneration",
                        observed,
                        generation,
                    );
                    Some(observed)
                }
                None => {
                    found.report(
                        rules::OBSERVED_GENERATION,
                        ".status.observedGeneration",
                        format!("not an integer: {value}"),
                    );
                    None
                }
            },
        };
        let conditions = conventions(
            &mut found,
            status.and_then(|s| s.get("conditions")),
            generation,
        );
        let view = View {
            conditions: &conditions,
            generation,
            observed,
        };
        self.kstatus(&mut found, &view);
        if self.flux {
            self.flux_rules(&mut found, &view);
        }
        found.0
    }

    /// The status against the schema given, or the CRD's of the object's apiVersion.
    fn schema_rules(&self, found: &mut Found, object: &Value) {
        let Some(status) = object.get("status") else {
            return;
        };
        let root = match &self.schema {
            Some(root) => Some(root),
            None if self.crds.is_empty() => return,
            None => match self.version_schema(object) {
                Ok(root) => root,
                Err(message) => {
                    found.report(rules::SCHEMA_VERSION, ".apiVersion", message);
                    return;
                }
            },
        };
        let Some(root) = root else {
            // A version without a schema (apiextensions v1 requires one): nothing to check.
            return;
        };
        match root.properties.as_ref().and_then(|p| p.get("status")) {
            Some(status_schema) => {
                #[cfg(feature = "cel")]
                let before = found.0.len();
                schema::check_status(found, status_schema, status);
                #[cfg(feature = "cel")]
                cel::after_schema(found, before, status_schema, status);
            }
            None if root.x_kubernetes_preserve_unknown_fields == Some(true) => {}
            None => found.report(
                rules::SCHEMA_UNKNOWN_FIELD,
                ".status",
                "unknown field \"status\": the schema does not name it, the server drops it".into(),
            ),
        }
    }

    /// The `openAPIV3Schema` of the version of the CRD that describes `object`, by its
    /// apiVersion and kind.
    fn version_schema(&self, object: &Value) -> Result<Option<&JSONSchemaProps>, String> {
        let api_version = object
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let kind = object.get("kind").and_then(Value::as_str);
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        let crd = self.crds.iter().find(|crd| {
            crd.spec.group == group && kind.is_none_or(|kind| crd.spec.names.kind == kind)
        });
        let Some(crd) = crd else {
            return Err(format!(
                "no CRD given describes apiVersion {api_version:?}, kind {:?}",
                kind.unwrap_or_default()
            ));
        };
        let Some(version) = crd.spec.versions.iter().find(|v| v.name == version) else {
            let known: Vec<&str> = crd.spec.versions.iter().map(|v| v.name.as_str()).collect();
            return Err(format!(
                "{api_version:?} is not a version of {}: {}",
                crd.metadata
                    .name
                    .as_deref()
                    .unwrap_or(&crd.spec.names.plural),
                known.join(", ")
            ));
        };
        Ok(version
            .schema
            .as_ref()
            .and_then(|s| s.open_api_v3_schema.as_ref()))
    }

    fn is_negative(&self, type_: &str) -> bool {
        type_ == RECONCILING || type_ == STALLED || self.negative_polarity.contains(type_)
    }

    fn kstatus(&self, found: &mut Found, view: &View<'_>) {
        let ready = view.get(READY);
        let ready_true = ready.is_some_and(|r| r.status == "True");
        // FAIL0001: a negative condition True beside Ready True.
        if ready_true {
            let troubled: Vec<&str> = view
                .conditions
                .iter()
                .filter(|c| c.status == "True" && self.is_negative(c.type_))
                .map(|c| c.type_)
                .collect();
            if !troubled.is_empty() {
                found.report(
                    rules::KSTATUS_READY_WITH_NEGATIVE_TRUE,
                    ".status.conditions",
                    format!(
                        "Ready is True while {} of negative polarity {} True (FAIL0001)",
                        troubled.join(", "),
                        if troubled.len() == 1 { "is" } else { "are" }
                    ),
                );
            }
        }
        // FAIL0003 and FAIL0004: Ready must be False while Reconciling or Stalled is True.
        for (type_, rule, id) in [
            (
                RECONCILING,
                rules::KSTATUS_READY_WHILE_RECONCILING,
                "FAIL0003",
            ),
            (STALLED, rules::KSTATUS_READY_WHILE_STALLED, "FAIL0004"),
        ] {
            if let (Some(ready), Some(other)) = (ready, view.get(type_))
                && other.status == "True"
                && ready.status != "False"
            {
                found.report(
                    rule,
                    &ready.path("status"),
                    format!(
                        "Ready is {} while {type_} is True; it must be False ({id})",
                        ready.status
                    ),
                );
            }
        }
        // FAIL0007: Ready True while the generation is not observed yet.
        if let (Some(observed), Some(generation)) = (view.observed, view.generation)
            && observed < generation
            && ready_true
        {
            found.report(
                rules::KSTATUS_READY_BEHIND,
                ".status",
                format!(
                    "Ready is True while observedGeneration {observed} is behind \
                     metadata.generation {generation} (kstatus reads InProgress)"
                ),
            );
        }
        // Stuck: not ready, yet neither working nor stalled.
        if let (Some(ready), Some(reconciling), Some(stalled)) =
            (ready, view.get(RECONCILING), view.get(STALLED))
            && ready.status == "False"
            && reconciling.status == "False"
            && stalled.status == "False"
        {
            found.report(
                rules::KSTATUS_STUCK,
                &ready.path("status"),
                "Ready is False while Reconciling and Stalled are both False: kstatus reads \
                 InProgress until one changes, and `helm --wait` waits for it"
                    .to_owned(),
            );
        }
    }

    /// The rest of Flux's checker, under its ids.
    fn flux_rules(&self, found: &mut Found, view: &View<'_>) {
        let ready = view.get(READY);
        let ready_true = ready.is_some_and(|r| r.status == "True");
        let observed = view.observed.unwrap_or(0);
        let gen_of = |c: &Seen<'_>| c.observed_generation.unwrap_or(0);
        if ready.is_none() {
            found.report(
                rules::FAIL0002,
                ".status.conditions",
                "Ready condition must always be present".into(),
            );
        }
        if view.get(RECONCILING).is_some() && view.get(STALLED).is_some() {
            found.report(
                rules::FAIL0005,
                ".status.conditions",
                "Only one of Reconciling condition or Stalled condition must be present at a time"
                    .into(),
            );
        }
        if ready_true {
            let generation = view.generation.unwrap_or(0);
            let behind: Vec<&str> = view
                .conditions
                .iter()
                .filter(|c| gen_of(c) < generation)
                .map(|c| c.type_)
                .collect();
            if !behind.is_empty() {
                found.report(
                    rules::FAIL0008,
                    ".status.conditions",
                    format!(
                        "Ready condition must be False when any of the status condition's \
                         ObservedGeneration is less than the object Generation: {behind:?}"
                    ),
                );
            }
            let unequal: Vec<&str> = view
                .conditions
                .iter()
                .filter(|c| gen_of(c) != observed)
                .map(|c| c.type_)
                .collect();
            if !unequal.is_empty() {
                found.report(
                    rules::FAIL0009,
                    ".status.conditions",
                    format!(
                        "The status conditions' ObservedGenerations must be equal to the root \
                         ObservedGeneration when Ready condition is True: {unequal:?}"
                    ),
                );
            }
            let present: Vec<&str> = view
                .conditions
                .iter()
                .filter(|c| self.negative_polarity.contains(c.type_))
                .map(|c| c.type_)
                .collect();
            if !present.is_empty() {
                found.report(
                    rules::WARN0001,
                    ".status.conditions",
                    format!("Negative polarity condition present when Ready condition is True: {present:?}"),
                );
            }
        }
        if let Some(reconciling) = view.get(RECONCILING)
            && reconciling.status == "True"
            && observed >= gen_of(reconciling)
        {
            found.report(
                rules::FAIL0010,
                &reconciling.path("observedGeneration"),
                "The root ObservedGeneration must be less than the Reconciling condition \
                 ObservedGeneration when Reconciling condition is True"
                    .into(),
            );
        }
        for (type_, id) in [(RECONCILING, rules::WARN0003), (STALLED, rules::WARN0004)] {
            if let Some(condition) = view.get(type_)
                && condition.status == "False"
            {
                found.report(
                    id,
                    &condition.path("status"),
                    format!("{type_} condition can be removed when its value is False"),
                );
            }
        }
        let missing: Vec<&str> = view
            .conditions
            .iter()
            .filter(|c| gen_of(c) < 1)
            .map(|c| c.type_)
            .collect();
        if !missing.is_empty() {
            found.report(
                rules::WARN0005,
                ".status.conditions",
                format!("Missing ObservedGeneration from status condition: {missing:?}"),
            );
        }
    }
}

/// The violations found so far.
struct Found(Vec<Violation>);

impl Found {
    /// A violation of `rule`, at its catalogue's level.
    fn report(&mut self, rule: Rule, path: &str, message: String) {
        self.0.push(Violation {
            rule: rule.id,
            level: rule.level,
            path: path.to_owned(),
            message,
        });
    }
}

/// A condition as read, with where it is.
struct Seen<'a> {
    index: usize,
    type_: &'a str,
    status: &'a str,
    observed_generation: Option<i64>,
}

impl Seen<'_> {
    fn path(&self, field: &str) -> String {
        format!(".status.conditions[{}].{field}", self.index)
    }
}

/// What the kstatus rules read.
struct View<'a> {
    conditions: &'a [Seen<'a>],
    generation: Option<i64>,
    observed: Option<i64>,
}

impl View<'_> {
    fn get(&self, type_: &str) -> Option<&Seen<'_>> {
        self.conditions.iter().find(|c| c.type_ == type_)
    }
}

/// `observedGeneration` (of the status or of a condition) not negative, not ahead.
fn generation_rule(found: &mut Found, path: &str, observed: i64, generation: Option<i64>) {
    let rule = if path == ".status.observedGeneration" {
        rules::OBSERVED_GENERATION
    } else {
        rules::CONDITION_OBSERVED_GENERATION
    };
    if observed < 0 {
        found.report(
            rule,
            path,
            format!("observedGeneration {observed} is negative"),
        );
    } else if let Some(generation) = generation
        && observed > generation
    {
        found.report(
            rule,
            path,
            format!("observedGeneration {observed} is ahead of metadata.generation {generation}"),
        );
    }
}

/// The conventions on the conditions list; the conditions readable enough for the kstatus
/// rules.
fn conventions<'a>(
    found: &mut Found,
    conditions: Option<&'a Value>,
    generation: Option<i64>,
) -> Vec<Seen<'a>> {
    let Some(conditions) = conditions else {
        return Vec::new();
    };
    let Some(list) = conditions.as_array() else {
        found.report(
            rules::CONDITION_SHAPE,
            ".status.conditions",
            format!("not a list: {conditions}"),
        );
        return Vec::new();
    };
    let mut seen: Vec<Seen<'a>> = Vec::new();
    for (index, condition) in list.iter().enumerate() {
        let at = |field: &str| format!(".status.conditions[{index}]{field}");
        if !condition.is_object() {
            found.report(
                rules::CONDITION_SHAPE,
                &at(""),
                format!("not an object: {condition}"),
            );
            continue;
        }
        let text = |field: &str| condition.get(field).map(|v| v.as_str().ok_or(v));
        for field in ["type", "status", "lastTransitionTime", "reason", "message"] {
            match text(field) {
                None => found.report(
                    rules::CONDITION_SHAPE,
                    &at(&format!(".{field}")),
                    "required, missing".into(),
                ),
                Some(Err(value)) => {
                    found.report(
                        rules::CONDITION_SHAPE,
                        &at(&format!(".{field}")),
                        format!("not text: {value}"),
                    );
                }
                Some(Ok(_)) => {}
            }
        }
        let type_ = text("type").and_then(Result::ok).unwrap_or_default();
        if condition.get("type").is_some_and(Value::is_string) && !is_valid_type(type_) {
            let why = if type_.chars().count() > MAX_TYPE_LEN {
                format!("longer than {MAX_TYPE_LEN} characters")
            } else {
                format!("{type_:?} does not match the type pattern")
            };
            found.report(rules::CONDITION_TYPE, &at(".type"), why);
        }
        if seen.iter().any(|s| s.type_ == type_) && !type_.is_empty() {
            found.report(
                rules::CONDITION_TYPE_UNIQUE,
                &at(".type"),
                format!("{type_} appears more than once"),
            );
        }
        let status = text("status").and_then(Result::ok).unwrap_or_default();
        if condition.get("status").is_some_and(Value::is_string)
            && !matches!(status, "True" | "False" | "Unknown")
        {
            found.report(
                rules::CONDITION_STATUS,
                &at(".status"),
                format!("{status:?} is not True, False or Unknown"),
            );
        }
        if let Some(Ok(reason)) = text("reason")
            && !is_valid_reason(reason)
        {
            let why = if reason.chars().count() > MAX_REASON_LEN {
                format!("longer than {MAX_REASON_LEN} characters")
            } else {
                format!("{reason:?} does not match the reason pattern")
            };
            found.report(rules::CONDITION_REASON, &at(".reason"), why);
        }
        if let Some(Ok(message)) = text("message")
            && message.len() > MAX_MESSAGE_BYTES
        {
            found.report(
                rules::CONDITION_MESSAGE,
                &at(".message"),
                format!("{} bytes, over {MAX_MESSAGE_BYTES}", message.len()),
            );
        }
        if let Some(Ok(time)) = text("lastTransitionTime") {
            match time.parse::<Timestamp>() {
                Err(_) => found.report(
                    rules::CONDITION_TIME,
                    &at(".lastTransitionTime"),
                    format!("not an RFC 3339 time: {time}"),
                ),
                Ok(parsed) if parsed.subsec_nanosecond() != 0 => {
                    found.report(
                        rules::CONDITION_TIME,
                        &at(".lastTransitionTime"),
                        format!("not in whole seconds: {time}"),
                    );
                }
                Ok(_) => {}
            }
        }
        let observed_generation = match condition.get("observedGeneration") {
            None => None,
            Some(value) => match value.as_i64() {
                Some(observed) => {
                    generation_rule(found, &at(".observedGeneration"), observed, generation);
                    Some(observed)
                }
                None => {
                    found.report(
                        rules::CONDITION_OBSERVED_GENERATION,
                        &at(".observedGeneration"),
                        format!("not an integer: {value}"),
                    );
                    None
                }
            },
        };
        if !type_.is_empty() {
            seen.push(Seen {
                index,
                type_,
                status,
                observed_generation,
            });
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn condition(type_: &str, status: &str) -> Value {
        json!({"type": type_, "status": status, "reason": "Because", "message": "",
               "lastTransitionTime": "2024-01-01T00:00:00Z", "observedGeneration": 2})
    }

    fn object(conditions: Vec<Value>) -> Value {
        json!({"metadata": {"generation": 2},
               "status": {"observedGeneration": 2, "conditions": conditions}})
    }

    fn rules(found: &[Violation]) -> Vec<&'static str> {
        found.iter().map(|v| v.rule).collect()
    }

    #[test]
    fn what_kondition_writes_for_the_kstatus_profile_passes() {
        for statuses in [
            ["True", "False", "False"],
            ["False", "True", "False"],
            ["False", "False", "True"],
        ] {
            let object = object(vec![
                condition("Ready", statuses[0]),
                condition("Reconciling", statuses[1]),
                condition("Stalled", statuses[2]),
            ]);
            assert_eq!(Checker::new().check(&object), [], "{object}");
        }
    }

    #[test]
    fn every_outcome_of_the_kstatus_profile_passes() {
        use crate::conditions::Conditions;
        use crate::error::Failure;
        use crate::profile::kstatus::{after, in_progress};
        let outcomes = [
            in_progress("creating the database"),
            after::<Failure>(Ok(())),
            after(Err(&Failure::retryable("Throttled", "slow down"))),
            after(Err(&Failure::in_progress("Waiting", "for the volume"))),
            after(Err(&Failure::fatal("InvalidSpec", "size must be positive"))),
        ];
        for outcome in outcomes {
            let mut conditions = Conditions::new();
            for condition in outcome {
                conditions.set(condition.with_observed_generation(4));
            }
            let object = json!({"metadata": {"generation": 4},
                                "status": {"observedGeneration": 4, "conditions": conditions}});
            assert_eq!(Checker::new().check(&object), [], "{object}");
        }
    }

    #[test]
    fn each_convention_is_found_at_its_path() {
        let mut bad = condition("not a type!", "Maybe");
        bad["reason"] = json!("has space");
        bad["message"] = json!("x".repeat(MAX_MESSAGE_BYTES + 1));
        bad["lastTransitionTime"] = json!("yesterday");
        bad["observedGeneration"] = json!(3);
        let object = json!({"metadata": {"generation": 2}, "status": {
            "observedGeneration": -1,
            "conditions": [bad, {"type": "Ready"}, condition("Ready", "True"), 7],
        }});
        let found = Checker::new().check(&object);
        let paths: Vec<(&str, &str)> = found.iter().map(|v| (v.rule, v.path.as_str())).collect();
        assert_eq!(
            paths,
            [
                ("observed-generation", ".status.observedGeneration"),
                ("condition-type", ".status.conditions[0].type"),
                ("condition-status", ".status.conditions[0].status"),
                ("condition-reason", ".status.conditions[0].reason"),
                ("condition-message", ".status.conditions[0].message"),
                ("condition-time", ".status.conditions[0].lastTransitionTime"),
                (
                    "condition-observed-generation",
                    ".status.conditions[0].observedGeneration"
                ),
                ("condition-shape", ".status.conditions[1].status"),
                (
                    "condition-shape",
                    ".status.conditions[1].lastTransitionTime"
                ),
                ("condition-shape", ".status.conditions[1].reason"),
                ("condition-shape", ".status.conditions[1].message"),
                ("condition-type-unique", ".status.conditions[2].type"),
                ("condition-shape", ".status.conditions[3]"),
            ]
        );
    }

    #[test]
    fn the_kstatus_rules() {
        let check = |conditions| {
            rules(
                &Checker::new()
                    .negative_polarity(["Degraded"])
                    .check(&object(conditions)),
            )
        };
        assert_eq!(
            check(vec![
                condition("Ready", "True"),
                condition("Reconciling", "True")
            ]),
            [
                "kstatus-ready-with-negative-true",
                "kstatus-ready-while-reconciling"
            ]
        );
        assert_eq!(
            check(vec![
                condition("Ready", "Unknown"),
                condition("Stalled", "True")
            ]),
            ["kstatus-ready-while-stalled"]
        );
        assert_eq!(
            check(vec![
                condition("Ready", "True"),
                condition("Degraded", "True")
            ]),
            ["kstatus-ready-with-negative-true"]
        );
        assert_eq!(
            check(vec![
                condition("Ready", "False"),
                condition("Reconciling", "False"),
                condition("Stalled", "False")
            ]),
            ["kstatus-stuck"]
        );
        let mut behind = object(vec![condition("Ready", "True")]);
        behind["metadata"]["generation"] = json!(3);
        assert_eq!(
            rules(&Checker::new().check(&behind)),
            ["kstatus-ready-behind"]
        );
    }

    #[test]
    fn flux_rules_are_opt_in_and_name_flux_ids() {
        let mut reconciling = condition("Reconciling", "False");
        reconciling["observedGeneration"] = json!(1);
        let object = object(vec![
            condition("Ready", "True"),
            reconciling,
            condition("Stalled", "False"),
        ]);
        assert_eq!(Checker::new().check(&object), []);
        let found = Checker::new().flux().check(&object);
        assert_eq!(
            rules(&found),
            ["FAIL0005", "FAIL0008", "FAIL0009", "WARN0003", "WARN0004"]
        );
        assert_eq!(found[3].level, Level::Warn);
        let no_ready = rules(
            &Checker::new()
                .flux()
                .check(&json!({"status": {"conditions": []}})),
        );
        assert_eq!(no_ready, ["FAIL0002"]);
    }
}

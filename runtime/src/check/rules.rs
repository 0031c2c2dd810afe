//! The checker's rules in one catalogue: each rule's id (what a [`Violation`](super::Violation)
//! names), its [`Level`] and what it finds. Every violation the checker reports is made from
//! one of these constants, so its level is the catalogue's; the table of rules in the
//! repository's user guide (`docs/guide/src/testing.md`) is tested to be this catalogue.

use super::Level;

/// One rule of the checker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rule {
    /// The id a violation names: `condition-reason`, `schema-enum`, Flux's `FAIL0005`, ...
    pub id: &'static str,
    /// How serious a violation of it is.
    pub level: Level,
    /// What it finds, in one sentence.
    pub doc: &'static str,
}

/// The rules, each a constant, and [`RULES`] listing them in order.
macro_rules! catalogue {
    ($($name:ident = $id:literal, $level:ident, $doc:literal;)*) => {
        $(
            #[doc = concat!("`", $id, "`: ", $doc)]
            pub const $name: Rule = Rule { id: $id, level: Level::$level, doc: $doc };
        )*

        /// Every rule, in the order the guide's table lists them: the conventions, kstatus'
        /// rules, the rest of Flux's checker ([`Checker::flux`](super::Checker::flux)), the
        /// CRD's schema ([`Checker::crd`](super::Checker::crd)) and its CEL rules.
        pub const RULES: &[Rule] = &[$($name),*];
    };
}

catalogue! {
    CONDITION_SHAPE = "condition-shape", Fail,
        "`conditions` is not a list of objects, or a condition lacks one of type, status, reason, message and lastTransitionTime, or holds one that is not text.";
    CONDITION_TYPE = "condition-type", Fail,
        "A condition type does not match the API server's pattern or is longer than 316 characters.";
    CONDITION_TYPE_UNIQUE = "condition-type-unique", Fail,
        "A condition type appears more than once in the list.";
    CONDITION_STATUS = "condition-status", Fail,
        "A condition's status is not True, False or Unknown.";
    CONDITION_REASON = "condition-reason", Fail,
        "A reason is empty, longer than 1024 characters or does not match the API server's pattern.";
    CONDITION_MESSAGE = "condition-message", Fail,
        "A message is longer than 32,768 bytes.";
    CONDITION_TIME = "condition-time", Fail,
        "A lastTransitionTime is not an RFC 3339 time, or not in whole seconds.";
    CONDITION_OBSERVED_GENERATION = "condition-observed-generation", Fail,
        "A condition's observedGeneration is not an integer, is negative or is ahead of metadata.generation.";
    OBSERVED_GENERATION = "observed-generation", Fail,
        "status.observedGeneration is not an integer, is negative or is ahead of metadata.generation.";
    KSTATUS_READY_WITH_NEGATIVE_TRUE = "kstatus-ready-with-negative-true", Fail,
        "Ready is True while a condition of negative polarity (Reconciling, Stalled, or a type given to the checker) is True (Flux's FAIL0001).";
    KSTATUS_READY_WHILE_RECONCILING = "kstatus-ready-while-reconciling", Fail,
        "Ready is not False while Reconciling is True (Flux's FAIL0003).";
    KSTATUS_READY_WHILE_STALLED = "kstatus-ready-while-stalled", Fail,
        "Ready is not False while Stalled is True (Flux's FAIL0004).";
    KSTATUS_READY_BEHIND = "kstatus-ready-behind", Fail,
        "Ready is True while status.observedGeneration is behind metadata.generation: kstatus reads InProgress (Flux's FAIL0007).";
    KSTATUS_STUCK = "kstatus-stuck", Fail,
        "Ready is False while Reconciling and Stalled are both False: kstatus reads InProgress until one changes.";
    FAIL0002 = "FAIL0002", Fail,
        "Flux: Ready is absent.";
    FAIL0005 = "FAIL0005", Fail,
        "Flux: Reconciling and Stalled are both present.";
    FAIL0008 = "FAIL0008", Fail,
        "Flux: Ready is True while a condition's observedGeneration is behind metadata.generation.";
    FAIL0009 = "FAIL0009", Fail,
        "Flux: Ready is True while a condition's observedGeneration differs from status.observedGeneration.";
    FAIL0010 = "FAIL0010", Fail,
        "Flux: Reconciling is True while status.observedGeneration is not behind Reconciling's own.";
    WARN0001 = "WARN0001", Warn,
        "Flux: Ready is True while a condition of negative polarity is present.";
    WARN0003 = "WARN0003", Warn,
        "Flux: Reconciling is present and False (it can be removed).";
    WARN0004 = "WARN0004", Warn,
        "Flux: Stalled is present and False (it can be removed).";
    WARN0005 = "WARN0005", Warn,
        "Flux: a condition has no observedGeneration.";
    SCHEMA_VERSION = "schema-version", Fail,
        "No CRD given describes the object's group, kind and version.";
    SCHEMA_UNKNOWN_FIELD = "schema-unknown-field", Dropped,
        "A field the schema does not name (and does not preserve): the server drops it.";
    SCHEMA_NULL = "schema-null", Dropped,
        "A null where the schema is not nullable: the server drops the field.";
    SCHEMA_TYPE = "schema-type", Fail,
        "A value of another type than the schema's.";
    SCHEMA_ENUM = "schema-enum", Fail,
        "A value outside the schema's enum.";
    SCHEMA_REQUIRED = "schema-required", Fail,
        "A field the schema requires is missing.";
    SCHEMA_PATTERN = "schema-pattern", Fail,
        "A text that does not match the schema's pattern.";
    SCHEMA_PATTERN_UNCHECKED = "schema-pattern-unchecked", Unchecked,
        "A pattern the regex crate cannot compile: not checked.";
    SCHEMA_FORMAT = "schema-format", Fail,
        "A text not of the schema's format (date-time, date, byte).";
    SCHEMA_FORMAT_UNCHECKED = "schema-format-unchecked", Unchecked,
        "A format the API server checks and the checker does not.";
    SCHEMA_MINIMUM = "schema-minimum", Fail,
        "A number below the schema's minimum.";
    SCHEMA_MAXIMUM = "schema-maximum", Fail,
        "A number above the schema's maximum.";
    SCHEMA_MULTIPLE_OF = "schema-multiple-of", Fail,
        "A number that is not a multiple of the schema's multipleOf.";
    SCHEMA_MIN_LENGTH = "schema-min-length", Fail,
        "A text shorter than the schema's minLength (in characters).";
    SCHEMA_MAX_LENGTH = "schema-max-length", Fail,
        "A text longer than the schema's maxLength (in characters).";
    SCHEMA_MIN_ITEMS = "schema-min-items", Fail,
        "A list shorter than the schema's minItems.";
    SCHEMA_MAX_ITEMS = "schema-max-items", Fail,
        "A list longer than the schema's maxItems.";
    SCHEMA_MIN_PROPERTIES = "schema-min-properties", Fail,
        "A map with fewer entries than the schema's minProperties.";
    SCHEMA_MAX_PROPERTIES = "schema-max-properties", Fail,
        "A map with more entries than the schema's maxProperties.";
    SCHEMA_LIST_UNIQUE = "schema-list-unique", Fail,
        "An item repeated in a list of type set, or a key repeated in a list of type map.";
    SCHEMA_ANY_OF = "schema-any-of", Fail,
        "A value that matches none of the schema's anyOf.";
    SCHEMA_ONE_OF = "schema-one-of", Fail,
        "A value that matches none or more than one of the schema's oneOf.";
    SCHEMA_NOT = "schema-not", Fail,
        "A value that matches the schema's not.";
    SCHEMA_CEL = "schema-cel", Fail,
        "A CEL rule (x-kubernetes-validations) of the status that fails (feature cel).";
    SCHEMA_CEL_TRANSITION = "schema-cel-transition", Unchecked,
        "A CEL transition rule (oldSelf): it needs the stored object, not evaluated.";
    SCHEMA_CEL_UNCHECKED = "schema-cel-unchecked", Unchecked,
        "A CEL rule not evaluated: kondition built without its feature cel, or a rule the evaluator cannot run.";
    SCHEMA_CEL_NOT_EVALUATED = "schema-cel-not-evaluated", Unchecked,
        "The CEL rules skipped, as the API server skips them, because the schema found a wrong type or format, a value outside an enum, a missing required field, or a text, list or map too long.";
}

/// The rule of the given id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|rule| rule.id == id)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::{Level, RULES, rule};

    /// The guide's chapter that holds the table of rules (once the README's section).
    const CHAPTER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/guide/src/testing.md");
    /// The marker before the chapter's table of rules.
    const MARK: &str = "<!-- rules: written from runtime/src/check/rules.rs -->";

    fn level_word(level: Level) -> &'static str {
        match level {
            Level::Fail => "fail",
            Level::Warn => "warning",
            Level::Dropped => "dropped",
            Level::Unchecked => "unchecked",
        }
    }

    /// The table the guide's chapter must hold, from the catalogue.
    fn table() -> String {
        let mut text = String::from("| rule | level | what it finds |\n| --- | --- | --- |\n");
        for rule in RULES {
            text.push_str(&format!(
                "| `{}` | {} | {} |\n",
                rule.id,
                level_word(rule.level),
                rule.doc
            ));
        }
        text
    }

    #[test]
    fn ids_are_unique_and_each_is_found_by_its_id() {
        let ids: BTreeSet<&str> = RULES.iter().map(|r| r.id).collect();
        assert_eq!(ids.len(), RULES.len(), "an id appears twice");
        for r in RULES {
            assert_eq!(rule(r.id), Some(r));
            assert!(
                !r.doc.contains('|'),
                "{}: a `|` would break the table",
                r.id
            );
        }
        assert_eq!(rule("no-such-rule"), None);
    }

    /// The constant of a rule, as the catalogue names it.
    fn constant(id: &str) -> String {
        id.to_uppercase().replace('-', "_")
    }

    /// Every id written in the checker's code is the catalogue's constant, never a literal,
    /// and every rule of the catalogue is one the checker reports.
    #[test]
    fn the_checker_reports_exactly_the_rules_of_the_catalogue() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/check");
        let mut product = String::new();
        for file in ["mod.rs", "schema.rs", "cel.rs"] {
            let text = std::fs::read_to_string(format!("{dir}/{file}")).expect("read");
            let code = text
                .split("#[cfg(test)]\nmod tests")
                .next()
                .unwrap_or(&text);
            for r in RULES {
                let literal = format!("\"{}\"", r.id);
                assert!(
                    !code.contains(&literal),
                    "check/{file} writes {literal}: use rules::{}",
                    constant(r.id)
                );
            }
            product.push_str(code);
        }
        let unused: Vec<&str> = RULES
            .iter()
            .filter(|r| !product.contains(&format!("rules::{}", constant(r.id))))
            .map(|r| r.id)
            .collect();
        assert!(
            unused.is_empty(),
            "rules the checker never reports: {unused:?}"
        );
    }

    #[test]
    fn the_guides_table_is_the_catalogue() {
        let chapter = std::fs::read_to_string(CHAPTER).expect("docs/guide/src/testing.md");
        let start = chapter
            .find(MARK)
            .unwrap_or_else(|| panic!("docs/guide/src/testing.md has no `{MARK}`"))
            + MARK.len();
        let body = start + chapter[start..].find('|').expect("a table after the mark");
        let end = body
            + chapter[body..]
                .find("\n\n")
                .map_or(chapter.len() - body, |at| at + 1);
        let written = &chapter[body..end];
        let wanted = table();
        if written != wanted {
            if std::env::var_os("KONDITION_BLESS").is_some_and(|v| v == "1") {
                let rewritten = format!("{}{wanted}{}", &chapter[..body], &chapter[end..]);
                std::fs::write(CHAPTER, rewritten).expect("write docs/guide/src/testing.md");
                panic!(
                    "docs/guide/src/testing.md's table of rules rewritten from the catalogue: run again"
                );
            }
            panic!(
                "docs/guide/src/testing.md's table of rules is\n{written}\nthe catalogue has\n{wanted}\
                 (KONDITION_BLESS=1 rewrites the table)"
            );
        }
    }
}

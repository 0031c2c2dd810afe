//! The names generated and derived code give a kind's own items, beside the types of its
//! schema: the generator keeps every schema type off them, and the derive writes two of them.

/// The suffix of the condition-type enum `#[derive(KubeStatus)]` writes beside a status
/// struct (`WidgetStatus` -> `WidgetStatusConditionType`).
pub const CONDITION_TYPE_SUFFIX: &str = "ConditionType";

/// The suffix of the apply configuration `#[derive(KubeStatus)]` writes beside a status
/// struct (`WidgetStatus` -> `WidgetStatusApply`).
pub const APPLY_SUFFIX: &str = "Apply";

/// The suffixes, to a kind's name, of the items generated code defines for the kind: the
/// kind, its spec and status, its reasons, and what the derive writes for its status
/// `<Kind>Status` ([`APPLY_SUFFIX`], [`CONDITION_TYPE_SUFFIX`]).
pub const KIND_ITEM_SUFFIXES: [&str; 6] = [
    "",
    "Spec",
    "Status",
    "Reason",
    "StatusApply",
    "StatusConditionType",
];

/// The suffixes of [`KIND_ITEM_SUFFIXES`] that name the types of the kind's `spec` and
/// `status` fields: types of its schema, which a front-end reading a CRD gives these names
/// itself.
pub const ROOT_TYPE_SUFFIXES: [&str; 2] = ["Spec", "Status"];

/// The names of the items generated code defines for `kind` ([`KIND_ITEM_SUFFIXES`]), which
/// no type of its schema may take.
pub fn kind_items(kind: &str) -> impl Iterator<Item = String> + '_ {
    KIND_ITEM_SUFFIXES
        .iter()
        .map(move |suffix| format!("{kind}{suffix}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_items_are_the_derives() {
        assert!(KIND_ITEM_SUFFIXES.contains(&format!("Status{APPLY_SUFFIX}").as_str()));
        assert!(KIND_ITEM_SUFFIXES.contains(&format!("Status{CONDITION_TYPE_SUFFIX}").as_str()));
        assert_eq!(
            kind_items("Widget").collect::<Vec<_>>(),
            [
                "Widget",
                "WidgetSpec",
                "WidgetStatus",
                "WidgetReason",
                "WidgetStatusApply",
                "WidgetStatusConditionType"
            ]
        );
    }
}

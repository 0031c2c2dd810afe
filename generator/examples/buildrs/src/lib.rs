//! An API crate whose types are generated at build time from `schemas/` by
//! `kondition_gen::Builder` (see `build.rs`).

include!(concat!(env!("OUT_DIR"), "/kondition.rs"));

#[cfg(test)]
mod tests {
    use kondition::{Condition, ConditionStatus, StatusResource};

    use super::gadget::v1::{Gadget, GadgetSpec};

    #[test]
    fn the_generated_types_are_usable() {
        let names: Vec<_> = super::crds()
            .into_iter()
            .filter_map(|crd| crd.metadata.name)
            .collect();
        assert_eq!(names, ["oddities.example.com", "gadgets.example.com"]);

        let mut gadget = Gadget::new(
            "g1",
            GadgetSpec {
                replicas: 2,
                mode: None,
            },
        );
        gadget.status_mut().set_ready(Condition::new(
            "Ready",
            ConditionStatus::True,
            "ReconciliationSuccess",
        ));
        assert!(gadget.status.as_ref().is_some_and(|s| s.is_ready()));
        assert_eq!(Gadget::field_owner(), "example.com/gadget-controller");
    }

    #[test]
    fn odd_names_keep_their_wire_form() {
        use super::edge_cases::v1::{OdditySpec, OdditySpecOperator};

        let wire = serde_json::json!({
            "type": "t", "self": "s", "crate": 1, "proxyURL": "a", "proxyUrl": "b",
            "mirror_percent": 2, "mirrorPercent": 3, "$ref": "r", "x-kubernetes-thing": true,
            "additionalProperties": {"k": "v"}, "default": "d", "operator": "",
            "level": 2, "rule": "abc"
        });
        let spec: OdditySpec = serde_json::from_value(wire.clone()).expect("reads every odd name");
        assert_eq!(spec.r#type.as_deref(), Some("t"));
        assert_eq!(spec.self_.as_deref(), Some("s"));
        assert_eq!(
            (spec.proxy_url.as_deref(), spec.proxy_url_2.as_deref()),
            (Some("a"), Some("b"))
        );
        assert_eq!(serde_json::to_value(&spec).expect("writes"), wire);

        for (value, variant) in [
            ("=~", OdditySpecOperator::Value),
            ("!=", OdditySpecOperator::Value2),
            ("", OdditySpecOperator::Value3),
            ("drop", OdditySpecOperator::Drop),
            ("Drop", OdditySpecOperator::Drop2),
            ("1.0", OdditySpecOperator::V10),
            ("with space", OdditySpecOperator::WithSpace),
        ] {
            assert_eq!(serde_json::to_value(variant).expect("writes"), value);
        }
    }
}

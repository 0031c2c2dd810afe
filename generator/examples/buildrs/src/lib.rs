//! An API crate whose types are generated at build time from `schemas/` by
//! `kondition_gen::Builder` (see `build.rs`).

include!(concat!(env!("OUT_DIR"), "/kondition.rs"));

#[cfg(test)]
mod tests {
    use kondition::{Condition, ConditionStatus, StatusResource};

    use super::gadget::v1::{Gadget, GadgetSpec};

    #[test]
    fn the_generated_types_are_usable() {
        let crds = super::crds();
        assert_eq!(crds.len(), 1);
        assert_eq!(
            crds[0].metadata.name.as_deref(),
            Some("gadgets.example.com")
        );

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
}

//! CustomResourceDefinitions that generated code carries as JSON text.
//!
//! `kondition-gen` writes each kind's CRD, every version, as one JSON string and checks it
//! deserializes; these functions turn that text back into k8s-openapi's type. Keeping the CRD
//! as data rather than deriving it from the Rust types is what lets it say everything the
//! source said (CEL rules, bounds, `anyOf`, defaults, list types), and costs the compiler
//! nothing per field.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

/// The CRD in `json`.
///
/// # Panics
///
/// If `json` is not a CustomResourceDefinition. The generator checks every CRD it writes, so
/// for generated code this is unreachable.
pub fn from_json(json: &str) -> CustomResourceDefinition {
    match serde_json::from_str(json) {
        Ok(crd) => crd,
        Err(error) => panic!("not a CustomResourceDefinition: {error}"),
    }
}

/// The CRD in `json` with only the version named `version` (its flags as the full CRD has
/// them), as `CustomResourceExt::crd()` of that version's type returns it.
///
/// # Panics
///
/// As [`from_json`].
pub fn version_from_json(json: &str, version: &str) -> CustomResourceDefinition {
    let mut crd = from_json(json);
    crd.spec.versions.retain(|v| v.name == version);
    crd
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRD: &str = r#"{
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "plural": "widgets"},
            "scope": "Namespaced",
            "versions": [
                {"name": "v1", "served": true, "storage": true},
                {"name": "v2", "served": true, "storage": false}
            ]
        }
    }"#;

    #[test]
    fn one_version_is_kept_with_its_flags() {
        let crd = version_from_json(CRD, "v2");
        assert_eq!(crd.spec.versions.len(), 1);
        assert_eq!(crd.spec.versions[0].name, "v2");
        assert!(!crd.spec.versions[0].storage);
        assert_eq!(from_json(CRD).spec.versions.len(), 2);
    }

    #[test]
    #[should_panic(expected = "not a CustomResourceDefinition")]
    fn text_that_is_not_a_crd_panics_with_the_reason() {
        from_json(r#"{"spec": 1}"#);
    }
}

//! The least privilege the status chokepoint needs: the RBAC rules an operator's ClusterRole
//! must grant for each kind it reconciles through [`StatusReconciler`], and no more.
//!
//! For each kind:
//!
//! - `get`, `list` and `watch` on `<plural>`: kube's `Controller` lists and watches the kind,
//!   and the chokepoint reads an object back when its status write is answered 404 (to tell
//!   an object deleted from a kind whose CRD serves no status subresource);
//! - `patch` on `<plural>/status`, where the status is written (server-side apply), or `patch`
//!   on `<plural>` itself for a kind without a status subresource (its status is part of the
//!   main resource);
//! - with a finalizer ([`with_finalizer`]), `patch` on `<plural>`: the finalizer is added and
//!   removed with a JSON patch of `metadata.finalizers`.
//!
//! Once, for every kind: `create` and `patch` on `events` of `events.k8s.io` (kube's
//! `Recorder` creates an Event, then patches its series when it repeats).
//!
//! `kondition rbac` prints these rules as a ClusterRole for the kinds of schema or CRD files;
//! the test suite runs the chokepoint as a ServiceAccount bound to exactly them.
//!
//! [`StatusReconciler`]: crate::controller::StatusReconciler
//! [`with_finalizer`]: crate::controller::with_finalizer

use std::collections::BTreeMap;

use k8s_openapi::api::rbac::v1::{ClusterRole, PolicyRule};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::status::StatusResource;

/// What the chokepoint does with one kind, from which its rules follow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindAccess {
    group: String,
    plural: String,
    /// Whether some version writes its status through the status subresource.
    status_subresource: bool,
    /// Whether some version writes its status through the main resource.
    main_resource: bool,
    finalizer: bool,
}

impl KindAccess {
    /// The access of the chokepoint to `K`, without a finalizer.
    pub fn of<K: StatusResource>() -> Self {
        let subresource = K::STATUS_SUBRESOURCE;
        Self {
            group: K::group(&()).into_owned(),
            plural: K::plural(&()).into_owned(),
            status_subresource: subresource,
            main_resource: !subresource,
            finalizer: false,
        }
    }

    /// The access to the kind a CRD defines: a version with a status subresource writes its
    /// status there, a served version without one through the main resource (a CRD whose
    /// versions differ needs both).
    pub fn from_crd(crd: &CustomResourceDefinition) -> Self {
        let served = crd.spec.versions.iter().filter(|v| v.served);
        let (mut subresource, mut main) = (false, false);
        for version in served {
            let has = version
                .subresources
                .as_ref()
                .is_some_and(|s| s.status.is_some());
            subresource |= has;
            main |= !has;
        }
        Self {
            group: crd.spec.group.clone(),
            plural: crd.spec.names.plural.clone(),
            status_subresource: subresource,
            main_resource: main,
            finalizer: false,
        }
    }

    /// The same, for a reconciler that runs [`with_finalizer`](crate::controller::with_finalizer).
    #[must_use]
    pub fn with_finalizer(mut self) -> Self {
        self.finalizer = true;
        self
    }

    /// The kind's API group (empty for the core group).
    pub fn group(&self) -> &str {
        &self.group
    }

    /// The kind's plural resource name.
    pub fn plural(&self) -> &str {
        &self.plural
    }
}

/// The group of Events kube's `Recorder` writes.
const EVENTS_GROUP: &str = "events.k8s.io";

/// The rules for `kinds`: one rule per API group and set of verbs, resources sorted, so the
/// same kinds always give the same rules (whatever their order).
pub fn rules<'a>(kinds: impl IntoIterator<Item = &'a KindAccess>) -> Vec<PolicyRule> {
    // (group, verbs) -> resources; BTreeMaps keep the output in one order.
    let mut grouped: BTreeMap<(String, Vec<&'static str>), Vec<String>> = BTreeMap::new();
    let mut add = |group: &str, verbs: &[&'static str], resource: String| {
        let resources = grouped
            .entry((group.to_owned(), verbs.to_vec()))
            .or_default();
        if !resources.contains(&resource) {
            resources.push(resource);
        }
    };
    for kind in kinds {
        let writes_main = kind.main_resource || kind.finalizer;
        let read = ["get", "list", "watch"];
        if writes_main {
            add(
                &kind.group,
                &["get", "list", "patch", "watch"],
                kind.plural.clone(),
            );
        } else {
            add(&kind.group, &read, kind.plural.clone());
        }
        if kind.status_subresource {
            add(&kind.group, &["patch"], format!("{}/status", kind.plural));
        }
    }
    add(EVENTS_GROUP, &["create", "patch"], "events".to_owned());
    grouped
        .into_iter()
        .map(|((group, verbs), mut resources)| {
            resources.sort();
            PolicyRule {
                api_groups: Some(vec![group]),
                resources: Some(resources),
                verbs: verbs.into_iter().map(str::to_owned).collect(),
                ..PolicyRule::default()
            }
        })
        .collect()
}

/// A ClusterRole named `name` granting [`rules`] for `kinds`.
pub fn cluster_role<'a>(
    name: &str,
    kinds: impl IntoIterator<Item = &'a KindAccess>,
) -> ClusterRole {
    ClusterRole {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            ..ObjectMeta::default()
        },
        rules: Some(rules(kinds)),
        ..ClusterRole::default()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn crd(versions: serde_json::Value) -> CustomResourceDefinition {
        serde_json::from_value(json!({
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                     "names": {"plural": "widgets", "kind": "Widget"},
                     "versions": versions}
        }))
        .expect("a CRD")
    }

    fn as_json(rules: &[PolicyRule]) -> serde_json::Value {
        serde_json::to_value(rules).expect("rules as JSON")
    }

    #[test]
    fn a_kind_with_a_status_subresource_patches_only_its_status() {
        let kind = KindAccess::from_crd(&crd(json!([
            {"name": "v1", "served": true, "storage": true, "subresources": {"status": {}}}
        ])));
        assert_eq!(
            as_json(&rules([&kind])),
            json!([
                {"apiGroups": ["events.k8s.io"], "resources": ["events"],
                 "verbs": ["create", "patch"]},
                {"apiGroups": ["example.com"], "resources": ["widgets"],
                 "verbs": ["get", "list", "watch"]},
                {"apiGroups": ["example.com"], "resources": ["widgets/status"],
                 "verbs": ["patch"]},
            ])
        );
    }

    #[test]
    fn a_kind_without_one_patches_the_main_resource() {
        let kind = KindAccess::from_crd(&crd(json!([
            {"name": "v1", "served": true, "storage": true, "subresources": {}}
        ])));
        assert_eq!(
            as_json(&rules([&kind])),
            json!([
                {"apiGroups": ["events.k8s.io"], "resources": ["events"],
                 "verbs": ["create", "patch"]},
                {"apiGroups": ["example.com"], "resources": ["widgets"],
                 "verbs": ["get", "list", "patch", "watch"]},
            ])
        );
    }

    #[test]
    fn versions_that_differ_need_both_and_unserved_ones_nothing() {
        let both = KindAccess::from_crd(&crd(json!([
            {"name": "v1", "served": true, "storage": true, "subresources": {"status": {}}},
            {"name": "v2", "served": true, "storage": false}
        ])));
        assert!(both.status_subresource && both.main_resource);
        let one = KindAccess::from_crd(&crd(json!([
            {"name": "v1", "served": true, "storage": true, "subresources": {"status": {}}},
            {"name": "v0", "served": false, "storage": false}
        ])));
        assert!(one.status_subresource && !one.main_resource);
    }

    #[test]
    fn kinds_of_one_group_share_rules_and_a_finalizer_patches_the_kind() {
        let widgets = KindAccess::from_crd(&crd(json!([
            {"name": "v1", "served": true, "storage": true, "subresources": {"status": {}}}
        ])))
        .with_finalizer();
        let mut gadgets = widgets.clone();
        gadgets.plural = "gadgets".to_owned();
        gadgets.finalizer = false;
        let forward = rules([&widgets, &gadgets]);
        assert_eq!(
            forward,
            rules([&gadgets, &widgets]),
            "order does not matter"
        );
        assert_eq!(
            as_json(&forward),
            json!([
                {"apiGroups": ["events.k8s.io"], "resources": ["events"],
                 "verbs": ["create", "patch"]},
                {"apiGroups": ["example.com"], "resources": ["widgets"],
                 "verbs": ["get", "list", "patch", "watch"]},
                {"apiGroups": ["example.com"], "resources": ["gadgets"],
                 "verbs": ["get", "list", "watch"]},
                {"apiGroups": ["example.com"], "resources": ["gadgets/status", "widgets/status"],
                 "verbs": ["patch"]},
            ])
        );
    }
}

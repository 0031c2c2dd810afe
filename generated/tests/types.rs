//! The generated types in use: CRDs, the status machinery, enums and reasons.

use kondition::{Condition, ConditionStatus, KubeStatus, SetOutcome, StatusResource};
use kondition_generated::{crds, database, resourcegroup, securitygroup};
use serde_json::{Value, json};

fn crd(name: &str) -> Value {
    let all = crds();
    let found = all
        .iter()
        .find(|c| c.metadata.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no CRD {name}"));
    serde_json::to_value(found).expect("serializes")
}

#[test]
fn crds_lists_every_kind_with_every_version() {
    let names: Vec<String> = crds()
        .iter()
        .filter_map(|c| c.metadata.name.clone())
        .collect();
    assert_eq!(
        names,
        [
            // schemas/crds/: real CRDs of the corpus, first in path order.
            "clusters.cluster.x-k8s.io",
            "compositeresourcedefinitions.apiextensions.crossplane.io",
            "prometheuses.monitoring.coreos.com",
            "databases.db.example.com",
            "promotionstrategies.promoter.argoproj.io",
            "changetransferpolicies.promoter.argoproj.io",
            "resourcegroups.resources.azure.com",
            "routers.openstack.k-orc.cloud",
            "securitygroups.openstack.k-orc.cloud",
        ]
    );
    let database = crd("databases.db.example.com");
    let versions: Vec<(&str, bool)> = database["spec"]["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| {
            (
                v["name"].as_str().unwrap_or_default(),
                v["storage"].as_bool().unwrap_or_default(),
            )
        })
        .collect();
    // In the schema's order.
    assert_eq!(versions, [("v1beta1", false), ("v1", true)]);
    assert_eq!(database["spec"]["versions"][0]["deprecated"], true);
}

#[test]
fn the_status_block_is_standard() {
    let sg = crd("securitygroups.openstack.k-orc.cloud");
    let version = &sg["spec"]["versions"][0];
    let columns: Vec<&str> = version["additionalPrinterColumns"]
        .as_array()
        .expect("columns")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .take(3)
        .collect();
    assert_eq!(columns, ["Ready", "Reason", "Age"]);
    let conditions =
        &version["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]["conditions"];
    assert_eq!(conditions["x-kubernetes-list-type"], "map");
    assert_eq!(conditions["x-kubernetes-list-map-keys"], json!(["type"]));
    assert_eq!(version["subresources"]["status"], json!({}));
}

#[test]
fn optional_fields_are_not_nullable_unless_declared() {
    let sg = crd("securitygroups.openstack.k-orc.cloud");
    let policy = &sg["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        ["managementPolicy"];
    assert_eq!(policy["enum"], json!(["managed", "unmanaged"]));
    assert_eq!(policy["default"], "managed");
    assert!(policy.get("nullable").is_none(), "{policy}");
}

#[test]
fn the_status_works_through_the_derive() {
    let mut sg = securitygroup::v1alpha1::SecurityGroup::new(
        "web",
        serde_json::from_value(json!({
            "cloudCredentialsRef": {"secretName": "openstack", "cloudName": "prod"}
        }))
        .expect("a minimal spec"),
    );
    assert_eq!(
        securitygroup::v1alpha1::SecurityGroup::field_owner(),
        "openstack.k-orc.cloud/securitygroup-controller"
    );
    let status = sg.status_or_insert();
    let outcome = status.set_available(Condition::new(
        "",
        ConditionStatus::True,
        securitygroup::v1alpha1::SecurityGroupReason::Success,
    ));
    assert_eq!(outcome, SetOutcome::Transitioned);
    assert!(status.is_available());
    assert!(!status.is_sub_resources_ready());
    assert_eq!(
        securitygroup::v1alpha1::SecurityGroupStatus::CONDITION_TYPES,
        &["Available", "Progressing", "SubResourcesReady"]
    );
    let body = serde_json::to_value(sg.status_apply()).expect("serializes");
    assert_eq!(body["apiVersion"], "openstack.k-orc.cloud/v1alpha1");
    assert_eq!(body["status"]["conditions"][0]["type"], "Available");
}

#[test]
fn reasons_have_an_open_variant() {
    use resourcegroup::v1api20200601::ResourceGroupReason;
    assert_eq!(
        ResourceGroupReason::from("Succeeded"),
        ResourceGroupReason::Succeeded
    );
    assert_eq!(
        ResourceGroupReason::WaitingForOwner.as_str(),
        "WaitingForOwner"
    );
    let outside = ResourceGroupReason::from("AuthorizationFailed2");
    assert_eq!(
        outside,
        ResourceGroupReason::Other("AuthorizationFailed2".into())
    );
    assert_eq!(String::from(outside), "AuthorizationFailed2");
}

#[test]
fn both_database_versions_are_types() {
    let v1 = database::v1::DatabaseStatus::CONDITION_TYPES;
    let v1beta1 = database::v1beta1::DatabaseStatus::CONDITION_TYPES;
    assert_eq!(v1, v1beta1);
    assert_eq!(&v1[..3], &["Ready", "Reconciling", "Stalled"]);
}

#[test]
fn kondition_crd_writes_what_crds_returns() {
    let schemas = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    let files = kondition_gen::inputs::schema_files(&[schemas]).expect("schemas/");
    let model = kondition_gen::load::load(
        &files,
        &kondition_gen::profile::Profiles::embedded(),
        &Default::default(),
    )
    .expect("loads");
    let stream = kondition_gen::emit::crd_stream(&model);
    let manifests: Vec<Value> = kondition_gen::source::yaml::parse(&stream)
        .expect("the manifests are YAML")
        .iter()
        .map(kondition_gen::source::yaml::Node::to_json)
        .collect();
    let generated: Vec<Value> = crds()
        .iter()
        .map(|c| serde_json::to_value(c).expect("serializes"))
        .collect();
    assert_eq!(manifests.len(), generated.len());
    for (manifest, crd) in manifests.iter().zip(&generated) {
        assert!(
            kondition::wire::json::same(manifest, crd),
            "{manifest:#}\n{crd:#}"
        );
    }
}

#[test]
fn the_kinds_own_crd_is_its_version_of_crds() {
    use kube::core::crd::v1::CustomResourceExt;
    let database = crd("databases.db.example.com");
    let v1 = serde_json::to_value(database::v1::Database::crd()).expect("serializes");
    assert_eq!(v1["spec"]["versions"].as_array().map(Vec::len), Some(1));
    assert_eq!(v1["spec"]["versions"][0], database["spec"]["versions"][1]);
    assert_eq!(v1["spec"]["names"], database["spec"]["names"]);
}

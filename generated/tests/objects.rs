//! Objects come back as they went in: for every kind and version of schemas/, a full, a
//! minimal and a "nulls" object synthesized from the kind's CRD (`kondition_testkit::objects`) are read into the
//! generated type and written back; the result must equal the object, up to the documented
//! normalizations of reused k8s-openapi types (`Time` in whole seconds, UTC; an absent key
//! selector `name` as `""`; a `Quantity` number as a string), and nothing else.

use std::path::PathBuf;

use kondition_gen::model::Model;
use kondition_generated::{
    cluster, composite_resource_definition, crds, database, prometheus, promotionstrategy,
    resourcegroup, router, securitygroup,
};
use kondition_testkit::objects::{self, Sample};
use serde_json::Value;

type RoundTrip = fn(Value) -> Result<Value, serde_json::Error>;

fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned>(
    object: Value,
) -> Result<Value, serde_json::Error> {
    serde_json::to_value(serde_json::from_value::<T>(object)?)
}

/// Every kind and version of schemas/ with its generated type.
fn kinds() -> Vec<(&'static str, &'static str, RoundTrip)> {
    vec![
        (
            "Cluster",
            "v1beta1",
            round_trip::<cluster::v1beta1::Cluster>,
        ),
        (
            "Cluster",
            "v1beta2",
            round_trip::<cluster::v1beta2::Cluster>,
        ),
        (
            "CompositeResourceDefinition",
            "v1",
            round_trip::<composite_resource_definition::v1::CompositeResourceDefinition>,
        ),
        (
            "CompositeResourceDefinition",
            "v2",
            round_trip::<composite_resource_definition::v2::CompositeResourceDefinition>,
        ),
        ("Prometheus", "v1", round_trip::<prometheus::v1::Prometheus>),
        (
            "Database",
            "v1beta1",
            round_trip::<database::v1beta1::Database>,
        ),
        ("Database", "v1", round_trip::<database::v1::Database>),
        (
            "PromotionStrategy",
            "v1alpha1",
            round_trip::<promotionstrategy::v1alpha1::PromotionStrategy>,
        ),
        (
            "ChangeTransferPolicy",
            "v1alpha1",
            round_trip::<promotionstrategy::v1alpha1::ChangeTransferPolicy>,
        ),
        (
            "ResourceGroup",
            "v1api20200601",
            round_trip::<resourcegroup::v1api20200601::ResourceGroup>,
        ),
        ("Router", "v1alpha1", round_trip::<router::v1alpha1::Router>),
        (
            "SecurityGroup",
            "v1alpha1",
            round_trip::<securitygroup::v1alpha1::SecurityGroup>,
        ),
    ]
}

fn model() -> Model {
    let schemas = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas"));
    let files = kondition_gen::inputs::schema_files(&[schemas]).expect("schemas/");
    kondition_gen::load::load(
        &files,
        &kondition_gen::profile::Profiles::embedded(),
        &Default::default(),
    )
    .expect("loads")
}

#[test]
fn every_object_of_every_kind_comes_back_as_it_went_in() {
    let model = model();
    let kinds = kinds();
    let mut checked = 0;
    for crd in crds() {
        let crd = serde_json::to_value(&crd).expect("CRD as JSON");
        let kind_name = crd["spec"]["names"]["kind"].as_str().expect("kind");
        let (file, kind) = model
            .files
            .iter()
            .find_map(|f| f.kinds.iter().find(|k| k.kind == kind_name).map(|k| (f, k)))
            .expect("the kind in the model");
        for version in &kind.versions {
            let (_, _, back) = kinds
                .iter()
                .find(|(k, v, _)| *k == kind_name && *v == version.name)
                .unwrap_or_else(|| panic!("{kind_name} {}: add it to kinds()", version.name));
            for sample in Sample::ALL {
                let object = objects::object(&crd, &version.name, sample).expect("an object");
                let written = back(object.clone()).unwrap_or_else(|e| {
                    panic!("{kind_name} {} {}: {e}", version.name, sample.name())
                });
                let mut expected = object;
                objects::normalize(&mut expected, kind, version, &file.types);
                assert_eq!(
                    kondition::wire::json::first_difference(&expected, &written),
                    None,
                    "{kind_name} {} {}:\n{expected:#}\n{written:#}",
                    version.name,
                    sample.name()
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, Sample::ALL.len() * kinds.len());
}

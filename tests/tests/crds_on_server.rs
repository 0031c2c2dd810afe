//! Every CRD kondition writes is one the real API server takes: created there (the launcher
//! of `kondition_tests::cluster`) and Established. The CRDs of `generated/` (`crds()`), the
//! CRDs `kondition crd` writes for every file of `corpus/` (the same emission, through the
//! library), and the derive's kinds of `tests/src/kinds.rs`. Then objects of every served
//! version of every kind of `generated/`, synthesized from the CRD's schema
//! (`kondition_gen::objects`: every field set, only the required ones, explicit nulls), go
//! through the server: created, read back, read into the generated type and written back with
//! an update, which the server must find changes nothing (the same resourceVersion).
//!
//! The objects of the whole corpus go the same way in `fidelity/` (a step of its own in CI:
//! compiling the corpus' generated code takes minutes).

use std::path::{Path, PathBuf};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kondition_gen::objects::{self, Sample};
use kondition_tests::cluster::{TestEnv, create_namespace, install};
use kube::api::{ApiResource, DynamicObject, PostParams};
use kube::core::GroupVersionKind;
use kube::{Api, CustomResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The corpus' CRD files (`.yaml`), in path order.
fn corpus_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    kondition_gen::inputs::schema_files(std::slice::from_ref(&root)).expect("the corpus")
}

/// The CRDs `kondition crd` writes for `path`.
fn crds_of(path: &Path) -> Vec<CustomResourceDefinition> {
    let model = kondition_gen::load(
        &[path.to_path_buf()],
        &kondition_gen::profile::Profiles::embedded(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    model
        .files
        .iter()
        .flat_map(|file| {
            file.kinds
                .iter()
                .map(|kind| kondition_gen::emit::crd::crd(kind, &file.types))
        })
        .map(|crd| serde_json::from_value(crd).expect("a CRD"))
        .collect()
}

#[tokio::test]
async fn every_crd_kondition_writes_is_established() {
    let env = TestEnv::new([]).await;
    let mut names = Vec::new();
    // One after another: the corpus and generated/ share some CRDs (the same name, other
    // content), so each set is installed whole and Established before the next replaces it.
    let generated = kondition_generated::crds();
    names.extend(generated.iter().filter_map(|c| c.metadata.name.clone()));
    install(&env.admin, generated).await;
    let files = corpus_files();
    assert_eq!(files.len(), 27, "the corpus' files");
    for file in &files {
        let crds = crds_of(file);
        assert!(!crds.is_empty(), "{}", file.display());
        names.extend(crds.iter().filter_map(|c| c.metadata.name.clone()));
        install(&env.admin, crds).await;
    }
    use kondition_tests::kinds::*;
    let derived = [
        StandardWidget::crd(),
        AsoWidget::crd(),
        OrcWidget::crd(),
        KstatusWidget::crd(),
        StatusOnlyWidget::crd(),
        Widget::crd(),
    ];
    names.extend(derived.iter().filter_map(|c| c.metadata.name.clone()));
    install(&env.admin, derived).await;
    // install() has waited for each to be Established: 56 CRDs in all, the 9 of generated/
    // and the corpus' (some of them the same CRDs), and 6 derived.
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 56, "{names:#?}");
}

/// What became of the objects of one kind version.
#[derive(Debug, Default)]
struct Outcome {
    /// Created, read into the type, written back unchanged.
    unchanged: usize,
    /// Of those, objects whose first untyped write-back the server itself changed (the
    /// storage version's defaults, for an object of another version).
    settled_by_the_server: usize,
    /// Refused by the server at creation, with its reason (the synthesized values break a
    /// rule of the schema the synthesizer does not honour).
    refused: Vec<String>,
}

/// Each sample object of `version` of the CRD: created, written back once as read, read
/// into `T` and updated with what `T` wrote. Panics when the type changed the object on the
/// way (exactly: `2.0` for `2` is a change) or the server saw a change.
async fn round_trip<T: Serialize + DeserializeOwned>(
    env: &TestEnv,
    crd: &Value,
    version: &str,
) -> Outcome {
    let kind = crd["spec"]["names"]["kind"].as_str().expect("a kind");
    let group = crd["spec"]["group"].as_str().expect("a group");
    let plural = crd["spec"]["names"]["plural"].as_str().expect("a plural");
    let resource =
        ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, kind), plural);
    let namespaced = crd["spec"]["scope"] == "Namespaced";
    let storage = crd["spec"]["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|v| v["name"] == version && v["storage"] == true);
    let namespace = create_namespace(&env.admin, &format!("{kind}-{version}")).await;
    let api: Api<DynamicObject> = if namespaced {
        Api::namespaced_with(env.admin.clone(), &namespace, &resource)
    } else {
        Api::all_with(env.admin.clone(), &resource)
    };
    let mut outcome = Outcome::default();
    for sample in Sample::ALL {
        let Some(mut object) = objects::object(crd, version, sample) else {
            continue;
        };
        let name = format!("{}-{}", namespace, sample.name()).to_lowercase();
        object["metadata"] = serde_json::json!({"name": name});
        let object: DynamicObject = serde_json::from_value(object).expect("an object");
        match api.create(&PostParams::default(), &object).await {
            Ok(_) => {}
            // Refused as invalid: the synthesized values break a format, a pattern or a CEL
            // rule of the schema (the synthesizer writes "text" for every string).
            Err(kube::Error::Api(status)) if status.code == 422 => {
                let first = status
                    .details
                    .and_then(|d| d.causes.into_iter().next())
                    .map(|c| format!("{}: {}", c.field, c.reason))
                    .unwrap_or(status.message);
                outcome.refused.push(format!("{sample:?} ({first})"));
                continue;
            }
            Err(error) => panic!("{kind} {version} {sample:?} not created: {error}"),
        }
        // The server's own first write: an object created at a version that is not the
        // storage version gets the storage version's defaults when it is first written back
        // (conversion None, then defaulting of the stored version), whatever wrote it. So the
        // object as read is written back once untyped, and its version moving there is the
        // server's doing, counted apart.
        let raw = api.get(&name).await.expect("read back");
        let before = raw.metadata.resource_version.clone();
        let raw = api
            .replace(&name, &PostParams::default(), &raw)
            .await
            .unwrap_or_else(|e| panic!("{kind} {version} {sample:?} written back untyped: {e}"));
        if raw.metadata.resource_version != before {
            outcome.settled_by_the_server += 1;
        }
        let read = serde_json::to_value(api.get(&name).await.expect("read back")).expect("JSON");
        let typed: T = serde_json::from_value(read.clone())
            .unwrap_or_else(|e| panic!("{kind} {version} {sample:?} does not read: {e}"));
        let written = serde_json::to_value(&typed).expect("JSON");
        assert_eq!(
            read, written,
            "{kind} {version} {sample:?} changed in the type"
        );
        let back: DynamicObject = serde_json::from_value(written).expect("an object");
        let replaced = api
            .replace(&name, &PostParams::default(), &back)
            .await
            .unwrap_or_else(|e| panic!("{kind} {version} {sample:?} written back: {e}"));
        if storage {
            assert_eq!(
                replaced.metadata.resource_version, back.metadata.resource_version,
                "{kind} {version} {sample:?}: the server saw a change"
            );
        } else {
            // At another version than the storage one the server writes every update, typed
            // or not, and counts a new generation: with conversion None the stored object
            // takes the storage version's defaults, which are pruned again on the way out
            // (Database's v1beta1 and v1 differ). What it serves must be what it served.
            let again =
                serde_json::to_value(api.get(&name).await.expect("read again")).expect("JSON");
            assert_eq!(
                without_version(again),
                without_version(read),
                "{kind} {version} {sample:?}: the server holds another object"
            );
        }
        outcome.unchanged += 1;
    }
    outcome
}

/// `object` without what every write at a version other than the storage one changes: its
/// resourceVersion, generation and the time of each managedFields entry.
fn without_version(mut object: Value) -> Value {
    object["metadata"]["resourceVersion"] = Value::Null;
    object["metadata"]["generation"] = Value::Null;
    for entry in object["metadata"]["managedFields"]
        .as_array_mut()
        .into_iter()
        .flatten()
    {
        entry["time"] = Value::Null;
    }
    object
}

#[tokio::test]
async fn objects_of_generated_kinds_come_back_from_the_server_unchanged() {
    use kondition_generated as g;
    let env = TestEnv::new(g::crds()).await;
    let crds: Vec<Value> = g::crds()
        .iter()
        .map(|c| serde_json::to_value(c).expect("JSON"))
        .collect();
    let crd = |kind: &str| {
        crds.iter()
            .find(|c| c["spec"]["names"]["kind"] == kind)
            .unwrap_or_else(|| panic!("no CRD of {kind}"))
            .clone()
    };
    macro_rules! each {
        ($(($kind:literal, $version:literal, $type:ty)),* $(,)?) => {
            vec![$((
                concat!($kind, " ", $version),
                round_trip::<$type>(&env, &crd($kind), $version).await,
            )),*]
        };
    }
    let outcomes = each![
        ("Cluster", "v1beta1", g::cluster::v1beta1::Cluster),
        ("Cluster", "v1beta2", g::cluster::v1beta2::Cluster),
        (
            "CompositeResourceDefinition",
            "v1",
            g::composite_resource_definition::v1::CompositeResourceDefinition
        ),
        (
            "CompositeResourceDefinition",
            "v2",
            g::composite_resource_definition::v2::CompositeResourceDefinition
        ),
        ("Prometheus", "v1", g::prometheus::v1::Prometheus),
        ("Database", "v1beta1", g::database::v1beta1::Database),
        ("Database", "v1", g::database::v1::Database),
        (
            "PromotionStrategy",
            "v1alpha1",
            g::promotionstrategy::v1alpha1::PromotionStrategy
        ),
        (
            "ChangeTransferPolicy",
            "v1alpha1",
            g::promotionstrategy::v1alpha1::ChangeTransferPolicy
        ),
        (
            "ResourceGroup",
            "v1api20200601",
            g::resourcegroup::v1api20200601::ResourceGroup
        ),
        ("Router", "v1alpha1", g::router::v1alpha1::Router),
        (
            "SecurityGroup",
            "v1alpha1",
            g::securitygroup::v1alpha1::SecurityGroup
        ),
    ];
    let mut report = String::new();
    for (what, outcome) in &outcomes {
        report.push_str(&format!(
            "{what}: {} unchanged ({} settled by the server first), {} refused {:?}\n",
            outcome.unchanged,
            outcome.settled_by_the_server,
            outcome.refused.len(),
            outcome.refused
        ));
    }
    println!("{report}");
    // Every object the server took came back through the types unchanged. The others the
    // server refused as invalid before any type saw them: the synthesizer writes "text" for
    // every string, whatever the schema's format (cidr, ipv4, uuid, email), pattern or CEL
    // rule wants (`cargo test -p kondition-tests --test crds_on_server -- --nocapture` lists
    // them). The whole corpus goes the same way in fidelity/.
    let unchanged: usize = outcomes.iter().map(|(_, o)| o.unchanged).sum();
    let refused: usize = outcomes.iter().map(|(_, o)| o.refused.len()).sum();
    assert_eq!((unchanged, refused), (12, 24), "{report}");
}

//! The corpus' objects through the real Kubernetes API server: for every kind at every
//! version of every corpus file, the full, minimal and "nulls" objects the generator
//! synthesizes (`kondition_testkit::objects`) are created on the test API server (the launcher of
//! `tests/launcher/`, through `kondition_tests::cluster`), their status through `/status`;
//! what the server serves is read into the generated type, written back as the type writes
//! it, and sent back with an update, which must change nothing the server stores (the same
//! resourceVersion). Exit 1 unless every object does so.
//!
//! The CRDs installed are the generated `crds()` (what an operator installs), with two
//! changes, both about whether the server takes an object, not what it makes of one:
//!
//! - the keywords that only accept or refuse a value are left out (CEL rules, patterns,
//!   formats, enums, bounds, lengths, counts, `oneOf`/`anyOf`/`allOf`/`not`): the synthesizer
//!   writes "text" for every string and 7 for every integer, which real schemas refuse, and
//!   those keywords never change what the server stores. Defaults, nullability, pruning,
//!   unknown fields kept, int-or-string, embedded resources, list types and `required` stay,
//!   and the server applies them;
//! - the conversion strategy is `None`: the corpus' webhooks do not run here. An object read
//!   at another version than it was written is then the same fields under another
//!   apiVersion, pruned and defaulted by that version's schema.
//!
//! The CRDs as written, validation included, are Established on the same server in
//! `tests/tests/crds_on_server.rs`.
//!
//! What an update may change, and is counted apart:
//!
//! - the documented normalizations of reused k8s-openapi types (`objects::normalize`): the
//!   type writes them, so the server stores them, and the next update changes nothing;
//! - an update at a version whose schema lacks a field the storage version defaults: the
//!   server stores the object without it, then defaults it again, on every update, whatever
//!   the update holds. Such a version is recognised by sending back what the server served,
//!   untouched: if that writes too, the write is the server's.

use std::path::Path;
use std::process::ExitCode;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kondition_fidelity::{CORPUS, CorpusFile, FILES, KindVersion};
use kondition_testkit::objects::{self, Sample};
use kondition_tests::cluster::{cluster, create_namespace, install};
use kube::api::{DeleteParams, GetParams, PostParams};
use kube::runtime::wait::{await_condition, conditions};
use kube::{Api, Client, ResourceExt};
use serde_json::{Value as Json, json};

/// The keywords of a structural schema that only decide whether a value is valid.
const VALIDATION_ONLY: &[&str] = &[
    "x-kubernetes-validations",
    "pattern",
    "format",
    "enum",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
];

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let client = cluster().client().await;
    let namespace = create_namespace(&client, "corpus").await;
    println!(
        "| file | kind versions | objects | came back and stayed | normalized by a reused type | written by the server on every update | served against its schema, refused |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let mut total = Counts::default();
    let mut failures = Vec::new();
    for file in FILES {
        let counts = match through_server(&client, &namespace, file, &mut failures).await {
            Ok(counts) => counts,
            Err(error) => {
                eprintln!("{}: {error}", file.path);
                return ExitCode::FAILURE;
            }
        };
        println!("| `{}` | {} |", file.path, counts.cells());
        total.add(&counts);
    }
    println!("| **all** | {} |", total.cells());
    for failure in &failures {
        eprintln!("{failure}");
    }
    println!(
        "\nobjects through the server and the generated types as expected: {} / {} ({} \
         unchanged, {} normalized by a reused type, {} of a version the server writes on every \
         update, {} served against their schema and refused)",
        total.objects - failures.len(),
        total.objects,
        total.unchanged,
        total.normalized,
        total.written_by_server,
        total.served_invalid
    );
    if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// What became of one file's objects.
#[derive(Default)]
struct Counts {
    /// Kind versions the file defines with a schema and served.
    versions: usize,
    /// Objects sent.
    objects: usize,
    /// Objects that came back from the type as the server served them, and whose update
    /// changed nothing.
    unchanged: usize,
    /// Objects the type wrote with a documented normalization (the update stored it).
    normalized: usize,
    /// Objects of a version the server writes on every update.
    written_by_server: usize,
    /// Of `unchanged`, those whose first update (the server's own object) stored defaults.
    defaults_stored: usize,
    /// Objects served against their version's schema, which the type refused.
    served_invalid: usize,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.versions += other.versions;
        self.objects += other.objects;
        self.unchanged += other.unchanged;
        self.normalized += other.normalized;
        self.written_by_server += other.written_by_server;
        self.defaults_stored += other.defaults_stored;
        self.served_invalid += other.served_invalid;
    }

    fn cells(&self) -> String {
        format!(
            "{} | {} | {} ({} once defaults were stored) | {} | {} | {}",
            self.versions,
            self.objects,
            self.unchanged,
            self.defaults_stored,
            self.normalized,
            self.written_by_server,
            self.served_invalid
        )
    }
}

/// Installs the CRDs of `file` and sends each object of each kind version through the server
/// and the generated type; each object that goes otherwise is added to `failures`. An error
/// is a problem of the run itself (a CRD the server refuses, a corpus file that does not
/// read).
async fn through_server(
    client: &Client,
    namespace: &str,
    file: &CorpusFile,
    failures: &mut Vec<String>,
) -> Result<Counts, String> {
    let path = Path::new(CORPUS).join(file.path);
    let model = kondition_gen::load::load(
        std::slice::from_ref(&path),
        &kondition_gen::profile::Profiles::embedded(), &Default::default())
    .map_err(|e| e.to_string())?;
    let crds: Vec<Json> = (file.crds)()
        .iter()
        .map(serde_json::to_value)
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let relaxed: Vec<CustomResourceDefinition> = crds
        .iter()
        .map(|crd| serde_json::from_value(relaxed(crd)))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("a relaxed CRD does not read: {e}"))?;
    for crd in &relaxed {
        make_way(client, crd).await?;
    }
    install(client, relaxed).await;

    let mut counts = Counts::default();
    for entry in file.kinds {
        let crd = crds
            .iter()
            .find(|c| c["spec"]["names"]["kind"] == entry.kind)
            .ok_or_else(|| format!("no CRD of kind {}", entry.kind))?;
        let Some(spec) = version_spec(crd, entry.version) else {
            return Err(format!("no version {} of {}", entry.version, entry.kind));
        };
        if spec["served"] == false {
            continue;
        }
        let (schema_file, kind) = model
            .files
            .iter()
            .find_map(|f| {
                f.kinds
                    .iter()
                    .find(|k| k.kind == entry.kind)
                    .map(|k| (f, k))
            })
            .ok_or_else(|| format!("no kind {} in the model", entry.kind))?;
        let version = kind
            .versions
            .iter()
            .find(|v| v.name == entry.version)
            .ok_or_else(|| format!("no version {} of {} in the model", entry.version, kind.kind))?;
        counts.versions += 1;
        let subject = Subject {
            client,
            entry,
            path: collection_path(crd, entry.version, namespace),
            status_subresource: spec["subresources"]["status"].is_object(),
            schema: &spec["schema"]["openAPIV3Schema"],
        };
        for sample in Sample::ALL {
            let Some(object) = objects::object(crd, entry.version, sample) else {
                continue;
            };
            counts.objects += 1;
            let normalize = |object: &mut Json| {
                objects::normalize(object, kind, version, &schema_file.types);
            };
            match subject.round_trip(object, sample, normalize).await {
                Ok(Outcome::Unchanged) => counts.unchanged += 1,
                Ok(Outcome::DefaultsStored) => {
                    counts.unchanged += 1;
                    counts.defaults_stored += 1;
                }
                Ok(Outcome::Normalized) => counts.normalized += 1,
                Ok(Outcome::WrittenByServer) => counts.written_by_server += 1,
                Ok(Outcome::ServedInvalid) => counts.served_invalid += 1,
                Err(problem) => failures.push(format!(
                    "{}: {} {} {}: {problem}",
                    file.path,
                    entry.kind,
                    entry.version,
                    sample.name()
                )),
            }
        }
    }
    Ok(counts)
}

/// `crd` with the keywords of [`VALIDATION_ONLY`] left out of every version's schema and no
/// conversion webhook (see the module's doc).
fn relaxed(crd: &Json) -> Json {
    let mut crd = crd.clone();
    if let Some(versions) = crd["spec"]["versions"].as_array_mut() {
        for version in versions {
            if let Some(schema) = version
                .get_mut("schema")
                .and_then(|s| s.get_mut("openAPIV3Schema"))
            {
                relax(schema);
            }
        }
    }
    crd["spec"]["conversion"] = json!({"strategy": "None"});
    crd
}

/// Leaves the validation-only keywords out of `schema` and every schema under it: the
/// schemas of `properties`, `items` and `additionalProperties` (a property named `pattern`
/// is a property, not a keyword).
fn relax(schema: &mut Json) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    for keyword in VALIDATION_ONLY {
        map.remove(*keyword);
    }
    if let Some(properties) = map.get_mut("properties").and_then(Json::as_object_mut) {
        properties.values_mut().for_each(relax);
    }
    for key in ["items", "additionalProperties"] {
        if let Some(nested) = map.get_mut(key) {
            relax(nested);
        }
    }
}

/// Deletes the CRD of `crd`'s name if an earlier file installed one (two corpus files define
/// some CRDs, with other content), and waits until it is gone with its objects: a CRD changed
/// in place is Established already, which says nothing of when its new schema is served.
async fn make_way(client: &Client, crd: &CustomResourceDefinition) -> Result<(), String> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let name = crd.name_any();
    let Some(existing) = api.get_opt(&name).await.map_err(|e| e.to_string())? else {
        return Ok(());
    };
    let uid = existing.uid().unwrap_or_default();
    api.delete(&name, &DeleteParams::default())
        .await
        .map_err(|e| format!("deleting CRD {name}: {e}"))?;
    await_condition(api, &name, conditions::is_deleted(&uid))
        .await
        .map_err(|e| format!("waiting for CRD {name} to go: {e}"))?;
    Ok(())
}

/// The entry of `version` in `crd`'s versions.
fn version_spec<'a>(crd: &'a Json, version: &str) -> Option<&'a Json> {
    crd["spec"]["versions"]
        .as_array()?
        .iter()
        .find(|v| v["name"] == version)
}

/// The URL path of the objects of `version` of `crd` (in `namespace` if it is namespaced).
fn collection_path(crd: &Json, version: &str, namespace: &str) -> String {
    let spec = &crd["spec"];
    let (group, plural) = (
        spec["group"].as_str().unwrap_or_default(),
        spec["names"]["plural"].as_str().unwrap_or_default(),
    );
    if spec["scope"] == "Namespaced" {
        format!("/apis/{group}/{version}/namespaces/{namespace}/{plural}")
    } else {
        format!("/apis/{group}/{version}/{plural}")
    }
}

/// How an object went through.
enum Outcome {
    /// The type wrote what the server served; the update changed nothing.
    Unchanged,
    /// As [`Outcome::Unchanged`], once the first update had stored the defaults the server
    /// applies on read (the server's own object, sent back untouched).
    DefaultsStored,
    /// The type wrote a documented normalization of what the server served; the update
    /// stored it and the next one changed nothing.
    Normalized,
    /// The type wrote what the server served; the server writes every update at this version
    /// whatever it holds (see the module's doc).
    WrittenByServer,
    /// The server served an object its version's own schema refuses (a required field the
    /// storage version pruned; the conversion webhook that would restore it does not run
    /// here), and the type refused it for that field.
    ServedInvalid,
}

/// One kind version on the server.
struct Subject<'a> {
    client: &'a Client,
    entry: &'a KindVersion,
    /// The URL path of the kind version's objects.
    path: String,
    /// Whether the status is written through `/status` (and left out of a create).
    status_subresource: bool,
    /// The version's schema.
    schema: &'a Json,
}

impl Subject<'_> {
    /// Creates `object` (a `sample`), reads it back, through the type and back with an
    /// update; the first step that goes otherwise than the module's doc says is the error.
    async fn round_trip(
        &self,
        mut object: Json,
        sample: Sample,
        normalize: impl Fn(&mut Json),
    ) -> Result<Outcome, String> {
        let name = format!("{}-{}", self.entry.version, sample.name());
        object["metadata"] = json!({ "name": name });
        let status = if self.status_subresource {
            object.as_object_mut().and_then(|o| o.remove("status"))
        } else {
            None
        };
        let request = kube::core::Request::new(&self.path);
        let created = self
            .send(request.create(&PostParams::default(), body(&object)?))
            .await
            .map_err(|e| format!("not created: {e}"))?;
        if let Some(status) = status {
            let mut with = created;
            with["status"] = status;
            self.send(request.replace_subresource(
                "status",
                &name,
                &PostParams::default(),
                body(&with)?,
            ))
            .await
            .map_err(|e| format!("status not taken: {e}"))?;
        }

        // The server defaults on read what it stored without (a status default, for one):
        // the first update of what it served stores those defaults, as any client's
        // read-modify-write does. That update is the server's own object, untouched; then
        // one more shows whether the server writes every update at this version.
        let first = self.get(&name).await?;
        if let Some(path) = objects::missing_required(self.schema, &first) {
            // Served against its version's own schema (see `objects::missing_required`):
            // the server refuses it back too, and the type must refuse it for that field.
            let field = path.rsplit('.').next().unwrap_or_default();
            return match (self.entry.round_trip)(first) {
                Err(error)
                    if error
                        .to_string()
                        .contains(&format!("missing field `{field}`")) =>
                {
                    Ok(Outcome::ServedInvalid)
                }
                Err(error) => Err(format!(
                    "served without `{path}`, refused otherwise: {error}"
                )),
                Ok(_) => Err(format!("served without `{path}`, which the type let pass")),
            };
        }
        let settled = self.update(&name, &first).await?;
        let served = self.get(&name).await?;
        let again = self.update(&name, &served).await?;
        let server_writes = version_of(&again) != version_of(&served);
        let served = if server_writes {
            self.get(&name).await?
        } else {
            served
        };
        let defaults_stored = version_of(&settled) != version_of(&first);

        let written = (self.entry.round_trip)(served.clone())
            .map_err(|e| format!("the type does not read what the server served: {e}: {served}"))?;
        let mut expected = served.clone();
        normalize(&mut expected);
        if let Some(at) = kondition::wire::json::first_difference(&expected, &written) {
            return Err(format!(
                "the type wrote other than it read at `{at}`: served {served}, written {written}"
            ));
        }
        let normalized = kondition::wire::json::first_difference(&served, &expected).is_some();
        if server_writes {
            return Ok(Outcome::WrittenByServer);
        }

        let after = self.update(&name, &written).await?;
        if !normalized {
            return if version_of(&after) == version_of(&served) {
                Ok(if defaults_stored {
                    Outcome::DefaultsStored
                } else {
                    Outcome::Unchanged
                })
            } else {
                Err(format!(
                    "the update with what the type wrote was a change: stored {served}, then {after}"
                ))
            };
        }
        // The normalization was stored; through the type once more, it changes nothing.
        if version_of(&after) == version_of(&served) {
            return Err("a normalized object was not stored".to_owned());
        }
        let stored = self.get(&name).await?;
        let written = (self.entry.round_trip)(stored.clone())
            .map_err(|e| format!("the type does not read the normalized object: {e}"))?;
        if let Some(at) = kondition::wire::json::first_difference(&stored, &written) {
            return Err(format!(
                "the normalized object changes again through the type at `{at}`"
            ));
        }
        let last = self.update(&name, &written).await?;
        if version_of(&last) != version_of(&stored) {
            return Err("the normalized object is written again on every update".to_owned());
        }
        Ok(Outcome::Normalized)
    }

    /// The object `name` as the server serves it.
    async fn get(&self, name: &str) -> Result<Json, String> {
        let request = kube::core::Request::new(&self.path);
        self.send(request.get(name, &GetParams::default()))
            .await
            .map_err(|e| format!("not read back: {e}"))
    }

    /// Updates `name` with `object` (and its status through `/status`); returns what the
    /// server answered last.
    async fn update(&self, name: &str, object: &Json) -> Result<Json, String> {
        let request = kube::core::Request::new(&self.path);
        let answer = self
            .send(request.replace(name, &PostParams::default(), body(object)?))
            .await
            .map_err(|e| format!("update refused: {e}"))?;
        if !self.status_subresource {
            return Ok(answer);
        }
        // The status endpoint takes the status of the body; the rest must be the object as
        // stored now, resourceVersion included.
        let mut with = answer;
        match (object.get("status"), with.as_object_mut()) {
            (Some(status), Some(map)) => map.insert("status".to_owned(), status.clone()),
            (None, Some(map)) => map.remove("status"),
            (_, None) => return Err(format!("the server answered an update with {with}")),
        };
        self.send(request.replace_subresource("status", name, &PostParams::default(), body(&with)?))
            .await
            .map_err(|e| format!("status update refused: {e}"))
    }

    async fn send(
        &self,
        request: Result<http::Request<Vec<u8>>, kube::core::request::Error>,
    ) -> Result<Json, String> {
        let request = request.map_err(|e| e.to_string())?;
        self.client
            .request::<Json>(request)
            .await
            .map_err(|e| refusal(&e))
    }
}

/// `object` as a request body.
fn body(object: &Json) -> Result<Vec<u8>, String> {
    serde_json::to_vec(object).map_err(|e| e.to_string())
}

/// The resourceVersion of `object`.
fn version_of(object: &Json) -> &Json {
    &object["metadata"]["resourceVersion"]
}

/// The server's words for a refusal, with the causes it lists.
fn refusal(error: &kube::Error) -> String {
    match error {
        kube::Error::Api(status) => {
            let causes: Vec<String> = status
                .details
                .iter()
                .flat_map(|d| &d.causes)
                .map(|c| format!("{}: {}", c.field, c.message))
                .collect();
            format!("{} {}: {}", status.code, status.message, causes.join("; "))
        }
        other => other.to_string(),
    }
}

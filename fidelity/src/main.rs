//! The corpus round trip: every CRD file of the corpus was generated into Rust by the build
//! script and compiled into this binary; here each file's `crds()` is compared, node by node,
//! with the CRDs the file holds. Exit 1 unless every one is reproduced exactly.
//!
//! Then the objects: for each kind at each version, a full, a minimal and a "nulls" object
//! synthesized from the CRD's schema (`kondition_testkit::objects`: unknown keys wherever the
//! schema preserves them, explicit nulls in nullable fields) are read into the generated type and written
//! back, and must come back identical. Exit 1 unless every one does.
//!
//! `--other DIR` also scores another tool's CRDs for the same files (`DIR/<file>.json`, a JSON
//! array of CRDs, as `bench/kopium_roundtrip.sh` writes them), counting only the versions it
//! emitted, for FIDELITY.md.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kondition_fidelity::{CORPUS, CorpusFile, FILES};
use kondition_testkit::fidelity::{self, CrdReport};
use kondition_testkit::objects::{self, Sample};
use serde_json::Value as Json;

fn main() -> ExitCode {
    let corpus = CORPUS;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let other = args
        .iter()
        .position(|a| a == "--other")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from);
    println!(
        "| file | CRDs | versions | kondition: nodes equal / total | exact |{}",
        if other.is_some() {
            " other: versions | other: nodes equal / total |"
        } else {
            ""
        }
    );
    println!(
        "|---|---:|---:|---:|---|{}",
        if other.is_some() { "---:|---:|" } else { "" }
    );
    let (mut all_equal, mut all_nodes) = (0, 0);
    let (mut other_equal, mut other_nodes) = (0, 0);
    let mut failed = false;
    let mut object_rows = Vec::new();
    for file in FILES {
        let inputs = match read_crds(&Path::new(corpus).join(file.path)) {
            Ok(inputs) => inputs,
            Err(error) => {
                eprintln!("{}: {error}", file.path);
                return ExitCode::FAILURE;
            }
        };
        let outputs: Vec<Json> = (file.crds)()
            .iter()
            .map(|crd| serde_json::to_value(crd).unwrap_or_default())
            .collect();
        let reports: Vec<CrdReport> = inputs
            .iter()
            .map(|input| fidelity::compare(input, find(&outputs, input), None))
            .collect();
        let equal: usize = reports.iter().map(CrdReport::equal).sum();
        let nodes: usize = reports.iter().map(CrdReport::nodes).sum();
        let versions: usize = reports.iter().map(|r| r.versions.len()).sum();
        let exact = reports.iter().all(CrdReport::exact) && outputs.len() == inputs.len();
        failed |= !exact;
        all_equal += equal;
        all_nodes += nodes;
        let mut row = format!(
            "| `{}` | {} | {versions} | {equal} / {nodes} ({}) | {} |",
            file.path,
            inputs.len(),
            percent(equal, nodes),
            if exact { "yes" } else { "**no**" }
        );
        if let Some(dir) = &other {
            let (cells, e, n) = score_other(dir, file.path, &inputs);
            row.push_str(&cells);
            other_equal += e;
            other_nodes += n;
        }
        println!("{row}");
        match objects_of(corpus, file, &inputs) {
            Ok(counts) => object_rows.push((file.path, counts)),
            Err(error) => {
                eprintln!("{}: {error}", file.path);
                return ExitCode::FAILURE;
            }
        }
        for report in reports.iter().filter(|r| !r.exact()) {
            for version in &report.versions {
                eprintln!(
                    "{}: {} {}: present {}, other fields equal {}, names equal {}, differing {:?}",
                    file.path,
                    report.name,
                    version.name,
                    version.present,
                    version.rest_equal,
                    report.names_equal,
                    version.differing
                );
            }
        }
    }
    let mut total = format!(
        "| **all** | | | {all_equal} / {all_nodes} ({}) | {} |",
        percent(all_equal, all_nodes),
        if failed { "**no**" } else { "yes" }
    );
    if other.is_some() {
        total.push_str(&format!(
            " | {other_equal} / {other_nodes} ({}) |",
            percent(other_equal, other_nodes)
        ));
    }
    println!("{total}");
    println!();
    println!(
        "| file | kind versions | full objects identical | minimal objects identical | nulls objects identical |"
    );
    println!("|---|---:|---:|---:|---:|");
    let mut sum = ObjectCounts::default();
    for (path, counts) in &object_rows {
        println!(
            "| `{path}` | {} | {} / {} | {} / {} | {} / {} |",
            counts.versions,
            counts.full.0,
            counts.full.1,
            counts.minimal.0,
            counts.minimal.1,
            counts.nulls_objects.0,
            counts.nulls_objects.1
        );
        sum.versions += counts.versions;
        sum.full = (sum.full.0 + counts.full.0, sum.full.1 + counts.full.1);
        sum.minimal = (
            sum.minimal.0 + counts.minimal.0,
            sum.minimal.1 + counts.minimal.1,
        );
        sum.unknown = (
            sum.unknown.0 + counts.unknown.0,
            sum.unknown.1 + counts.unknown.1,
        );
        sum.nulls = (sum.nulls.0 + counts.nulls.0, sum.nulls.1 + counts.nulls.1);
        sum.nulls_objects = add(sum.nulls_objects, counts.nulls_objects);
    }
    let identical = sum.full.0 + sum.minimal.0 + sum.nulls_objects.0;
    let objects = sum.full.1 + sum.minimal.1 + sum.nulls_objects.1;
    println!(
        "| **all** | {} | {} / {} | {} / {} | {} / {} |",
        sum.versions,
        sum.full.0,
        sum.full.1,
        sum.minimal.0,
        sum.minimal.1,
        sum.nulls_objects.0,
        sum.nulls_objects.1
    );
    println!(
        "\nobjects identical after a round trip: {identical} / {objects} ({})",
        percent(identical, objects)
    );
    println!(
        "unknown keys kept: {} / {}; explicit nulls kept: {} / {}",
        sum.unknown.0, sum.unknown.1, sum.nulls.0, sum.nulls.1
    );
    if failed {
        eprintln!("the round trip is not exact");
    }
    if identical != objects {
        eprintln!("some objects changed in a round trip");
        failed = true;
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Objects of one file that came back identical, of those tried.
#[derive(Default)]
struct ObjectCounts {
    versions: usize,
    full: (usize, usize),
    minimal: (usize, usize),
    nulls_objects: (usize, usize),
    /// Unknown keys (where the schema preserves them) written back, of those in the objects.
    unknown: (usize, usize),
    /// Explicit nulls (in nullable fields) written back, of those in the objects.
    nulls: (usize, usize),
}

/// The unknown keys and the explicit nulls in `value` (not counting what an unknown key holds).
fn markers(value: &Json) -> (usize, usize) {
    match value {
        Json::Null => (0, 1),
        Json::Array(items) => items.iter().map(markers).fold((0, 0), add),
        Json::Object(map) => map
            .iter()
            .map(|(key, value)| {
                if key == objects::UNKNOWN_KEY {
                    (1, 0)
                } else {
                    markers(value)
                }
            })
            .fold((0, 0), add),
        _ => (0, 0),
    }
}

fn add(a: (usize, usize), b: (usize, usize)) -> (usize, usize) {
    (a.0 + b.0, a.1 + b.1)
}

/// Every kind of `file` at every version: a full and a minimal object, each read into the
/// generated type and written back; each difference is printed to stderr.
fn objects_of(corpus: &str, file: &CorpusFile, inputs: &[Json]) -> Result<ObjectCounts, String> {
    let path = Path::new(corpus).join(file.path);
    let model = kondition_gen::load::load(
        std::slice::from_ref(&path),
        &kondition_gen::profile::Profiles::embedded(), &Default::default())
    .map_err(|e| e.to_string())?;
    let mut counts = ObjectCounts::default();
    for entry in file.kinds {
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
            .ok_or_else(|| format!("no version {} of {}", entry.version, entry.kind))?;
        let crd = inputs
            .iter()
            .find(|c| c["spec"]["names"]["kind"] == entry.kind)
            .ok_or_else(|| format!("no CRD of kind {}", entry.kind))?;
        counts.versions += 1;
        for sample in Sample::ALL {
            let Some(object) = objects::object(crd, entry.version, sample) else {
                continue;
            };
            let mut expected = object.clone();
            objects::normalize(&mut expected, kind, version, &schema_file.types);
            let placed = markers(&expected);
            let difference = match (entry.round_trip)(object) {
                Ok(written) => {
                    let kept = markers(&written);
                    counts.unknown = add(counts.unknown, (kept.0.min(placed.0), placed.0));
                    counts.nulls = add(counts.nulls, (kept.1.min(placed.1), placed.1));
                    kondition::wire::json::first_difference(&expected, &written)
                        .map(|at| format!("differs at `{at}`"))
                }
                Err(error) => {
                    counts.unknown.1 += placed.0;
                    counts.nulls.1 += placed.1;
                    Some(format!("does not read: {error}"))
                }
            };
            let slot = match sample {
                Sample::Full => &mut counts.full,
                Sample::Minimal => &mut counts.minimal,
                Sample::Nulls => &mut counts.nulls_objects,
            };
            slot.1 += 1;
            match difference {
                None => slot.0 += 1,
                Some(problem) => eprintln!(
                    "{}: {} {}: the {} object {problem}",
                    file.path,
                    entry.kind,
                    entry.version,
                    sample.name()
                ),
            }
        }
    }
    Ok(counts)
}

/// The CRDs of a corpus file, as JSON.
fn read_crds(path: &Path) -> Result<Vec<Json>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let documents = kondition_gen::source::yaml::parse(&text).map_err(|e| e.message)?;
    Ok(documents
        .iter()
        .filter(|d| kondition_gen::crd::is_crd(d))
        .map(kondition_gen::source::yaml::Node::to_json)
        .collect())
}

/// The output CRD with the input's name, or null.
fn find<'a>(outputs: &'a [Json], input: &Json) -> &'a Json {
    static NULL: Json = Json::Null;
    outputs
        .iter()
        .find(|o| o["metadata"]["name"] == input["metadata"]["name"])
        .unwrap_or(&NULL)
}

/// Another tool's figures for one file: only the versions it emitted count.
fn score_other(dir: &Path, path: &str, inputs: &[Json]) -> (String, usize, usize) {
    let json = dir.join(path).with_extension("json");
    let Some(outputs) = std::fs::read_to_string(&json)
        .ok()
        .and_then(|text| serde_json::from_str::<Vec<Json>>(&text).ok())
    else {
        return (" none | — |".to_owned(), 0, 0);
    };
    let (mut equal, mut nodes, mut versions) = (0, 0, 0);
    for output in &outputs {
        let Some(input) = inputs
            .iter()
            .find(|i| i["metadata"]["name"] == output["metadata"]["name"])
        else {
            continue;
        };
        let emitted: Vec<String> = output["spec"]["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v["name"].as_str().map(str::to_owned))
            .collect();
        let report = fidelity::compare(input, output, Some(&emitted));
        versions += report.versions.len();
        equal += report.equal();
        nodes += report.nodes();
    }
    (
        format!(
            " {versions} | {equal} / {nodes} ({}) |",
            percent(equal, nodes)
        ),
        equal,
        nodes,
    )
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        return "—".to_owned();
    }
    #[allow(clippy::cast_precision_loss)]
    let ratio = part as f64 / whole as f64 * 100.0;
    format!("{ratio:.1}%")
}

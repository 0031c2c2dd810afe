//! The corpus round trip: every CRD file of the corpus was generated into Rust by the build
//! script and compiled into this binary; here each file's `crds()` is compared, node by node,
//! with the CRDs the file holds. Exit 1 unless every one is reproduced exactly.
//!
//! `--other DIR` also scores another tool's CRDs for the same files (`DIR/<file>.json`, a JSON
//! array of CRDs, as `bench/kopium_roundtrip.sh` writes them), counting only the versions it
//! emitted, for FIDELITY.md.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kondition_fidelity::{CORPUS, FILES};
use kondition_gen::fidelity::{self, CrdReport};
use serde_json::Value as Json;

fn main() -> ExitCode {
    let Some(corpus) = CORPUS else {
        println!("corpus round trip skipped: the corpus folder was absent at build time");
        return ExitCode::SUCCESS;
    };
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
    if failed {
        eprintln!("the round trip is not exact");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
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

//! `kondition::kstatus` against kstatus itself: objects generated from a seed go through
//! `compute_at` and through `status.Compute` of `sigs.k8s.io/cli-utils` v0.37.2 (the Go
//! program in `tests/kstatus/`, built by the README's test command), and every result must
//! be the same, status and message.
//!
//! Each run draws a new seed and prints it; `KONDITION_KSTATUS_SEED=<seed>` replays one.
//! The objects cover every kind with a rule of its own (in every group kstatus matches it
//! in, and a custom kind of the same name in another group) and custom resources, with every
//! mix of Ready, Reconciling and Stalled (True, False, Unknown, another word), generation
//! and observedGeneration (absent, equal, behind, ahead), deletion, and the fields each
//! kind's rule counts, drawn small so that every threshold is crossed both ways.
//!
//! kstatus reads the clock in one rule (a Pod unschedulable for under 15 seconds since its
//! creation is still in progress): creation times here are a day before or after the time
//! given to `compute_at`, so the Go program's own clock, read a little later, gives the
//! same answer.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kondition::kstatus::{KStatusResult, compute_at};
use serde_json::{Map, Value, json};

/// Objects compared per round.
const OBJECTS: usize = 20_000;

/// The most rounds a run draws, while some answer of kstatus has not been drawn yet.
const ROUNDS: usize = 10;

/// Where the README's test command builds the Go program.
const REFERENCE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../target/kstatus/kstatus-reference"
);

/// A small, fast generator (SplitMix64): the same seed gives the same objects on every
/// machine, which is all a replay needs.
struct Draws(u64);

impl Draws {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True one time in `n`.
    fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        let index = usize::try_from(self.below(items.len() as u64)).unwrap_or(0);
        &items[index]
    }

    /// A count from 0 to 4, or absent one time in five.
    fn count(&mut self) -> Option<i64> {
        (!self.one_in(5)).then(|| i64::try_from(self.below(5)).unwrap_or(0))
    }
}

/// Every kind with a rule of its own, in each group kstatus matches it in, and kinds with
/// none: a custom resource, a custom kind named like a core one, a core kind without a rule.
const KINDS: &[(&str, &str)] = &[
    ("v1", "Pod"),
    ("v1", "PersistentVolumeClaim"),
    ("v1", "Service"),
    ("v1", "ConfigMap"),
    ("v1", "Secret"),
    ("v1", "Namespace"),
    ("apps/v1", "Deployment"),
    ("extensions/v1beta1", "Deployment"),
    ("apps/v1", "StatefulSet"),
    ("apps/v1", "DaemonSet"),
    ("extensions/v1beta1", "DaemonSet"),
    ("apps/v1", "ReplicaSet"),
    ("extensions/v1beta1", "ReplicaSet"),
    ("batch/v1", "Job"),
    ("batch/v1", "CronJob"),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
    ("policy/v1", "PodDisruptionBudget"),
    ("example.com/v1", "Widget"),
    ("example.com/v1", "Pod"),
    ("example.com/v1", "Deployment"),
];

/// The condition types each kind's rule reads, beside kstatus's own.
fn condition_types(kind: &str) -> &'static [&'static str] {
    match kind {
        "Deployment" => &["Progressing", "Available"],
        "ReplicaSet" => &["ReplicaFailure"],
        "Job" => &["Complete", "Failed", "Suspended"],
        "Pod" => &["PodScheduled", "ContainersReady"],
        "CustomResourceDefinition" => &["NamesAccepted", "Established"],
        _ => &["Synced"],
    }
}

const REASONS: &[&str] = &[
    "NewReplicaSetAvailable",
    "ProgressDeadlineExceeded",
    "ReplicaSetUpdated",
    "Unschedulable",
    "Installing",
    "NotEstablished",
    "Progressing",
    "",
];

const MESSAGES: &[&str] = &["", "waiting for the volume", "quota exceeded", "all good"];

/// A condition of one of `types` or kstatus's own, with any status word, and a reason and a
/// message that may be absent.
fn condition(draws: &mut Draws, types: &[&str]) -> Value {
    let type_ = if draws.one_in(2) {
        *draws.pick(&["Ready", "Reconciling", "Stalled"])
    } else {
        *draws.pick(types)
    };
    let mut condition = Map::new();
    condition.insert("type".into(), json!(type_));
    if !draws.one_in(12) {
        let status = *draws.pick(&["True", "True", "False", "False", "Unknown", "Maybe"]);
        condition.insert("status".into(), json!(status));
    }
    if !draws.one_in(6) {
        // Mostly a reason the kind's rule looks for, so that its branches are taken often.
        let reason = match type_ {
            "Progressing" => *draws.pick(&["NewReplicaSetAvailable", "ProgressDeadlineExceeded"]),
            "PodScheduled" => "Unschedulable",
            "Established" => *draws.pick(&["Installing", "NotEstablished"]),
            _ => *draws.pick(REASONS),
        };
        condition.insert("reason".into(), json!(reason));
    }
    if !draws.one_in(6) {
        condition.insert("message".into(), json!(draws.pick(MESSAGES)));
    }
    Value::Object(condition)
}

/// Inserts `value` at `key` when there is one.
fn put(map: &mut Map<String, Value>, key: &str, value: Option<i64>) {
    if let Some(value) = value {
        map.insert(key.into(), json!(value));
    }
}

/// One object: `now` places creation times a day away from kstatus's 15-second window.
fn object(draws: &mut Draws, index: usize, now: Timestamp) -> Value {
    let (api_version, kind) = *draws.pick(KINDS);
    let mut metadata = Map::new();
    metadata.insert("name".into(), json!(format!("o{index}")));
    let generation = (!draws.one_in(4)).then(|| i64::try_from(1 + draws.below(3)).unwrap_or(1));
    put(&mut metadata, "generation", generation);
    if draws.one_in(12) {
        metadata.insert("deletionTimestamp".into(), json!("2024-01-01T00:00:00Z"));
    }
    let day = SignedDuration::from_hours(24);
    match draws.below(3) {
        0 => {}
        1 => {
            let past = now.checked_sub(day).unwrap_or(now);
            metadata.insert("creationTimestamp".into(), json!(past.to_string()));
        }
        _ => {
            let future = now.checked_add(day).unwrap_or(now);
            metadata.insert("creationTimestamp".into(), json!(future.to_string()));
        }
    }

    let mut spec = Map::new();
    let mut status = Map::new();
    let observed = match (generation, draws.below(6)) {
        (_, 0) => None,
        (Some(generation), 1) => Some(generation - 1),
        (Some(generation), 2) => Some(generation + 1),
        (Some(generation), _) => Some(generation),
        (None, _) => Some(1),
    };
    put(&mut status, "observedGeneration", observed);
    let types = condition_types(kind);
    let conditions: Vec<Value> = (0..draws.below(4))
        .map(|_| condition(draws, types))
        .collect();
    if !conditions.is_empty() || draws.one_in(2) {
        status.insert("conditions".into(), json!(conditions));
    }

    match kind {
        "Deployment" | "ReplicaSet" | "StatefulSet" => {
            put(&mut spec, "replicas", draws.count());
            for field in [
                "replicas",
                "updatedReplicas",
                "readyReplicas",
                "availableReplicas",
                "currentReplicas",
                "fullyLabeledReplicas",
            ] {
                put(&mut status, field, draws.count());
            }
            if draws.one_in(2) {
                spec.insert("progressDeadlineSeconds".into(), json!(600));
            }
            if kind == "StatefulSet" {
                let mut strategy = Map::new();
                match draws.below(4) {
                    0 => {
                        strategy.insert("type".into(), json!("OnDelete"));
                    }
                    1 => {
                        strategy.insert("type".into(), json!("RollingUpdate"));
                        let partition = i64::try_from(draws.below(4)).unwrap_or(0);
                        strategy.insert("rollingUpdate".into(), json!({ "partition": partition }));
                    }
                    2 => {
                        strategy.insert("type".into(), json!("RollingUpdate"));
                    }
                    _ => {}
                }
                if !strategy.is_empty() {
                    spec.insert("updateStrategy".into(), Value::Object(strategy));
                }
                for field in ["currentRevision", "updateRevision"] {
                    if !draws.one_in(4) {
                        status.insert(field.into(), json!(draws.pick(&["web-1", "web-2"])));
                    }
                }
            }
        }
        "DaemonSet" => {
            for field in [
                "desiredNumberScheduled",
                "currentNumberScheduled",
                "updatedNumberScheduled",
                "numberAvailable",
                "numberReady",
            ] {
                put(&mut status, field, draws.count());
            }
        }
        "Job" => {
            put(&mut spec, "parallelism", draws.count());
            put(&mut spec, "completions", draws.count());
            if draws.one_in(3) {
                spec.insert("suspend".into(), json!(draws.one_in(2)));
            }
            for field in ["succeeded", "active", "failed"] {
                put(&mut status, field, draws.count());
            }
            if draws.one_in(2) {
                status.insert("startTime".into(), json!("2024-01-01T00:00:00Z"));
            }
        }
        "Pod" => {
            let phase = *draws.pick(&["", "Pending", "Running", "Succeeded", "Failed"]);
            if !phase.is_empty() || draws.one_in(2) {
                status.insert("phase".into(), json!(phase));
            }
            let statuses: Vec<Value> = (0..draws.below(3))
                .map(|i| {
                    let reason = *draws.pick(&["CrashLoopBackOff", "ImagePullBackOff"]);
                    let state = match draws.below(3) {
                        0 => json!({"waiting": {"reason": reason}}),
                        1 => json!({"running": {}}),
                        _ => json!({"waiting": {}}),
                    };
                    json!({"name": format!("c{i}"), "state": state})
                })
                .collect();
            if !statuses.is_empty() {
                status.insert("containerStatuses".into(), json!(statuses));
            }
        }
        "PersistentVolumeClaim" if !draws.one_in(4) => {
            let phase = *draws.pick(&["Bound", "Pending", "Lost"]);
            status.insert("phase".into(), json!(phase));
        }
        "Service" => {
            if !draws.one_in(4) {
                spec.insert(
                    "type".into(),
                    json!(draws.pick(&["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"])),
                );
            }
            if draws.one_in(2) {
                spec.insert("clusterIP".into(), json!(draws.pick(&["10.0.0.1", ""])));
            }
            if draws.one_in(2) {
                status.insert(
                    "loadBalancer".into(),
                    json!({"ingress": [{"ip": "192.0.2.1"}]}),
                );
            }
        }
        _ => {}
    }

    let mut object = Map::new();
    object.insert("apiVersion".into(), json!(api_version));
    object.insert("kind".into(), json!(kind));
    object.insert("metadata".into(), Value::Object(metadata));
    if !spec.is_empty() || draws.one_in(2) {
        object.insert("spec".into(), Value::Object(spec));
    }
    if !status.is_empty() || draws.one_in(3) {
        object.insert("status".into(), Value::Object(status));
    }
    Value::Object(object)
}

/// The messages kstatus gives, each the start of one of its answers (those quoting a
/// condition's message aside): every one must come up in a run, so that every branch of
/// every rule is compared.
const MESSAGES_OF_KSTATUS: &[&str] = &[
    "Resource scheduled for deletion",
    "generation is ",
    "Resource is Ready",
    "Resource is current",
    "Resource is always ready",
    "Pod has completed successfully",
    "Pod has completed, but not successfully",
    "Pod is Ready",
    "Containers in CrashLoop state: ",
    "Pod is running but is not Ready",
    "Pod has not been scheduled",
    "Pod could not be scheduled",
    "Pod is in the Pending phase",
    "Pod phase not available",
    "PVC is Bound",
    "PVC is not Bound. phase: ",
    "ClusterIP not set. Service type: LoadBalancer",
    "Service is ready",
    "AllowedDisruptions has been computed.",
    "CRD is established",
    "Install in progress",
    "Job Completed. succeeded: ",
    "Job Failed. failed: ",
    "Job not started",
    "Job in progress. success:",
    "Progress deadline exceeded",
    "Replicas: ",
    "Updated: ",
    "Pending termination: ",
    "Available: ",
    "Ready: ",
    "ReplicaSet not Available",
    "Deployment not Available",
    "Deployment is available. Replicas: ",
    "Replica Failure condition. Check Pods",
    "Labelled: ",
    "ReplicaSet is available. Replicas: ",
    "StatefulSet is using the ondelete update strategy",
    "updated: ",
    "Partition rollout complete. updated: ",
    "current: ",
    "Waiting for updated revision to match current",
    "All replicas scheduled as expected. Replicas: ",
    "metadata.generation not found",
    "status.observedGeneration not found",
    "Missing .status.desiredNumberScheduled",
    "Current: ",
];

/// What kstatus says of each of `objects`, in order: the Go program's answers, one per
/// line.
fn reference(objects: &[Value]) -> Vec<Value> {
    let path = std::env::var_os("KONDITION_KSTATUS_REFERENCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(REFERENCE));
    let mut child = Command::new(&path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "the kstatus reference program {} does not start ({e}): build it with \
                 `bash tests/run.sh` (the README's test command) or `bash tests/kstatus/build.sh`",
                path.display()
            )
        });
    let mut stdin = child.stdin.take().expect("a stdin pipe");
    let lines: Vec<String> = objects.iter().map(Value::to_string).collect();
    // Written from another thread: the program answers as it reads, and a pipe holds little.
    let writer = std::thread::spawn(move || {
        for line in lines {
            writeln!(stdin, "{line}").expect("the reference program reads");
        }
    });
    let stdout = child.stdout.take().expect("a stdout pipe");
    let answers: Vec<Value> = BufReader::new(stdout)
        .lines()
        .map(|line| serde_json::from_str(&line.expect("an answer")).expect("JSON"))
        .collect();
    writer.join().expect("the writer");
    let exit = child.wait().expect("the reference program ends");
    assert!(exit.success(), "the reference program failed: {exit}");
    assert_eq!(answers.len(), objects.len(), "one answer per object");
    answers
}

/// Both sides' answer, as `status: message`.
fn said_by(result: &KStatusResult) -> String {
    format!("{}: {}", result.status, result.message)
}

#[test]
fn kstatus_and_cli_utils_agree_on_every_generated_object() {
    let seed = std::env::var("KONDITION_KSTATUS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        });
    eprintln!("KONDITION_KSTATUS_SEED={seed}");
    let now = Timestamp::now();
    let mut draws = Draws(seed);
    let mut compared = 0;
    let mut disagreements = Vec::new();
    let mut refused = Vec::new();
    let mut said = std::collections::BTreeSet::new();
    // Rounds of OBJECTS until every answer of kstatus has been drawn. The rarest (a
    // Deployment available) comes about once in 8,000 objects, so one round missed it for
    // 3 seeds of 41 (and failed a CI run); a second round drew it for each. Ten rounds all
    // missing it would happen about once in 10^11 seeds: a seed that does is a real failure,
    // replayed by its number.
    let mut missing = Vec::new();
    for _ in 0..ROUNDS {
        let objects: Vec<Value> = (compared..compared + OBJECTS)
            .map(|i| object(&mut draws, i, now))
            .collect();
        let answers = reference(&objects);
        compared += objects.len();
        for (object, answer) in objects.iter().zip(&answers) {
            if let Some(error) = answer["error"].as_str() {
                refused.push(format!("{object}\n  kstatus: error {error}"));
                continue;
            }
            let ours = said_by(&compute_at(object, now));
            let message = answer["message"].as_str().unwrap_or_default();
            let theirs = format!(
                "{}: {message}",
                answer["status"].as_str().unwrap_or_default(),
            );
            if ours != theirs {
                disagreements.push(format!(
                    "{object}\n  kondition: {ours}\n  kstatus:   {theirs}"
                ));
            }
            said.insert(message.to_owned());
        }
        missing = MESSAGES_OF_KSTATUS
            .iter()
            .filter(|start| {
                !said
                    .iter()
                    .any(|m| m.starts_with(**start) || m.contains(**start))
            })
            .collect();
        if missing.is_empty() {
            break;
        }
    }
    eprintln!(
        "{compared} objects compared with kstatus (sigs.k8s.io/cli-utils v0.37.2): {} disagreements",
        disagreements.len()
    );
    assert!(
        missing.is_empty(),
        "seed {seed}: no object of {compared} drew these answers of kstatus: {missing:?}"
    );
    // Every object is one kstatus answers: an error there would leave it uncompared.
    assert!(
        refused.is_empty(),
        "seed {seed}: kstatus refused {} generated objects, first:\n{}",
        refused.len(),
        refused[..refused.len().min(5)].join("\n")
    );
    assert!(
        disagreements.is_empty(),
        "seed {seed} (KONDITION_KSTATUS_SEED={seed} replays it): {} of {} objects disagree, \
         first:\n{}",
        disagreements.len(),
        compared,
        disagreements[..disagreements.len().min(20)].join("\n")
    );
}

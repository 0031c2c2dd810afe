//! `kondition::kstatus` against kstatus itself, in both libraries that tools compute it with:
//! `github.com/fluxcd/cli-utils` v1.3.0 (Flux's fork: Helm 4's `--wait` and Flux) and
//! `sigs.k8s.io/cli-utils` v0.37.2 (upstream). Objects generated from a seed go through
//! `compute_at` and `compute_with_pods_at` under each [`Rules`], and through the Go program
//! in `tests/kstatus/` (built by the README's test command) with the same library named:
//! `status.Compute` of the object, and the polling engine's status reader given the Pods a
//! workload owns. Every result must be the same, status and message.
//!
//! Each run draws a new seed and prints it; `KONDITION_KSTATUS_SEED=<seed>` replays one.
//! The objects cover every kind with a rule of its own (in every group kstatus matches it
//! in, and a custom kind of the same name in another group) and custom resources, with every
//! mix of Ready, Reconciling and Stalled (True, False, Unknown, another word), generation
//! and observedGeneration (absent, equal, behind, ahead), deletion, and the fields each
//! kind's rule counts, drawn small so that every threshold is crossed both ways. Workloads
//! come with Pods of every state, among them the failed ones the two libraries count
//! differently (crash-looping or unschedulable Pods the scheduler reports as Unschedulable):
//! every run must draw objects on which the libraries disagree, and suspended Jobs (Current
//! in upstream's unreleased main, InProgress in both releases compared here).
//!
//! kstatus reads the clock in one rule (a Pod unschedulable for under 15 seconds since its
//! creation is still in progress): creation times here are a day before or after the time
//! given to `compute_at`, so the Go program's own clock, read a little later, gives the
//! same answer.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kondition::kstatus::{KStatusResult, Rules, compute_at, compute_with_pods_at};
use serde_json::{Map, Value, json};

/// Objects compared per round, with each library.
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
            // The status readers list a workload's Pods (a Deployment's ReplicaSets) by
            // its selector, and report an error without one.
            spec.insert("selector".into(), json!({"matchLabels": {"app": "web"}}));
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
                let suspend = draws.one_in(2);
                spec.insert("suspend".into(), json!(suspend));
                // A suspended Job as the Job controller writes it, most of the time: the
                // case upstream's main reads as Current and both releases as InProgress.
                if suspend && !draws.one_in(4) {
                    let suspended = json!({"type": "Suspended", "status": "True",
                                           "reason": "JobSuspended", "message": "Job suspended"});
                    match status.get_mut("conditions").and_then(Value::as_array_mut) {
                        Some(conditions) => conditions.push(suspended),
                        None => {
                            status.insert("conditions".into(), json!([suspended]));
                        }
                    }
                }
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

/// The Pods a workload owns, as the cluster would list them for its selector: every state a
/// Pod's rule knows, the failed ones the libraries count differently among them. Only an
/// `apps` ReplicaSet or StatefulSet reads them; other objects get some now and then, which
/// must change nothing.
fn pods(draws: &mut Draws, object: &Value, now: Timestamp) -> Vec<Value> {
    let workload = object["apiVersion"] == "apps/v1"
        && (object["kind"] == "ReplicaSet" || object["kind"] == "StatefulSet");
    let count = if workload {
        draws.below(4)
    } else {
        u64::from(draws.one_in(4))
    };
    let day = SignedDuration::from_hours(24);
    (0..count)
        .map(|i| {
            let crash_loop = json!([{"name": "app",
                                     "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]);
            let unschedulable =
                json!({"type": "PodScheduled", "status": "False", "reason": "Unschedulable"});
            let mut metadata = json!({"name": format!("p{i}")});
            let status = match draws.below(6) {
                // Current: running and Ready.
                0 => json!({"phase": "Running",
                            "conditions": [{"type": "Ready", "status": "True"}]}),
                // Failed: crash-looping.
                1 => json!({"phase": "Running", "containerStatuses": crash_loop}),
                // Failed, and reported as Unschedulable: counted upstream only.
                2 => json!({"phase": "Running", "conditions": [unschedulable],
                            "containerStatuses": crash_loop}),
                // Unschedulable for a day (Failed, counted upstream only) or created in
                // the future (InProgress).
                3 | 4 => {
                    let created = if draws.one_in(3) {
                        now.checked_add(day).unwrap_or(now)
                    } else {
                        now.checked_sub(day).unwrap_or(now)
                    };
                    metadata["creationTimestamp"] = json!(created.to_string());
                    json!({"phase": "Pending", "conditions": [unschedulable]})
                }
                // Terminating: being deleted.
                _ => {
                    metadata["deletionTimestamp"] = json!("2024-01-01T00:00:00Z");
                    json!({"phase": "Running", "containerStatuses": crash_loop})
                }
            };
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "status": status})
        })
        .collect()
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
    "pods have failed",
];

/// What kstatus says of each of `objects` (each with the Pods it owns) by the rules of
/// `rules`, in order: the Go program's answers, one per line, each with `compute` (the
/// object alone) and `read` (the object with its Pods).
fn reference(rules: Rules, objects: &[(Value, Vec<Value>)]) -> Vec<Value> {
    let path = std::env::var_os("KONDITION_KSTATUS_REFERENCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(REFERENCE));
    let library = match rules {
        Rules::Flux => "flux",
        Rules::CliUtils => "cli-utils",
    };
    let mut child = Command::new(&path)
        .arg(library)
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
    let lines: Vec<String> = objects
        .iter()
        .map(|(object, pods)| json!({"object": object, "pods": pods}).to_string())
        .collect();
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

/// One library's side of a run.
#[derive(Default)]
struct Tally {
    compared: usize,
    disagreements: Vec<String>,
    refused: Vec<String>,
}

impl Tally {
    /// Compares kondition's answers under `rules` with the Go program's for `objects`,
    /// noting every message kstatus gave in `said`.
    fn compare(
        &mut self,
        rules: Rules,
        objects: &[(Value, Vec<Value>)],
        answers: &[Value],
        now: Timestamp,
        said: &mut BTreeSet<String>,
    ) {
        for ((object, pods), answer) in objects.iter().zip(answers) {
            self.compared += 1;
            let ours = [
                ("compute", compute_at(object, now)),
                ("read", compute_with_pods_at(object, pods, now, rules)),
            ];
            for (question, ours) in ours {
                let theirs = &answer[question];
                if let Some(error) = theirs["error"].as_str() {
                    self.refused
                        .push(format!("{object}\n  kstatus ({question}): error {error}"));
                    continue;
                }
                let message = theirs["message"].as_str().unwrap_or_default();
                let theirs = format!(
                    "{}: {message}",
                    theirs["status"].as_str().unwrap_or_default()
                );
                let ours = said_by(&ours);
                if ours != theirs {
                    self.disagreements.push(format!(
                        "{object}\n  pods: {}\n  kondition ({question}): {ours}\n  \
                         kstatus ({question}):   {theirs}",
                        json!(pods)
                    ));
                }
                said.insert(message.to_owned());
            }
        }
    }

    /// Fails the test, naming the seed, when the run refused or disagreed on anything.
    fn assert_agreed(&self, rules: Rules, seed: u64) {
        let source = rules.source();
        // Every object is one kstatus answers: an error there would leave it uncompared.
        assert!(
            self.refused.is_empty(),
            "seed {seed}: kstatus ({source}) refused {} generated objects, first:\n{}",
            self.refused.len(),
            self.refused[..self.refused.len().min(5)].join("\n")
        );
        assert!(
            self.disagreements.is_empty(),
            "seed {seed} (KONDITION_KSTATUS_SEED={seed} replays it): {} of {} objects disagree \
             with {source}, first:\n{}",
            self.disagreements.len(),
            self.compared,
            self.disagreements[..self.disagreements.len().min(20)].join("\n")
        );
    }
}

/// A suspended Job that upstream's unreleased main calls Current ("Job is suspended") and
/// both releases compared here do not: `spec.suspend` true, a `Suspended=True` condition,
/// and the Job rule reached without a Complete or Failed condition deciding.
fn suspended_job(object: &Value, answer: &Value) -> bool {
    let suspended = object["spec"]["suspend"] == true
        && object["status"]["conditions"].as_array().is_some_and(|c| {
            c.iter()
                .any(|c| c["type"] == "Suspended" && c["status"] == "True")
        });
    let message = answer["compute"]["message"].as_str().unwrap_or_default();
    object["apiVersion"] == "batch/v1"
        && object["kind"] == "Job"
        && suspended
        && (message == "Job not started" || message.starts_with("Job in progress"))
}

#[test]
fn kstatus_and_both_cli_utils_agree_on_every_generated_object() {
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
    let mut flux = Tally::default();
    let mut upstream = Tally::default();
    let mut said = BTreeSet::new();
    // Objects the two libraries answer differently (by their own programs), and objects of
    // status.Compute they answer differently (none: the code is the same).
    let mut libraries_differ = 0;
    let mut computes_differ = Vec::new();
    let mut suspended_jobs = 0;
    // Rounds of OBJECTS until every answer of kstatus has been drawn. The rarest (a
    // Deployment available) comes about once in 8,000 objects, so one round missed it for
    // 3 seeds of 41 (and failed a CI run); a second round drew it for each. Ten rounds all
    // missing it would happen about once in 10^11 seeds: a seed that does is a real failure,
    // replayed by its number.
    let mut missing = Vec::new();
    for _ in 0..ROUNDS {
        let first = flux.compared;
        let objects: Vec<(Value, Vec<Value>)> = (first..first + OBJECTS)
            .map(|i| {
                let object = object(&mut draws, i, now);
                let pods = pods(&mut draws, &object, now);
                (object, pods)
            })
            .collect();
        let flux_answers = reference(Rules::Flux, &objects);
        let upstream_answers = reference(Rules::CliUtils, &objects);
        flux.compare(Rules::Flux, &objects, &flux_answers, now, &mut said);
        upstream.compare(Rules::CliUtils, &objects, &upstream_answers, now, &mut said);
        for (((object, _), theirs), ours) in
            objects.iter().zip(&flux_answers).zip(&upstream_answers)
        {
            libraries_differ += usize::from(theirs["read"] != ours["read"]);
            if theirs["compute"] != ours["compute"] {
                computes_differ.push(object.to_string());
            }
            suspended_jobs += usize::from(suspended_job(object, theirs));
        }
        missing = MESSAGES_OF_KSTATUS
            .iter()
            .filter(|start| {
                !said
                    .iter()
                    .any(|m| m.starts_with(**start) || m.contains(**start))
            })
            .collect();
        if missing.is_empty() && libraries_differ > 0 && suspended_jobs > 0 {
            break;
        }
    }
    for (tally, rules) in [(&flux, Rules::Flux), (&upstream, Rules::CliUtils)] {
        eprintln!(
            "{} objects compared with kstatus ({}): {} disagreements",
            tally.compared,
            rules.source(),
            tally.disagreements.len()
        );
    }
    eprintln!(
        "{libraries_differ} objects the two libraries answer differently (failed Pods of a \
         workload that Flux's fork does not count), {suspended_jobs} suspended Jobs (InProgress \
         in both)"
    );
    assert!(
        missing.is_empty(),
        "seed {seed}: no object of {} drew these answers of kstatus: {missing:?}",
        flux.compared
    );
    assert!(
        libraries_differ > 0 && suspended_jobs > 0,
        "seed {seed}: the run drew {libraries_differ} objects on which the libraries differ \
         and {suspended_jobs} suspended Jobs; each must come up in every run"
    );
    assert!(
        computes_differ.is_empty(),
        "seed {seed}: status.Compute of the two libraries differs on {} objects (the docs say \
         it is the same code), first:\n{}",
        computes_differ.len(),
        computes_differ[..computes_differ.len().min(5)].join("\n")
    );
    flux.assert_agreed(Rules::Flux, seed);
    upstream.assert_agreed(Rules::CliUtils, seed);
}

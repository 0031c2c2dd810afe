//! A profile or condition types given for a kind: errors in the caller's words (the flag on
//! the command line, the `Builder` method in a build script), each true, with what differs
//! and a did-you-mean, and nothing written.

use std::path::{Path, PathBuf};
use std::process::Command;

use kondition_gen::Builder;

/// A CRD whose status has metav1 conditions, each with its own `observedGeneration`, but no
/// `observedGeneration` of the status' own (NodePool's shape).
const NODEPOOL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/status_choices/nodepool.yaml"
);

/// A CRD whose status has `observedGeneration` and conditions without one, in an atomic list
/// (Kafka's shape).
const KAFKA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/status_choices/kafka.yaml"
);

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kondition-choices-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// NodePool's CRD with `observedGeneration` added to its status: a standard status.
fn with_generation() -> String {
    std::fs::read_to_string(NODEPOOL).expect("the fixture").replace(
        "              resources:\n",
        "              observedGeneration: {type: integer, format: int64}\n              resources:\n",
    )
}

/// NodePool's CRD with the conditions' `observedGeneration` taken out: no generation kept
/// anywhere.
fn without_generation() -> String {
    let text = std::fs::read_to_string(NODEPOOL).expect("the fixture");
    let line =
        "                    observedGeneration: {type: integer, format: int64, minimum: 0}\n";
    assert!(text.contains(line));
    text.replace(line, "")
}

/// NodePool's CRD with conditions kondition cannot hold: `type` optional (Strimzi's), and a
/// field `Condition` has no place for.
fn undrivable() -> String {
    let text = std::fs::read_to_string(NODEPOOL).expect("the fixture");
    let (required, time) = (
        "required: [lastTransitionTime, message, reason, status, type]",
        "lastTransitionTime: {type: string, format: date-time}\n",
    );
    assert!(text.contains(required) && text.contains(time));
    text.replace(
        required,
        "required: [lastTransitionTime, message, reason, status]",
    )
    .replace(
        time,
        &format!(
            "{time}                    lastHeartbeatTime: {{type: string, format: date-time}}\n"
        ),
    )
}

/// [`with_generation`], written into `dir`.
fn standard_nodepool(dir: &Path) -> PathBuf {
    let path = dir.join("nodepool.yaml");
    std::fs::write(&path, with_generation()).expect("write");
    path
}

fn build(dir: &Path, schema: &Path, builder: impl FnOnce(Builder) -> Builder) -> String {
    let error = builder(Builder::new().schemas([schema]).out_dir(dir.join("out")))
        .generate()
        .expect_err("an error");
    assert!(!dir.join("out").exists(), "nothing written");
    error.to_string()
}

fn cli(dir: &Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_kondition"))
        .args(["generate", "--out"])
        .arg(dir.join("out"))
        .args(args)
        .output()
        .expect("run kondition");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(!dir.join("out").exists(), "nothing written");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Why NodePool's status with [`undrivable`]'s conditions is not driven: every difference,
/// at once.
const UNDRIVABLE: &str = "NodePool has no status kondition can drive (a `conditions` list whose items have a required `type` and `status`) in version v1: its `status.conditions` has items where `type` is optional: a condition without one cannot be told apart or read; it has items with a field `lastHeartbeatTime` that `kondition::Condition` does not hold";

/// `generate`'s Rust for `schema` with `builder`'s choices, its whitespace made single
/// spaces (so an attribute reads the same however the printer broke its line).
fn generated(dir: &Path, schema: &Path, builder: impl FnOnce(Builder) -> Builder) -> String {
    let path = builder(Builder::new().schemas([schema]).out_dir(dir.join("out")))
        .generate()
        .expect("generates");
    single_spaced(&std::fs::read_to_string(path).expect("the output"))
}

/// `rust` with every run of whitespace made one space.
fn single_spaced(rust: &str) -> String {
    rust.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// NodePool's shape is driven: `KubeStatus` keeps the generation on the conditions, and
/// writes no severity, which metav1 conditions do not have.
#[test]
fn a_status_that_keeps_the_generation_on_its_conditions_is_driven() {
    let dir = scratch("nodepool-driven");
    let rust = generated(&dir, Path::new(NODEPOOL), |b| {
        b.profile("NodePool", "kstatus")
    });
    assert!(
        rust.contains(
            r#"#[kondition( resource = NodePool, profile = "kstatus", observed_generation = "conditions", conditions_without(severity) )] pub struct NodePoolStatus { "#
        ),
        "{rust}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Kafka's shape is driven too, with a note of what an atomic list means (on the command
/// line; a build script prints the same notes as `cargo:warning`, `builder::tests`).
#[test]
fn an_atomic_condition_list_is_driven_and_its_limits_said() {
    let dir = scratch("kafka");
    let rust = generated(&dir, Path::new(KAFKA), |b| b);
    assert!(
        rust.contains(
            r#"#[kondition( resource = Kafka, profile = "standard", conditions_list = "atomic", conditions_without(severity, observed_generation) )] pub struct KafkaStatus { "#
        ),
        "{rust}"
    );
    let note = format!(
        "{KAFKA}:4:1: note: Kafka v1beta2: `status.conditions` is an atomic list (no `x-kubernetes-list-type: map`): the controller's status apply holds it whole, other managers' conditions as it read them (a list changed since the read fails the apply's precondition, and the reconcile runs again), and the controller then owns the whole list: nothing is merged per condition type, and another manager's server-side apply of the list conflicts unless forced; `--acknowledge-atomic-list Kafka` says you know, and ends this note"
    );
    let kondition = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_kondition"))
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("run kondition");
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let stderr = kondition(&["generate", "--out", "cli", KAFKA]);
    assert_eq!(stderr.lines().next(), Some(note.as_str()), "{stderr}");
    // Acknowledged, it is not printed (issue 37, item 2); nor by the commands whose output
    // it does not concern: the CRD manifests and the imported schema file.
    for args in [
        &[
            "generate",
            "--out",
            "cli",
            "--acknowledge-atomic-list",
            "Kafka",
            KAFKA,
        ][..],
        &[
            "check",
            "--out",
            "cli",
            "--acknowledge-atomic-list",
            "Kafka",
            KAFKA,
        ],
        &["crd", KAFKA],
        &["import", KAFKA],
    ] {
        let stderr = kondition(args);
        assert!(!stderr.contains("atomic list"), "{args:?}: {stderr}");
    }
    assert_eq!(
        kondition(&[
            "check",
            "--out",
            "cli",
            "--acknowledge-atomic-list",
            "Kafka",
            KAFKA
        ]),
        ""
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_status_kondition_cannot_drive_is_explained_once_in_the_callers_words() {
    let dir = scratch("nodepool");
    let nodepool = dir.join("nodepool.yaml");
    std::fs::write(&nodepool, undrivable()).expect("write");
    let nodepool = nodepool.as_path();
    let file = nodepool.display().to_string();
    assert_eq!(
        build(&dir, nodepool, |b| b.profile("NodePool", "kstatus")),
        format!("{file}:3:1: `Builder::profile(\"NodePool\", \"kstatus\")`: {UNDRIVABLE}\n")
    );
    assert_eq!(
        build(&dir, nodepool, |b| b.conditions("NodePool", ["Drifted"])),
        format!("{file}:3:1: `Builder::conditions(\"NodePool\", ...)`: {UNDRIVABLE}\n")
    );
    assert_eq!(
        cli(&dir, &[&file, "--profile", "NodePool=kstatus"]),
        format!("{file}:3:1: `--profile NodePool=kstatus`: {UNDRIVABLE}\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A status that keeps no generation anywhere (KEDA's) is driven, and says so: nothing in it
/// can tell which generation it reflects (the user guide's `docs/guide/src/derive.md`).
#[test]
fn a_status_that_keeps_no_generation_is_driven() {
    let dir = scratch("nowhere");
    let path = dir.join("nodepool.yaml");
    std::fs::write(&path, without_generation()).expect("write");
    let rust = generated(&dir, &path, |b| b.profile("NodePool", "kstatus"));
    assert!(
        rust.contains(
            r#"#[kondition( resource = NodePool, profile = "kstatus", observed_generation = "none", conditions_without(severity) )] pub struct NodePoolStatus { "#
        ),
        "{rust}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_kind_no_crd_defines_gets_a_did_you_mean_and_no_false_error() {
    let dir = scratch("misspelt");
    let nodepool = Path::new(NODEPOOL);
    assert_eq!(
        build(&dir, nodepool, |b| b.profile("Nodepool", "kstatus")),
        "<build script>: `Builder::profile(\"Nodepool\", \"kstatus\")`: no input CRD defines kind Nodepool; did you mean `NodePool`?\n"
    );
    assert_eq!(
        cli(&dir, &[NODEPOOL, "--conditions", "Nodepool=Drifted"]),
        "<command line>: `--conditions Nodepool=...`: no input CRD defines kind Nodepool; did you mean `NodePool`?\n"
    );
}

#[test]
fn profiles_and_condition_types_are_checked_in_the_callers_words() {
    let dir = scratch("standard");
    let nodepool = standard_nodepool(&dir);
    let file = nodepool.display().to_string();
    assert_eq!(
        build(&dir, &nodepool, |b| b.profile("NodePool", "kstats")),
        format!(
            "{file}:3:1: `Builder::profile(\"NodePool\", \"kstats\")`: no such profile; did you mean `kstatus`?\n"
        )
    );
    assert_eq!(
        build(&dir, &nodepool, |b| b.conditions("NodePool", ["Not Ready"])),
        format!(
            "{file}:3:1: `Builder::conditions(\"NodePool\", ...)`: condition type `Not Ready` would be rejected by the API server\n"
        )
    );
    let path = nodepool.to_string_lossy();
    assert_eq!(
        cli(&dir, &[&path, "--conditions", "NodePool=Ready"]),
        format!(
            "{file}:3:1: `--conditions NodePool=...`: condition type `Ready` is already declared (by the profile or before)\n"
        )
    );
    // And the standard status generates with the choice.
    let rust = Builder::new()
        .schemas([&nodepool])
        .profile("NodePool", "kstatus")
        .out_dir(dir.join("out"))
        .generate()
        .and_then(|path| std::fs::read_to_string(path).map_err(kondition_gen::builder::Error::Io))
        .expect("generates");
    let rust = single_spaced(&rust);
    assert!(
        rust.contains(r#"#[kondition( resource = NodePool, profile = "kstatus", conditions_without(severity) )]"#),
        "{rust}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn what_differs_in_a_condition_list_is_named() {
    let dir = scratch("items");
    let text = with_generation();
    for (from, to, why) in [
        (
            "status: {type: string, enum: [\"True\", \"False\", Unknown]}",
            "status: {type: integer}",
            "its `status.conditions` has items whose `status` is neither a string nor an enum of \"True\", \"False\" and \"Unknown\"",
        ),
        (
            "required: [lastTransitionTime, message, reason, status, type]",
            "required: [lastTransitionTime, message, reason, type]",
            "its `status.conditions` has items where `status` is optional: a condition without one cannot be told apart or read",
        ),
        (
            "lastTransitionTime: {type: string, format: date-time}",
            "lastTransitionTime: {type: string, format: date-time}\n                    lastHeartbeatTime: {type: string, format: date-time}",
            "its `status.conditions` has items with a field `lastHeartbeatTime` that `kondition::Condition` does not hold",
        ),
        (
            "reason: {type: string, maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$'}",
            "reason: {type: integer}\n                    severity: {type: string, pattern: '^[A-Z]+$'}",
            "its `status.conditions` has items whose `reason` is not a string; it has items whose `severity` is neither a string that admits Info, Warning and Error nor an enum of them",
        ),
        (
            "lastTransitionTime: {type: string, format: date-time}",
            "lastTransitionTime: {type: string, maxLength: 10}",
            "its `status.conditions` has items whose `lastTransitionTime` is neither a `date-time` nor a string that admits an RFC 3339 time",
        ),
    ] {
        assert!(text.contains(from), "{from}");
        let path = dir.join("nodepool.yaml");
        std::fs::write(&path, text.replace(from, to)).expect("write");
        assert_eq!(
            build(&dir, &path, |b| b.profile("NodePool", "kstatus")),
            format!(
                "{}:3:1: `Builder::profile(\"NodePool\", \"kstatus\")`: NodePool has no status kondition can drive (a `conditions` list whose items have a required `type` and `status`) in version v1: {why}\n",
                path.display()
            )
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A kind kondition could drive, left undriven by the user (issue 48: an operator that only
/// reads Kueue's Workload, whose conditions never include the profile's Ready): plain types
/// without `KubeStatus`, from the build script and the command line alike; a profile or
/// conditions for it too is a contradiction, and a kind no CRD defines gets a did-you-mean.
#[test]
fn driving_can_be_left_off_for_a_kind() {
    let dir = scratch("no-drive");
    let nodepool = standard_nodepool(&dir);
    let file = nodepool.display().to_string();
    let driven = generated(&dir, &nodepool, |b| b);
    assert!(
        driven.contains("#[kondition( resource = NodePool,"),
        "driven by default: {driven}"
    );
    let plain = generated(&dir, &nodepool, |b| b.drive("NodePool", false));
    assert!(!plain.contains("KubeStatus"), "{plain}");
    assert!(!plain.contains("#[kondition("), "{plain}");
    assert!(plain.contains("pub struct NodePoolStatus {"), "{plain}");
    // Its metav1 conditions are still read as conditions, written back as they are.
    assert!(plain.contains("use kondition::Conditions;"), "{plain}");
    assert!(
        plain.contains("pub conditions: Option<Conditions>"),
        "{plain}"
    );
    // The last word is the build script's.
    let again = generated(&dir, &nodepool, |b| {
        b.drive("NodePool", false).drive("NodePool", true)
    });
    assert_eq!(again, driven);
    let output = Command::new(env!("CARGO_BIN_EXE_kondition"))
        .args(["generate", "--no-drive", "NodePool", "--out"])
        .arg(dir.join("cli"))
        .arg(&nodepool)
        .output()
        .expect("run kondition");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let module = std::fs::read_to_string(dir.join("cli/nodepool.rs")).expect("the module");
    assert!(!module.contains("KubeStatus"), "{module}");
    assert!(module.contains("pub struct NodePoolStatus {"), "{module}");
    let _ = std::fs::remove_dir_all(dir.join("out"));
    assert_eq!(
        build(&dir, &nodepool, |b| b
            .drive("NodePool", false)
            .profile("NodePool", "kstatus")),
        format!(
            "{file}:3:1: `Builder::profile(\"NodePool\", \"kstatus\")`: NodePool is left undriven by `Builder::drive(\"NodePool\", false)`, so it has no profile, conditions or summary; name one or the other\n"
        )
    );
    assert_eq!(
        cli(
            &dir,
            &[
                &file,
                "--no-drive",
                "NodePool",
                "--conditions",
                "NodePool=Drifted"
            ]
        ),
        format!(
            "{file}:3:1: `--conditions NodePool=...`: NodePool is left undriven by `--no-drive NodePool`, so it has no profile, conditions or summary; name one or the other\n"
        )
    );
    assert_eq!(
        cli(&dir, &[&file, "--no-drive", "Nodepool"]),
        "<command line>: `--no-drive Nodepool`: no input CRD defines kind Nodepool; did you mean `NodePool`?\n"
    );
    assert_eq!(
        build(&dir, &nodepool, |b| b.drive("Nodepool", false)),
        "<build script>: `Builder::drive(\"Nodepool\", false)`: no input CRD defines kind Nodepool; did you mean `NodePool`?\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The kinds whose status kondition cannot drive are named in one note per run, not one per
/// version (issue 48: they were plain types with no word), which `--no-drive` ends; and
/// `kondition explain` gives every reason at once, each at the line of its field (it gave
/// only the first, at the CRD's line, and only when a profile was named).
#[test]
fn kinds_left_undriven_are_named_once_and_explained_at_their_lines() {
    let dir = scratch("explain");
    let nodepool = dir.join("nodepool.yaml");
    let text = undrivable();
    std::fs::write(&nodepool, &text).expect("write");
    let file = nodepool.display().to_string();
    let kondition = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_kondition"))
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("run kondition");
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        (
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    // Two versions of the kind, and one note for it.
    let (head, version) = text.split_once("  - name: v1\n").expect("a version");
    let earlier =
        format!("  - name: v1beta1\n{version}").replace("storage: true", "storage: false");
    let two_versions = dir.join("two.yaml");
    std::fs::write(
        &two_versions,
        format!("{head}{earlier}  - name: v1\n{version}"),
    )
    .expect("write");
    let (_, stderr) = kondition(&["generate", "--out", "out", "two.yaml"]);
    assert_eq!(
        stderr
            .lines()
            .filter(|l| l.contains("note:"))
            .collect::<Vec<_>>(),
        [
            "<command line>: note: status left as plain types, which the status chokepoint cannot drive: NodePool; `kondition explain KIND` says why; `--no-drive KIND` says it is your choice, and ends this note"
        ],
        "{stderr}"
    );
    let (_, stderr) = kondition(&[
        "generate",
        "--out",
        "out",
        "--no-drive",
        "NodePool",
        "two.yaml",
    ]);
    assert!(!stderr.contains("note:"), "{stderr}");
    // The lines of the fields.
    let line_of = |needle: &str| {
        1 + text
            .lines()
            .position(|line| line.trim_start().starts_with(needle))
            .unwrap_or_else(|| panic!("{needle}"))
    };
    let (heartbeat, type_) = (
        line_of("lastHeartbeatTime:"),
        line_of("type: {type: string, maxLength: 316"),
    );
    let (stdout, stderr) = kondition(&["explain", "NodePool", &file]);
    assert_eq!(stderr, "");
    assert_eq!(
        stdout,
        format!(
            "{file}:{heartbeat}:21: NodePool v1: its `status.conditions` has items with a field `lastHeartbeatTime` that `kondition::Condition` does not hold\n\
             {file}:{type_}:21: NodePool v1: its `status.conditions` has items where `type` is optional: a condition without one cannot be told apart or read\n"
        )
    );
    // A driven kind says so, and its profile.
    let standard = standard_nodepool(&dir);
    let (stdout, _) = kondition(&["explain", "NodePool", &standard.display().to_string()]);
    assert_eq!(
        stdout,
        format!(
            "{}:3:1: NodePool: driven by the status chokepoint in version v1, with the profile `standard` (its status has `KubeStatus`)\n",
            standard.display()
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A kind's summary condition named without a profile folder (issue 48: Kueue's Workload
/// never writes the standard profile's Ready): one of its condition types, spelled out in
/// the derive's attribute; another is an error in the caller's words that lists them.
#[test]
fn a_summary_condition_can_be_named_for_a_kind() {
    let dir = scratch("summary");
    let nodepool = standard_nodepool(&dir);
    let file = nodepool.display().to_string();
    let rust = generated(&dir, &nodepool, |b| {
        b.conditions("NodePool", ["Admitted", "Finished"])
            .summary("NodePool", "Admitted")
    });
    assert!(
        rust.contains(
            r#"#[kondition( resource = NodePool, conditions("Ready", "Admitted", "Finished"), summary = "Admitted", conditions_without(severity) )]"#
        ),
        "{rust}"
    );
    let output = Command::new(env!("CARGO_BIN_EXE_kondition"))
        .args(["generate", "--conditions", "NodePool=Admitted,Finished"])
        .args(["--summary", "NodePool=Admitted", "--out"])
        .arg(dir.join("cli"))
        .arg(&nodepool)
        .output()
        .expect("run kondition");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let module = std::fs::read_to_string(dir.join("cli/nodepool.rs")).expect("the module");
    assert!(
        single_spaced(&module).contains(r#"summary = "Admitted""#),
        "{module}"
    );
    let _ = std::fs::remove_dir_all(dir.join("out"));
    assert_eq!(
        build(&dir, &nodepool, |b| b.summary("NodePool", "Admitted")),
        format!(
            "{file}:3:1: `Builder::summary(\"NodePool\", \"Admitted\")`: `Admitted` is not a condition type of NodePool (its types: Ready); add it with `Builder::conditions(\"NodePool\", ...)`\n"
        )
    );
    assert_eq!(
        cli(&dir, &[&file, "--summary", "Nodepool=Ready"]),
        "<command line>: `--summary Nodepool=Ready`: no input CRD defines kind Nodepool; did you mean `NodePool`?\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

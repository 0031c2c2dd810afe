//! A generation that fails or is killed while writing leaves every output file whole: the
//! old content or the new, never a mix within a file, and a failed write changes nothing.
//!
//! Kills are deterministic: the run is told ([`output::PAUSE_VAR`]) to stop at one point of
//! its write and say so, and is killed once it has said so; every point is tried in turn.
//! No test here waits for a time or measures one.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, Stdio};

use kondition_gen::output;

/// The files of an output folder: name, content.
type Files = BTreeMap<String, Vec<u8>>;

/// A fresh, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("kondition-interrupt-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// A schema file of `fields` fields for each `(k, generation)` of `kinds`, of kind `Kind<k>`;
/// `generation` changes every field's docs. Replaces the schemas/ folder.
fn write_schemas(dir: &Path, kinds: &[(usize, u32)], fields: usize) {
    let schemas = dir.join("schemas");
    let _ = std::fs::remove_dir_all(&schemas);
    std::fs::create_dir_all(&schemas).expect("mkdir");
    for &(k, generation) in kinds {
        let mut text = format!("group: example.com\nkind: Kind{k}\nversion: v1\nspec:\n");
        for f in 0..fields {
            text += &format!("  field{f}: {{type: string, docs: \"generation {generation}\"}}\n");
        }
        std::fs::write(schemas.join(format!("kind{k}.yaml")), text).expect("write");
    }
}

fn generate(dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kondition"))
        .args(["generate", "--out", "out"])
        .current_dir(dir)
        .output()
        .expect("run kondition")
}

/// Every file under `dir/out`, by name.
fn snapshot(dir: &Path) -> Files {
    std::fs::read_dir(dir.join("out"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    (name, std::fs::read(e.path()).unwrap_or_default())
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_failed_write_changes_no_file() {
    let dir = scratch("failed");
    write_schemas(&dir, &[(0, 1), (1, 1), (2, 1)], 5);
    assert_eq!(generate(&dir).status.code(), Some(0));
    let before = snapshot(&dir);

    // The new content of kind2.rs, the last changed file, cannot be written: a folder is in
    // the way of its temporary file. kind0.rs and kind1.rs were written by then.
    write_schemas(&dir, &[(0, 2), (1, 2), (2, 2)], 6);
    let blocker = dir.join("out/kind2.rs.kondition-tmp");
    std::fs::create_dir(&blocker).expect("block");
    let output = generate(&dir);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("cannot write the output: out/kind2.rs: ")
            && stderr.trim_end().ends_with("(no file was changed)"),
        "{stderr}"
    );
    std::fs::remove_dir(&blocker).expect("unblock");
    assert_eq!(
        snapshot(&dir),
        before,
        "every file as it was, no temporary file left"
    );

    // Once the way is clear, the run completes.
    assert_eq!(generate(&dir).status.code(), Some(0));
    let after = snapshot(&dir);
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        before.keys().collect::<Vec<_>>()
    );
    assert_ne!(after, before);
}

/// One point of a write of [`output::PAUSE_VAR`]: `<step>:<n>`.
struct Point {
    step: &'static str,
    n: usize,
}

impl std::fmt::Display for Point {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.step, self.n)
    }
}

/// Every point a write of `len` changed files stops at: before and after each temporary
/// file, in the middle of each, and before and after each rename.
fn every_point(len: usize) -> Vec<Point> {
    let write = (0..=len).map(|n| Point { step: "write", n });
    let torn = (0..len).map(|n| Point { step: "torn", n });
    let rename = (0..=len).map(|n| Point { step: "rename", n });
    write.chain(torn).chain(rename).collect()
}

/// A run stopped at a point, waiting on its stdin.
struct Stopped {
    child: Child,
    /// The rest of its stderr, kept open so that a run let go can still write there.
    stderr: BufReader<ChildStderr>,
}

/// Starts `kondition generate` in `dir` told to stop at `point`, and returns once it is
/// there: it said so on stderr and waits on its stdin (kept open in the `Child`). The wait
/// is for that line, not for a time: it ends when the run reaches the point, or panics if
/// the run ends without reaching it.
fn run_stopped_at(dir: &Path, point: &Point) -> Stopped {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kondition"))
        .args(["generate", "--out", "out"])
        .current_dir(dir)
        .env(output::PAUSE_VAR, point.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn kondition");
    let marker = format!("kondition: paused at {point}");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr is piped"));
    let mut said = String::new();
    loop {
        let start = said.len();
        if stderr
            .read_line(&mut said)
            .expect("read kondition's stderr")
            == 0
        {
            break;
        }
        if said[start..].trim_end() == marker {
            return Stopped { child, stderr };
        }
    }
    let status = child.wait().expect("wait for kondition");
    panic!("the run ended ({status}) without stopping at {point}; stderr:\n{said}");
}

/// What a killed run writing `new` over `old` left, by the name of the target file.
#[derive(Debug, Default)]
struct Left {
    /// Files holding their new content (when it differs from the old).
    replaced: BTreeSet<String>,
    /// Temporary files holding the whole new content of their target.
    whole_temps: BTreeSet<String>,
    /// Temporary files holding a strict beginning of the new content of their target.
    torn_temps: BTreeSet<String>,
}

/// Sorts the files of `dir/out` after a kill at `at`; panics on any file that is neither
/// its old nor its new content, on an old file gone, and on a stray temporary file.
fn left_by_kill(dir: &Path, old: &Files, new: &Files, at: &Point) -> Left {
    let files = snapshot(dir);
    let mut left = Left::default();
    for (name, content) in &files {
        if let Some(target) = name.strip_suffix(output::TEMP_SUFFIX) {
            let full = new.get(target).unwrap_or_else(|| {
                panic!("{name} after a kill at {at}: the temporary file of no new file")
            });
            if content == full {
                left.whole_temps.insert(target.to_owned());
            } else if full.starts_with(content) {
                left.torn_temps.insert(target.to_owned());
            } else {
                panic!("{name} after a kill at {at}: not a beginning of the new {target}");
            }
        } else if old.get(name) == Some(content) {
            // As it was (old, or unchanged).
        } else if new.get(name) == Some(content) {
            left.replaced.insert(name.clone());
        } else {
            panic!("{name} is neither the old nor the new file after a kill at {at}");
        }
    }
    for name in old.keys() {
        assert!(
            files.contains_key(name),
            "{name} is gone after a kill at {at}"
        );
    }
    left
}

/// `dir/out` holding exactly `files`.
fn reset_out(dir: &Path, files: &Files) {
    let _ = std::fs::remove_dir_all(dir.join("out"));
    std::fs::create_dir_all(dir.join("out")).expect("mkdir");
    for (name, content) in files {
        std::fs::write(dir.join("out").join(name), content).expect("write");
    }
}

/// The old output (kinds 0, 1, 2 and 4) in `dir/out` and the new schemas (kinds 0 and 2
/// changed, 1 the same, 3 added, 4 gone) in `dir/schemas`: the old output, the new output
/// and the names of the files a run changes (kind4.rs, stale, is removed after them).
fn old_and_new(dir: &Path) -> (Files, Files, BTreeSet<String>) {
    const NEW: &[(usize, u32)] = &[(0, 2), (1, 1), (2, 2), (3, 2)];
    write_schemas(dir, &[(0, 1), (1, 1), (2, 1), (4, 1)], 5);
    assert_eq!(generate(dir).status.code(), Some(0));
    let old = snapshot(dir);
    write_schemas(dir, NEW, 5);
    assert_eq!(generate(dir).status.code(), Some(0));
    let new = snapshot(dir);
    reset_out(dir, &old);
    let changed: BTreeSet<String> = new
        .iter()
        .filter(|&(name, content)| old.get(name) != Some(content))
        .map(|(name, _)| name.clone())
        .collect();
    assert_eq!(
        changed.iter().map(String::as_str).collect::<Vec<_>>(),
        [
            "crds.rs",
            "kind0.kind0_crd.json",
            "kind0.rs",
            "kind2.kind2_crd.json",
            "kind2.rs",
            "kind3.kind3_crd.json",
            "kind3.rs",
            "lib.rs"
        ],
        "the files the new schemas change"
    );
    // A kind gone takes its module and its CRD file with it.
    assert!(old.contains_key("kind4.rs") && !new.contains_key("kind4.rs"));
    assert!(old.contains_key("kind4.kind4_crd.json") && !new.contains_key("kind4.kind4_crd.json"));
    assert_eq!(old.get("kind1.rs"), new.get("kind1.rs"));
    (old, new, changed)
}

#[test]
fn killed_runs_leave_every_file_whole() {
    let dir = scratch("killed");
    let (old, new, changed) = old_and_new(&dir);

    // Kill a run at every point of its write. After each kill, every file is its old or its
    // new content, the temporary files are of the changed files only, and exactly as many
    // of each as the point says; the next run finishes the job and removes them.
    for point in every_point(changed.len()) {
        reset_out(&dir, &old);
        let mut stopped = run_stopped_at(&dir, &point);
        stopped.child.kill().expect("kill kondition");
        stopped.child.wait().expect("wait for kondition");

        let left = left_by_kill(&dir, &old, &new, &point);
        let n = point.n;
        let (replaced, whole_temps, torn_temps) = match point.step {
            "write" => (0, n, 0),
            "torn" => (0, n, 1),
            _ => (n, changed.len() - n, 0),
        };
        assert_eq!(
            (
                left.replaced.len(),
                left.whole_temps.len(),
                left.torn_temps.len()
            ),
            (replaced, whole_temps, torn_temps),
            "replaced, whole and torn temporary files after a kill at {point}: {left:?}"
        );
        let touched: BTreeSet<String> = (left.replaced.iter())
            .chain(&left.whole_temps)
            .chain(&left.torn_temps)
            .cloned()
            .collect();
        assert_eq!(
            touched.len(),
            replaced + whole_temps + torn_temps,
            "one file at most for each target after a kill at {point}: {left:?}"
        );
        assert!(
            touched.is_subset(&changed),
            "after a kill at {point}: {left:?}"
        );

        let output = generate(&dir);
        assert_eq!(
            output.status.code(),
            Some(0),
            "after a kill at {point}: {output:?}"
        );
        assert_eq!(snapshot(&dir), new, "the run after a kill at {point}");
    }
}

#[test]
fn a_stopped_run_goes_on_when_its_stdin_closes() {
    // The test hook itself: a run told to stop, then let go, writes what any run writes.
    let dir = scratch("resumed");
    let (_, new, _) = old_and_new(&dir);
    let mut stopped = run_stopped_at(&dir, &Point { step: "torn", n: 2 });
    drop(stopped.child.stdin.take());
    let mut rest = String::new();
    stopped
        .stderr
        .read_to_string(&mut rest)
        .expect("read kondition's stderr");
    let status = stopped.child.wait().expect("wait for kondition");
    assert!(status.success(), "{status}: {rest}");
    assert!(rest.contains("wrote out/kind3.rs"), "{rest}");
    assert_eq!(snapshot(&dir), new);
}

//! A generation that fails or is killed while writing leaves every output file whole: the
//! old content or the new, never a mix within a file, and a failed write changes nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A fresh, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("kondition-interrupt-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// `kinds` schema files of `fields` fields each; `generation` changes every field's docs.
fn write_schemas(dir: &Path, kinds: usize, fields: usize, generation: u32) {
    let schemas = dir.join("schemas");
    let _ = std::fs::remove_dir_all(&schemas);
    std::fs::create_dir_all(&schemas).expect("mkdir");
    for k in 0..kinds {
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
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
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
    write_schemas(&dir, 3, 5, 1);
    assert_eq!(generate(&dir).status.code(), Some(0));
    let before = snapshot(&dir);

    // The new content of kind2.rs, the last changed file, cannot be written: a folder is in
    // the way of its temporary file. kind0.rs and kind1.rs were written by then.
    write_schemas(&dir, 3, 6, 2);
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

#[test]
fn killed_runs_leave_every_file_whole() {
    let dir = scratch("killed");
    // Large enough that writing takes a while: 8 files of about 200 KiB.
    write_schemas(&dir, 6, 800, 1);
    assert_eq!(generate(&dir).status.code(), Some(0));
    let old = snapshot(&dir);
    write_schemas(&dir, 6, 800, 2);
    let started = Instant::now();
    let fresh = scratch("killed-fresh");
    write_schemas(&fresh, 6, 800, 2);
    assert_eq!(generate(&fresh).status.code(), Some(0));
    let full_run = started.elapsed();
    let new = snapshot(&fresh);

    // Kill a run at 12 points spread over its length; after each, every file is whole.
    let mut old_seen = 0;
    let mut new_seen = 0;
    for step in 0..12u32 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kondition"))
            .args(["generate", "--out", "out"])
            .current_dir(&dir)
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(full_run.mul_f64(f64::from(step) / 10.0) + Duration::from_millis(1));
        let _ = child.kill();
        let _ = child.wait();
        for (name, content) in snapshot(&dir) {
            if name.ends_with(".kondition-tmp") {
                continue; // left by the kill, removed by the next run
            }
            if old.get(&name) == Some(&content) {
                old_seen += 1;
            } else if new.get(&name) == Some(&content) {
                new_seen += 1;
            } else {
                panic!("{name} is neither the old nor the new file after a kill at step {step}");
            }
        }
        if step % 4 == 3 {
            // Back to the old output for the next kills.
            std::fs::remove_dir_all(dir.join("out")).expect("reset");
            copy_out(&old, &dir);
        }
    }
    assert!(
        old_seen > 0 && new_seen > 0,
        "kills before and after the writes"
    );

    // The next full run finishes the job and removes what the kills left.
    assert_eq!(generate(&dir).status.code(), Some(0));
    assert_eq!(snapshot(&dir), new);
}

fn copy_out(files: &BTreeMap<String, Vec<u8>>, dir: &Path) {
    std::fs::create_dir_all(dir.join("out")).expect("mkdir");
    for (name, content) in files {
        std::fs::write(dir.join("out").join(name), content).expect("write");
    }
}

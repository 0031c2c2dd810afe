//! Hostile sizes and shapes: alias bombs, 20,000-deep nesting and oversized files get a
//! clear error at their place, never a stack overflow or an abort; the deepest input that is
//! accepted generates on a thread with a small stack. Each error is at the first place that
//! passes a limit (the first anchor, the 129th level), so nothing past it is expanded or
//! read; how long each takes and how much memory is `bench/hostile_inputs.sh`'s, not a
//! test's (a time bound fails on a busy machine).

use std::path::PathBuf;

use kondition_gen::profile::Profiles;
use kondition_gen::source::diagnostic::{Diagnostics, MAX_INPUT_BYTES};

/// A fresh, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kondition-limits-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// Loads `text` as the file `name` of a scratch folder, on a thread with a 2 MiB stack
/// (what `std::thread::spawn` gives, and less than a build script's main thread).
fn load_text(test: &str, name: &str, text: String) -> Result<String, Diagnostics> {
    let path = scratch(test).join(name);
    std::fs::write(&path, text).expect("write input");
    load_path(path)
}

/// Loads `path` and, if that succeeds, generates the Rust tree, on a 2 MiB stack.
fn load_path(path: PathBuf) -> Result<String, Diagnostics> {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let model =
                kondition_gen::load::load(&[path], &Profiles::embedded(), &Default::default())?;
            let files = kondition_gen::emit::rust_tree(
                &model,
                &kondition_gen::analysis::Plans::new(&model, Default::default()),
                &Default::default(),
            )
            .expect("generates");
            Ok(files.into_iter().map(|f| f.contents).collect())
        })
        .expect("spawn")
        .join()
        .expect("no panic, no overflow")
}

fn single_error(result: Result<String, Diagnostics>) -> String {
    let errors = match result {
        Ok(rust) => panic!("accepted ({} bytes of Rust)", rust.len()),
        Err(errors) => errors.0,
    };
    assert_eq!(errors.len(), 1, "{errors:?}");
    let error = &errors[0];
    format!("{}:{}: {}", error.pos.line, error.pos.col, error.message)
}

/// A CRD whose spec nests `depth` objects, in block style.
fn deep_crd(depth: usize) -> String {
    let mut text = String::from(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
         metadata: {name: deeps.example.com}\nspec:\n  group: example.com\n  \
         names: {kind: Deep, plural: deeps}\n  scope: Namespaced\n  versions:\n  \
         - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        \
         type: object\n        properties:\n          spec:\n",
    );
    let mut indent = 12;
    for _ in 0..depth {
        let pad = " ".repeat(indent);
        text += &format!("{pad}type: object\n{pad}properties:\n{pad}  a:\n");
        indent += 4;
    }
    text + &" ".repeat(indent) + "type: string\n"
}

/// A schema file whose spec nests `depth` objects, in block style.
fn deep_schema(depth: usize) -> String {
    let mut text = String::from("group: example.com\nkind: Deep\nversion: v1\nspec:\n");
    let mut indent = 2;
    for _ in 0..depth {
        let pad = " ".repeat(indent);
        text += &format!("{pad}a:\n{pad}  type: object\n{pad}  fields:\n");
        indent += 4;
    }
    text + &" ".repeat(indent) + "a: string\n"
}

#[test]
fn twenty_thousand_levels_of_flow_nesting_are_refused_at_once() {
    for (name, text) in [
        ("seq", "[".repeat(20_000) + &"]".repeat(20_000)),
        ("map", "{a: ".repeat(20_000) + "1" + &"}".repeat(20_000)),
    ] {
        let error = single_error(load_text("flow", &format!("{name}.yaml"), text));
        assert!(
            error.ends_with("flow collections ([...] and {...}) nested too deeply"),
            "{error}"
        );
        assert!(error.starts_with("1:"), "{error}");
    }
}

#[test]
fn twenty_thousand_levels_of_block_nesting_are_refused_at_the_limit() {
    // 20,000 nested block sequences on one line, then 10,000 nested mappings (48 MiB of
    // indentation; refused once the limit is passed, the rest is never looked at).
    let text = "- ".repeat(20_000) + "1\n";
    let error = single_error(load_text("block", "seq.yaml", text));
    assert_eq!(error, "1:257: nesting deeper than 128 levels");
    let mut text = String::new();
    for level in 0..10_000 {
        text += &" ".repeat(level);
        text += "a:\n";
    }
    let error = single_error(load_text("block", "map.yaml", text));
    assert_eq!(error, "129:129: nesting deeper than 128 levels");
}

#[test]
fn the_deepest_accepted_schemas_generate_on_a_small_stack() {
    // A CRD's envelope takes 7 levels and each object 2 more (properties, then the field):
    // 60 objects is 127 levels, the most accepted.
    let rust = load_text("deep-crd", "deep.yaml", deep_crd(60)).expect("accepted");
    // The innermost object is named first, and takes the shortest name; the outer ones add
    // the fields above them until a name is free (`spec.a` has only `DeepSpecA` left).
    assert!(rust.contains("pub struct DeepA {"));
    assert!(rust.contains(&format!("pub struct Deep{} {{", "A".repeat(30))));
    assert!(rust.contains("pub struct DeepSpecA {"));
    assert_eq!(rust.matches("pub struct Deep").count(), 61);
    // The schema format takes 1 level for its envelope and 2 per object (the field, then
    // `fields`): 63 objects is 128 levels, the most accepted.
    let rust = load_text("deep-schema", "deep.yaml", deep_schema(63)).expect("accepted");
    assert!(rust.contains(&format!("pub struct DeepSpec{} {{", "A".repeat(62))));
    // One object more is an error at its place, not a crash.
    let error = single_error(load_text("deep-crd-over", "deep.yaml", deep_crd(61)));
    assert!(error.ends_with("nesting deeper than 128 levels"), "{error}");
    let error = single_error(load_text("deep-schema-over", "deep.yaml", deep_schema(64)));
    assert!(error.ends_with("nesting deeper than 128 levels"), "{error}");
}

#[test]
fn alias_bombs_are_refused_at_the_first_anchor() {
    // The "billion laughs": nine levels of ten aliases each would expand to 10^9 nodes.
    let mut text = String::from("a0: &a0 [lol]\n");
    for level in 1..10 {
        let previous = format!("*a{}", level - 1);
        let list = vec![previous; 10].join(", ");
        text += &format!("a{level}: &a{level} [{list}]\n");
    }
    let error = single_error(load_text("bomb", "bomb.yaml", text));
    assert_eq!(
        error,
        "1:5: anchors (&name) are not supported; write the value out"
    );
}

#[test]
fn a_file_over_the_size_limit_is_refused_before_it_is_read() {
    let path = scratch("huge").join("huge.yaml");
    // A sparse file: its size is past the limit, but no disk or memory is spent on it.
    let file = std::fs::File::create(&path).expect("create");
    file.set_len(MAX_INPUT_BYTES + 1).expect("set length");
    let error = single_error(load_path(path));
    assert_eq!(
        error,
        "0:0: the input is larger than 64 MiB, the most kondition reads"
    );
}

#[test]
fn a_file_that_is_not_utf8_is_refused_with_the_offset() {
    let error = single_error(load_text_bytes(
        "binary",
        b"group: example.com\nkind: \xff\n",
    ));
    assert_eq!(
        error,
        "0:0: cannot read: not UTF-8 text (invalid byte at offset 25)"
    );
}

fn load_text_bytes(test: &str, bytes: &[u8]) -> Result<String, Diagnostics> {
    let path = scratch(test).join("input.yaml");
    std::fs::write(&path, bytes).expect("write input");
    load_path(path)
}

#[test]
fn a_two_mib_input_generates() {
    // 2,000 fields of 1 KiB descriptions each: 2 MiB, the size of the largest real CRD.
    let mut text = String::from("group: example.com\nkind: Wide\nversion: v1\nspec:\n");
    for i in 0..2_000 {
        text += &format!(
            "  field{i}: {{type: string, docs: \"{}\"}}\n",
            "word ".repeat(200)
        );
    }
    let rust = load_text("wide", "wide.yaml", text).expect("accepted");
    assert!(rust.contains("pub field1999: Option<String>,"));
}

#[test]
fn stdin_over_the_size_limit_is_refused() {
    use std::io::Write;
    use std::process::{Command, Stdio};

    let mut child = Command::new(env!("CARGO_BIN_EXE_kondition"))
        .args(["import", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'#'; 1 << 20];
        // The reader stops after the limit: later writes may fail with a broken pipe.
        for _ in 0..=(MAX_INPUT_BYTES >> 20) {
            if stdin.write_all(&chunk).is_err() {
                break;
            }
        }
    });
    let output = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "<stdin>: the input is larger than 64 MiB, the most kondition reads\n"
    );
}

// The file walk and the output folder (issue 48): links that loop, files reached twice,
// files that are not regular ones (a read of a FIFO with no writer blocks for ever, one of
// `/dev/zero` never ends), a link out of the output folder, more input in all than a run
// reads. Each case runs through the binary and through `Builder`, under a watchdog that fails
// the test after a minute rather than hang: a case that blocked would never finish, so
// finishing at all is what shows it does not block (no time is measured).

#[cfg(unix)]
mod files {
    use std::collections::BTreeMap;
    use std::os::unix::fs::symlink;
    use std::path::{Path, PathBuf};
    use std::process::{Command, Output};
    use std::time::{Duration, Instant};

    use kondition_gen::Builder;

    use super::scratch;

    const WATCHDOG: Duration = Duration::from_secs(60);

    const WIDGET: &str = "group: example.com\nkind: Widget\nversion: v1\nspec:\n  size: int32\n";

    /// `kondition args...` run in `dir`, killed (and the test failed) if it has not ended
    /// within [`WATCHDOG`].
    fn kondition(dir: &Path, args: &[&str]) -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kondition"))
            .args(args)
            .current_dir(dir)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn kondition");
        let start = Instant::now();
        while child.try_wait().expect("wait").is_none() {
            if start.elapsed() > WATCHDOG {
                let _ = child.kill();
                let _ = child.wait();
                panic!("`kondition {}` hung", args.join(" "));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        child.wait_with_output().expect("output")
    }

    /// `builder` generated on a thread; the test fails if it has not returned within
    /// [`WATCHDOG`]. The error as `Display` shows it.
    fn build(builder: Builder) -> Result<PathBuf, String> {
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = send.send(builder.generate().map_err(|e| e.to_string()));
        });
        receive
            .recv_timeout(WATCHDOG)
            .expect("Builder::generate hung")
    }

    /// Exit 2 with exactly `stderr`, nothing on stdout.
    fn refused(output: &Output, stderr: &str) {
        assert_eq!(String::from_utf8_lossy(&output.stderr), stderr);
        assert_eq!(output.status.code(), Some(2));
        assert_eq!(String::from_utf8_lossy(&output.stdout), "");
    }

    fn mkfifo(path: &Path) {
        let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
        assert!(status.success());
    }

    /// Everything under `dir`, links not followed: each path's content, link target or type.
    fn tree(dir: &Path) -> BTreeMap<PathBuf, String> {
        let mut found = BTreeMap::new();
        let mut folders = vec![dir.to_owned()];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).expect("read_dir") {
                let path = entry.expect("entry").path();
                let file_type = std::fs::symlink_metadata(&path).expect("lstat").file_type();
                let what = if file_type.is_symlink() {
                    format!("-> {}", std::fs::read_link(&path).expect("link").display())
                } else if file_type.is_dir() {
                    folders.push(path.clone());
                    "folder".to_owned()
                } else if file_type.is_file() {
                    std::fs::read_to_string(&path).expect("text")
                } else {
                    "special".to_owned()
                };
                found.insert(path.strip_prefix(dir).expect("below").to_owned(), what);
            }
        }
        found
    }

    #[test]
    fn symbolic_link_loops_are_named() {
        let dir = scratch("loops");
        let schemas = dir.join("schemas");
        std::fs::create_dir_all(schemas.join("sub")).expect("mkdir");
        std::fs::write(schemas.join("widget.yaml"), WIDGET).expect("write");
        // Two links back to their own folder: the walk used to visit about 2^40 paths.
        symlink(".", schemas.join("a")).expect("link");
        symlink(".", schemas.join("b")).expect("link");
        let loop_at_a = "schemas/a: a symbolic link loop: it leads back to schemas, a folder it \
                         is in; remove the link, or name the folders it leads to instead\n";
        for args in [
            &["generate", "schemas", "--out", "out"][..],
            &["check", "schemas", "--out", "out"],
            &["crd", "schemas"],
            &["rbac", "schemas"],
            &["check-status", "--crd", "schemas/widget.yaml", "schemas"],
        ] {
            refused(&kondition(&dir, args), loop_at_a);
        }
        let error =
            build(Builder::new().schemas([&schemas]).out_dir(dir.join("out"))).expect_err("a loop");
        assert_eq!(
            error,
            format!(
                "{}: a symbolic link loop: it leads back to {}, a folder it is in; remove the \
                 link, or name the folders it leads to instead\n",
                schemas.join("a").display(),
                schemas.display()
            )
        );
        // A loop through a folder further up is named with the folder it leads back to.
        std::fs::remove_file(schemas.join("a")).expect("rm");
        std::fs::remove_file(schemas.join("b")).expect("rm");
        symlink("..", schemas.join("sub/up")).expect("link");
        refused(
            &kondition(&dir, &["generate", "schemas", "--out", "out"]),
            "schemas/sub/up: a symbolic link loop: it leads back to schemas, a folder it is in; \
             remove the link, or name the folders it leads to instead\n",
        );
        assert!(!dir.join("out").exists(), "nothing written");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_reached_through_two_links_is_read_once() {
        let dir = scratch("diamond");
        std::fs::create_dir_all(dir.join("real")).expect("mkdir");
        std::fs::create_dir_all(dir.join("schemas")).expect("mkdir");
        std::fs::write(dir.join("real/widget.yaml"), WIDGET).expect("write");
        // Two links to the file, two to its folder: one file, read once (twice would be a
        // duplicate kind), under the first name in order.
        for name in ["a.yaml", "b.yaml"] {
            symlink("../real/widget.yaml", dir.join("schemas").join(name)).expect("link");
        }
        for name in ["x", "y"] {
            symlink("../real", dir.join("schemas").join(name)).expect("link");
        }
        let output = kondition(&dir, &["generate", "schemas", "--out", "out"]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let lib = std::fs::read_to_string(dir.join("out/lib.rs")).expect("lib.rs");
        assert!(lib.contains("pub mod a;"), "{lib}");
        assert_eq!(lib.matches("pub mod ").count(), 1, "{lib}");
        let rust = build(
            Builder::new()
                .schemas([dir.join("schemas"), dir.join("real")])
                .out_dir(dir.join("built")),
        )
        .expect("generates");
        let rust = std::fs::read_to_string(rust).expect("read");
        assert_eq!(rust.matches("pub struct Widget {").count(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_fifo_among_the_inputs_is_refused_without_waiting() {
        let dir = scratch("fifo-input");
        let schemas = dir.join("schemas");
        std::fs::create_dir_all(&schemas).expect("mkdir");
        std::fs::write(schemas.join("widget.yaml"), WIDGET).expect("write");
        mkfifo(&schemas.join("pipe.yaml"));
        let fifo = "schemas/pipe.yaml: not a regular file (a FIFO); kondition reads and writes \
                    only regular files\n";
        // Found in a folder, and named alone (opened without waiting for a writer).
        refused(
            &kondition(&dir, &["generate", "schemas", "--out", "out"]),
            fifo,
        );
        refused(
            &kondition(&dir, &["generate", "schemas/pipe.yaml", "--out", "out"]),
            fifo,
        );
        refused(&kondition(&dir, &["import", "schemas/pipe.yaml"]), fifo);
        refused(
            &kondition(
                &dir,
                &[
                    "check-status",
                    "--crd",
                    "schemas/pipe.yaml",
                    "schemas/widget.yaml",
                ],
            ),
            fifo,
        );
        let profiles = dir.join("profiles");
        std::fs::create_dir_all(&profiles).expect("mkdir");
        mkfifo(&profiles.join("mine.yaml"));
        refused(
            &kondition(
                &dir,
                &["generate", "schemas/widget.yaml", "--profiles", "profiles"],
            ),
            "profiles/mine.yaml: not a regular file (a FIFO); kondition reads and writes only \
             regular files\n",
        );
        assert!(!dir.join("out").exists(), "nothing written");
        let error =
            build(Builder::new().schemas([&schemas]).out_dir(dir.join("out"))).expect_err("a FIFO");
        assert_eq!(
            error,
            format!(
                "{}: not a regular file (a FIFO); kondition reads and writes only regular files\n",
                schemas.join("pipe.yaml").display()
            )
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn dev_zero_and_a_fifo_in_the_output_folder_are_refused_and_nothing_is_written() {
        let dir = scratch("out-special");
        std::fs::write(dir.join("widget.yaml"), WIDGET).expect("write");
        std::fs::create_dir_all(dir.join("out")).expect("mkdir");
        // A link to /dev/zero where a stale generated module could be: its first line used to
        // be looked for by reading the whole file (1 GB in 3.6 s, and on).
        symlink("/dev/zero", dir.join("out/evil.rs")).expect("link");
        let before = tree(&dir.join("out"));
        let zero = "out/evil.rs: a symbolic link to a character device, not a regular file; \
                    kondition reads and writes only regular files\n";
        refused(
            &kondition(&dir, &["generate", "widget.yaml", "--out", "out"]),
            zero,
        );
        refused(
            &kondition(&dir, &["check", "widget.yaml", "--out", "out"]),
            zero,
        );
        assert_eq!(tree(&dir.join("out")), before, "nothing written");
        // A FIFO named as a module: opening it to read used to wait for a writer for ever.
        std::fs::remove_file(dir.join("out/evil.rs")).expect("rm");
        mkfifo(&dir.join("out/x.rs"));
        let fifo = "out/x.rs: not a regular file (a FIFO); kondition reads and writes only \
                    regular files\n";
        refused(
            &kondition(&dir, &["generate", "widget.yaml", "--out", "out"]),
            fifo,
        );
        refused(
            &kondition(&dir, &["check", "widget.yaml", "--out", "out"]),
            fifo,
        );
        // Where a file is written: the old one is compared with the new before writing.
        std::fs::remove_file(dir.join("out/x.rs")).expect("rm");
        mkfifo(&dir.join("out/lib.rs"));
        refused(
            &kondition(&dir, &["generate", "widget.yaml", "--out", "out"]),
            "out/lib.rs: not a regular file (a FIFO); kondition reads and writes only regular \
             files\n",
        );
        let before = tree(&dir.join("out"));
        assert_eq!(before.len(), 1, "{before:?}");
        // A build script's output file, both ways.
        let out = dir.join("built");
        std::fs::create_dir_all(&out).expect("mkdir");
        symlink("/dev/zero", out.join("kondition.rs")).expect("link");
        let builder = || {
            Builder::new()
                .schemas([dir.join("widget.yaml")])
                .out_dir(&out)
        };
        assert_eq!(
            build(builder()).expect_err("/dev/zero"),
            format!(
                "kondition: {}: a symbolic link to a character device, not a regular file; \
                 kondition reads and writes only regular files",
                out.join("kondition.rs").display()
            )
        );
        std::fs::remove_file(out.join("kondition.rs")).expect("rm");
        mkfifo(&out.join("kondition.rs"));
        assert_eq!(
            build(builder()).expect_err("a FIFO"),
            format!(
                "kondition: {}: not a regular file (a FIFO); kondition reads and writes only \
                 regular files",
                out.join("kondition.rs").display()
            )
        );
        assert_eq!(tree(&out).len(), 1, "nothing written");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn nothing_is_written_or_removed_through_a_link_out_of_the_output_folder() {
        let dir = scratch("out-link");
        std::fs::write(dir.join("widget.yaml"), WIDGET).expect("write");
        let elsewhere = dir.join("elsewhere");
        std::fs::create_dir_all(&elsewhere).expect("mkdir");
        // What a killed run and an earlier one would leave: a temporary file and a generated
        // module, neither in the output folder.
        std::fs::write(elsewhere.join("kondition.rs.kondition-tmp"), "half").expect("write");
        std::fs::write(elsewhere.join("old.rs"), "// @generated by kondition-gen\n")
            .expect("write");
        let outside = tree(&elsewhere);
        // A build script writing into a subfolder that is a link out of its output folder.
        let out = dir.join("out");
        std::fs::create_dir_all(&out).expect("mkdir");
        symlink("../elsewhere", out.join("sub")).expect("link");
        let builder = |name: &str| {
            Builder::new()
                .schemas([dir.join("widget.yaml")])
                .out_dir(&out)
                .file_name(name)
        };
        assert_eq!(
            build(builder("sub/kondition.rs")).expect_err("through a link"),
            format!(
                "kondition: {}: a symbolic link inside the output folder; kondition writes only \
                 into real folders below it, never through a link; remove the link",
                out.join("sub").display()
            )
        );
        assert_eq!(
            build(builder("../kondition.rs")).expect_err("out of the folder"),
            format!(
                "kondition: {}: a path that leads out of the output folder",
                out.join("../kondition.rs").display()
            )
        );
        assert_eq!(tree(&out).len(), 1, "nothing written");
        // The command line writes into the output folder itself: a link in it is left alone,
        // and nothing it leads to is removed.
        let output = kondition(&dir, &["generate", "widget.yaml", "--out", "out"]);
        assert_eq!(output.status.code(), Some(0));
        assert!(out.join("lib.rs").is_file());
        assert_eq!(tree(&elsewhere), outside, "nothing outside touched");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn inputs_over_the_total_limit_are_refused_before_any_is_read() {
        use kondition_gen::source::diagnostic::{MAX_INPUT_BYTES, MAX_TOTAL_INPUT_BYTES};
        let dir = scratch("total");
        let schemas = dir.join("schemas");
        std::fs::create_dir_all(&schemas).expect("mkdir");
        // Five sparse files each under the limit of one file, 300 MiB in all: no disk or
        // memory is spent on them, and none is read.
        let size = 60 << 20;
        assert!(size < MAX_INPUT_BYTES && 5 * size > MAX_TOTAL_INPUT_BYTES);
        for name in ["a", "b", "c", "d", "e"] {
            let file = std::fs::File::create(schemas.join(format!("{name}.yaml"))).expect("create");
            file.set_len(size).expect("set length");
        }
        let over = "schemas/e.yaml: the inputs up to this file hold 300 MiB, more than the 256 MiB \
                    kondition reads in one run; name fewer files at a time\n";
        refused(
            &kondition(&dir, &["generate", "schemas", "--out", "out"]),
            over,
        );
        refused(
            &kondition(&dir, &["check", "schemas", "--out", "out"]),
            over,
        );
        refused(&kondition(&dir, &["crd", "schemas"]), over);
        // A folder of profiles is bounded the same way.
        std::fs::write(dir.join("widget.yaml"), WIDGET).expect("write");
        refused(
            &kondition(
                &dir,
                &[
                    "generate",
                    "widget.yaml",
                    "--profiles",
                    "schemas",
                    "--out",
                    "out",
                ],
            ),
            over,
        );
        // The CRD file counts too (301 MiB: the sizes are rounded up).
        std::fs::write(dir.join("crd.yaml"), "kind: CustomResourceDefinition\n").expect("write");
        refused(
            &kondition(&dir, &["check-status", "--crd", "crd.yaml", "schemas"]),
            &over.replace("300 MiB", "301 MiB"),
        );
        assert!(!dir.join("out").exists(), "nothing written");
        let error = build(Builder::new().schemas([&schemas]).out_dir(dir.join("out")))
            .expect_err("over the limit");
        assert_eq!(
            error,
            format!(
                "{}: the inputs up to this file hold 300 MiB, more than the 256 MiB kondition \
                 reads in one run; name fewer files at a time\n",
                schemas.join("e.yaml").display()
            )
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

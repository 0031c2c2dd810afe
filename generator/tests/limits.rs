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

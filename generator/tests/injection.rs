//! Text from input never becomes code, and names from input never become paths outside
//! the output folder.
//!
//! `examples/buildrs/schemas/injection.yaml` puts payloads that declare `fn injected` into
//! every place text goes: descriptions, field names, enum values, CEL rules and messages,
//! defaults, patterns, printer columns. The generated code must declare exactly the items a
//! harmless input of the same shape would; the example crate compiles the same file and
//! checks that its CRD and objects come back exactly.

use std::path::{Path, PathBuf};
use std::process::Command;

use kondition_gen::profile::Profiles;
use quote::ToTokens;

const PAYLOADS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/buildrs/schemas/injection.yaml"
);

/// The Rust `kondition generate` writes for `path`, one file.
fn generate(path: &Path) -> String {
    let model = kondition_gen::load::load(
        &[path.to_owned()],
        &Profiles::embedded(),
        &Default::default(),
    )
    .expect("loads");
    kondition_gen::emit::rust_single_file(
        &model,
        &kondition_gen::analysis::Plans::new(&model, Default::default()),
        "generated.rs",
    )
    .expect("generates")
    .swap_remove(0)
    .contents
}

/// Every item the file declares, as `kind name`, depth first.
fn items(file: &syn::File) -> Vec<String> {
    fn walk(items: &[syn::Item], out: &mut Vec<String>) {
        for item in items {
            match item {
                syn::Item::Mod(m) => {
                    out.push(format!("mod {}", m.ident));
                    walk(m.content.as_ref().map_or(&[][..], |(_, i)| i), out);
                }
                syn::Item::Fn(f) => out.push(format!("fn {}", f.sig.ident)),
                syn::Item::Struct(s) => out.push(format!("struct {}", s.ident)),
                syn::Item::Enum(e) => out.push(format!("enum {}", e.ident)),
                syn::Item::Const(c) => out.push(format!("const {}", c.ident)),
                syn::Item::Impl(i) => {
                    out.push(format!("impl {}", i.self_ty.to_token_stream()));
                    for item in &i.items {
                        if let syn::ImplItem::Fn(f) = item {
                            out.push(format!("  fn {}", f.sig.ident));
                        }
                    }
                }
                syn::Item::Use(_) => {}
                other => out.push(format!("other {}", other.to_token_stream())),
            }
        }
    }
    let mut out = Vec::new();
    walk(&file.items, &mut out);
    out
}

/// Whether `ident` appears as an identifier token anywhere in `tokens`.
fn has_ident(tokens: proc_macro2::TokenStream, ident: &str) -> bool {
    tokens.into_iter().any(|token| match token {
        proc_macro2::TokenTree::Ident(i) => i == ident,
        proc_macro2::TokenTree::Group(g) => has_ident(g.stream(), ident),
        _ => false,
    })
}

#[test]
fn payloads_in_every_text_position_stay_text() {
    let rust = generate(Path::new(PAYLOADS));
    let file = syn::parse_file(&rust).expect("the output is Rust");
    let declared = items(&file);
    assert!(
        !declared
            .iter()
            .any(|item| item.ends_with(" injected") || item.starts_with("other")),
        "{declared:#?}"
    );
    // `injected` exists only inside string literals and doc attributes (a field named after
    // a payload is `a_fn_injected`, never `injected`).
    assert!(!has_ident(file.to_token_stream(), "injected"));
    assert!(!has_ident(file.to_token_stream(), "test"));
    assert!(!has_ident(file.to_token_stream(), "cfg"));

    // The same shape with harmless text declares the same items.
    let harmless = std::fs::read_to_string(PAYLOADS)
        .expect("read")
        .replace("fn injected() {}", "harmless")
        .replace("#[test]", "test")
        .replace("#[cfg(any())]", "cfg any");
    let dir = std::env::temp_dir().join(format!("kondition-injection-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch");
    let path = dir.join("injection.yaml");
    std::fs::write(&path, harmless).expect("write");
    let baseline = syn::parse_file(&generate(&path)).expect("the output is Rust");
    let strip = |items: Vec<String>| -> Vec<String> {
        items
            .into_iter()
            .map(|i| {
                i.replace("FnInjected", "Harmless")
                    .replace("fn_injected", "harmless")
            })
            .collect()
    };
    assert_eq!(strip(declared), strip(items(&baseline)));
}

/// A fresh, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kondition-escape-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: NAME}
spec:
  group: GROUP
  names: {kind: KIND, plural: PLURAL}
  scope: Namespaced
  versions:
  - {name: VERSION, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
";

fn crd(group: &str, kind: &str, plural: &str, version: &str) -> String {
    CRD.replace("NAME", &format!("\"{plural}.{group}\""))
        .replace("GROUP", &format!("\"{group}\""))
        .replace("KIND", &format!("\"{kind}\""))
        .replace("PLURAL", &format!("\"{plural}\""))
        .replace("VERSION", &format!("\"{version}\""))
}

#[test]
fn names_from_input_cannot_lead_out_of_the_output_folder() {
    let cases = [
        (
            crd("../../escaped.com", "Widget", "widgets", "v1"),
            "5:10: group `../../escaped.com` must be a lowercase DNS name",
        ),
        (
            crd("example.com", "Widget", "../../escaped", "v1"),
            "6:35: `plural` entry `../../escaped` must be a lowercase DNS label",
        ),
        (
            crd("example.com/../..", "Widget", "widgets", "v1"),
            "5:10: group `example.com/../..` must be a lowercase DNS name",
        ),
        (
            crd("example.com", "../Widget", "widgets", "v1"),
            "6:17: kind `../Widget` must be PascalCase",
        ),
        (
            crd("example.com", "Widget", "widgets", "../v1"),
            "9:5: version `../v1` must be a DNS label",
        ),
    ];
    for (i, (text, expected)) in cases.iter().enumerate() {
        let dir = scratch(&format!("case{i}"));
        let input = dir.join("in/evil.yaml");
        std::fs::create_dir_all(input.parent().expect("parent")).expect("mkdir");
        std::fs::write(&input, text).expect("write");
        for command in ["crd", "generate"] {
            let output = Command::new(env!("CARGO_BIN_EXE_kondition"))
                .args([command, "in/evil.yaml", "--out", "out/deeper"])
                .current_dir(&dir)
                .output()
                .expect("run");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{command}: {stderr}");
            assert!(
                stderr.starts_with(&format!("in/evil.yaml:{expected}")),
                "{command}: {stderr}"
            );
            // Nothing was written anywhere: the folder holds only the input.
            let mut entries: Vec<_> = walk(&dir);
            entries.sort();
            assert_eq!(entries, std::slice::from_ref(&input), "{command}");
        }
    }
}

#[test]
fn a_crd_named_other_than_plural_dot_group_is_refused() {
    let dir = scratch("metadata-name");
    let text = crd("example.com", "Widget", "widgets", "v1")
        .replace("\"widgets.example.com\"", "\"gadgets.example.com\"");
    std::fs::write(dir.join("w.yaml"), text).expect("write");
    let error = kondition_gen::load::load(
        &[dir.join("w.yaml")],
        &Profiles::embedded(),
        &Default::default(),
    )
    .expect_err("refused")
    .0
    .remove(0);
    assert_eq!(
        (error.pos.line, error.pos.col, error.message.as_str()),
        (
            3,
            18,
            "a CRD's `metadata.name` must be `<plural>.<group>`, here `widgets.example.com`"
        )
    );
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn file_names_become_modules_whose_files_match() {
    let dir = scratch("modules");
    std::fs::create_dir_all(dir.join("schemas")).expect("mkdir");
    let widget = |kind: &str| format!("group: example.com\nkind: {kind}\nversion: v1\n");
    std::fs::write(dir.join("schemas/self.yaml"), widget("Widget")).expect("write");
    std::fs::write(dir.join("schemas/type.yaml"), widget("Gadget")).expect("write");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_kondition"))
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("run")
    };
    let output = run(&["generate", "--out", "out"]);
    assert_eq!(output.status.code(), Some(0));
    let lib = std::fs::read_to_string(dir.join("out/lib.rs")).expect("lib.rs");
    // `self` cannot be a raw identifier: module and file are both `self_`.
    assert!(
        lib.contains("pub mod self_;") && dir.join("out/self_.rs").exists(),
        "{lib}"
    );
    assert!(
        lib.contains("pub mod r#type;") && dir.join("out/type.rs").exists(),
        "{lib}"
    );

    // A schema file named lib (or crds) would be the crate root's own file: it becomes `lib_`.
    std::fs::write(dir.join("schemas/lib.yaml"), widget("Thing")).expect("write");
    let output = run(&["generate", "--out", "out"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let lib = std::fs::read_to_string(dir.join("out/lib.rs")).expect("lib.rs");
    assert!(
        lib.contains("pub mod lib_;") && dir.join("out/lib_.rs").exists(),
        "{lib}"
    );
}

/// Found by fuzzing (`schema_file`): a version with hyphens, a valid DNS label, made a
/// module name that is not an identifier, and generation panicked.
#[test]
fn hyphenated_versions_become_modules() {
    let dir = scratch("versions");
    std::fs::write(
        dir.join("promotion.yaml"),
        "group: promoter.argoproj.io\nkind: PromotionStrategy\nversion: v2al---1\n",
    )
    .expect("write");
    let model = kondition_gen::load::load(
        &[dir.join("promotion.yaml")],
        &Profiles::embedded(),
        &Default::default(),
    )
    .expect("a DNS label is a valid version");
    let rust = kondition_gen::emit::rust_single_file(
        &model,
        &kondition_gen::analysis::Plans::new(&model, Default::default()),
        "generated.rs",
    )
    .expect("generates")
    .swap_remove(0)
    .contents;
    assert!(rust.contains("pub mod v2al_1 {"), "{rust}");
    assert!(rust.contains("\"v2al---1\""), "the wire name stays");

    // Two versions that would be one module are refused.
    std::fs::write(
        dir.join("twins.yaml"),
        "group: example.com\nkind: Twin\nversions:\n  - {name: v1-a, storage: true}\n  - {name: v1--a}\n",
    )
    .expect("write");
    let errors = kondition_gen::load::load(
        &[dir.join("twins.yaml")],
        &Profiles::embedded(),
        &Default::default(),
    )
    .expect_err("refused")
    .0;
    assert_eq!(
        errors
            .iter()
            .map(|e| e.message.as_str())
            .collect::<Vec<_>>(),
        ["versions `v1-a` and `v1--a` would both become module `v1_a`; rename one"]
    );
}

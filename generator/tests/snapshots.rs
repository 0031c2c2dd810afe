//! The generated code for the example schemas: `generated/src/` holds the reviewed output,
//! and generating again must give exactly it (the same check `kondition check` runs in CI).

use std::path::{Path, PathBuf};

use kondition_gen::profile::Profiles;

mod layout;

/// The real CRDs in the repository (corpus/SOURCES.md says where each comes from).
const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus");

#[test]
fn the_example_schemas_generate_the_reviewed_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // Paths relative to the repository root, as the CLI's default run sees them.
    std::env::set_current_dir(&root).expect("repository root");
    let files = kondition_gen::inputs::schema_files(&[PathBuf::from("schemas")]).expect("schemas/");
    // Five schema files, and three real CRDs of the corpus (links in schemas/crds/).
    assert_eq!(files.len(), 8, "{files:?}");
    let model = kondition_gen::load::load(&files, &Profiles::embedded(), &Default::default())
        .expect("the examples are valid");
    // Inputs named from the output folder, as `kondition generate` names them.
    let options = kondition_gen::emit::Options {
        inputs_relative_to: Some(PathBuf::from("generated/src")),
    };
    let output = kondition_gen::emit::rust_tree(
        &model,
        &kondition_gen::analysis::Plans::new(&model, Default::default()),
        &options,
    )
    .expect("emits");
    for file in &output {
        let path = Path::new("generated/src").join(&file.path);
        if is_rust(&file.path) {
            layout::assert_laid_out_by_prettyplease(&path.display().to_string(), &file.contents);
        }
        let reviewed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            reviewed == file.contents,
            "{} differs from the generator's output; run `kondition generate` and review the diff",
            path.display()
        );
    }
    let kinds: Vec<&str> = model
        .files
        .iter()
        .flat_map(|f| f.kinds.iter().map(|k| k.kind.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            "Cluster",
            "CompositeResourceDefinition",
            "Prometheus",
            "Database",
            "PromotionStrategy",
            "ChangeTransferPolicy",
            "ResourceGroup",
            "Router",
            "SecurityGroup"
        ]
    );
}

#[test]
fn every_example_schema_points_editors_at_the_format_schema() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    for entry in std::fs::read_dir(dir).expect("schemas/") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let text = std::fs::read_to_string(&path).expect("read");
            assert!(
                text.starts_with("# yaml-language-server: $schema=kondition.schema.json\n"),
                "{} lacks the yaml-language-server line",
                path.display()
            );
        }
    }
}

/// Most of the generated text is written directly (emit/rust/writer.rs); on real CRDs too it
/// must read exactly as prettyplease prints it. Reads every file of the repository's corpus/.
#[test]
fn generated_code_for_real_crds_is_laid_out_as_prettyplease_lays_it_out() {
    let files = kondition_gen::inputs::schema_files(&[PathBuf::from(CORPUS)]).expect("corpus");
    let mut checked = 0;
    for file in files {
        let model = kondition_gen::load::load(
            std::slice::from_ref(&file),
            &Profiles::embedded(),
            &Default::default(),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let outputs = kondition_gen::emit::rust_tree(
            &model,
            &kondition_gen::analysis::Plans::new(&model, Default::default()),
            &Default::default(),
        )
        .expect("emits");
        for output in outputs.iter().filter(|o| is_rust(&o.path)) {
            let name = format!("{} ({})", output.path.display(), file.display());
            layout::assert_laid_out_by_prettyplease(&name, &output.contents);
        }
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} corpus files checked");
}

/// Whether an output file is Rust (the others are the kinds' CRDs as JSON).
fn is_rust(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "rs")
}

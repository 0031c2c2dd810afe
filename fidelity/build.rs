//! Generates one module per CRD file of the corpus (`$KONDITION_CORPUS`, by default the
//! repository's corpus/) with `kondition_gen::Builder`, and an index of them. A corpus folder
//! that is not there fails the build: nothing is skipped.

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=KONDITION_CORPUS");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    let corpus = std::env::var_os("KONDITION_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../corpus"));
    let mut index = String::new();
    if !corpus.is_dir() {
        fail(&format!("no CRD corpus at {}", corpus.display()));
    }
    println!("cargo:rerun-if-changed={}", corpus.display());
    let files = match kondition_gen::inputs::schema_files(std::slice::from_ref(&corpus)) {
        Ok(files) => files,
        // `path: message`, the path the problem is at.
        Err(error) => fail(&error.to_string()),
    };
    let _ = writeln!(
        index,
        "/// The corpus folder.\npub const CORPUS: &str = {:?};",
        corpus.display().to_string()
    );
    let mut entries = String::new();
    for (i, file) in files.iter().enumerate() {
        let name = format!("corpus_{i}.rs");
        if let Err(error) = kondition_gen::Builder::new()
            .schemas([file])
            .out_dir(&out)
            .file_name(&name)
            .generate()
        {
            fail(&error.to_string());
        }
        let relative = file
            .strip_prefix(&corpus)
            .unwrap_or(file)
            .display()
            .to_string();
        // Each kind at each version with its generated type, for the object round trip.
        let model = match kondition_gen::load::load(
            std::slice::from_ref(file),
            &kondition_gen::profile::Profiles::embedded(), &Default::default()) {
            Ok(model) => model,
            Err(error) => fail(&error.to_string()),
        };
        let mut types = String::new();
        for schema_file in &model.files {
            let module = kondition_gen::rust_names::ident_text(&schema_file.module);
            for kind in &schema_file.kinds {
                for version in &kind.versions {
                    let version_module = kondition_gen::rust_names::ident_text(
                        &kondition_gen::rust_names::version_module(&version.name),
                    );
                    let _ = writeln!(
                        types,
                        "        KindVersion {{ kind: {:?}, version: {:?}, round_trip: round_trip::<corpus_{i}::{module}::{version_module}::{}> }},",
                        kind.kind, version.name, kind.kind
                    );
                }
            }
        }
        let _ = writeln!(
            index,
            "/// Generated from `{relative}`.\n#[allow(missing_docs)]\npub mod corpus_{i} {{ include!(concat!(env!(\"OUT_DIR\"), \"/{name}\")); }}"
        );
        let _ = writeln!(
            entries,
            "    CorpusFile {{ path: {relative:?}, crds: corpus_{i}::crds, kinds: &[\n{types}    ] }},"
        );
    }
    let _ = writeln!(
        index,
        "/// Every corpus file with the `crds()` of its generated code.\npub static FILES: &[CorpusFile] = &[\n{entries}];"
    );
    write(&out.join("index.rs"), &index);
}

fn write(path: &std::path::Path, text: &str) {
    if let Err(error) = std::fs::write(path, text) {
        fail(&format!("{}: {error}", path.display()));
    }
}

fn fail(message: &str) -> ! {
    eprintln!("{message}");
    std::process::exit(1);
}

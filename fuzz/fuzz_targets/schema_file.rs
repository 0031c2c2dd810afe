//! The schema loader: any text read as a schema file, then, when accepted, every output
//! generated from it. Nothing may panic, overflow the stack or run away.

#![no_main]

use std::path::Path;

use kondition_gen::model::Model;
use kondition_gen::profile::Profiles;
use kondition_gen::{emit, format, source};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(documents) = source::yaml::parse(text) else {
        return;
    };
    let path = Path::new("fuzz.yaml");
    if let Ok(file) = format::read_documents(path, &documents, &Profiles::embedded()) {
        let model = Model {
            files: vec![file],
            notes: Vec::new(),
        };
        emit_all(&model);
    }
});

/// Every output of an accepted model; the generator's own errors are fine, panics are not.
fn emit_all(model: &Model) {
    let plans = kondition_gen::analysis::Plans::new(model, Default::default());
    let _ = emit::rust_single_file(model, &plans, "kondition.rs");
    let _ = emit::rust_tree(model, &plans, &Default::default());
    let _ = emit::crd_stream(model);
}

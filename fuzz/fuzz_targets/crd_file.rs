//! The CRD front-end: any text read as a CRD file (a YAML stream of CRDs and other
//! documents), then, when accepted, every output generated from it. Nothing may panic,
//! overflow the stack or run away.

#![no_main]

use std::path::Path;

use kondition_gen::emit;
use kondition_gen::model::Model;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok((file, notes)) = kondition_gen::read_crd_text(Path::new("fuzz.yaml"), text) {
        let model = Model {
            files: vec![file],
            notes,
        };
        let _ = emit::rust_single_file(&model, "kondition.rs");
        let _ = emit::crd_stream(&model);
    }
});

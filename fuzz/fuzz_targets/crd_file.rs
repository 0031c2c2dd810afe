//! The CRD front-end: any text read as a CRD file (a YAML stream of CRDs and other
//! documents), then, when accepted, every output generated from it. Nothing may panic,
//! overflow the stack or run away. The text read in pieces on the cores (as a large file
//! is) must give exactly what it gives read whole, and that is what saphyr-parser alone gives
//! (the block reader reads the text, or leaves it to saphyr-parser).

#![no_main]

use std::path::Path;

use kondition_gen::emit;
use kondition_gen::model::Model;
use kondition_gen::source::yaml;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let whole = yaml::parse(text);
    assert_eq!(
        yaml::parse_on_cores_from(text, 0),
        whole,
        "read in pieces and whole"
    );
    assert_eq!(
        whole,
        yaml::parse_by_saphyr(text),
        "read by the block reader and by saphyr-parser"
    );
    if let Ok((file, notes)) = kondition_gen::load::read_crd_text(Path::new("fuzz.yaml"), text) {
        let model = Model {
            files: vec![file],
            notes,
        };
        let plans = kondition_gen::analysis::Plans::new(&model, Default::default());
        let _ = emit::rust_single_file(&model, &plans, "kondition.rs");
        let _ = emit::crd_stream(&model);
    }
});

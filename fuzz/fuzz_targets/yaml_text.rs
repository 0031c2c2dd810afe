//! The YAML reader alone: any text, read by the block reader where it can (saphyr-parser
//! where it cannot), must give exactly what saphyr-parser alone gives: the same nodes at the
//! same places, or the same first error. Fast enough to explore the reader's corners, which
//! crd_file's generation behind each input leaves little time for.

#![no_main]

use kondition_gen::source::yaml;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    assert_eq!(
        yaml::parse(text),
        yaml::parse_by_saphyr(text),
        "read by the block reader and by saphyr-parser"
    );
});

//! Compile-time behaviour of `#[derive(KubeStatus)]`: what must compile, and the exact error
//! (text and span) for each misuse. The expected stderr files were reviewed by hand.

use std::path::Path;

#[test]
fn derive_ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}

/// The cases of `tests/ui/fail/` that make more than one mistake, and how many each makes; every
/// other case makes one.
const MISTAKES: &[(&str, usize)] = &[
    ("invalid_condition_type", 3),
    ("many_errors_at_once", 5),
    ("metav1_fields_held_twice", 3),
    ("misspelt_shape", 2),
    ("wrong_field_types", 2),
    ("wrong_option_types", 2),
];

/// One mistake, one error: nothing that follows from a rejected attribute or field (a
/// missing accessor, trait or bound in the user's code, a second error on the same
/// mistake) is reported. Counted in the expected stderr files that `derive_ui` compares.
#[test]
fn each_mistake_gives_one_error() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/fail");
    let mut cases = 0;
    let mut wrong = Vec::new();
    for entry in std::fs::read_dir(&folder).expect("tests/ui/fail is readable") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_none_or(|ext| ext != "stderr") {
            continue;
        }
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let stderr = std::fs::read_to_string(&path).expect("a readable stderr file");
        let errors = stderr
            .lines()
            .filter(|line| line.starts_with("error:") || line.starts_with("error["))
            .count();
        let expected = MISTAKES
            .iter()
            .find(|(name, _)| *name == stem)
            .map_or(1, |(_, count)| *count);
        if errors != expected {
            wrong.push(format!("{stem}: {errors} errors for {expected} mistakes"));
        }
        cases += 1;
    }
    assert!(cases >= 20, "only {cases} cases in {}", folder.display());
    assert!(wrong.is_empty(), "{wrong:#?}");
}

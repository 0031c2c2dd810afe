//! Compile-time behaviour of `#[derive(KubeStatus)]`: what must compile, and the exact error
//! (text and span) for each misuse. The expected stderr files were reviewed by hand.

#[test]
fn derive_ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("ui/pass/*.rs");
    cases.compile_fail("ui/fail/*.rs");
}

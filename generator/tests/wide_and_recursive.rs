//! Shapes found while fuzzing (fuzz/README.md) that crashed the generator or ran for
//! minutes: types under `types` that contain themselves or chain thousands deep (a stack
//! overflow while the CRD was written), types that double at each level (an exponentially
//! large CRD), a mapping of many keys (a quadratic duplicate-key check), and a misspelt
//! type name of 100,000 characters (a "did you mean" that took 80 GB). Each is now an error
//! at its place; the time and memory each takes are `bench/hostile_inputs.sh`'s figures, not
//! a bound in a test.

use std::path::Path;

use kondition_gen::model::Model;
use kondition_gen::profile::Profiles;
use kondition_gen::{emit, source};

/// Reads `text` as a schema file and, if accepted, writes the Rust and the CRDs, on a
/// 2 MiB stack (what `std::thread::spawn` gives). The errors as `line:col: message`.
fn generate(text: String) -> Result<(String, String), Vec<String>> {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let file = kondition_testkit::schema_file::read(
                Path::new("wide.yaml"),
                &text,
                &Profiles::embedded(),
            )
            .map_err(|errors| {
                errors
                    .0
                    .iter()
                    .map(|e| format!("{}:{}: {}", e.pos.line, e.pos.col, e.message))
                    .collect::<Vec<_>>()
            })?;
            let model = Model {
                files: vec![file],
                notes: Vec::new(),
            };
            let files = emit::rust_single_file(
                &model,
                &kondition_gen::analysis::Plans::new(&model, Default::default()),
                "generated.rs",
            )
            .expect("generates");
            Ok((files[0].contents.clone(), emit::crd_stream(&model)))
        })
        .expect("spawn")
        .join()
        .expect("no panic, no overflow")
}

/// A kind whose spec field `a` is of type `T0`, and the types `T0`.. `T{n-1}`: each an
/// object whose fields `fields` (names) are all of the next type; the last one's are strings.
fn chain(n: usize, fields: &[&str]) -> String {
    let mut text = String::from("group: example.com\nkind: Wide\nversion: v1\nspec:\n");
    text += "  a: {type: T0}\ntypes:\n";
    for i in 0..n {
        let next = if i + 1 < n {
            format!("T{}", i + 1)
        } else {
            "string".to_owned()
        };
        text += &format!("  T{i}:\n    type: object\n    fields:\n");
        for field in fields {
            text += &format!("      {field}: {{type: {next}}}\n");
        }
    }
    text
}

#[test]
fn a_type_that_contains_itself_is_an_error() {
    let itself = "group: example.com\nkind: Wide\nversion: v1\nspec:\n  a: {type: Node}\n\
                  types:\n  Node:\n    type: object\n    fields:\n      next: {type: Node}\n";
    assert_eq!(
        generate(itself.to_owned()).expect_err("recursive"),
        [
            "7:3: type `Node` contains itself (Node → Node): a CRD schema has no references, so it cannot be recursive"
        ]
    );
    // Through a list and a map, from a type no kind uses.
    let through = "group: example.com\nkind: Wide\nversion: v1\nspec:\n  a: {type: string}\n\
                   types:\n  A:\n    type: object\n    fields:\n      b: {type: list, items: B}\n  \
                   B:\n    type: object\n    fields:\n      a: {type: map, values: A}\n";
    assert_eq!(
        generate(through.to_owned()).expect_err("recursive"),
        [
            "7:3: type `A` contains itself (A → B → A): a CRD schema has no references, so it cannot be recursive"
        ]
    );
}

#[test]
fn types_written_out_nest_no_deeper_than_inline_ones() {
    // The kind's field (2 levels) and 63 objects of 2 levels each: 128, what the schema
    // format accepts written inline (tests/limits.rs).
    let (rust, crd) = generate(chain(63, &["x"])).expect("accepted");
    assert!(rust.contains("pub struct T62 {"));
    assert_eq!(crd.matches(" x:\n").count(), 63, "every type written out");
    let errors = generate(chain(64, &["x"])).expect_err("too deep");
    assert_eq!(
        errors,
        [
            "1:1: kind Wide version v1 nests 130 levels deep once the types under `types` it uses are written out (a CRD has no references); at most 128"
        ]
    );
    // A chain of 8,000 types: one error, at the first type of the chain that is too deep,
    // and no stack overflow (on `generate`'s 2 MiB stack). The time is the reading of the
    // file's 32,000 lines: each type's size is computed once, from those of the types it
    // uses, so no time bound is asserted here (one failed on a loaded machine).
    let errors = generate(chain(8_000, &["x"])).expect_err("too deep");
    assert_eq!(
        errors,
        [
            "31747:3: type `T7935` nests 130 levels deep once the types it uses are written out (a CRD has no references); at most 128"
        ]
    );
}

#[test]
fn types_that_double_at_each_level_are_refused_by_size() {
    // Written out, 40 levels of two fields each would be 2^41 schemas.
    let errors = generate(chain(40, &["l", "r"])).expect_err("too large");
    assert_eq!(
        errors,
        [
            "1:1: kind Wide version v1 has 2199023255551 schemas once the types under `types` it uses are written out where each is used (a CRD has no references); at most 200000"
        ]
    );
    // 12 levels are fine: written out, a tree with 2^11 objects at its widest.
    let (_, crd) = generate(chain(12, &["l", "r"])).expect("accepted");
    assert_eq!(crd.matches(" r:\n").count(), (1 << 12) - 1);
}

#[test]
fn a_mapping_of_many_keys_names_the_duplicate_after_the_last_key() {
    // 20,000 keys in one mapping: comparing each with every earlier one took 5.4 s (80,000
    // keys 92 s); the keys are hashed now. How long it takes beside the same keys one to a
    // mapping is `bench/hostile_inputs.sh`'s to show (a ratio of times, which a test on a
    // busy machine cannot rely on); here, that the duplicate is still found, at its place.
    const KEYS: usize = 20_000;
    let mut one_mapping = String::new();
    for i in 0..KEYS {
        one_mapping += &format!("k{i}: {i}\n");
    }
    one_mapping += "k1234: again\n";
    let error = source::yaml::parse(&one_mapping).expect_err("duplicate");
    assert_eq!(error.message, "duplicate key `k1234` (first at line 1235)");
    assert_eq!(error.pos.line, KEYS + 1);
}

#[test]
fn a_very_long_misspelt_type_name_gets_no_suggestion() {
    // The declared name and the use differ in their last character; as explicit keys (`?`)
    // YAML allows keys of any length.
    let declared = format!("A{}", "b".repeat(100_000));
    let used = format!("A{}c", "b".repeat(99_999));
    let text = format!(
        "group: example.com\nkind: Wide\nversion: v1\nspec:\n  a: {{type: {used}}}\n\
         types:\n  ? {declared}\n  : type: object\n    fields:\n      x: {{type: string}}\n"
    );
    let errors = generate(text).expect_err("undeclared");
    assert_eq!(
        errors,
        [format!(
            "5:13: type `{used}` is not declared; declare it under `types`"
        )]
    );
}

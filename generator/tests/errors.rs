//! Bad schemas: each problem reported once, at its line and column, with what to do.

use std::path::Path;

use kondition_gen::profile::Profiles;
use kondition_testkit::schema_file;

/// The diagnostics for `text` read as `bad.yaml`, one line each.
fn errors(text: &str) -> Vec<String> {
    match schema_file::read(Path::new("bad.yaml"), text, &Profiles::embedded()) {
        Ok(_) => Vec::new(),
        Err(diagnostics) => diagnostics.0.iter().map(ToString::to_string).collect(),
    }
}

const GOOD_HEAD: &str = "group: example.com\nkind: Widget\nversion: v1\n";

#[test]
fn a_good_schema_has_no_errors() {
    assert_eq!(
        errors(&format!("{GOOD_HEAD}spec:\n  size: int32\n")),
        Vec::<String>::new()
    );
}

#[test]
fn unknown_field_type() {
    assert_eq!(
        errors(&format!(
            "{GOOD_HEAD}spec:\n  size: int23\n  color: {{type: colour}}\n"
        )),
        [
            "bad.yaml:5:9: unknown type `int23`; did you mean `int32`?",
            "bad.yaml:6:17: unknown type `colour`; expected a built-in type (string, int32, int64, number, boolean, object, map, list, enum, int-or-string, quantity, date-time, raw), a k8s type such as ObjectReference, or a type declared under `types`",
        ]
    );
}

#[test]
fn unknown_key_with_a_suggestion() {
    assert_eq!(
        errors(&format!(
            "{GOOD_HEAD}names:\n  shortName: [w]\nspec:\n  size: {{type: int32, minimun: 1}}\n"
        )),
        [
            "bad.yaml:5:3: unknown key `shortName` in names; did you mean `shortNames`?",
            "bad.yaml:7:23: unknown key `minimun` in a field; did you mean `minimum`?",
        ]
    );
}

#[test]
fn duplicate_kind() {
    let text = format!("{GOOD_HEAD}spec: {{}}\n---\n{GOOD_HEAD}spec: {{}}\n");
    let dir = std::env::temp_dir().join(format!("kondition-dup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("widgets.yaml");
    std::fs::write(&path, text).expect("write");
    let result = kondition_gen::load::load(
        std::slice::from_ref(&path),
        &Profiles::embedded(),
        &Default::default(),
    );
    let lines: Vec<String> = result
        .expect_err("duplicate")
        .0
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        lines,
        [format!(
            "{}:6:1: duplicate kind Widget.example.com (first declared in {})",
            path.display(),
            path.display()
        )]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_enums() {
    assert_eq!(
        errors(&format!(
            "{GOOD_HEAD}spec:\n  mode: {{type: enum, values: [fast, 2]}}\n  level: {{type: enum, values: [low, low]}}\n  none: {{type: enum, values: []}}\n"
        )),
        [
            "bad.yaml:5:37: enum values must be all strings or all integers; this one is an integer (quote it to make it a string)",
            "bad.yaml:6:37: duplicate enum value \"low\"",
            "bad.yaml:7:30: an enum needs at least one value",
        ]
    );
}

#[test]
fn defaults_must_fit_their_type() {
    assert_eq!(
        errors(&format!(
            "{GOOD_HEAD}spec:\n  size: {{type: int32, default: big}}\n  mode: {{type: enum, values: [a, b], default: c}}\n  port: {{type: int32, default: 4294967296}}\n  tags: {{type: list, items: string, default: [1]}}\n"
        )),
        [
            "bad.yaml:5:32: the default does not fit the type: \"big\" is not a 32-bit integer",
            "bad.yaml:6:47: the default does not fit the type: \"c\" is not one of the enum's values",
            "bad.yaml:7:32: the default does not fit the type: 4294967296 is not a 32-bit integer",
            "bad.yaml:8:46: the default does not fit the type: 1 is not a string",
        ]
    );
}

#[test]
fn references_to_undeclared_types() {
    assert_eq!(
        errors(&format!(
            "{GOOD_HEAD}spec:\n  rules: {{type: list, items: Rul}}\n  other: Missing\ntypes:\n  Rule:\n    type: object\n    fields:\n      port: int32\n"
        )),
        [
            "bad.yaml:5:30: type `Rul` is not declared; did you mean `Rule`?",
            "bad.yaml:6:10: type `Missing` is not declared; declare it under `types`",
        ]
    );
}

#[test]
fn profiles_that_do_not_exist() {
    assert_eq!(
        errors(&format!("{GOOD_HEAD}status:\n  profile: asoo\n")),
        ["bad.yaml:5:12: profile `asoo` does not exist; did you mean `aso`?"]
    );
    assert_eq!(
        errors(&format!("{GOOD_HEAD}status:\n  profile: capi\n")),
        [
            "bad.yaml:5:12: profile `capi` does not exist; known profiles: aso, knative, knative_batch, kstatus, orc, standard"
        ]
    );
}

#[test]
fn condition_types_and_reasons_the_api_server_would_reject() {
    let lines = errors(&format!(
        "{GOOD_HEAD}status:\n  conditions:\n    - type: Not Ready\n      reasons: [Fine, not-fine]\n  reasons: [\"1Bad\"]\n"
    ));
    assert_eq!(
        lines,
        [
            format!(
                "bad.yaml:6:13: condition type `Not Ready` would be rejected by the API server: it must match {}",
                kondition::validation::TYPE_PATTERN
            ),
            format!(
                "bad.yaml:7:23: reason `not-fine` would be rejected by the API server: it must match {}",
                kondition::validation::REASON_PATTERN
            ),
            format!(
                "bad.yaml:8:13: reason `1Bad` would be rejected by the API server: it must match {}",
                kondition::validation::REASON_PATTERN
            ),
        ]
    );
}

#[test]
fn kind_level_mistakes() {
    assert_eq!(
        errors("group: example\nkind: widget\nversion: V1\nscope: Global\nspec: {}\n"),
        [
            "bad.yaml:1:8: group `example` must be a lowercase DNS name with at least one dot, such as example.com",
            "bad.yaml:2:7: kind `widget` must be PascalCase: a capital letter, then letters and digits",
            "bad.yaml:3:10: version `V1` must be a lowercase DNS label such as v1 or v2beta1",
            "bad.yaml:4:8: `scope` must be Namespaced or Cluster",
        ]
    );
}

#[test]
fn versions_need_exactly_one_storage_version() {
    assert_eq!(
        errors("group: example.com\nkind: Widget\nversions:\n  - name: v1\n  - name: v2\n"),
        ["bad.yaml:4:3: exactly one version must have `storage: true`; 0 do"]
    );
}

#[test]
fn yaml_syntax_errors_have_a_place() {
    let lines = errors("group: example.com\nkind: [Widget\n");
    assert_eq!(lines.len(), 1);
    assert!(lines[0].starts_with("bad.yaml:"), "{lines:?}");
}

#[test]
fn keys_that_do_not_apply_to_the_type() {
    assert_eq!(
        errors(&format!(
            "{GOOD_HEAD}spec:\n  size: {{type: int32, pattern: '^a$', maxItems: 3}}\n"
        )),
        [
            "bad.yaml:5:23: `pattern` does not apply to type `int32`",
            "bad.yaml:5:39: `maxItems` does not apply to type `int32`",
        ]
    );
}

#[test]
fn types_that_would_share_a_name() {
    assert_eq!(
        errors(&format!(
            "{GOOD_HEAD}spec:\n  ports: {{type: object, fields: {{a: string}}}}\n  port: WidgetSpecPorts\ntypes:\n  WidgetSpecPorts:\n    type: object\n    fields:\n      b: int32\n  WidgetStatus:\n    type: enum\n    values: [a]\n"
        )),
        [
            "bad.yaml:5:17: two types would both be named `WidgetSpecPorts` in the generated code; rename a field, a `name` or a type under `types`",
            "bad.yaml:13:11: two types would both be named `WidgetStatus` in the generated code; rename a field, a `name` or a type under `types`",
        ]
    );
}

#[test]
fn inline_types_named_by_name() {
    // Places with one structure may share a name (`kondition import` writes such names);
    // a different structure under a taken name, a name that is not PascalCase and a name on
    // a type that has none are errors.
    assert_eq!(
        errors(&format!(
            "{GOOD_HEAD}spec:\n  a: {{type: object, name: Shared, fields: {{x: string}}}}\n  b: {{type: object, name: Shared, fields: {{x: string}}}}\n  c: {{type: object, name: Shared, fields: {{y: string}}}}\n  d: {{type: enum, name: lower, values: [p]}}\n  e: {{type: string, name: Text}}\ntypes:\n  Colour: {{type: enum, name: Color, values: [red]}}\n"
        )),
        [
            "bad.yaml:7:13: two types would both be named `Shared` in the generated code; rename a field, a `name` or a type under `types`",
            "bad.yaml:8:25: `name` must be a type name: a capital letter, then letters, digits and `_` (not `Self`)",
            "bad.yaml:9:21: `name` does not apply to type `string`",
            "bad.yaml:11:30: a type under `types` is named by its key (`Colour`); `name` applies to inline types",
        ]
    );
}

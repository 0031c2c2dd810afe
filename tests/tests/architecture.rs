//! docs/ARCHITECTURE.md against the code, for the two crates it lays out in modules, from their
//! sources (nothing here links them; the machinery is `kondition_tests::architecture`).
//!
//! `runtime`: the runtime's modules in layers (the condition model, the tools built on it,
//! the chokepoint on top), the imports between them as the code has them (no circle, and
//! upward only where `UPWARD` says why), the drawing of those imports in the document, every
//! source file described and every file described existing, and no function of the
//! chokepoint (`runtime/src/controller/`) over 80 lines. Imports are read from the product
//! code (comments and `#[cfg(test)]` modules left out): `crate::module::...`,
//! `crate::{a, b::c}`, and a name the crate's root re-exports (`crate::Condition`) counts as
//! an import of the module that defines it, as `lib.rs`'s `pub use` says. `super::` stays
//! inside a module (a folder module's files, or a file's inline modules), so it is no import
//! between modules.
//!
//! `generator`: the generator's stages in the order data flows, the imports between its
//! modules (`crate::...`, and `kondition_gen::...` in the binary) as the document draws them,
//! every module described and every module described existing; and the rules that have one
//! home each, found nowhere else.
//!
//! `KONDITION_BLESS=1 cargo test -p kondition-tests --test architecture` rewrites the
//! drawings of the imports from the code (and fails, so that the next run checks what it
//! wrote).

mod runtime {
    use std::collections::{BTreeMap, BTreeSet};

    use kondition_tests::architecture::{
        Arrows, assert_drawn, block_after, circle, description_gaps, document, folder, functions,
        module_of, names_reached, paths_named, product_code, root_exports, rust_files, section,
    };

    const SRC: &str = "runtime/src";

    /// The marker before the fenced block of the layers.
    const LAYERS_MARK: &str = "<!-- layers: checked by tests/tests/architecture.rs -->";
    /// The marker before the fenced block of the imports.
    const IMPORTS_MARK: &str = "<!-- runtime imports: written by tests/tests/architecture.rs -->";

    /// The imports that run up, from a module to one the layers list above it: at most
    /// three, each with the reason it is there.
    const UPWARD: &[(&str, &str, &str)] = &[(
        "profile",
        "subresources",
        "the orc profile's conditions take the kind's SubResources (SubResourcesReady is one \
         of its condition types), whose aggregation reads owned objects through kstatus, a tool",
    )];

    /// The longest a function of the chokepoint may be, in lines from its `fn` to its
    /// closing brace.
    const LONGEST_CONTROLLER_FUNCTION: usize = 80;

    /// Which module imports which, drawn from the code.
    fn imports() -> Arrows {
        let src = folder(SRC);
        let files = rust_files(&src, &src);
        let modules: BTreeSet<String> = files.iter().map(|f| module_of(f).to_owned()).collect();
        let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
        let exports = root_exports(&lib, &modules);
        let mut arrows = Arrows::new();
        for file in &files {
            let module = module_of(file).to_owned();
            if module == "lib" {
                continue; // the root names every module: it declares them
            }
            let text = std::fs::read_to_string(src.join(file)).expect("read");
            let entry = arrows.entry(module.clone()).or_default();
            for name in names_reached(&product_code(&text), &["crate::"]) {
                let target = if modules.contains(&name) {
                    name
                } else if let Some(owner) = exports.get(&name) {
                    owner.clone()
                } else if name == "Time" {
                    continue; // k8s-openapi's, re-exported
                } else {
                    panic!("{file} names crate::{name}, which is no module and no re-export");
                };
                if target != module {
                    entry.insert(target);
                }
            }
        }
        arrows
    }

    /// The layers as the document lists them (`layer: modules`, lowest first), each module
    /// with its place in the whole order, lowest first.
    fn layers(doc: &str) -> BTreeMap<String, (String, usize)> {
        let mut place = BTreeMap::new();
        for line in block_after(doc, LAYERS_MARK) {
            let (layer, modules) = line
                .split_once(':')
                .unwrap_or_else(|| panic!("a layer line is `layer: modules`: {line}"));
            for module in modules.split_whitespace() {
                let at = place.len();
                let earlier = place.insert(module.to_owned(), (layer.trim().to_owned(), at));
                assert!(earlier.is_none(), "{module} is listed twice");
            }
        }
        place
    }

    #[test]
    fn every_module_is_in_a_layer_and_imports_run_down_but_for_the_listed_ones() {
        let doc = document();
        let arrows = imports();
        let place = layers(&doc);

        let modules: BTreeSet<&String> = arrows.keys().collect();
        let layered: BTreeSet<&String> = place.keys().collect();
        assert_eq!(
            modules, layered,
            "the modules of runtime/src and the layers' modules"
        );

        let mut upward = BTreeSet::new();
        for (module, to) in &arrows {
            for target in to {
                if place[target].1 > place[module].1 {
                    upward.insert((module.as_str(), target.as_str()));
                }
            }
        }
        let allowed: BTreeSet<(&str, &str)> =
            UPWARD.iter().map(|(from, to, _)| (*from, *to)).collect();
        assert!(UPWARD.len() <= 3, "at most three imports may run up");
        assert!(
            UPWARD.iter().all(|(_, _, why)| !why.is_empty()),
            "each upward import says why"
        );
        let unlisted: Vec<_> = upward.difference(&allowed).collect();
        assert!(
            unlisted.is_empty(),
            "imports running up the layers that UPWARD does not list (move what belongs \
             lower): {unlisted:?}"
        );
        let gone: Vec<_> = allowed.difference(&upward).collect();
        assert!(
            gone.is_empty(),
            "UPWARD lists imports the code no longer has: {gone:?}"
        );
    }

    #[test]
    fn no_imports_go_round_in_a_circle() {
        if let Some(circle) = circle(&imports()) {
            panic!("a circle of imports: {}", circle.join(" -> "));
        }
    }

    #[test]
    fn the_document_draws_the_imports_the_code_has() {
        assert_drawn(
            &document(),
            IMPORTS_MARK,
            &imports(),
            "the runtime's imports",
        );
    }

    #[test]
    fn the_document_describes_every_file_and_only_files_that_exist() {
        let doc = document();
        let named = paths_named(section(&doc, "## The runtime", "## The tests"));
        let src = folder(SRC);
        let files = rust_files(&src, &src);
        let (undescribed, missing) = description_gaps(&src, &files, &named);
        assert!(
            undescribed.is_empty(),
            "docs/ARCHITECTURE.md's runtime section does not describe {undescribed:?}"
        );
        assert!(
            missing.is_empty(),
            "docs/ARCHITECTURE.md's runtime section describes {missing:?}, which runtime/src \
             does not have"
        );
    }

    /// The reader of imports itself, on code written for it.
    #[test]
    fn imports_are_read_from_paths_groups_and_root_re_exports() {
        let code = "use crate::{a::B, c, d::{e, f}};\nfn g() { crate::h::i(); x_crate::j(); }\n\
                    // crate::k in a comment\n";
        let names = names_reached(&product_code(code), &["crate::"]);
        let expected: BTreeSet<String> = ["a", "c", "d", "h"].map(String::from).into();
        assert_eq!(names, expected);

        let modules: BTreeSet<String> = ["condition", "wire"].map(String::from).into();
        let lib = "pub use condition::{\n    Condition, Polarity as P,\n};\npub use wire::{crd, \
                   nullable};\npub use other_crate::Thing;\n";
        let exports = root_exports(lib, &modules);
        let expected: BTreeMap<String, String> = [
            ("Condition", "condition"),
            ("P", "condition"),
            ("crd", "wire"),
            ("nullable", "wire"),
        ]
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .into();
        assert_eq!(exports, expected);

        let test_module = "use crate::a;\n#[cfg(test)]\nmod tests {\n    use crate::b;\n}\n";
        let expected: BTreeSet<String> = ["a"].map(String::from).into();
        assert_eq!(
            names_reached(&product_code(test_module), &["crate::"]),
            expected
        );
    }

    /// The chokepoint's functions stay short enough to read whole: a long one is split into
    /// decisions of their own (`plan.rs`, `retry.rs`) and steps that perform them.
    #[test]
    fn no_function_in_the_controller_is_over_80_lines() {
        let base = folder(SRC);
        let mut long = Vec::new();
        for file in rust_files(&base, &base.join("controller")) {
            let text = std::fs::read_to_string(base.join(&file)).expect("read");
            for function in functions(&text) {
                if function.lines > LONGEST_CONTROLLER_FUNCTION {
                    long.push(format!(
                        "runtime/src/{file}:{} fn {}: {} lines",
                        function.line, function.name, function.lines
                    ));
                }
            }
        }
        assert!(
            long.is_empty(),
            "functions of runtime/src/controller/ over {LONGEST_CONTROLLER_FUNCTION} lines \
             (from `fn` to the closing brace):\n{}",
            long.join("\n")
        );
    }
}

mod generator {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::Path;

    use kondition_tests::architecture::{
        Arrows, WORKSPACE, assert_drawn, block_after, circle, description_gaps, document, folder,
        module_of, names_reached, paths_named, product_code, rust_files, section,
    };

    const SRC: &str = "generator/src";

    /// The marker before the fenced block of the stages.
    const STAGES_MARK: &str = "<!-- stages: checked by tests/tests/architecture.rs -->";
    /// The marker before the fenced block of the imports.
    const IMPORTS_MARK: &str = "<!-- imports: written by tests/tests/architecture.rs -->";

    /// The generator's source files that are not unit tests (`tests.rs` files).
    fn source_files() -> Vec<String> {
        let src = folder(SRC);
        rust_files(&src, &src)
            .into_iter()
            .filter(|file| !file.ends_with("/tests.rs"))
            .collect()
    }

    /// Which module imports which, drawn from the code: the crate's top modules a file's
    /// code names, `crate::x`, `crate::{x, y::z}` and, in the binary, `kondition_gen::x`.
    fn imports() -> Arrows {
        let mut arrows = Arrows::new();
        for file in source_files() {
            let text = std::fs::read_to_string(folder(SRC).join(&file)).expect("read");
            let module = module_of(&file).to_owned();
            let named = names_reached(&product_code(&text), &["crate::", "kondition_gen::"]);
            let entry = arrows.entry(module.clone()).or_default();
            entry.extend(named.into_iter().filter(|m| *m != module && m != "self"));
        }
        arrows
    }

    /// The stages as the document lists them: each module with its stage's number.
    fn stages(doc: &str) -> BTreeMap<String, usize> {
        let mut stage_of = BTreeMap::new();
        for line in block_after(doc, STAGES_MARK) {
            let mut words = line.split_whitespace();
            let Some(number) = words.next().and_then(|w| w.parse::<usize>().ok()) else {
                continue;
            };
            // The stage's name, then `:`, then its modules.
            let modules = line
                .split_once(':')
                .map(|(_, modules)| modules)
                .unwrap_or_else(|| panic!("a stage line is `N name: modules`: {line}"));
            for module in modules.split_whitespace() {
                let earlier = stage_of.insert(module.to_owned(), number);
                assert!(earlier.is_none(), "{module} is in two stages");
            }
        }
        stage_of
    }

    #[test]
    fn imports_run_one_way_through_the_stages_the_document_lists() {
        let doc = document();
        let arrows = imports();
        let stage_of = stages(&doc);

        // Every module is in a stage, and every module a stage names exists.
        let modules: BTreeSet<&String> = arrows.keys().collect();
        let staged: BTreeSet<&String> = stage_of.keys().collect();
        assert_eq!(
            modules, staged,
            "the modules of generator/src and the stages' modules"
        );

        // No arrow points to a later stage.
        let mut backwards = Vec::new();
        for (module, to) in &arrows {
            for target in to {
                let Some(&target_stage) = stage_of.get(target) else {
                    // A name at the crate's root (a re-export or a macro) is no module.
                    assert!(
                        !target.starts_with(|c: char| c.is_ascii_lowercase()),
                        "{module} names crate::{target}, which is no module"
                    );
                    continue;
                };
                if target_stage > stage_of[module] {
                    backwards.push(format!("{module} -> {target}"));
                }
            }
        }
        assert!(
            backwards.is_empty(),
            "imports from an earlier stage to a later one: {backwards:?}"
        );

        // No circle, within a stage either.
        if let Some(circle) = circle(&arrows) {
            panic!("a circle of imports: {}", circle.join(" -> "));
        }

        // The drawing of the imports is the code's.
        assert_drawn(&doc, IMPORTS_MARK, &arrows, "the generator's imports");
    }

    #[test]
    fn the_document_describes_every_module_and_only_modules_that_exist() {
        let doc = document();
        let named = paths_named(section(&doc, "## The generator", "## The runtime"));
        let (undescribed, missing) = description_gaps(&folder(SRC), &source_files(), &named);
        assert!(
            undescribed.is_empty(),
            "docs/ARCHITECTURE.md does not describe {undescribed:?}"
        );
        assert!(
            missing.is_empty(),
            "docs/ARCHITECTURE.md describes {missing:?}, which generator/src does not have"
        );
    }

    /// The places in the product code of `crates` (folders of the workspace) where `needle`
    /// is written, beside `home`.
    fn written_beside(needle: &str, home: &str, crates: &[&str]) -> Vec<String> {
        let mut found = Vec::new();
        for krate in crates {
            let base = Path::new(WORKSPACE);
            let files = rust_files(base, &base.join(krate));
            for file in files.iter().filter(|f| !f.ends_with("/tests.rs")) {
                let text = std::fs::read_to_string(base.join(file)).expect("read");
                if file != home && product_code(&text).contains(needle) {
                    found.push(file.clone());
                }
            }
        }
        found
    }

    #[test]
    fn each_rule_is_written_in_its_one_place() {
        let rules: &[(&str, &str, &[&str], &str)] = &[
            (
                "\"standard\"",
                "generator/src/profile.rs",
                &["generator/src"],
                "the default profile's name (profile::DEFAULT)",
            ),
            (
                "did you mean",
                "names/src/suggest.rs",
                &["generator/src", "derive/src", "names/src"],
                "the did-you-mean wording (kondition_names::hint)",
            ),
            (
                "ConditionType\"",
                "names/src/items.rs",
                &["generator/src", "derive/src", "names/src"],
                "the names of a kind's own items (kondition_names::kind_items)",
            ),
            (
                "StatusApply\"",
                "names/src/items.rs",
                &["generator/src", "derive/src", "names/src"],
                "the names of a kind's own items (kondition_names::kind_items)",
            ),
            (
                "\"AnyChange\"",
                "names/src/profile.rs",
                &["generator/src", "derive/src", "names/src", "runtime/src"],
                "the transition rules' names (kondition_names::profile::TransitionRule)",
            ),
            (
                "[A-Za-z0-9_,:]",
                "names/src/api_rules.rs",
                &["generator/src", "derive/src", "names/src", "runtime/src"],
                "the API server's rules for condition types and reasons \
                 (kondition_names::api_rules)",
            ),
            (
                "must be true or false",
                "generator/src/source/reader.rs",
                &["generator/src"],
                "typed reading of a mapping (source::reader::MapReader)",
            ),
            (
                "thread::scope",
                "generator/src/parallel.rs",
                &["generator/src"],
                "work on the cores (parallel)",
            ),
            (
                "doc(hidden)",
                "",
                &["generator/src"],
                "an item public for tests only (the feature `internals` shows the stages \
                 instead)",
            ),
        ];
        let mut elsewhere = Vec::new();
        for (needle, home, crates, rule) in rules {
            for file in written_beside(needle, home, crates) {
                elsewhere.push(format!("{file}: `{needle}`, {rule}, whose place is {home}"));
            }
        }
        assert!(elsewhere.is_empty(), "{elsewhere:#?}");
    }
}

/// The machinery itself, on code written for it.
mod machinery {
    use kondition_tests::architecture::{Arrows, circle, functions};

    #[test]
    fn functions_are_measured_from_fn_to_their_closing_brace() {
        let text = "fn a() {\n    let s = \"}\";\n    let c = '{';\n    // }\n}\n\
                    pub(crate) fn b<'x>(x: &'x str) -> impl Fn(u32) -> u32 {\n    \
                    fn inner() {}\n    |n| n\n}\n\
                    trait T { fn declared(&self); }\n\
                    const R: &str = r#\"fn fake() { \"#;\n\
                    #[cfg(test)]\nmod tests {\n    fn long() {\n\n\n    }\n}\n";
        let found: Vec<(String, usize, usize)> = functions(text)
            .into_iter()
            .map(|f| (f.name, f.line, f.lines))
            .collect();
        let expected = [("a", 1, 5), ("b", 6, 4), ("inner", 7, 1)]
            .map(|(name, line, lines)| (name.to_owned(), line, lines));
        assert_eq!(found, expected);
    }

    #[test]
    fn a_circle_is_found_and_named() {
        let arrows = |pairs: &[(&str, &str)]| {
            let mut arrows = Arrows::new();
            for (from, to) in pairs {
                arrows
                    .entry((*from).to_owned())
                    .or_default()
                    .insert((*to).to_owned());
                arrows.entry((*to).to_owned()).or_default();
            }
            arrows
        };
        assert_eq!(circle(&arrows(&[("a", "b"), ("b", "c"), ("a", "c")])), None);
        assert_eq!(
            circle(&arrows(&[("a", "b"), ("b", "c"), ("c", "b")])),
            Some(["b", "c", "b"].map(String::from).to_vec())
        );
    }
}

//! A CRD schema has no references: every use of a type declared under `types` is written
//! out in full where it is used. So those types may not contain themselves, and written out
//! they must stay within the nesting every other input is held to
//! ([`MAX_DEPTH`]) and within a size ([`MAX_SCHEMAS`]).
//! Without these checks a type that contains itself, or a long chain of types, overflowed
//! the stack while the CRD was written, and types that each use the next twice made it
//! exponentially large.

use std::collections::HashMap;

use crate::model::{Kind, NamedType, Schema, Type};
use crate::source::reader::Sink;
use crate::source::yaml::{MAX_DEPTH, Pos};

/// The most schemas (objects, fields, list items, ...) one kind's CRD may have once its
/// types are written out: about twenty times the largest real CRD seen.
pub const MAX_SCHEMAS: u64 = 200_000;

/// How deep and how large a schema is once written out. The depth is counted as YAML
/// nesting: two levels for an object's field (`fields`/`properties`, then the field), one
/// for a list's items and for a map's values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Size {
    depth: usize,
    schemas: u64,
}

/// Checks the named types of one file and the kinds that use them; `declared` is where
/// each of `named` was declared.
pub fn check(kinds: &[Kind], named: &[NamedType], declared: &[Pos], sink: &Sink) {
    let index: HashMap<&str, usize> = named
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.as_str(), i))
        .collect();
    let uses: Vec<Vec<usize>> = named
        .iter()
        .map(|t| {
            let mut names = Vec::new();
            references(&t.schema, &mut names);
            let mut used: Vec<usize> = names.iter().filter_map(|n| index.get(n).copied()).collect();
            used.sort_unstable();
            used.dedup();
            used
        })
        .collect();
    let Some(order) = order_or_report_cycles(named, declared, &uses, sink) else {
        return;
    };
    let mut sizes: HashMap<&str, Size> = HashMap::new();
    let too_deep = |size: &Size| size.depth > MAX_DEPTH;
    // Only the first type of a chain that is too deep is reported: the types that use it
    // are too deep because of it.
    let mut reported = false;
    for i in order {
        let size = size(&named[i].schema, &sizes);
        let cause = uses[i]
            .iter()
            .all(|&used| !sizes.get(named[used].name.as_str()).is_some_and(too_deep));
        if too_deep(&size) && cause {
            reported = true;
            sink.error(
                declared[i],
                format!(
                    "type `{}` nests {} levels deep once the types it uses are written out (a CRD has no references); at most {MAX_DEPTH}",
                    named[i].name, size.depth
                ),
            );
        }
        sizes.insert(&named[i].name, size);
    }
    for kind in kinds {
        for version in &kind.versions {
            let mut total = Size::default();
            for field in version.body.fields() {
                let field = size(&field.schema, &sizes);
                total.depth = total.depth.max(field.depth.saturating_add(2));
                total.schemas = total.schemas.saturating_add(field.schemas);
            }
            if too_deep(&total) && !reported {
                sink.error(
                    kind.origin.pos,
                    format!(
                        "kind {} version {} nests {} levels deep once the types under `types` it uses are written out (a CRD has no references); at most {MAX_DEPTH}",
                        kind.kind, version.name, total.depth
                    ),
                );
            }
            if total.schemas > MAX_SCHEMAS {
                sink.error(
                    kind.origin.pos,
                    format!(
                        "kind {} version {} has {} schemas once the types under `types` it uses are written out where each is used (a CRD has no references); at most {MAX_SCHEMAS}",
                        kind.kind,
                        version.name,
                        if total.schemas == u64::MAX {
                            "more than 2^64".to_owned()
                        } else {
                            total.schemas.to_string()
                        }
                    ),
                );
            }
        }
    }
}

/// The names of the declared types `schema` uses directly (not through another type).
fn references<'s>(schema: &'s Schema, names: &mut Vec<&'s str>) {
    match &schema.ty {
        Type::Object(object) => {
            for field in &object.fields {
                references(&field.schema, names);
            }
        }
        Type::Map(map) => references(&map.values, names),
        Type::List(list) => references(&list.items, names),
        Type::Named(name) => names.push(name),
        _ => {}
    }
}

/// The types in an order where each comes after every type it uses, or None when some
/// contain themselves, each such cycle reported at the declaration where it was entered.
/// Iterative: a chain of thousands of types must not overflow the stack here either.
fn order_or_report_cycles(
    named: &[NamedType],
    declared: &[Pos],
    uses: &[Vec<usize>],
    sink: &Sink,
) -> Option<Vec<usize>> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        Open,
        Done,
    }
    let mut state = vec![State::New; named.len()];
    let mut order = Vec::with_capacity(named.len());
    let mut cycles = false;
    for root in 0..named.len() {
        if state[root] != State::New {
            continue;
        }
        // The path from `root`: each type with the index of the next use to follow.
        let mut path: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = State::Open;
        while let Some((current, next)) = path.last_mut() {
            let current = *current;
            let Some(&used) = uses[current].get(*next) else {
                state[current] = State::Done;
                order.push(current);
                path.pop();
                continue;
            };
            *next += 1;
            match state[used] {
                State::New => {
                    state[used] = State::Open;
                    path.push((used, 0));
                }
                State::Open => {
                    cycles = true;
                    let start = path.iter().position(|(t, _)| *t == used).unwrap_or(0);
                    let mut chain: Vec<&str> = path[start..]
                        .iter()
                        .map(|(t, _)| named[*t].name.as_str())
                        .collect();
                    chain.push(&named[used].name);
                    sink.error(
                        declared[used],
                        format!(
                            "type `{}` contains itself ({}): a CRD schema has no references, so it cannot be recursive",
                            named[used].name,
                            chain.join(" → ")
                        ),
                    );
                }
                State::Done => {}
            }
        }
    }
    (!cycles).then_some(order)
}

/// How deep and large `schema` is written out, given the sizes of the named types it uses
/// (a type not among them, which was reported already, counts as one schema).
fn size(schema: &Schema, named: &HashMap<&str, Size>) -> Size {
    let leaf = Size {
        depth: 0,
        schemas: 1,
    };
    let nested = |inner: Size, levels: usize| Size {
        depth: inner.depth.saturating_add(levels),
        schemas: inner.schemas.saturating_add(1),
    };
    match &schema.ty {
        Type::Object(object) => object.fields.iter().fold(leaf, |total, field| {
            let field = size(&field.schema, named);
            Size {
                depth: total.depth.max(field.depth.saturating_add(2)),
                schemas: total.schemas.saturating_add(field.schemas),
            }
        }),
        Type::Map(map) => nested(size(&map.values, named), 1),
        Type::List(list) => nested(size(&list.items, named), 1),
        // The use and the declaration are one schema.
        Type::Named(name) => named.get(name.as_str()).copied().unwrap_or(leaf),
        _ => leaf,
    }
}

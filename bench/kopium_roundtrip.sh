#!/usr/bin/env bash
# What kopium keeps of real CRDs: the other tool's side of fidelity/ and of the compile-cost
# figures in BENCHMARKS.md.
#
# For every CRD file of the corpus, runs kopium once (`-A -m`: derived JsonSchema, doc
# comments, the CRD's own labels and annotations), puts every output it accepts into one
# scratch crate under target/kopium-roundtrip (one module per file), builds it (debug), and
# runs it: each root kind's `crd()` is written as out/<file>.json (an array of one CRD), which
# `cd fidelity && cargo run -- --other ../target/kopium-roundtrip/out` scores beside ours.
#
# kopium reads one CRD per run and emits one version: the highest by Kubernetes' ordering
# (GA > beta > alpha), not necessarily the storage one (`--api-version V` picks another).
# Files holding several documents are refused by kopium; they are recorded as "rejected".
# A module that does not compile is recorded as "compile-failed" and left out.
#
# Usage: bash bench/kopium_roundtrip.sh   (KONDITION_CORPUS overrides corpus/)
# Writes target/kopium-roundtrip/summary.tsv; the build figures are for the generated crate
# alone (dependencies built beforehand, incremental compilation off), as /usr/bin/time sees it.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${KONDITION_CORPUS:-corpus}
[ -d "$corpus" ] || { echo "kopium_roundtrip: no CRD corpus at $corpus (set KONDITION_CORPUS)" >&2; exit 1; }
corpus=$(cd "$corpus" && pwd)
[ -x /usr/bin/time ] || { echo "kopium_roundtrip: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

# 1. kopium, pinned, in a private root.
source bench/tools.sh
install_kopium
kopium=$KOPIUM

# 2. The scratch crate: not a member of this workspace ([workspace] of its own); its lock
# starts from ours so kube, k8s-openapi and schemars resolve to the versions the project uses.
work=$PWD/target/kopium-roundtrip
export CARGO_TARGET_DIR=$work/target
rm -rf "$work/src" "$work/out" "$work/logs"
mkdir -p "$work/src" "$work/out" "$work/logs"
cat > "$work/Cargo.toml" <<'TOML'
[package]
name = "kopium-roundtrip"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
k8s-openapi = { version = "0.29", features = ["latest", "schemars"] }
kube = { version = "5", default-features = false, features = ["derive"] }
schemars = "1"
serde = { version = "1", features = ["derive"] }
serde_json = "1"
TOML
[ -f "$work/Cargo.lock" ] || cp Cargo.lock "$work/Cargo.lock"

# 3. kopium once per file. Per file: status, kind, version, Rust type of the root, lines, note.
declare -A status kind api root lines note modname
# A field of kopium's `#[kube(group = "...", version = "...", kind = "...", [root = "...",] ...)]`.
field() { sed -n "s/.* $1 = \"\\([^\"]*\\)\".*/\\1/p" <<< "$attr"; }
mapfile -t files < <(cd "$corpus" && find . -name '*.yaml' | sed 's|^\./||' | LC_ALL=C sort)
for rel in "${files[@]}"; do
  mod=$(printf '%s' "${rel%.yaml}" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9' '_')
  modname[$rel]=$mod
  rs=$work/src/$mod.rs
  echo "kopium -A -m -f $corpus/$rel"
  if "$kopium" -A -m -f "$corpus/$rel" > "$rs" 2> "$work/logs/$mod.kopium.err"; then
    attr=$(grep -m1 '^#\[kube(group = ' "$rs")
    status[$rel]=ok; kind[$rel]=$(field kind); api[$rel]=$(field version)
    root[$rel]=$(field root); root[$rel]=${root[$rel]:-${kind[$rel]}}
    lines[$rel]=$(wc -l < "$rs")
  else
    rm -f "$rs"
    status[$rel]=rejected; lines[$rel]=0
    note[$rel]=$(grep -m1 . "$work/logs/$mod.kopium.err" || echo "kopium exited non-zero")
  fi
done

# main.rs: one module per accepted file; writes each root kind's crd() under OUT_DIR.
write_main() {
  {
    echo '//! Writes each root kind'\''s `crd()` to OUT_DIR/<input file>.json, as an array of one CRD.'
    echo 'use kube::CustomResourceExt;'
    for rel in "${files[@]}"; do
      if [ "${status[$rel]}" = ok ]; then echo "#[allow(warnings)] mod ${modname[$rel]};"; fi
    done
    echo 'fn main() {'
    echo '    let out = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: kopium-roundtrip OUT_DIR"));'
    echo '    let crds = ['
    for rel in "${files[@]}"; do
      if [ "${status[$rel]}" = ok ]; then
        echo "        (\"${rel%.yaml}.json\", ${modname[$rel]}::${root[$rel]}::crd()),"
      fi
    done
    echo '    ];'
    echo '    for (path, crd) in crds {'
    echo '        let file = out.join(path);'
    echo '        std::fs::create_dir_all(file.parent().expect("a folder")).expect("create folder");'
    echo '        let json = serde_json::to_string_pretty(&[crd]).expect("serialize");'
    echo '        std::fs::write(&file, json + "\n").expect("write");'
    echo '    }'
    echo '}'
  } > "$work/src/main.rs"
}

# Build; while it fails, leave out the modules that the errors point at and build again.
cd "$work"
write_main
echo "building $work (debug) ..."
until cargo build --message-format short 2> logs/build.log; do
  failed=$(sed -n 's|^src/\([a-z0-9_]*\)\.rs:[0-9]*:[0-9]*: error.*|\1|p' logs/build.log | sort -u)
  failed=$(grep -vx main <<< "$failed" || true)
  [ -n "$failed" ] || { cat logs/build.log >&2; echo "kopium_roundtrip: build failed outside kopium's modules" >&2; exit 1; }
  for rel in "${files[@]}"; do
    mod=${modname[$rel]}
    if grep -qx "$mod" <<< "$failed"; then
      status[$rel]=compile-failed
      note[$rel]=$(grep -m1 "^src/$mod\.rs:[0-9]*:[0-9]*: error" logs/build.log | cut -d' ' -f2-)
      cp logs/build.log "logs/$mod.build.err"
      echo "kopium_roundtrip: $rel does not compile: ${note[$rel]}" >&2
    fi
  done
  write_main
done

# 4. The figure: the generated crate alone, from clean, dependencies already built.
cargo clean --quiet -p kopium-roundtrip
CARGO_INCREMENTAL=0 /usr/bin/time -f '%e %M' -o logs/build.time cargo build --quiet
read -r wall rss < logs/build.time
# The same setting as the build above, or cargo would build the crate again to run it.
CARGO_INCREMENTAL=0 cargo run --quiet -- "$work/out"

{
  printf 'file\tstatus\tkind\tversion\tlines\tbuild_wall_s\tbuild_peak_rss_kib\tnote\n'
  for rel in "${files[@]}"; do
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rel" "${status[$rel]}" "${kind[$rel]:-}" \
      "${api[$rel]:-}" "${lines[$rel]}" "$wall" "$rss" "${note[$rel]:-}"
  done
} > summary.tsv
column -t -s $'\t' summary.tsv
echo "crate build (debug, alone): ${wall} s wall, ${rss} KiB peak RSS"
echo "kopium's CRDs: $work/out"

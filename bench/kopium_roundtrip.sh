#!/usr/bin/env bash
# kopium's side of FIDELITY.md and of the compile-cost figures in BENCHMARKS.md.
#
# For every CRD file of the corpus, runs kopium once (`-A`: derived schema, docs), puts every
# output that it accepts into one library crate under target/kopium-roundtrip, builds it
# (debug, timed), and has a small binary write each root kind's `crd()` as
# target/kopium-roundtrip/out/<file>.json, which `cd fidelity && cargo run -- --other
# ../target/kopium-roundtrip/out` scores node by node beside kondition's own output.
#
# Usage: bash bench/kopium_roundtrip.sh   (KONDITION_CORPUS overrides ../shared/crds)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
corpus=${KONDITION_CORPUS:-../shared/crds}
[ -d "$corpus" ] || { echo "kopium_roundtrip: no corpus at $corpus" >&2; exit 1; }
corpus=$(cd "$corpus" && pwd)

version=0.24.1
kopium=target/tools/kopium/bin/kopium
if [ ! -x "$kopium" ]; then
  cargo install kopium --version "$version" --locked --root target/tools/kopium
fi

work=target/kopium-roundtrip
rm -rf "$work/src" "$work/out"
mkdir -p "$work/src" "$work/out"
cat > "$work/Cargo.toml" <<TOML
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

summary=$work/summary.tsv
printf 'file\tstatus\tkind\tversion\tlines\n' > "$summary"
lib=$work/src/lib.rs
echo '//! kopium output for the corpus, one module per file.' > "$lib"
entries=""
i=0
while IFS= read -r rel; do
  module="m$i"
  i=$((i + 1))
  if "$kopium" -A -f "$corpus/$rel" > "$work/src/$module.rs" 2> "$work/kopium.err"; then
    kind=$(grep -o 'kind = "[A-Za-z0-9]*"' "$work/src/$module.rs" | head -1 | cut -d'"' -f2)
    api=$(grep -o 'version = "[A-Za-z0-9]*"' "$work/src/$module.rs" | head -1 | cut -d'"' -f2)
    lines=$(wc -l < "$work/src/$module.rs")
    echo "#[allow(missing_docs, clippy::all)] pub mod $module;" >> "$lib"
    entries+="    (\"$rel\", kopium_roundtrip::$module::$kind::crd),"$'\n'
    printf '%s\tok\t%s\t%s\t%s\n' "$rel" "$kind" "$api" "$lines" >> "$summary"
  else
    rm -f "$work/src/$module.rs"
    printf '%s\trejected: %s\t\t\t0\n' "$rel" "$(head -1 "$work/kopium.err")" >> "$summary"
  fi
done < <(cd "$corpus" && find . -name '*.yaml' | sed 's|^\./||' | sort)

cat > "$work/src/main.rs" <<RUST
//! Writes each root kind's crd() as out/<file>.json (an array of one CRD).
use kube::CustomResourceExt as _;
type Crd = k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
const FILES: &[(&str, fn() -> Crd)] = &[
$entries];
fn main() {
    for (path, crd) in FILES {
        let out = std::path::Path::new("out").join(path).with_extension("json");
        std::fs::create_dir_all(out.parent().expect("a folder")).expect("mkdir");
        let json = serde_json::to_string_pretty(&vec![crd()]).expect("serializes");
        std::fs::write(&out, json).expect("write");
    }
}
RUST

cd "$work"
cargo build --quiet 2> build-deps.log || { cat build-deps.log >&2; exit 1; }
# The figure: the generated crate alone, dependencies already built.
touch src/lib.rs
/usr/bin/time -f 'kopium crate: %e s wall, %U s user, %M KiB peak' cargo build --quiet 2>&1 | tail -1 | tee build-time.txt
cargo run --quiet
column -t -s $'\t' summary.tsv
echo "kopium's CRDs: $root/$work/out"

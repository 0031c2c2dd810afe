#!/usr/bin/env bash
# Compile cost of generated code: the Rust kondition writes for the corpus's 25 single-CRD
# files against the Rust kopium writes for the same files, each a library crate of its own
# (every item compiled, as an operator's API crate is), debug build, dependencies built
# beforehand, incremental compilation off. Per round each crate is rebuilt once, in turn
# (bench/measure.py: median wall, CPU and peak memory of the rustc run); then both are
# normalised per 1,000 schema nodes of the CRD versions they emit.
#
#   bash bench/compile_cost.sh [RUNS=5]    (KONDITION_CORPUS overrides corpus/)
#
# Runs bench/kopium_roundtrip.sh first when its crate is not there (kopium's modules that
# compile are taken from it). Takes about 8 minutes per round on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
source bench/tools.sh
find_corpus compile_cost
corpus=$CORPUS
root=$PWD

build_release

roundtrip=$root/target/kopium-roundtrip
[ -f "$roundtrip/summary.tsv" ] || bash bench/kopium_roundtrip.sh
work=$root/target/bench/compile-cost
rm -rf "$work" && mkdir -p "$work/kondition/src" "$work/kopium/src"

# kondition's crate: `kondition generate` over the files kopium was given.
mapfile -t files < <(find "$corpus" -name '*.yaml' ! -name 'crd-all.gen.yaml' ! -name 'capz-vendored-*' | LC_ALL=C sort)
"$KONDITION" generate --out "$work/kondition/src" "${files[@]}" 2> /dev/null
cat > "$work/kondition/Cargo.toml" <<TOML
[package]
name = "compile-kondition"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[lib]
path = "src/lib.rs"

[dependencies]
k8s-openapi = { version = "0.29", default-features = false, features = ["std", "latest"] }
kondition = { path = "$root/runtime" }
kube = { version = "5", default-features = false }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
TOML

# kopium's crate: the modules of kopium_roundtrip.sh that compiled, as a library.
{
  echo '//! kopium 0.24.1 (-A -m) for the corpus files it accepts.'
  while IFS=$'\t' read -r file status _; do
    [ "$status" = ok ] || continue
    mod=$(printf '%s' "${file%.yaml}" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9' '_')
    cp "$roundtrip/src/$mod.rs" "$work/kopium/src/"
    echo "#[allow(warnings)] pub mod $mod;"
  done < <(tail -n +2 "$roundtrip/summary.tsv")
} > "$work/kopium/src/lib.rs"
sed -e 's/^name = "kopium-roundtrip"/name = "compile-kopium"/' "$roundtrip/Cargo.toml" > "$work/kopium/Cargo.toml"
cp "$roundtrip/Cargo.lock" "$work/kopium/Cargo.lock"
cp Cargo.lock "$work/kondition/Cargo.lock"

# Dependencies once; then each measured command rebuilds only the generated crate.
for crate in kondition kopium; do
  (cd "$work/$crate" && CARGO_TARGET_DIR=$work/$crate/target cargo build --quiet 2>&1 | tail -3)
done
rebuild() { echo "cd $work/$1 && touch src/lib.rs && CARGO_INCREMENTAL=0 CARGO_TARGET_DIR=$work/$1/target cargo build --quiet"; }
echo "== compile cost: debug build of the generated crate alone, median of $runs rounds"
python3 bench/measure.py --runs "$runs" --warmup 0 --base kopium \
  "kondition=$(rebuild kondition)" "kopium=$(rebuild kopium)" | tee "$work/measure.md"

# Schema nodes of the CRD versions each crate emits: kondition's CRD constants hold every
# version; kopium's crd() outputs (from kopium_roundtrip.sh) its one version per file.
echo
python3 - "$work" "$roundtrip" <<'PY'
import json, pathlib, re, sys
work, roundtrip = map(pathlib.Path, sys.argv[1:])

def nodes(schema):
    # Schema objects: properties, items, additionalProperties and the branches of
    # oneOf/anyOf/allOf/not, with the root.
    if not isinstance(schema, dict):
        return 0
    n = 1
    for child in (schema.get("properties") or {}).values():
        n += nodes(child)
    for key in ("items", "additionalProperties", "not"):
        n += nodes(schema.get(key))
    for key in ("oneOf", "anyOf", "allOf"):
        for child in schema.get(key) or []:
            n += nodes(child)
    return n

def crd_nodes(crd):
    return sum(nodes(v.get("schema", {}).get("openAPIV3Schema")) for v in crd["spec"]["versions"])

def lines(folder):
    return sum(len(p.read_text().splitlines()) for p in folder.glob("*.rs"))

constant = re.compile(r'pub const \w+_CRD: &str = r(#+)"(.*?)"\1;', re.S)
ours = sum(crd_nodes(json.loads(m.group(2)))
           for p in (work / "kondition/src").glob("*.rs")
           for m in constant.finditer(p.read_text()))
kopium_modules = {p.stem for p in (work / "kopium/src").glob("*.rs")} - {"lib"}
theirs = 0
for p in (roundtrip / "out").rglob("*.json"):
    rel = str(p.relative_to(roundtrip / "out"))[: -len(".json")]
    mod = re.sub(r"[^a-z0-9]", "_", rel.lower())
    if mod in kopium_modules:
        theirs += sum(crd_nodes(crd) for crd in json.loads(p.read_text()))

measured = {}
for line in (work / "measure.md").read_text().splitlines():
    cells = [c.strip() for c in line.strip("|").split("|")]
    if cells[0] in ("kondition", "kopium"):
        measured[cells[0]] = (float(cells[1].split()[0]), float(cells[2].split()[0]), float(cells[3].split()[0]))
print("| | schema nodes | lines of Rust | wall per 1,000 nodes | CPU per 1,000 nodes | peak memory per 1,000 nodes |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for name, count, folder in (("kondition", ours, work / "kondition/src"), ("kopium", theirs, work / "kopium/src")):
    wall, cpu, mem = measured[name]
    k = count / 1000
    print(f"| {name} | {count:,} | {lines(folder):,} | {wall / k:.2f} s | {cpu / k:.2f} s | {mem / k:.0f} MiB |")
PY

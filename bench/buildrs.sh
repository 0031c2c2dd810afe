#!/usr/bin/env bash
# kondition_gen::Builder in an operator's build.rs: what it costs.
#
# 1. A no-op rebuild does not rerun the build script (cargo -v shows the package Fresh and no
#    build-script-build run), while touching a schema does rerun it.
# 2. The marginal clean-build cost of kondition-gen as a build-dependency: two scratch
#    operator crates, the same but for `kondition-gen` in [build-dependencies] and a build.rs
#    generating the repository's schemas/ (the other holds the generated file as source),
#    each built from nothing (fresh target folder, the registry already downloaded),
#    alternating, RUNS rounds (bench/measure.py).
# 3. Beside kube's own: the time cargo spent on each crate in one clean build of the crate
#    with the build-dependency (`cargo build --timings`), summed for kube's crates and for
#    what only kondition-gen brings.
#
#   bash bench/buildrs.sh [RUNS=5]     (about 5 minutes per round on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
root=$PWD
work=$root/target/bench/buildrs
rm -rf "$work" && mkdir -p "$work"

echo "== 1. no-op rebuild of the example crate (generator/examples/buildrs)"
cargo build --quiet -p kondition-example-buildrs
cargo build -v -p kondition-example-buildrs 2> "$work/noop.log"
if grep -q 'kondition-example-buildrs.*build-script-build' "$work/noop.log" \
  || ! grep -q 'Fresh kondition-example-buildrs' "$work/noop.log"; then
  cat "$work/noop.log" >&2
  echo "buildrs: a no-op rebuild ran the build script again" >&2
  exit 1
fi
noop=$(python3 bench/measure.py --runs "$runs" --warmup 1 \
  "noop=cargo build --quiet -p kondition-example-buildrs" | awk -F'|' '/^\| noop/ {print $3}')
echo "no-op rebuild: the package is Fresh, its build script not run; median${noop}"
touch generator/examples/buildrs/schemas/*.yaml
cargo build -v -p kondition-example-buildrs 2> "$work/touched.log"
if grep -q 'Running `.*kondition-example-buildrs.*build-script-build`' "$work/touched.log"; then
  echo "after touching a schema: the build script runs again (as it must)"
else
  cat "$work/touched.log" >&2
  echo "buildrs: touching a schema did not rerun the build script" >&2
  exit 1
fi

echo
echo "== 2. marginal clean-build cost of kondition-gen as a build-dependency"
# An operator's crate: kube with its client, runtime and derive; the kondition runtime the
# generated code needs. `with-gen` generates its types in build.rs; `without` has the same
# generated file checked in.
for variant in without with-gen; do
  dir=$work/$variant
  mkdir -p "$dir/src"
  cp -r schemas "$dir/schemas"
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "operator-$variant"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
k8s-openapi = { version = "0.29", features = ["latest"] }
kondition = { path = "$root/runtime" }
kube = { version = "5", features = ["runtime", "derive"] }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
TOML
  cp Cargo.lock "$dir/Cargo.lock"
done
cat >> "$work/with-gen/Cargo.toml" <<TOML

[build-dependencies]
# As an operator's build script depends on it: without the command line (feature \`cli\`).
kondition-gen = { path = "$root/generator", default-features = false }
TOML
cat > "$work/with-gen/build.rs" <<'RS'
fn main() {
    if let Err(error) = kondition_gen::Builder::new().schemas(["schemas"]).generate() {
        eprintln!("{error}");
        std::process::exit(1);
    }
}
RS
echo 'include!(concat!(env!("OUT_DIR"), "/kondition.rs"));' > "$work/with-gen/src/lib.rs"
# The same code, generated once and checked in.
(cd "$work/with-gen" && cargo build --quiet --offline)
cp "$(ls -t "$work"/with-gen/target/debug/build/operator-with-gen-*/out/kondition.rs | head -1)" "$work/without/src/kondition.rs"
echo 'include!("kondition.rs");' > "$work/without/src/lib.rs"
(cd "$work/without" && cargo build --quiet --offline)

clean_build() { echo "cd $work/$1 && rm -rf target && cargo build --quiet --offline"; }
python3 bench/measure.py --runs "$runs" --warmup 0 --base without \
  "without=$(clean_build without)" "with-gen=$(clean_build with-gen)"

echo
echo "== 3. where the time goes: cargo's time per crate in one clean build of with-gen"
(cd "$work/with-gen" && rm -rf target && cargo build --quiet --offline --timings > /dev/null 2>&1)
python3 - "$work/with-gen/target/cargo-timings/cargo-timing.html" "$work/with-gen/Cargo.lock" <<'PY'
import json, re, sys
html = open(sys.argv[1]).read()
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);", html, re.S).group(1))
total = re.search(r"Total time:</td><td>([0-9.]+)s", html)
groups = {
    "kube's crates (kube, kube-client, kube-core, kube-runtime, kube-derive)": lambda n: n.startswith("kube"),
    "k8s-openapi": lambda n: n == "k8s-openapi",
    "kondition-gen and what only it brings (syn full, prettyplease, saphyr-parser, similar; clap before the cli feature)":
        lambda n: n in ("kondition-gen", "prettyplease", "saphyr-parser", "saphyr-parser-bw", "clap", "clap_builder",
                        "clap_derive", "clap_lex", "similar", "syn", "anstyle", "strsim", "arraydeque", "hashlink"),
    "build script runs (all packages)": None,
}
sums = {name: 0.0 for name in groups}
counts = {name: 0 for name in groups}
for unit in units:
    for name, match in groups.items():
        if match is None:
            if unit.get("target", "").strip() == "build script (run)" or "run-custom-build" in unit.get("mode", ""):
                sums[name] += unit["duration"]; counts[name] += 1
        elif match(unit["name"]):
            sums[name] += unit["duration"]; counts[name] += 1
print(f"clean build wall: {total.group(1) if total else '?'} s; sum of all units: {sum(u['duration'] for u in units):.1f} s")
print("| crates | units | time (summed per unit) |")
print("| --- | ---: | ---: |")
for name in groups:
    print(f"| {name} | {counts[name]} | {sums[name]:.1f} s |")
PY

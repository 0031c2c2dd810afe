#!/usr/bin/env bash
# Compile cost of generated code: the Rust kondition writes against the Rust kopium writes for
# the same CRDs, side by side in one run, for two crates:
#
# - corpus: the corpus's 25 single-CRD files (every file kopium accepts and compiles);
# - prometheus: prometheus-operator's Prometheus CRD alone (one large kind).
#
# Each is a library crate of its own (every item compiled, as an operator's API crate is):
# kondition's output as `kondition generate` writes it by default, the same with every derive
# that can be left out left out (`--without-derive PartialEq,Eq,Hash,Default`, "lean"), and
# kopium's (bench/kopium_roundtrip.sh's modules). Debug build of the generated crate alone,
# dependencies built beforehand, incremental compilation off. All six commands run once per
# round, in turn, the order turning each round (bench/measure.py); the ratios are taken per
# round and their median reported. Then the figures per 1,000 schema nodes of the CRD
# versions each crate holds (kondition: every version; kopium: one per file).
#
#   bash bench/compile_cost.sh [RUNS=6]    (KONDITION_CORPUS overrides corpus/)
#
# Runs bench/kopium_roundtrip.sh first when its crate is not there (kopium's modules that
# compile are taken from it). A round takes about 8 minutes on 2 cores; give RUNS as a
# multiple of 6 for every command to start a round as often (any number works).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-6}
source bench/tools.sh
find_corpus compile_cost
corpus=$CORPUS
root=$PWD
lean=PartialEq,Eq,Hash,Default
prometheus_file=prometheus-operator/monitoring.coreos.com_prometheuses.yaml

build_release

roundtrip=$root/target/kopium-roundtrip
[ -f "$roundtrip/summary.tsv" ] || bash bench/kopium_roundtrip.sh
work=$root/target/bench/compile-cost
rm -rf "$work"
mkdir -p "$work"

# A library crate of kondition's output: `kondition generate` with `$3...` over the files `$2`
# (a file listing paths), into $work/$1; its package is compile-$1.
kondition_crate() {
  local name=$1 list=$2
  shift 2
  mkdir -p "$work/$name/src"
  mapfile -t inputs < "$list"
  "$KONDITION" generate "$@" --out "$work/$name/src" "${inputs[@]}" 2> /dev/null
  cat > "$work/$name/Cargo.toml" <<TOML
[package]
name = "compile-$name"
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
  cp Cargo.lock "$work/$name/Cargo.lock"
}

# A library crate of kopium's modules (from kopium_roundtrip.sh, those that compiled) for the
# corpus files `$2` lists (relative to the corpus), into $work/$1; its package is compile-$1.
kopium_crate() {
  local name=$1 list=$2
  mkdir -p "$work/$name/src"
  {
    echo '//! kopium 0.24.1 (-A -m) for the corpus files it accepts.'
    while IFS=$'\t' read -r file status _; do
      [ "$status" = ok ] && grep -qxF "$file" "$list" || continue
      mod=$(printf '%s' "${file%.yaml}" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9' '_')
      cp "$roundtrip/src/$mod.rs" "$work/$name/src/"
      echo "#[allow(warnings)] pub mod $mod;"
    done < <(tail -n +2 "$roundtrip/summary.tsv")
  } > "$work/$name/src/lib.rs"
  sed -e "s/^name = \"kopium-roundtrip\"/name = \"compile-$name\"/" "$roundtrip/Cargo.toml" > "$work/$name/Cargo.toml"
  cp "$roundtrip/Cargo.lock" "$work/$name/Cargo.lock"
}

# The inputs: kopium is given the corpus's files one by one; the bundles it refuses are left out.
reference_files "$corpus" > "$work/corpus.files"
grep -qxF "$prometheus_file" "$work/corpus.files" || { echo "compile_cost: no $prometheus_file in $corpus" >&2; exit 1; }
echo "$prometheus_file" > "$work/prometheus.files"
for set in corpus prometheus; do
  sed "s|^|$corpus/|" "$work/$set.files" > "$work/$set.paths"
  kondition_crate "$set" "$work/$set.paths"
  kondition_crate "$set-lean" "$work/$set.paths" --without-derive "$lean"
  kopium_crate "kopium-$set" "$work/$set.files"
done

# Dependencies once per target folder (kondition's crates share one, kept between runs;
# kopium's use kopium_roundtrip.sh's, which has them built already), each crate built with an
# empty lib.rs so that only its dependencies are; then each measured command rebuilds only
# its generated crate.
target() {
  case $1 in
    kopium-*) echo "$roundtrip/target" ;;
    *) echo "$root/target/bench/compile-cost-target" ;;
  esac
}
crates=(corpus corpus-lean kopium-corpus prometheus prometheus-lean kopium-prometheus)
for crate in "${crates[@]}"; do
  (
    cd "$work/$crate"
    mv src/lib.rs src/lib.rs.generated
    : > src/lib.rs
    CARGO_TARGET_DIR=$(target "$crate") cargo build --quiet 2>&1 | tail -3
    mv src/lib.rs.generated src/lib.rs
  )
done
rebuild() { echo "cd $work/$1 && touch src/lib.rs && CARGO_INCREMENTAL=0 CARGO_TARGET_DIR=$(target "$1") cargo build --quiet"; }
commands=()
for crate in "${crates[@]}"; do commands+=("$crate=$(rebuild "$crate")"); done
echo "== compile cost: debug build of each generated crate alone, $runs rounds"
python3 bench/measure.py --runs "$runs" --warmup 0 --base kopium-corpus --tsv "$work/rounds.tsv" \
  "${commands[@]}" > "$work/measure.md"

# Per round: each kondition crate against kopium's for the same CRDs, and lean against the
# default; the median of those ratios. Then the schema nodes of the CRD versions each crate
# emits: kondition's CRD files hold every version; kopium's crd() outputs (from
# kopium_roundtrip.sh) its one version per file.
python3 - "$work" "$roundtrip" "$runs" <<'PY'
import collections, json, pathlib, re, statistics, sys
work, roundtrip = map(pathlib.Path, sys.argv[1:3])
runs = int(sys.argv[3])

rounds = collections.defaultdict(dict)
for line in (work / "rounds.tsv").read_text().splitlines()[1:]:
    r, label, wall, cpu, peak = line.split("\t")
    rounds[int(r)][label] = (float(wall), float(cpu), int(peak) / 1024)

def median(label, k):
    return statistics.median(m[label][k] for m in rounds.values())

def ratio(label, base, k):
    return statistics.median(m[label][k] / m[base][k] for m in rounds.values())

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

def kondition_nodes(crate):
    return sum(crd_nodes(json.loads(p.read_text())) for p in (work / crate / "src").glob("*_crd.json"))

def kopium_nodes(crate):
    modules = {p.stem for p in (work / crate / "src").glob("*.rs")} - {"lib"}
    total = 0
    for p in (roundtrip / "out").rglob("*.json"):
        rel = str(p.relative_to(roundtrip / "out"))[: -len(".json")]
        if re.sub(r"[^a-z0-9]", "_", rel.lower()) in modules:
            total += sum(crd_nodes(crd) for crd in json.loads(p.read_text()))
    return total

print(f"median of {runs} rounds; ratios per round, then their median\n")
print("| crate | generated by | wall | CPU | peak memory | wall ratio to kopium | CPU ratio | memory ratio |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for crate in ("corpus", "prometheus"):
    base = f"kopium-{crate}"
    for label, who in ((crate, "kondition"), (f"{crate}-lean", "kondition, lean"), (base, "kopium 0.24.1")):
        cells = [f"{median(label, 0):.1f} s", f"{median(label, 1):.1f} s", f"{median(label, 2):,.0f} MiB"]
        cells += [f"{ratio(label, base, k):.2f}x" for k in range(3)]
        print(f"| {crate} | {who} | " + " | ".join(cells) + " |")
print()
print("| crate | lean against kondition's default: wall | CPU | memory |")
print("| --- | ---: | ---: | ---: |")
for crate in ("corpus", "prometheus"):
    cells = [f"{ratio(f'{crate}-lean', crate, k):.2f}x" for k in range(3)]
    print(f"| {crate} | " + " | ".join(cells) + " |")
print()
print("| crate | generated by | schema nodes | lines of Rust | wall per 1,000 nodes | CPU per 1,000 nodes | peak memory per 1,000 nodes |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
for crate in ("corpus", "prometheus"):
    for label, who, count in (
        (crate, "kondition", kondition_nodes(crate)),
        (f"{crate}-lean", "kondition, lean", kondition_nodes(f"{crate}-lean")),
        (f"kopium-{crate}", "kopium 0.24.1", kopium_nodes(f"kopium-{crate}")),
    ):
        k = count / 1000
        print(
            f"| {crate} | {who} | {count:,} | {lines(work / label / 'src'):,} | {median(label, 0) / k:.2f} s"
            f" | {median(label, 1) / k:.2f} s | {median(label, 2) / k:.0f} MiB |"
        )
PY

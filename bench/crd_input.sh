#!/usr/bin/env bash
# CRD input before and after issue 16 (k8s-openapi types by structure, one type per structure
# across versions, kinds and files, short names), side by side in one run:
#
# - struct definitions and lines of Rust code (../shared/tools/rust_code_lines.py's count:
#   neither the CRD's text, nor comments, docs or blank lines) for the Prometheus CRD of
#   prometheus-operator, for Azure Service Operator's bundle, and for the corpus's 25
#   single-CRD files (as bench/compile_cost.sh takes them);
# - the time to compile the generated crate of the Prometheus CRD and of the corpus (debug
#   build of that crate alone, dependencies built beforehand, incremental compilation off;
#   bench/measure.py, the two alternating, median of RUNS rounds).
#
#   bash bench/crd_input.sh [RUNS=3] [BEFORE=312583b]
#
# BEFORE is the revision to compare with (default: main before issue 16). Both generators
# are built from their revisions (debug builds: only their output is compared).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
before=${2:-312583b}
root=$PWD
work=$root/target/bench/crd-input
rm -rf "$work" && mkdir -p "$work"
source bench/tools.sh
find_corpus crd_input
corpus=$CORPUS
count_lines=${KONDITION_LINE_COUNTER:-$root/../shared/tools/rust_code_lines.py}

# The generator at BEFORE, in a worktree of its own; the one of this checkout.
git worktree remove --force "$work/before-src" 2> /dev/null || true
git worktree add --quiet --detach "$work/before-src" "$before"
(cd "$work/before-src" && CARGO_TARGET_DIR=$root/target/bench/before-target \
  cargo build --quiet --locked -p kondition-gen --bin kondition)
cargo build --quiet --locked -p kondition-gen --bin kondition
declare -A generator=([before]=$root/target/bench/before-target/debug/kondition [after]=$root/target/debug/kondition)

prometheus=$corpus/prometheus-operator/monitoring.coreos.com_prometheuses.yaml
aso=$corpus/azure-service-operator/capz-vendored-aso-v2.16.0-crds.yaml
# The corpus as compile_cost.sh takes it: the 25 files whose kinds appear once (the ASO
# bundle repeats kinds of the extracted files, and istio's bundle is the only other).
mapfile -t all < <(reference_files "$corpus" | sed "s|^|$corpus/|")

manifest() {
  cat > "$1/Cargo.toml" <<TOML
[package]
name = "crd-input-$2"
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
  cp "$root/Cargo.lock" "$1/Cargo.lock"
}

echo "| input | revision | struct definitions | lines of Rust code |"
echo "| --- | --- | ---: | ---: |"
for input in prometheus aso corpus; do
  case $input in
    prometheus) files=("$prometheus") ;;
    aso) files=("$aso") ;;
    corpus) files=("${all[@]}") ;;
  esac
  for side in before after; do
    dir=$work/$input-$side
    mkdir -p "$dir/src"
    "${generator[$side]}" generate --out "$dir/src" "${files[@]}" 2> /dev/null
    manifest "$dir" "$input-$side"
    structs=$(cat "$dir"/src/*.rs | grep -c '^ *pub struct ' || true)
    lines=$(python3 "$count_lines" "$dir/src" | tail -1 | grep -o '^[0-9]*')
    echo "| $input | $side | $structs | $lines |"
  done
done

# One target folder: the dependencies are built once (the first build), then each measured
# command rebuilds only its generated crate.
for input in prometheus corpus; do
  for side in before after; do
    (cd "$work/$input-$side" && CARGO_TARGET_DIR=$work/target cargo build --quiet 2>&1 | tail -3)
  done
done
rebuild() { echo "cd $work/$1 && touch src/lib.rs && CARGO_INCREMENTAL=0 CARGO_TARGET_DIR=$work/target cargo build --quiet"; }
for input in prometheus corpus; do
  echo
  echo "== $input: debug build of the generated crate alone, median of $runs rounds"
  python3 bench/measure.py --runs "$runs" --warmup 0 --base before \
    "before=$(rebuild "$input-before")" "after=$(rebuild "$input-after")"
done
git worktree remove --force "$work/before-src"

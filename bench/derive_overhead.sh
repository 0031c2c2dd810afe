#!/usr/bin/env bash
# Build-time overhead of #[derive(KubeStatus)]: one crate with N CustomResource kinds, each
# as an operator writes it (a spec of seven fields with a nested struct, a list of structs
# and an enum; a status of four fields; serde and schemars derives), built with and without
# the derive on every status. Dependencies are built once first; each measured build
# recompiles only the bench crate (incremental compilation off), alternating the two
# variants, RUNS times each. Prints the median of each and their ratio.
#
#   bash bench/derive_overhead.sh [KINDS=100] [RUNS=5]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kinds=${1:-100}
runs=${2:-5}
dir="$root/target/bench/derive-overhead"
mkdir -p "$dir/src"

cat > "$dir/Cargo.toml" <<TOML
[package]
name = "derive-overhead"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[features]
derive = []

[dependencies]
k8s-openapi = { version = "0.29", features = ["latest", "schemars"] }
kondition = { path = "$root/runtime" }
kube = { version = "5", default-features = false, features = ["derive"] }
schemars = "1"
serde = { version = "1", features = ["derive"] }
serde_json = "1"
TOML
cp "$root/Cargo.lock" "$dir/Cargo.lock"

{
  echo "#![allow(missing_docs)]"
  echo "use kondition::Conditions;"
  echo "use kube::CustomResource;"
  echo "use schemars::JsonSchema;"
  echo "use serde::{Deserialize, Serialize};"
  for i in $(seq 1 "$kinds"); do
    cat <<RS

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(group = "bench.example.com", version = "v1", kind = "Kind$i", namespaced, status = "Kind${i}Status")]
#[serde(rename_all = "camelCase")]
pub struct Kind${i}Spec {
    pub size: i32,
    pub image: String,
    pub replicas: Option<i32>,
    pub labels: std::collections::BTreeMap<String, String>,
    pub ports: Vec<Kind${i}Port>,
    pub resources: Option<Kind${i}Resources>,
    pub mode: Option<Kind${i}Mode>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Kind${i}Port {
    pub name: String,
    pub port: i32,
    pub protocol: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Kind${i}Resources {
    pub cpu: Option<String>,
    pub memory: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Kind${i}Mode {
    Eager,
    Lazy,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "derive", derive(kondition::KubeStatus), kondition(resource = Kind$i, conditions(Ready, SubResourcesReady)))]
#[serde(rename_all = "camelCase")]
pub struct Kind${i}Status {
    #[serde(default)]
    pub conditions: Conditions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    pub endpoint: Option<String>,
    pub ready_replicas: Option<i32>,
}
RS
  done
} > "$dir/src/lib.rs"

cd "$dir"
export CARGO_INCREMENTAL=0
echo "building dependencies once..." >&2
cargo build --quiet
cargo build --quiet --features derive

# Prints "wall cpu" seconds of one rebuild of the bench crate; CPU time (user + sys of the
# whole cargo process tree) is steadier than wall time on a shared machine.
measure() {
  touch src/lib.rs
  /usr/bin/time -f "%e %U %S" -o "$dir/time.txt" cargo build --quiet "$@"
  awk '{ printf "%.2f %.2f", $1, $2 + $3 }' "$dir/time.txt"
}

wall_without=(); cpu_without=(); wall_with=(); cpu_with=()
for _ in $(seq 1 "$runs"); do
  read -r wall cpu <<<"$(measure)"; wall_without+=("$wall"); cpu_without+=("$cpu")
  read -r wall cpu <<<"$(measure --features derive)"; wall_with+=("$wall"); cpu_with+=("$cpu")
done

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
report() {
  local label=$1; shift
  local n=$(( $# / 2 ))
  local without=("${@:1:n}") with=("${@:n+1}")
  local a b
  a=$(median "${without[@]}"); b=$(median "${with[@]}")
  echo "$label without derive: ${without[*]} -> median ${a}s"
  echo "$label with derive:    ${with[*]} -> median ${b}s"
  awk -v a="$a" -v b="$b" -v l="$label" 'BEGIN { printf "%s overhead: %.1f%%\n", l, (b / a - 1) * 100 }'
}
# Runs alternate, so each pair shares the machine's conditions: the median of the per-pair
# ratios is the steadiest figure on a noisy machine.
pair_ratios() {
  local n=$(( $# / 2 ))
  local without=("${@:1:n}") with=("${@:n+1}") ratios=()
  for k in $(seq 0 $(( n - 1 ))); do
    ratios+=("$(awk -v a="${without[k]}" -v b="${with[k]}" 'BEGIN { printf "%.3f", b / a }')")
  done
  local m
  m=$(median "${ratios[@]}")
  echo "per-pair cpu ratios: ${ratios[*]} -> median $m ($(awk -v r="$m" 'BEGIN { printf "%.1f%%", (r - 1) * 100 }') overhead)"
}
echo "kinds: $kinds, runs: $runs (debug build of the bench crate only)"
report "cpu " "${cpu_without[@]}" "${cpu_with[@]}"
report "wall" "${wall_without[@]}" "${wall_with[@]}"
pair_ratios "${cpu_without[@]}" "${cpu_with[@]}"

#!/usr/bin/env bash
# Generation on one core (issue 48): a build script gets about one core while cargo compiles
# other crates. Every command pinned to CPU 0 (`taskset -c 0`), side by side in the same
# rounds (bench/measure.py, order turning each round), on the 25 single-CRD files of
# bench/generation.sh:
#
#   serde_yaml   the parse floor as the issue measures it (bench/floor-serde-yaml)
#   own_reader   kondition's own YAML reader alone (`parse_floor tree`), for scale
#   cli          `kondition generate` into a fresh folder
#   builder      `kondition_gen::Builder` into a fresh folder, as an operator's build script
#                runs it (generator/examples/builder_run.rs, release build: the system
#                allocator, no CLI)
#   kopium       kopium 0.24.1, once per file, as bench/generation.sh runs it
#
#   bash bench/one_core.sh [RUNS=7] [CPUS=0]
#
# CPUS is taskset's list (`0,1` gives the two-core figures of the same commands). With
# ONE_CORE_BEFORE=DIR, DIR/kondition and DIR/builder_run (an earlier commit's release
# builds of the binary and of generator/examples/builder_run.rs) run in the same rounds as
# `cli_before` and `builder_before`.
#
# Ratios are per round against serde_yaml and against kopium; CPU is user + sys of the
# command and its children (wait4). Builds what it needs in release.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
cpu=${2:-0}
source bench/tools.sh
find_corpus one_core

build_release
cargo build --quiet --release --locked -p kondition-gen --example builder_run
BUILDER=$PWD/target/release/examples/builder_run
build_serde_yaml_floor
install_kopium

mapfile -t files < <(reference_files "$CORPUS" | sed "s|^|$CORPUS/|")
[ "${#files[@]}" -eq 25 ] || echo "one_core: note: ${#files[@]} files, not the 25 of the reference corpus" >&2
work=$PWD/target/bench/one_core
rm -rf "$work" && mkdir -p "$work/kopium"
printf '%s\n' "${files[@]}" > "$work/files.txt"
list=$(printf '%q ' "${files[@]}")
pin="taskset -c $cpu"
before=()
if [ -n "${ONE_CORE_BEFORE:-}" ]; then
  before=("cli_before=rm -rf $work/cli_before && $pin $ONE_CORE_BEFORE/kondition generate --out $work/cli_before $list"
    "builder_before=rm -rf $work/builder_before && $pin $ONE_CORE_BEFORE/builder_run $work/builder_before $list")
fi
kopium_loop="while read -r f; do $pin $KOPIUM -A -m -f \"\$f\" > \"$work/kopium/\$(basename \"\$f\" .yaml).rs\"; done < $work/files.txt"

echo "== pinned to CPU $cpu: ${#files[@]} files, median of $runs rounds; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 bench/measure.py --runs "$runs" --base serde_yaml --base kopium \
  "serde_yaml=$pin $FLOOR_SERDE_YAML $list" \
  "own_reader=$pin $FLOOR tree $list" \
  "cli=rm -rf $work/cli && $pin $KONDITION generate --out $work/cli $list" \
  "builder=rm -rf $work/builder && $pin $BUILDER $work/builder $list" \
  "${before[@]}" \
  "kopium=$kopium_loop"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
# The same output, whichever way it was made.
if [ -n "${ONE_CORE_BEFORE:-}" ]; then
  diff -r "$work/cli" "$work/cli_before" > /dev/null || { echo "one_core: cli_before's output differs" >&2; exit 1; }
  diff -r "$work/builder" "$work/builder_before" > /dev/null || { echo "one_core: builder_before's output differs" >&2; exit 1; }
fi

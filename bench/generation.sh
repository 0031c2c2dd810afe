#!/usr/bin/env bash
# Generation throughput: `kondition generate` over the corpus's 25 single-CRD files (all
# but the Istio and ASO bundles) in one process, against kopium run once per file, and
# against only reading the same YAML into values (the parse floor every generator pays):
# with kondition's own reader (`floor`), and with serde_yaml as issue 28 measured it
# (`serde_yaml`).
# Then each of those files over 1 MB on its own, and where kondition's time goes, stage by
# stage.
#
#   bash bench/generation.sh [RUNS=5]    (KONDITION_CORPUS overrides corpus/)
#
# Builds the release binaries; installs kopium 0.24.1 into target/tools/kopium (once).
# Each round runs the three commands in turn (bench/measure.py); ratios are per round.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
source bench/tools.sh
find_corpus generation
corpus=$CORPUS

build_release
build_serde_yaml_floor
install_kopium

mapfile -t files < <(reference_files "$corpus" | sed "s|^|$corpus/|")
[ "${#files[@]}" -eq 25 ] || echo "generation: note: ${#files[@]} files, not the 25 of the reference corpus" >&2
bytes=$(cat "${files[@]}" | wc -c)
work=$PWD/target/bench/generation
rm -rf "$work" && mkdir -p "$work/kopium"

# kopium writes one version of one CRD per run; the loop writes each to a file, as a
# project would. kondition writes every version of every file, into a fresh folder (it
# leaves unchanged files alone, which would flatter it from the second round on).
printf '%s\n' "${files[@]}" > "$work/files.txt"
kopium_loop="while read -r f; do $KOPIUM -A -m -f \"\$f\" > \"$work/kopium/\$(basename \"\$f\" .yaml).rs\"; done < $work/files.txt"
list=$(printf '%q ' "${files[@]}")

echo "== generation: ${#files[@]} files, $bytes bytes of YAML, median of $runs rounds"
python3 bench/measure.py --runs "$runs" --base floor --base serde_yaml --base kopium \
  "floor=$FLOOR tree $list" \
  "serde_yaml=$FLOOR_SERDE_YAML $list" \
  "kondition=rm -rf $work/out && $KONDITION generate --out $work/out $list" \
  "kopium=$kopium_loop"

# One file is read and emitted on one core, so the largest single files are where kondition
# is furthest from the floor: each file of the 25 over 1 MB on its own, the same three ways.
for f in "${files[@]}"; do
  size=$(wc -c < "$f")
  [ "$size" -gt 1000000 ] || continue
  name=$(basename "$f" .yaml)
  echo
  echo "== one file: ${f#"$corpus"/} ($size bytes), median of $runs rounds"
  python3 bench/measure.py --runs "$runs" --base floor --base serde_yaml --base kopium \
    "floor=$FLOOR tree $(printf '%q' "$f")" \
    "serde_yaml=$FLOOR_SERDE_YAML $(printf '%q' "$f")" \
    "kondition=rm -rf $work/one && $KONDITION generate --out $work/one $(printf '%q' "$f")" \
    "kopium=$KOPIUM -A -m -f $(printf '%q' "$f") > $work/kopium/$name.rs"
done

echo
echo "== output"
echo "kondition: $(cat "$work"/out/*.rs | wc -l) lines in $(ls "$work"/out | wc -l) files, every version of every kind"
echo "kopium:    $(cat "$work"/kopium/*.rs | wc -l) lines in $(ls "$work"/kopium | wc -l) files, one version per file"

echo
echo "== where kondition's time goes (one run)"
"$FLOOR" stages "${files[@]}"

#!/usr/bin/env bash
# Cold builds of the `kondition` crate alone at two revisions, interleaved, and its crate
# counts (issue 46: the default build without `regex`; counts and cold build times before
# and after, with default features and with `controller`).
#
#   bash bench/cold_build.sh BEFORE_TREE AFTER_TREE [RUNS]
#
# BEFORE_TREE and AFTER_TREE are worktrees (paths). For each run, for each feature set
# (default, `--features controller`), `cargo build -p kondition` in BEFORE_TREE then in
# AFTER_TREE, each into a fresh CARGO_TARGET_DIR (removed afterwards), timed by GNU time:
# wall seconds, CPU seconds (user + system) and peak RSS of cargo and its children. The
# dependencies' sources come from cargo's registry cache (--offline: nothing is downloaded,
# so network time is not measured). Lines "SIDE FEATURES RUN wall cpu" go to stdout and
# $OUT (default target/cold_build.txt). A benchmark, not a test: not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 2 ]] || { sed -n '6p' "$0" >&2; exit 2; }
before=$(cd "$1" && pwd)
after=$(cd "$2" && pwd)
runs=${3:-2}
out=${OUT:-$PWD/target/cold_build.txt}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/kondition-cold.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# Crate counts: each crate of `cargo tree -e normal` once (kondition itself included), and
# whether `regex` is among them.
for side in before after; do
  for features in default controller; do
    flags=()
    [[ $features == default ]] || flags=(--features "$features")
    crates=$(cd "${!side}" && cargo tree --offline -p kondition -e normal "${flags[@]}" \
      --prefix none | sed 's/ (\*)$//; s/ (proc-macro)$//' | sort -u)
    echo "crates $side $features $(grep -c . <<<"$crates") regex=$(grep -c '^regex ' <<<"$crates" || true)" |
      tee -a "$out"
  done
done

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out"
for run in $(seq "$runs"); do
  for features in default controller; do
    flags=()
    [[ $features == default ]] || flags=(--features "$features")
    for side in before after; do
      target=$scratch/$side-$features-$run
      # %e wall seconds, %U + %S CPU seconds, %M peak RSS (KiB) of the largest process.
      (cd "${!side}" && CARGO_TARGET_DIR=$target /usr/bin/time -f '%e %U %S %M' -o "$scratch/time" \
        cargo build --offline --quiet -p kondition "${flags[@]}")
      read -r wall user sys rss <"$scratch/time"
      cpu=$(echo "$user + $sys" | bc)
      echo "build $side $features $run wall=$wall cpu=$cpu rss_kib=$rss load=$(cut -d' ' -f1 /proc/loadavg)" |
        tee -a "$out"
      rm -rf "$target"
    done
  done
done

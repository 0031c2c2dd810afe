#!/usr/bin/env bash
# Regression guard for generation speed, not a timed test: the instructions
# `kondition generate` executes over the 25 single-CRD files of the corpus (the files
# bench/generation.sh times), counted by valgrind's callgrind, against the figure recorded in
# bench/instructions.expected. Instruction counts do not depend on how busy the machine is,
# so this can run in CI on a shared machine where wall times cannot.
#
#   bash bench/instructions.sh            compare; exit 1 above +10%
#   bash bench/instructions.sh --record   measure and write the figure into the file
#
# Above +10% it fails: find what made generation slower (bench/generation.sh, and
# `valgrind --tool=callgrind` with `cargo build --profile profiling`, BENCHMARKS.md tells
# how), or record the new figure on purpose with the change that explains it. More than
# 10% below, it passes with a note asking to record the new figure, so the guard follows
# improvements.
#
# The count is of the release binary. It moves a little (a few percent at most) with the
# Rust toolchain, the dependencies' versions in Cargo.lock, and the CPU: glibc picks its
# memcpy and friends by CPU features, and the work is spread over as many threads as the
# machine has cores (the total is nearly the same). The 10% margin covers that; a new
# toolchain or machine that moves it more is a reason to record again, saying so.
#
# Takes about 30 s (callgrind runs the binary about 50 times slower than natively, on one
# core) plus the release build, which is reused when target/ has it.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/tools.sh
find_corpus instructions
expected_file=bench/instructions.expected
limit=1.10

command -v valgrind > /dev/null || { echo "instructions: valgrind is not installed" >&2; exit 1; }
cargo build --quiet --release --locked -p kondition-gen --bin kondition
KONDITION=$PWD/target/release/kondition

# The same 25 files as bench/generation.sh, in the same order.
mapfile -t files < <(reference_files "$CORPUS" | sed "s|^|$CORPUS/|")
[ "${#files[@]}" -eq 25 ] || echo "instructions: note: ${#files[@]} files, not the 25 of the reference corpus" >&2

work=$PWD/target/bench/instructions
rm -rf "$work" && mkdir -p "$work"
start=$(date +%s)
valgrind --tool=callgrind --collect-atstart=yes --callgrind-out-file="$work/callgrind.out" \
  "$KONDITION" generate --out "$work/out" "${files[@]}" > "$work/generate.log" 2> "$work/valgrind.log" \
  || { cat "$work/valgrind.log" >&2; exit 1; }
seconds=$(( $(date +%s) - start ))
# callgrind writes the run's total as `summary:` (older versions `totals:`).
measured=$(awk '/^(summary|totals):/ { print $2; exit }' "$work/callgrind.out")
[ -n "$measured" ] || { echo "instructions: no total in $work/callgrind.out" >&2; exit 1; }

if [ "${1:-}" = --record ]; then
  cat > "$expected_file" <<RECORD
# Instructions of \`kondition generate\` over the 25 single-CRD files of corpus/ (release
# build, valgrind --tool=callgrind), the figure bench/instructions.sh compares with; it fails
# above +10%. Recorded by \`bash bench/instructions.sh --record\` on $(date -u +%Y-%m-%d):
# $(rustc --version), $(valgrind --version), $(uname -m), $(nproc) cores.
# Record again on purpose, with the change that moves it, and say why in the commit.
$measured
RECORD
  echo "instructions: recorded $measured into $expected_file (${seconds} s under callgrind)"
  exit 0
fi

expected=$(grep -v '^#' "$expected_file" | awk 'NF { print $1; exit }')
[ -n "$expected" ] || { echo "instructions: no figure in $expected_file" >&2; exit 1; }
ratio=$(awk -v m="$measured" -v e="$expected" 'BEGIN { printf "%.3f", m / e }')
echo "instructions: generating the corpus took $measured instructions; recorded $expected; ratio ${ratio} (fails above ${limit}; ${seconds} s under callgrind)"
if awk -v r="$ratio" -v l="$limit" 'BEGIN { exit !(r > l) }'; then
  echo "instructions: FAILED: more than 10% above the recorded figure: generation got slower" >&2
  exit 1
fi
if awk -v r="$ratio" -v l="$limit" 'BEGIN { exit !(r < 2 - l) }'; then
  echo "instructions: note: more than 10% below the recorded figure: record it with \`bash bench/instructions.sh --record\` so the guard keeps the gain"
fi

#!/usr/bin/env bash
# Fuzzes every target for SECONDS each (default 30): `bash fuzz/run.sh [SECONDS]`.
# Installs cargo-fuzz (pinned) into target/tools on first use, seeds corpus/ (seed.sh),
# builds the targets on the stable toolchain (no sanitizer: the code is safe Rust, and what
# is looked for is panics, stack overflows, timeouts and memory blow-ups), and exits
# non-zero on the first crash, leaving the input in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-30}"
tools="$PWD/../target/tools"
if [ ! -x "$tools/bin/cargo-fuzz" ]; then
  cargo install cargo-fuzz --locked --version 0.13.1 --root "$tools"
fi
bash seed.sh
fuzz=("$tools/bin/cargo-fuzz")
options=(--sanitizer none --target-dir ../target/fuzz)
"${fuzz[@]}" build "${options[@]}"
for target in yaml_text schema_file crd_file derive_attrs; do
  dict=()
  if [ -f "dicts/$target.dict" ]; then dict=("-dict=dicts/$target.dict"); fi
  echo "== fuzz $target for ${seconds}s"
  log="../target/fuzz/$target.log"
  set +e
  "${fuzz[@]}" run "${options[@]}" "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
    -print_final_stats=1 "${dict[@]}" >"$log" 2>&1
  code=$?
  set -e
  grep -E '^(stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)|INFO: Seed)' "$log" || true
  failing=$(find "artifacts/$target" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \) 2>/dev/null || true)
  if [ "$code" -ne 0 ] || [ -n "$failing" ]; then
    tail -40 "$log" >&2
    echo "fuzz: $target failed (exit $code) ${failing:+on $failing}" >&2
    exit 1
  fi
done

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
for target in schema_file crd_file derive_attrs; do
  dict=()
  if [ -f "dicts/$target.dict" ]; then dict=("-dict=dicts/$target.dict"); fi
  echo "== fuzz $target for ${seconds}s"
  "${fuzz[@]}" run "${options[@]}" "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
    -print_final_stats=1 "${dict[@]}" 2>&1 | grep -E '^(stat::|#[0-9]+ *DONE|==|INFO: Seed|SUMMARY|Test unit|artifact_prefix|.*panicked)' || true
  failing=$(find "artifacts/$target" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \) 2>/dev/null || true)
  if [ -n "$failing" ]; then
    echo "fuzz: $target found a failing input: $failing" >&2
    exit 1
  fi
done

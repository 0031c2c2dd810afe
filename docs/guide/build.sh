#!/usr/bin/env bash
# Builds the user guide (docs/guide/, an mdBook) into target/guide/: `bash docs/guide/build.sh`.
# Installs mdBook (pinned, with its own Cargo.lock) into target/tools on first use, so that
# CI, whose cargo cache starts empty, pays the install once per machine and not per run (see
# BENCHMARKS.md for its time). The chapters' Rust code is tested as doc tests of tests/, not
# here (`mdbook test` cannot link the workspace's crates).
set -euo pipefail
cd "$(dirname "$0")"
version=0.5.4
tools="$PWD/../../target/tools"
if [ ! -x "$tools/bin/mdbook" ] || [ "$("$tools/bin/mdbook" --version)" != "mdbook v$version" ]; then
  cargo install mdbook --locked --version "$version" --root "$tools"
fi
"$tools/bin/mdbook" build
test -s ../../target/guide/index.html

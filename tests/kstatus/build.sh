#!/usr/bin/env bash
# Builds the kstatus reference program into the path given (default:
# target/kstatus/kstatus-reference of the repository): the machine's own Go (no toolchain
# download), no cgo, the module graph exactly as go.mod and go.sum pin it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(realpath -m "${1:-$here/../../target/kstatus/kstatus-reference}")
cd "$here"
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=readonly
mkdir -p "$(dirname "$out")"
go build -trimpath -o "$out" .

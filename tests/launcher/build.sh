#!/usr/bin/env bash
# Builds the launcher into the path given (default: target/launcher/kondition-apiserver of the
# repository): the machine's own Go (no toolchain download), no cgo, the module graph exactly
# as go.mod and go.sum pin it. kube-apiserver's /version reports the k8s.io/kubernetes
# version go.mod requires (a module build has no git tree for it to read).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(realpath -m "${1:-$here/../../target/launcher/kondition-apiserver}")
cd "$here"
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=readonly
version=$(go list -m -f '{{.Version}}' k8s.io/kubernetes)
mkdir -p "$(dirname "$out")"
go build -trimpath -ldflags "-X k8s.io/component-base/version.gitVersion=$version" -o "$out" .

#!/usr/bin/env bash
# The README's test command: the whole test suite, on the real Kubernetes API server.
#
# The tests that exercise API-server behaviour run against kube-apiserver with etcd embedded
# (tests/launcher/, a Go program built from k8s.io/kubernetes and its staging modules through
# the Go module proxy). This builds it into target/launcher/ first: the modules and the
# build are cached by Go (GOMODCACHE, GOCACHE), so only the first run on a machine takes
# minutes; later runs add seconds. Then `cargo test --workspace`, with any arguments given.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== building the API server launcher (tests/launcher/) into target/launcher/"
bash tests/launcher/build.sh target/launcher/kondition-apiserver
echo "== building the kstatus reference (tests/kstatus/: kstatus of Flux's fork and of upstream cli-utils) into target/kstatus/"
bash tests/kstatus/build.sh target/kstatus/kstatus-reference

exec cargo test --workspace "$@"

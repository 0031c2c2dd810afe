#!/usr/bin/env bash
# The README's test command: the whole test suite, on the API server's own libraries.
#
# The fake cluster (tests/src/fake_cluster.rs) merges and validates every write with
# structured-merge-diff and kube-openapi through a small Go program (tests/apiserver/),
# built on first use from Debian's packages. This installs them when they are missing
# (as root, or through sudo), and says nothing when they are there.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(golang-go golang-k8s-sigs-structured-merge-diff-dev golang-k8s-kube-openapi-dev)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing the API server's libraries for the fake cluster: ${missing[*]}"
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

exec cargo test --workspace "$@"

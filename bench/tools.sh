# Shared by the bench scripts (sourced): release binaries and pinned tools, all under target/.

# Release builds of the `kondition` binary and the parse_floor example; sets KONDITION and
# FLOOR to their paths.
build_release() {
  cargo build --quiet --release --locked -p kondition-gen --bin kondition --example parse_floor
  KONDITION=$PWD/target/release/kondition
  FLOOR=$PWD/target/release/examples/parse_floor
}

# The parse floor as issue 28 measured it, reading into serde_yaml's values
# (bench/floor-serde-yaml, a crate of its own); sets FLOOR_SERDE_YAML.
build_serde_yaml_floor() {
  CARGO_TARGET_DIR=$PWD/target/floor-serde-yaml cargo build --quiet --release --locked \
    --manifest-path bench/floor-serde-yaml/Cargo.toml
  FLOOR_SERDE_YAML=$PWD/target/floor-serde-yaml/release/floor-serde-yaml
}

# kopium 0.24.1 in a private root (cargo install, once); sets KOPIUM.
install_kopium() {
  local version=0.24.1
  KOPIUM=$PWD/target/tools/kopium/bin/kopium
  if ! "$KOPIUM" --version 2>/dev/null | grep -qx "kopium $version"; then
    # With no Kubernetes version named: the repository's .cargo/config.toml names one for
    # k8s-openapi (K8S_OPENAPI_ENABLED_VERSION), which reached kopium's build too, and
    # conflicted with kopium's own choice (its `latest`); empty, k8s-openapi ignores it.
    K8S_OPENAPI_ENABLED_VERSION= cargo install kopium --version "$version" --locked --force \
      --root target/tools/kopium
  fi
}

# The CRD corpus folder ($KONDITION_CORPUS, by default corpus/) as an absolute path in
# CORPUS; the calling script ($1 names it) stops when it is absent.
find_corpus() {
  CORPUS=${KONDITION_CORPUS:-corpus}
  [ -d "$CORPUS" ] || { echo "$1: no CRD corpus at $CORPUS (set KONDITION_CORPUS)" >&2; exit 1; }
  CORPUS=$(cd "$CORPUS" && pwd)
}

# The reference corpus of the recorded figures (BENCHMARKS.md, bench/instructions.expected):
# the 25 single-CRD files of the corpus folder $1, as paths relative to it, sorted. The two
# bundles are left out (the ASO bundle repeats kinds of the extracted files, Istio's holds
# fifteen CRDs), and so are the files added to corpus/ after the figures were recorded
# (KEDA's and CloudNativePG's, issue 37; Kueue's and Argo Rollouts', issue 48), so that the
# figures stay comparable.
reference_files() {
  (cd "$1" && find . -name '*.yaml' ! -name 'crd-all.gen.yaml' ! -name 'capz-vendored-*' \
    ! -path './keda/*' ! -path './cloudnative-pg/*' ! -path './kueue/*' ! -path './argo-rollouts/*' \
    | sed 's|^\./||' | LC_ALL=C sort)
}

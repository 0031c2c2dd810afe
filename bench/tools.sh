# Shared by the bench scripts (sourced): release binaries and pinned tools, all under target/.

# Release builds of the `kondition` binary and the parse_floor example; sets KONDITION and
# FLOOR to their paths.
build_release() {
  cargo build --quiet --release --locked -p kondition-gen --bin kondition --example parse_floor
  KONDITION=$PWD/target/release/kondition
  FLOOR=$PWD/target/release/examples/parse_floor
}

# kopium 0.24.1 in a private root (cargo install, once); sets KOPIUM.
install_kopium() {
  local version=0.24.1
  KOPIUM=$PWD/target/tools/kopium/bin/kopium
  if ! "$KOPIUM" --version 2>/dev/null | grep -qx "kopium $version"; then
    cargo install kopium --version "$version" --locked --force --root target/tools/kopium
  fi
}

# The CRD corpus folder ($KONDITION_CORPUS, by default corpus/) as an absolute path in
# CORPUS; the calling script ($1 names it) stops when it is absent.
find_corpus() {
  CORPUS=${KONDITION_CORPUS:-corpus}
  [ -d "$CORPUS" ] || { echo "$1: no CRD corpus at $CORPUS (set KONDITION_CORPUS)" >&2; exit 1; }
  CORPUS=$(cd "$CORPUS" && pwd)
}

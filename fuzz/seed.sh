#!/usr/bin/env bash
# Fills corpus/<target>/ with the seeds: the project's own schemas and example inputs (the
# CRD ones among them: crd-edge-cases.yaml, injection.yaml), the derive inputs in seeds/,
# and the real CRDs of ../../shared/crds when that folder is there (they are read from it,
# never copied into the project). Files over 256 KiB are left out: libFuzzer runs best on small inputs, and the corpus round trip in CI already
# reads the large ones whole.
set -euo pipefail
cd "$(dirname "$0")"
shared="${KONDITION_CORPUS:-../../shared/crds}"
mkdir -p corpus/schema_file corpus/crd_file corpus/derive_attrs

copy() { # copy FILE TARGET: under a name made from its path, unless too large
  local file=$1 target=$2
  if [ "$(wc -c <"$file")" -le 262144 ]; then
    cp "$file" "corpus/$target/$(echo "$file" | tr '/.' '__')"
  fi
}

for f in ../schemas/*.yaml ../generator/examples/buildrs/schemas/*.yaml; do
  copy "$f" schema_file
  copy "$f" crd_file
done
if [ -d "$shared" ]; then
  while IFS= read -r f; do copy "$f" crd_file; done < <(find "$shared" -name '*.yaml' | sort)
else
  echo "note: $shared is absent; fuzzing crd_file from the project's own seeds only"
fi
cp seeds/derive_attrs/* corpus/derive_attrs/
echo "seeds: $(ls corpus/schema_file | wc -l) schema_file, $(ls corpus/crd_file | wc -l) crd_file, $(ls corpus/derive_attrs | wc -l) derive_attrs"

#!/usr/bin/env bash
# Fills corpus/<target>/ with the seeds: the project's own schemas and example inputs (the
# CRD ones among them: crd-edge-cases.yaml, injection.yaml) and the inputs in seeds/; every
# struct deriving KubeStatus in the project's tests, generated code and docs
# (derive_items.awk); and the real CRDs of the repository's corpus/ (../corpus, read from
# there). Files over 256 KiB are left out: libFuzzer
# runs best on small inputs, and the corpus round trip in CI already reads the large ones.
set -euo pipefail
cd "$(dirname "$0")"
crds="${KONDITION_CORPUS:-../corpus}"
[ -d "$crds" ] || { echo "seed.sh: no CRD corpus at $crds" >&2; exit 1; }
mkdir -p corpus/yaml_text corpus/schema_file corpus/crd_file corpus/derive_attrs

copy() { # copy FILE TARGET: under a name made from its path, unless too large
  local file=$1 target=$2
  if [ "$(wc -c <"$file")" -le 262144 ]; then
    cp "$file" "corpus/$target/$(echo "$file" | tr '/.' '__')"
  fi
}

for f in ../schemas/*.yaml ../generator/examples/buildrs/schemas/*.yaml; do
  copy "$f" schema_file
  copy "$f" crd_file
  copy "$f" yaml_text
done
while IFS= read -r f; do
  copy "$f" crd_file
  copy "$f" yaml_text
done < <(find "$crds" -name '*.yaml' | sort)
for target in yaml_text schema_file crd_file derive_attrs; do cp seeds/$target/* corpus/$target/; done
cp seeds/schema_file/* seeds/crd_file/* corpus/yaml_text/
find ../tests ../generated ../runtime ../derive -name '*.rs' -not -path '*/target/*' | sort |
  xargs awk -v out=corpus/derive_attrs -f derive_items.awk ../README.md ../docs/*.md ../docs/guide/src/*.md >/dev/null
echo "seeds: $(ls corpus/yaml_text | wc -l) yaml_text, $(ls corpus/schema_file | wc -l) schema_file, $(ls corpus/crd_file | wc -l) crd_file, $(ls corpus/derive_attrs | wc -l) derive_attrs"

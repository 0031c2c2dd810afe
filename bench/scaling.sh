#!/usr/bin/env bash
# Scaling: `kondition generate` time and memory against input size, up to the largest single
# CRD of the corpus (ASO's ManagedCluster, 2.3 MB, 10 versions). The inputs are that CRD cut
# to its first 1, 2, ... 10 versions (the last one kept is the storage version), so every
# point has the same kind of content; the parse floor is measured beside each.
#
#   bash bench/scaling.sh [RUNS=5]    (KONDITION_CORPUS overrides corpus/)
#
# Prints per point the medians of RUNS rounds, time and memory per MB, and a least-squares
# line through the times: linear scaling shows as a flat time per MB and a fit near 1.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
corpus=${KONDITION_CORPUS:-corpus}
crd=$corpus/azure-service-operator/containerservice.azure.com_managedclusters.extracted.yaml
[ -f "$crd" ] || { echo "scaling: no $crd (set KONDITION_CORPUS)" >&2; exit 1; }

source bench/tools.sh
build_release
work=$PWD/target/bench/scaling
rm -rf "$work" && mkdir -p "$work/in"

# The CRD cut to its first k versions: the items of `spec.versions` are the lines from one
# `    - ` to the next at that indentation.
python3 - "$crd" "$work/in" <<'PY'
import pathlib, re, sys
source, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
lines = source.read_text().splitlines(keepends=True)
start = next(i for i, l in enumerate(lines) if l == "  versions:\n") + 1
items = [i for i in range(start, len(lines)) if lines[i].startswith("    - ")]
bounds = list(zip(items, items[1:] + [len(lines)]))
for k in range(1, len(bounds) + 1):
    kept = []
    for n, (a, b) in enumerate(bounds[:k]):
        storage = "true" if n == k - 1 else "false"
        kept += [re.sub(r"^      storage: (true|false)$", f"      storage: {storage}", l.rstrip("\n")) + "\n"
                 for l in lines[a:b]]
    (out / f"versions-{k:02}.yaml").write_text("".join(lines[:start] + kept))
PY

for input in "$work"/in/*.yaml; do
  k=$(basename "$input" .yaml)
  python3 bench/measure.py --runs "$runs" --base floor --tsv "$work/$k.tsv" \
    "floor=$FLOOR tree $input" \
    "kondition=rm -rf $work/out && $KONDITION generate --out $work/out $input" > /dev/null
done

python3 - "$work" <<'PY'
import csv, pathlib, statistics, sys
work = pathlib.Path(sys.argv[1])
rows = []
for tsv in sorted(work.glob("versions-*.tsv")):
    size = (work / "in" / (tsv.stem + ".yaml")).stat().st_size / 1e6
    data = list(csv.DictReader(tsv.open(), delimiter="\t"))
    med = lambda label, key: statistics.median(float(r[key]) for r in data if r["label"] == label)
    rows.append((tsv.stem.split("-")[1].lstrip("0"), size, med("floor", "wall_s"), med("kondition", "wall_s"),
                 med("kondition", "cpu_s"), med("kondition", "peak_kib") / 1024))
print("| versions | input | floor | kondition wall | CPU | peak memory | wall per MB | memory per MB |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for k, size, floor, wall, cpu, mem in rows:
    print(f"| {k} | {size:.2f} MB | {floor*1e3:.0f} ms | {wall*1e3:.0f} ms | {cpu*1e3:.0f} ms | {mem:.1f} MiB"
          f" | {wall*1e3/size:.0f} ms | {mem/size:.1f} MiB |")
xs = [r[1] for r in rows]
for name, ys in (("wall", [r[3] for r in rows]), ("peak memory", [r[5] for r in rows])):
    mx, my = statistics.mean(xs), statistics.mean(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    a = my - b * mx
    r2 = 1 - sum((y - (a + b * x)) ** 2 for x, y in zip(xs, ys)) / sum((y - my) ** 2 for y in ys)
    unit = "ms" if name == "wall" else "MiB"
    scale = 1e3 if name == "wall" else 1
    print(f"\n{name}: {a*scale:.1f} {unit} + {b*scale:.1f} {unit} per MB, R² = {r2:.4f}")
PY

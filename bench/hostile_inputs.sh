#!/usr/bin/env bash
# Runs `kondition generate` (release build) on hostile inputs and prints, for each, the exit
# code, the first line of stderr, wall time and peak memory: the resource-limit table of
# docs/RELIABILITY.md.
#
#   bash bench/hostile_inputs.sh
#
# Needs python3 (to write the inputs) and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release --locked -p kondition-gen
bin="$PWD/target/release/kondition"
work="$PWD/target/hostile-inputs"
rm -rf "$work"
mkdir -p "$work"
cd "$work"

python3 - <<'EOF'
import os

def write(name, text):
    with open(name, "w") as f:
        f.write(text)

write("flow-seq-20000.yaml", "[" * 20000 + "]" * 20000 + "\n")
write("flow-map-20000.yaml", "{a: " * 20000 + "1" + "}" * 20000 + "\n")
write("block-seq-20000.yaml", "- " * 20000 + "1\n")
with open("block-map-10000.yaml", "w") as f:
    for level in range(10000):
        f.write(" " * level + "a:\n")
# The "billion laughs": 10^9 nodes if aliases were expanded.
bomb = "a0: &a0 [lol]\n"
for level in range(1, 10):
    bomb += f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 10) + "]\n"
write("alias-bomb.yaml", bomb)
# Past the 64 MiB cap: a sparse file, so nothing is spent making it.
with open("oversized.yaml", "wb") as f:
    f.truncate((64 << 20) + 1)
# The deepest accepted: 63 nested objects in the schema format (128 YAML levels).
text = "group: example.com\nkind: Deep\nversion: v1\nspec:\n"
indent = 2
for _ in range(63):
    pad = " " * indent
    text += f"{pad}a:\n{pad}  type: object\n{pad}  fields:\n"
    indent += 4
write("deepest-accepted.yaml", text + " " * indent + "a: string\n")
# Wide: 20,000 fields with 1 KiB descriptions (20 MiB).
text = "group: example.com\nkind: Wide\nversion: v1\nspec:\n"
text += "".join(f'  field{i}: {{type: string, docs: "{"word " * 200}"}}\n' for i in range(20000))
write("wide-20mib.yaml", text)
# Many keys: 200,000 in one mapping with a duplicate at the end, and the same keys one to a
# mapping (a list, which is not a schema file: refused once read). A quadratic duplicate
# check made the first take forty times as long as the second; generator/tests/
# wide_and_recursive.rs checks the error, these two lines compare the times.
write("keys-one-mapping-200000.yaml", "".join(f"k{i}: {i}\n" for i in range(200000)) + "k1234: again\n")
write("keys-one-each-200000.yaml", "".join(f"- k{i}: {i}\n" for i in range(200000)))
# Types that double at each level: 2^41 schemas if written out, refused from their sizes.
text = "group: example.com\nkind: Wide\nversion: v1\nspec:\n  a: {type: T0}\ntypes:\n"
for i in range(40):
    nxt = f"T{i + 1}" if i + 1 < 40 else "string"
    text += f"  T{i}:\n    type: object\n    fields:\n      l: {{type: {nxt}}}\n      r: {{type: {nxt}}}\n"
write("doubling-types-40.yaml", text)
# A misspelt type name of 100,000 characters (a "did you mean" over it once took 80 GB).
declared = "A" + "b" * 100000
used = "A" + "b" * 99999 + "c"
write("misspelt-100000.yaml", "group: example.com\nkind: Wide\nversion: v1\nspec:\n"
      f"  a: {{type: {used}}}\ntypes:\n  ? {declared}\n  : type: object\n    fields:\n      x: {{type: string}}\n")
# Long: one 32 MiB description.
write("long-scalar-32mib.yaml", "group: example.com\nkind: Long\nversion: v1\ndocs: \"" + "x" * (32 << 20) + "\"\n")
EOF

printf '| input | size | exit | stderr (first line) | wall | peak RSS |\n|---|---:|---:|---|---:|---:|\n'
for input in flow-seq-20000 flow-map-20000 block-seq-20000 block-map-10000 alias-bomb oversized \
    deepest-accepted wide-20mib long-scalar-32mib keys-one-mapping-200000 keys-one-each-200000 \
    doubling-types-40 misspelt-100000; do
  size=$(du -h --apparent-size "$input.yaml" | cut -f1)
  set +e
  /usr/bin/time -f "%e %M" -o time.txt "$bin" generate "$input.yaml" --out "out-$input" \
    >/dev/null 2>stderr.txt
  code=$?
  set -e
  read -r wall rss < <(tail -1 time.txt)
  first=$(head -1 stderr.txt | cut -c1-90 | sed 's/|/\\|/g')
  printf '| %s | %s | %s | %s | %s s | %s MiB |\n' "$input" "$size" "$code" "$first" "$wall" "$((rss / 1024))"
done

#!/usr/bin/env bash
# The request sequences of the status chokepoint's tests at two revisions, on the real API
# server (the launcher), and their differences (issue 46: "record the request sequences
# (method, path, query, answer code) ... before the change, and show them identical after").
#
#   bash bench/request_sequences.sh BEFORE AFTER [TEST...]
#
# BEFORE and AFTER are each a git revision (checked out into a worktree of its own under
# $TREES, default /tmp) or the path of a worktree already there. TEST defaults to the test
# files that use the recording client for the controller under test. Each test file runs at
# BEFORE then at AFTER (interleaved, one test at a time: --test-threads=1) with
# KONDITION_RECORD_REQUESTS set (tests/src/recording.rs), so each test leaves one file of
# normalised lines (recorder, method, path, sorted query, answer code). A revision whose
# recording.rs has no dump gets this tree's recording.rs (the harness is otherwise the same).
# Both revisions build into one CARGO_TARGET_DIR (this tree's target/ unless set): their
# dependencies are compiled once; the worktrees' own crates have paths of their own.
#
# AFTER runs a second time (again/; AGAIN=0 skips it): a test whose two runs at one revision
# differ is nondeterministic (several controllers racing over many objects), and is compared
# by counts instead: how many requests of each method, object-free path, query and code.
#
# Output under $OUT (default target/request-sequences): before/, after/, again/ (one file per
# test), failures.txt (test files that did not pass), diff.txt (each deterministic test that
# exists at both and differs, with a diff of its lines, each recorder's lines kept in their
# order; then the counts of each nondeterministic one, before, after and again), and a summary
# on stdout. A measurement, not a test: not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
[[ $# -ge 2 ]] || { sed -n '6p' "$0" >&2; exit 2; }
before=$1 after=$2
shift 2
tests=("$@")
[[ ${#tests[@]} -gt 0 ]] || tests=(chokepoint deployed least_privilege rejections
  several_writers faults persistent_failure rolling_upgrade)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
# One launcher binary for both (tests/launcher/ is the same at both revisions, else pass it).
export KONDITION_APISERVER=${KONDITION_APISERVER:-$CARGO_TARGET_DIR/launcher/kondition-apiserver}
[[ -x $KONDITION_APISERVER ]] || bash tests/launcher/build.sh "$KONDITION_APISERVER"
out=${OUT:-$root/target/request-sequences}
trees=${TREES:-/tmp}

# tree REV: the path of a worktree at REV (REV itself when it is a folder), with the dump.
tree() {
  local rev=$1 path
  if [[ -d $rev ]]; then
    path=$(cd "$rev" && pwd)
  else
    path=$trees/kondition-sequences-$(git rev-parse --short "$rev")
    [[ -d $path ]] || git worktree add --detach "$path" "$rev" >&2
  fi
  if ! grep -q KONDITION_RECORD_REQUESTS "$path/tests/src/recording.rs"; then
    cp tests/src/recording.rs "$path/tests/src/recording.rs"
  fi
  echo "$path"
}
before_tree=$(tree "$before")
after_tree=$(tree "$after")

sides=(before after)
[[ ${AGAIN:-1} == 0 ]] || sides+=(again)
again_tree=$after_tree
rm -rf "$out"
mkdir -p "${sides[@]/#/$out/}"
: >"$out/failures.txt"
for side in before after; do
  tree_var=${side}_tree
  echo "== $side: ${!tree_var} at $(git -C "${!tree_var}" rev-parse --short HEAD)"
done

# Build every test binary first, so that the runs below only run.
for side in before after; do
  tree_var=${side}_tree
  args=()
  for t in "${tests[@]}"; do
    [[ -f ${!tree_var}/tests/tests/$t.rs ]] && args+=(--test "$t")
  done
  (cd "${!tree_var}" && cargo test --quiet -p kondition-tests "${args[@]}" --no-run)
done

for t in "${tests[@]}"; do
  for side in "${sides[@]}"; do
    tree_var=${side}_tree
    [[ -f ${!tree_var}/tests/tests/$t.rs ]] || { echo "$side: no $t.rs"; continue; }
    echo "== $side: $t"
    # A failing test is noted and the sequence still compared: its lines are what it sent.
    (cd "${!tree_var}" && KONDITION_RECORD_REQUESTS=$out/$side \
      cargo test -p kondition-tests --test "$t" -- --test-threads=1 --quiet) \
      >"$out/$side.$t.log" 2>&1 || echo "$side $t" >>"$out/failures.txt"
  done
  # Both trees' crates have the same paths relative to their workspace, so cargo could name
  # both test binaries alike: make sure each revision ran a binary of its own.
  binaries=$(grep -h -o "deps/$t-[0-9a-f]*" "$out"/{before,after}."$t".log 2>/dev/null | sort -u | wc -l)
  [[ $binaries -ne 1 ]] || echo "$t: before and after ran binaries of one name (rebuilt in turn?)" | tee -a "$out/failures.txt"
done

# Compare: each recorder's lines in their order (a stable sort on the recorder's number; the
# records of two recorders are written when each is dropped, in no fixed order).
ordered() { sort -s -k1,1 "$1"; }
# counts FILE: each distinct line with the object's name in its path replaced by `*`
# (/apis/GROUP/VERSION/namespaces/NS/PLURAL/NAME... or /api/v1/namespaces/NS/PLURAL/NAME...),
# with its count.
counts() {
  awk '{ n = split($3, p, "/"); i = (p[2] == "api") ? 7 : 8
         if (n >= i) p[i] = "*"
         path = p[1]; for (j = 2; j <= n; j++) path = path "/" p[j]
         $3 = path; print }' "$1" | sort | uniq -c
}
identical=0 different=0 varying=0 varying_same=0
: >"$out/diff.txt"
: >"$out/varying.txt"
for file in "$out"/before/*.txt; do
  name=$(basename "$file")
  [[ -f $out/after/$name ]] || continue
  if cmp -s <(ordered "$file") <(ordered "$out/after/$name"); then
    identical=$((identical + 1))
  elif [[ -f $out/again/$name ]] && ! cmp -s <(ordered "$out/after/$name") <(ordered "$out/again/$name"); then
    varying=$((varying + 1))
    same=differ
    if cmp -s <(counts "$file") <(counts "$out/after/$name"); then
      varying_same=$((varying_same + 1))
      same=same
    fi
    {
      echo "### ${name%.txt} (nondeterministic; counts before and after: $same)"
      echo "# before -> after"
      diff <(counts "$file") <(counts "$out/after/$name") || true
      echo "# after -> again (the same revision run twice)"
      diff <(counts "$out/after/$name") <(counts "$out/again/$name") || true
      echo
    } >>"$out/varying.txt"
  else
    different=$((different + 1))
    {
      echo "### ${name%.txt}"
      diff <(ordered "$file") <(ordered "$out/after/$name") || true
      echo
    } >>"$out/diff.txt"
  fi
done
cat "$out/varying.txt" >>"$out/diff.txt"
rm "$out/varying.txt"
only_before=$(comm -23 <(ls "$out/before") <(ls "$out/after") | sed 's/\.txt$//')
only_after=$(comm -13 <(ls "$out/before") <(ls "$out/after") | sed 's/\.txt$//')
echo "== tests at both: $((identical + different + varying)): $identical identical, $different different," \
  "$varying nondeterministic ($varying_same of them with the same counts) ($out/diff.txt)"
echo "== only before: $(grep -c . <<<"$only_before" || true)"
[[ -z $only_before ]] || sed 's/^/   /' <<<"$only_before"
echo "== only after: $(grep -c . <<<"$only_after" || true)"
[[ -z $only_after ]] || sed 's/^/   /' <<<"$only_after"
echo "== test files that failed: $(wc -l <"$out/failures.txt")"
sed 's/^/   /' "$out/failures.txt"

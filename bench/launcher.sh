#!/usr/bin/env bash
# What the real API server costs the test suite (tests/launcher/): the launcher's build from a
# cold Go cache and module cache (a new machine: modules downloaded from the Go module proxy,
# everything compiled), from a warm one (what `bash tests/run.sh` adds to a later run), and
# its start-up until it prints READY (kube-apiserver's /readyz answering), RUNS times each
# (default 5; the cold build once, it takes minutes).
#
#   bash bench/launcher.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
scratch=$(mktemp -d)
trap 'chmod -R u+w "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT

seconds() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(seconds)
GOMODCACHE="$scratch/mod" GOCACHE="$scratch/cache" bash tests/launcher/build.sh "$scratch/cold"
end=$(seconds)
echo "cold build (empty module and build caches): $(python3 -c "print(f'{$end - $start:.1f}')") s"

for _ in $(seq "$runs"); do
  start=$(seconds)
  bash tests/launcher/build.sh "$scratch/warm"
  end=$(seconds)
  python3 -c "print(f'{$end - $start:.2f}')"
done | median | xargs printf "warm build (median of %s): %s s\n" "$runs"

python3 - "$scratch/warm" "$runs" <<'PY'
import statistics, subprocess, sys, time
binary, runs = sys.argv[1], int(sys.argv[2])
times = []
for _ in range(runs):
    start = time.time()
    launcher = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
    line = launcher.stdout.readline()
    times.append(time.time() - start)
    assert line.startswith("READY "), line
    # Closing its stdin stops it; it removes its files on the way out.
    launcher.stdin.close()
    launcher.wait()
print(f"start-up until READY (median of {runs}): {statistics.median(times):.2f} s "
      f"(min {min(times):.2f}, max {max(times):.2f})")
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

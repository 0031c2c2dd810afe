#!/usr/bin/env bash
# kondition beside controller-runtime, as a user would run each: the guide's Getting started
# operator with an empty reconcile body (runtime/examples/widget_operator.rs) and the same job
# written with controller-runtime v0.25 (bench/side_by_side/controller: meta.SetStatusCondition,
# Status().Update only when the status changed), one after the other on one launcher API
# server, on the same number of Widgets of the same CRD (each run in a namespace of its own).
# bench/side_by_side/driver runs each: N Widgets created, the controller started, time until
# every one is Ready at its generation; the spec of 10% changed, time until they are Ready
# again; a steady phase of STEADY seconds (3 resyncs and a half at RESYNC); the requests counted
# at the server (apiserver_request_total); peak RSS and CPU time of the controller process.
#
#   bash bench/side_by_side.sh [N...]              # default: 1000
#   bash bench/side_by_side.sh --heap N            # kondition under heaptrack, where its heap
#                                                  # peak lives (bench/heap_peaks.py)
#
# Environment: RESYNC (seconds, default 20), STEADY (default 70), CONCURRENCY (kondition's
# bound on reconciles at once, default 16; 0 is kube's default, all at once), KONDITION_ARGS
# (more flags of widget_operator, e.g. --full-store), ROUNDS (default 1; rounds alternate
# which controller goes first), ONLY=kondition (kondition alone, for its variants). A
# benchmark, not a test: not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
resync=${RESYNC:-20}
steady=${STEADY:-70}
concurrency=${CONCURRENCY:-16}
rounds=${ROUNDS:-1}
heap=""
if [[ ${1:-} == --heap ]]; then
  heap=1
  shift
fi
sizes=("${@:-1000}")

out=$CARGO_TARGET_DIR/side_by_side
mkdir -p "$out"
[[ -x $CARGO_TARGET_DIR/launcher/kondition-apiserver ]] || bash tests/launcher/build.sh
cargo build --quiet --profile profiling -p kondition --features controller,shards --example widget_operator
operator=$CARGO_TARGET_DIR/profiling/examples/widget_operator
(cd bench/side_by_side && GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=readonly \
  go build -trimpath -o "$out/" ./controller ./driver)

# The launcher runs until its stdin closes: a pipe held by this shell.
coproc LAUNCHER { "$CARGO_TARGET_DIR/launcher/kondition-apiserver" 2>"$out/launcher.log"; }
# bash forgets a coproc's descriptors once it exits: keep the one to close.
launcher_in=${LAUNCHER[1]}
trap 'exec {launcher_in}>&-; wait' EXIT
read -r ready kubeconfig <&"${LAUNCHER[0]}"
[[ $ready == READY ]] || { echo "launcher: $ready $kubeconfig" >&2; exit 1; }
"$operator" --crd >"$out/widget-crd.json"
"$out/driver" -kubeconfig "$kubeconfig" -install "$out/widget-crd.json"

stamp=$(date -u +%Y%m%dT%H%M%SZ)
results=$out/results-$stamp.jsonl
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/results-$stamp.txt"
kondition=("$operator" --concurrency "$concurrency" --resync "$resync" ${KONDITION_ARGS:-})
runtime=("$out/controller" -resync "${resync}s")
drive() { # NAME N COMMAND...
  local name=$1 n=$2
  shift 2
  "$out/driver" -kubeconfig "$kubeconfig" -n "$n" -name "$name" -steady "${steady}s" \
    -logs "$out/$name-$n.log" -- "$@" | tee -a "$results"
}
for n in "${sizes[@]}"; do
  if [[ -n $heap ]]; then
    profile=$out/heap-$n-c$concurrency${KONDITION_ARGS:+-${KONDITION_ARGS//[ -]/}}
    drive kondition-heap "$n" heaptrack -o "$profile" "${kondition[@]}"
    heaptrack_print "$profile.zst" --print-peaks 1 --peak-limit 40 --sub-peak-limit 200 \
      --print-allocators 0 --print-temporary 0 --print-leaks 0 >"$profile.txt"
    grep -E "peak RSS" "$profile.txt"
    python3 bench/heap_peaks.py "$profile.txt"
    continue
  fi
  for round in $(seq "$rounds"); do
    if [[ ${ONLY:-} == kondition ]]; then
      drive kondition "$n" "${kondition[@]}"
    elif (( round % 2 )); then
      drive kondition "$n" "${kondition[@]}"
      drive controller-runtime "$n" "${runtime[@]}"
    else
      drive controller-runtime "$n" "${runtime[@]}"
      drive kondition "$n" "${kondition[@]}"
    fi
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/results-$stamp.txt"
python3 - "$results" <<'PY' | tee -a "$out/results-$stamp.txt"
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print("| objects | controller | Ready (s) | 10% changed, Ready (s) | status writes: initial / change / steady | requests per object | peak RSS (MiB) | CPU (s) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for r in rows:
    print(f"| {r['objects']} | {r['controller']} | {r['ready_s']:.2f} | {r['change_ready_s']:.2f} "
          f"| {r['status_writes_initial']:.0f} / {r['status_writes_change']:.0f} / {r['status_writes_steady']:.0f} "
          f"| {r['requests'] / r['objects']:.3f} | {r['peak_rss_kib'] / 1024:.1f} | {r['cpu_s']:.2f} |")
PY

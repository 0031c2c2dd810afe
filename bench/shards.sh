#!/usr/bin/env bash
# Shards (kondition::shards) as an operator runs them: the Widget operator
# (runtime/examples/widget_operator.rs) as 1, 2 and 4 replicas, each cut into as many shards
# as replicas, on the launcher's API server with its ShardedListAndWatch gate on (the server
# selects each replica's objects) and off (every replica lists and watches every Widget and
# keeps its shards'). bench/side_by_side/driver runs each: N Widgets created, the replicas
# started (one process group), time until every Widget is Ready at its generation; 10% of the
# specs changed, time until they are Ready again; a steady phase of STEADY seconds; the
# requests counted at the server (apiserver_request_total, and the watches it closed itself,
# apiserver_terminated_watchers_total). Each replica prints, as it stops, its peak RSS and CPU
# time and the objects its watch received and kept (decoded from the server's answers, and
# its shard's share of them).
#
#   bash bench/shards.sh [N]          # default: 3000
#
# Environment: STEADY (seconds, default 30), CONCURRENCY (each replica's bound on reconciles
# at once, default 16), REPLICAS (default "1 2 4"), MODES (default "server client"). A
# benchmark, not a test: not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
n=${1:-3000}
steady=${STEADY:-30}
concurrency=${CONCURRENCY:-16}
replica_counts=(${REPLICAS:-1 2 4})
modes=(${MODES:-server client})

out=$CARGO_TARGET_DIR/shards-bench
mkdir -p "$out"
[[ -x $CARGO_TARGET_DIR/launcher/kondition-apiserver ]] || bash tests/launcher/build.sh
cargo build --quiet --profile profiling -p kondition --features controller,shards --example widget_operator
operator=$CARGO_TARGET_DIR/profiling/examples/widget_operator
(cd bench/side_by_side && GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=readonly \
  go build -trimpath -o "$out/" ./driver)
"$operator" --crd >"$out/widget-crd.json"

stamp=$(date -u +%Y%m%dT%H%M%SZ)
results=$out/results-$stamp.jsonl
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/results-$stamp.txt"
for mode in "${modes[@]}"; do
  gates=()
  [[ $mode == server ]] && gates=(-feature-gates ShardedListAndWatch=true)
  for r in "${replica_counts[@]}"; do
    # A launcher per run (the replicas watch every namespace: no earlier run's Widgets), running
    # until its stdin closes: a pipe held by this shell.
    coproc LAUNCHER { "$CARGO_TARGET_DIR/launcher/kondition-apiserver" "${gates[@]}" 2>"$out/launcher-$mode-$r.log"; }
    launcher_in=${LAUNCHER[1]}
    launcher_pid=$LAUNCHER_PID
    read -r ready kubeconfig <&"${LAUNCHER[0]}"
    [[ $ready == READY ]] || { echo "launcher: $ready $kubeconfig" >&2; exit 1; }
    "$out/driver" -kubeconfig "$kubeconfig" -install "$out/widget-crd.json"
    # The replicas as one process group under a shell that reaps them all before it ends, so
    # that the driver's rusage of the shell holds theirs (its peak RSS is the largest
    # replica's, its CPU time all of theirs); each replica's own figures go to its log.
    lease_ns="default"
    rm -f "$out/$mode-$r-$n"-replica-*.log
    script="trap wait TERM
for i in \$(seq 0 $((r - 1))); do
  KUBECONFIG=$kubeconfig $operator --shards $r --replicas $r --ordinal \$i --identity $mode-$r-\$i \
    --lease-namespace $lease_ns --concurrency $concurrency --resync 600 \
    >$out/$mode-$r-$n-replica-\$i.log 2>&1 &
done
wait"
    "$out/driver" -kubeconfig "$kubeconfig" -n "$n" -name "$mode-$r" -steady "${steady}s" \
      -logs "$out/$mode-$r-$n.log" -- bash -c "$script" >"$out/row.json"
    # The row, with each replica's own figures from its log.
    python3 - "$out/row.json" "$out/$mode-$r-$n"-replica-*.log <<'PY' | tee -a "$results"
import json, re, sys
row = json.load(open(sys.argv[1]))
replicas = []
for path in sys.argv[2:]:
    text = open(path).read()
    usage = re.search(r"stopped: peak RSS (\d+) KiB, CPU ([0-9.]+) s", text)
    if not usage:
        sys.exit(f"{path}: the replica did not report its usage")
    watched = re.findall(r"its watch received (\d+) objects, kept (\d+)", text)
    replicas.append({
        "peak_rss_kib": int(usage[1]),
        "cpu_s": float(usage[2]),
        "received": sum(int(w[0]) for w in watched),
        "kept": sum(int(w[1]) for w in watched),
    })
row["replicas"] = replicas
print(json.dumps(row))
PY
    exec {launcher_in}>&-
    wait "$launcher_pid" 2>/dev/null || true
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/results-$stamp.txt"
python3 - "$results" <<'PY' | tee -a "$out/results-$stamp.txt"
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
base = {}
for r in rows:
    mode, replicas = r["controller"].rsplit("-", 1)
    if replicas == "1":
        base[mode] = r
def per_replica(r, key, f=max):
    return f(x[key] for x in r["replicas"])
print("| selected by | replicas | Ready (s) | 10% changed, Ready (s) | status writes: initial / change / steady | requests per object | watches the server closed | peak RSS, largest replica (MiB) | vs 1 replica | CPU, mean per replica (s) | vs 1 replica | objects decoded, mean per replica | vs 1 replica | kept, mean per replica |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for r in rows:
    mode, replicas = r["controller"].rsplit("-", 1)
    one = base.get(mode, r)
    closed = r["requests_by_verb"].get("WATCH terminated by the server", 0)
    rss, rss1 = per_replica(r, "peak_rss_kib"), per_replica(one, "peak_rss_kib")
    cpu, cpu1 = per_replica(r, "cpu_s", statistics.mean), per_replica(one, "cpu_s", statistics.mean)
    got, got1 = per_replica(r, "received", statistics.mean), per_replica(one, "received", statistics.mean)
    kept = per_replica(r, "kept", statistics.mean)
    requests = r["requests"]
    print(f"| {mode} | {replicas} | {r['ready_s']:.2f} | {r['change_ready_s']:.2f} "
          f"| {r['status_writes_initial']:.0f} / {r['status_writes_change']:.0f} / {r['status_writes_steady']:.0f} "
          f"| {requests / r['objects']:.3f} | {closed:.0f} | {rss / 1024:.1f} | {rss / rss1:.2f}x "
          f"| {cpu:.2f} | {cpu / cpu1:.2f}x | {got:,.0f} | {got / got1:.2f}x | {kept:,.0f} |")
PY

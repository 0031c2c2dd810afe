#!/usr/bin/env bash
# Issue 49's acceptance at scale: tests/tests/shards.rs's two replica scenarios (three Widget
# operator replicas, one shard each; half-way through a change of every spec one replica is
# killed and another paused past its lease, then resumed; a steady phase) with N Widgets, on
# the launcher's API server with the ShardedListAndWatch gate on (the server selects) and off
# (each replica selects). The test asserts, from the API server's audit log, that every
# Widget's status was written once per generation by the replica holding its shard and
# never by the paused one after it resumed, and none in the steady phase; it prints how long
# each phase took and how long after the kill and the pause their shards were taken over.
#
#   bash bench/shards_acceptance.sh [N]      # default: 30000
#
# Environment: LEASE_SECONDS (default 15, the operator's default), STEADY (seconds, default
# 60). The replicas are the profiling build of the example (as bench/shards.sh runs it). A
# benchmark-sized run, not part of CI: the suite runs the same scenarios with 150 Widgets.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
n=${1:-30000}
[[ -x $CARGO_TARGET_DIR/launcher/kondition-apiserver ]] || bash tests/launcher/build.sh
cargo build --quiet --profile profiling -p kondition --features controller,shards --example widget_operator
out=$CARGO_TARGET_DIR/shards-bench
mkdir -p "$out"
log=$out/acceptance-$n-$(date -u +%Y%m%dT%H%M%SZ).txt
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$log"
# One scenario at a time: each starts its own API server and its N Widgets.
for test in replicas_write_each_status_once_by_the_holder_of_its_shard \
  replicas_write_each_status_once_by_the_holder_of_its_shard_without_the_gate; do
  start=$(date +%s)
  KONDITION_WIDGET_OPERATOR=$CARGO_TARGET_DIR/profiling/examples/widget_operator \
    KONDITION_SHARD_WIDGETS=$n KONDITION_SHARD_LEASE_SECONDS=${LEASE_SECONDS:-15} \
    KONDITION_SHARD_STEADY_SECONDS=${STEADY:-60} \
    cargo test --quiet -p kondition-tests --test shards -- --exact "$test" --nocapture 2>&1 |
    tee -a "$log"
  echo "$test: $(( $(date +%s) - start )) s in all" | tee -a "$log"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"

#!/usr/bin/env bash
# Every figure of BENCHMARKS.md, section by section (or the sections named):
#
#   bash bench/run.sh                      all, in this order (about 1 h 25 min on 2 cores)
#   bash bench/run.sh generation scaling   only those
#
#   generation  kondition vs kopium vs the parse floor, 25 corpus files   (~1 min)
#   scaling     time and memory against input size, up to 2.3 MB           (~1 min)
#   compile     compile cost of generated code vs kopium's                 (~8 min a round)
#   crd-input   CRD input before and after issue 16                        (~25 min)
#   buildrs     no-op rebuild; kondition-gen's marginal clean-build cost   (~25 min)
#   derive      build-time overhead of #[derive(KubeStatus)] on 100 kinds  (~5 min)
#   runtime     status writes, bytes per apply, CPU per reconcile          (~4 min)
#   launcher    the test API server: cold and warm build, start-up         (~5 to 12 min)
#
# RUNS (default 5) sets the rounds of every section. Run nothing else meanwhile: the
# ratios are taken round by round, but a busy machine still widens them.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
sections=("$@")
[ ${#sections[@]} -gt 0 ] || sections=(generation scaling compile crd-input buildrs derive runtime launcher)
for section in "${sections[@]}"; do
  echo "##### $section ($(date -u +%H:%M:%S))"
  case $section in
    generation) bash bench/generation.sh "$runs" ;;
    scaling) bash bench/scaling.sh "$runs" ;;
    compile) bash bench/compile_cost.sh "$runs" ;;
    crd-input) bash bench/crd_input.sh "$runs" ;;
    buildrs) bash bench/buildrs.sh "$runs" ;;
    derive) bash bench/derive_overhead.sh 100 "$runs" ;;
    runtime) bash tests/launcher/build.sh && cargo bench --locked -p kondition-tests --bench chokepoint ;;
    launcher) bash bench/launcher.sh "$runs" ;;
    *) echo "run.sh: no section $section" >&2; exit 2 ;;
  esac
  echo
done

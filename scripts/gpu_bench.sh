#!/usr/bin/env bash
# GPU benchmarks (issue 7), run on the GPU machine after scripts/gpu_check.sh built build-gpu:
# qalg's kernels against same-run dense cuBLAS/cuBLASLt, then the Triton peer in the same run.
#   scripts/gpu_bench.sh RESULTS_DIR [SUITE]     (SUITE: table | sweep | all | probe | decode)
set -uo pipefail
cd "$(dirname "$0")/.."
RES=${1:-results/gpu}
SUITE=${2:-table}
BUILD=${BUILD_GPU:-build-gpu}
mkdir -p "$RES"
"$BUILD/qalg_gpu_bench" --tables .gpu-carry/tables --suite "$SUITE" --out "$RES/bench_$SUITE.csv" \
  | tee "$RES/bench_$SUITE.log"
if [ -f .gpu-carry/triton_qproj.py ] && [ "${PEER:-1}" = 1 ]; then
  for mode in table1 more; do
    PYTHONUNBUFFERED=1 timeout 300 python3 .gpu-carry/triton_qproj.py $mode >>"$RES/peer.jsonl" 2>"$RES/peer_$mode.err"
  done
  tail -20 "$RES/peer.jsonl"
fi

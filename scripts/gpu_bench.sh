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
# SM clock, temperature and power every 250 ms beside the run (rows print their wall time):
# scripts/clock_sampler.sh says why.
. scripts/clock_sampler.sh
start_clock_sampler "$RES/clocks_$SUITE.csv" 250
"$BUILD/qalg_gpu_bench" --tables .gpu-carry/tables --suite "$SUITE" --out "$RES/bench_$SUITE.csv" \
  | tee "$RES/bench_$SUITE.log"
stop_clock_sampler
if [ -f .gpu-carry/triton_qproj.py ] && [ "${PEER:-1}" = 1 ]; then
  # table1's shapes in each of qalg's protocols (thirty-fourth session: scripts/peer_protocols.py),
  # then the peer's own `more` pass (Qwen3-32B, M sweeps, squares; each call alone)
  PYTHONUNBUFFERED=1 timeout 300 python3 scripts/peer_protocols.py .gpu-carry/triton_qproj.py >>"$RES/peer.jsonl" \
    2>"$RES/peer_table1.err"
  PYTHONUNBUFFERED=1 timeout 300 python3 .gpu-carry/triton_qproj.py more >>"$RES/peer.jsonl" 2>"$RES/peer_more.err"
  tail -20 "$RES/peer.jsonl"
fi

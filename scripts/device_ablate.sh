#!/usr/bin/env bash
# Nineteenth session's first device call: where the warp-specialised tiles' time goes. Builds gpu/,
# runs the tests of this session's switches (WsWarpArrive, WsAblation) beside WsL2Prefetch and
# PairedTiles, racecheck and memcheck on WsWarpArrive, then the bench's ablate suite (each tile
# whole, with the per-warp release, with the L2 prefetch, and with its copies / wgmma / stores left
# out: warm medians of 20 replays, bench_ablate.hpp) on the square n = 16384 and the M = 2048
# projections, and on the square n = 32768 alone; last, the Triton peer on the same squares and the
# DeepSeek-V3 projection, each call alone as the ablate rows are (its configuration printed).
# Run on the GPU machine from the repository root, carrying .gpu-carry:
#   bash scripts/device_ablate.sh $OUT
set -uo pipefail
cd "$(dirname "$0")/.."
R=${1:?usage: device_ablate.sh OUT_DIR}/ablate
mkdir -p "$R"
. scripts/device_build.sh
timeout 150 "$B/test_gpu_cuda" --gtest_brief=1 \
  --gtest_filter="${TESTS:-WsWarpArrive.*:WsAblation.*:WsL2Prefetch.*:PairedTiles.*}" >"$R/tests.log" 2>&1
echo "tests rc $? ($((SECONDS - t0)) s): $(grep -E "PASSED|FAILED|Failure" "$R/tests.log" | head -6 | tr '\n' ' ')"
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 "$B/test_gpu_cuda" \
    --gtest_filter='WsWarpArrive.*' >"$R/sanitizer_$tool.log" 2>&1
  echo "$tool rc $? ($((SECONDS - t0)) s): $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$R/sanitizer_$tool.log" | tail -1)"
done
BENCH="$B/qalg_gpu_bench --tables .gpu-carry/tables --suite ablate"
QALG_BENCH_VARIANTS=${TILES:-fused-wsl64x128,fused-wsl64x64} QALG_SQUARE_N=16384 timeout 240 $BENCH \
  --out "$R/ablate_16384.csv" >"$R/ablate_16384.log" 2>&1
echo "ablate n=16384 + projections rc $? ($((SECONDS - t0)) s)"
QALG_BENCH_VARIANTS=fused-wsl64x128 QALG_SQUARE_N=32768 QALG_ABLATE_SQUARE_ONLY=1 timeout 120 $BENCH \
  --out "$R/ablate_32768.csv" >"$R/ablate_32768.log" 2>&1
echo "ablate n=32768 rc $? ($((SECONDS - t0)) s)"
if [ -f .gpu-carry/triton_qproj.py ]; then
  PYTHONUNBUFFERED=1 timeout 150 python3 results/gpu/profile/session8_peer/peer_shape.py .gpu-carry/triton_qproj.py \
    16384:16384:128:16384:int 32768:32768:256:32768:int 7168:2048:16 >"$R/peer.jsonl" 2>"$R/peer.err"
  echo "peer rc $? ($((SECONDS - t0)) s):"; cut -c1-220 "$R/peer.jsonl"
fi
grep -hE "^# GPU|^launch|^ablate" "$R"/ablate_*.log | cut -c1-175
echo "total $((SECONDS - t0)) s"

#!/usr/bin/env bash
# Nineteenth session: where the warp-specialised tiles' time goes, and the TMA-store epilogue.
# Builds gpu/, runs WsTmaStore (every warp-specialised tile with TMA stores), WsAblation, PairedTiles,
# TypedRowsTma and GatedFfn, memcheck on WsTmaStore, then the bench's ablate suite (each tile whole,
# with TMA stores, and with its copies / wgmma / stores left out: warm medians of 20 replays,
# bench_ablate.hpp) on the square n = 16384 and the M = 2048 projections, on the square n = 32768
# (columns and types item order), then the ffn suite with and without TMA stores.
# Run on the GPU machine from the repository root, carrying .gpu-carry:
#   bash scripts/device_ablate.sh $OUT
# (call 1 of the session ran an earlier form, with the L2 prefetch and per-warp release, since removed)
set -uo pipefail
cd "$(dirname "$0")/.."
R=${1:?usage: device_ablate.sh OUT_DIR}/ablate
mkdir -p "$R"
. scripts/device_build.sh
L=/tmp/ablate_logs; mkdir -p $L  # logs that need not come back (the call returns at most 8 files)
timeout 150 "$B/test_gpu_cuda" --gtest_brief=1 \
  --gtest_filter="${TESTS:-WsTmaStore.*:WsAblation.*:PairedTiles.*:TypedRowsTma.*:GatedFfn.*}" >$L/tests.log 2>&1
echo "tests rc $? ($((SECONDS - t0)) s): $(grep -E "PASSED|FAILED|Failure" $L/tests.log | head -8 | tr '\n' ' ')"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 3 "$B/test_gpu_cuda" \
  --gtest_filter='WsTmaStore.*' >$L/memcheck.log 2>&1
echo "memcheck rc $? ($((SECONDS - t0)) s): $(grep -E "ERROR SUMMARY" $L/memcheck.log | tail -1)"
BENCH="$B/qalg_gpu_bench --tables .gpu-carry/tables --suite ablate"
QALG_BENCH_VARIANTS=${TILES:-fused-wsl64x128,fused-wsl64x64} QALG_SQUARE_N=16384 timeout 240 $BENCH \
  --out "$R/ablate_16384.csv" >"$R/ablate_16384.log" 2>&1
echo "ablate n=16384 + projections rc $? ($((SECONDS - t0)) s)"
for order in columns types; do
  QALG_WS_ORDER=$order QALG_BENCH_VARIANTS=fused-wsl64x128 QALG_SQUARE_N=32768 QALG_ABLATE_SQUARE_ONLY=1 timeout 120 \
    $BENCH --out "$R/ablate_32768_$order.csv" >"$R/ablate_32768_$order.log" 2>&1
  echo "ablate n=32768 ($order) rc $? ($((SECONDS - t0)) s)"
done
for tma in 0 1; do
  QALG_WS_TMA_STORE=$tma PEER=0 timeout 100 bash scripts/gpu_bench.sh $L/ffn_tma$tma ffn >/dev/null 2>&1
  echo "ffn suite, QALG_WS_TMA_STORE=$tma, rc $? ($((SECONDS - t0)) s):"
  cat $L/ffn_tma$tma/bench_ffn.log | grep -E "^table" | cut -c1-150 | tee -a "$R/ffn_tma.log"
done
grep -hE "^# GPU|^launch|^ablate" "$R"/ablate_*.log | cut -c1-150
echo "total $((SECONDS - t0)) s"

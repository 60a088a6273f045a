#!/usr/bin/env bash
# Device call of the eighteenth session: the paired tiles (wsp, clusters of two CTAs sharing W by
# TMA multicast; wgs_gemm.cuh CL = 2). Builds gpu/, runs the whole CUDA test suite (PairedTiles
# among it) with its conformance CSV, memcheck and racecheck on PairedTiles, then the forward
# suite (projections and squares; the calibration times wsl and wsp side by side). Results under
# OUT/pairs. Run on the GPU machine from the repository root, carrying .gpu-carry:
#   bash scripts/device_pairs.sh $OUT
set -uo pipefail
cd "$(dirname "$0")/.."
R=${1:?usage: device_pairs.sh OUT_DIR}/pairs
mkdir -p "$R"
. scripts/device_build.sh
timeout 60 "$B/test_gpu_cuda" --gtest_filter='PairedTiles.*' >"$R/pairs_test.log" 2>&1
echo "PairedTiles rc $? ($((SECONDS - t0)) s): $(grep -E "PASSED|FAILED|Failure" "$R/pairs_test.log" | head -5 | tr '\n' ' ')"
echo "table,kernel,dtype,inputs,M,K,N,rel_l2,max_abs,unwritten,mismatches,result" >"$R/conformance.csv"
QALG_GPU_RESULTS="$R/conformance.csv" timeout 170 "$B/test_gpu_cuda" --gtest_brief=1 >"$R/conformance.log" 2>&1
echo "tests rc $? ($((SECONDS - t0)) s): $(grep -E "PASSED|FAILED" "$R/conformance.log" | tail -3 | tr '\n' ' ')"
echo "conformance rows: $(($(wc -l <"$R/conformance.csv") - 1)), failures: $(grep -c FAIL "$R/conformance.csv")"
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 "$B/test_gpu_cuda" \
    --gtest_filter='PairedTiles.*' >"$R/sanitizer_$tool.log" 2>&1
  echo "$tool rc $? ($((SECONDS - t0)) s): $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$R/sanitizer_$tool.log" | tail -1)"
done
PEER=0 timeout 240 bash scripts/gpu_bench.sh "$R/bench" forward >"$R/bench.log" 2>&1
echo "bench rc $? ($((SECONDS - t0)) s):"
grep -E "^# GPU" "$R/bench.log" | head -1
grep -E "wsp|wsl64x128|wsl64x64| projection | square " "$R/bench.log" | cut -c1-170 | head -80
echo "total $((SECONDS - t0)) s"

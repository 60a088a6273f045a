#!/usr/bin/env bash
# GPU conformance (issue 6), run on the GPU machine: build the gpu module alone (no FLINT), run the
# CUDA conformance suite (results CSV), then compute-sanitizer memcheck, racecheck and initcheck
# (reads of uninitialised device memory) on small shapes.
#   scripts/gpu_check.sh [RESULTS_DIR]     (default results/gpu; tables from .gpu-carry/tables)
set -euo pipefail
cd "$(dirname "$0")/.."
RES=${1:-results/gpu}
BUILD=${BUILD_GPU:-build-gpu}
mkdir -p "$RES"
gen=$(command -v ninja >/dev/null && echo "-G Ninja" || true)
cmake -S gpu -B "$BUILD" $gen -DCMAKE_BUILD_TYPE=Release >"$RES/cmake.log" 2>&1 || { tail -30 "$RES/cmake.log"; exit 1; }
cmake --build "$BUILD" -j"$(nproc)" >"$RES/build.log" 2>&1 || { grep -E "error" -A3 "$RES/build.log" | head -60; exit 1; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$RES/gpu.txt"
echo "table,kernel,dtype,inputs,M,K,N,rel_l2,max_abs,unwritten,mismatches,result" >"$RES/conformance.csv"
ls .gpu-carry/tables/*.json >/dev/null 2>&1 && export QALG_GPU_TABLES=$PWD/.gpu-carry/tables
status=0
QALG_GPU_RESULTS="$RES/conformance.csv" "$BUILD/test_gpu_cuda" --gtest_brief=1 >"$RES/conformance.log" 2>&1 || status=1
tail -5 "$RES/conformance.log"
if [ -x "$BUILD/test_gpu" ]; then "$BUILD/test_gpu" --gtest_brief=1 >"$RES/cpu_tests.log" 2>&1 || status=1; tail -2 "$RES/cpu_tests.log"; fi
for tool in memcheck racecheck initcheck; do
  compute-sanitizer --tool $tool --error-exitcode 3 "$BUILD/test_gpu_cuda" \
    --gtest_filter='SanitizerSmall.*:Fixture.*' >"$RES/sanitizer_$tool.log" 2>&1 || status=1
  echo "$tool: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$RES/sanitizer_$tool.log" | tail -1)"
done
echo "conformance rows: $(($(wc -l <"$RES/conformance.csv") - 1)), failures: $(grep -c FAIL "$RES/conformance.csv" || true)"
exit $status

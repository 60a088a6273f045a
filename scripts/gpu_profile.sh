#!/usr/bin/env bash
# Nsight Compute profile of single forward variants on the Qwen3-8B shape (issue 7), on the GPU
# machine: builds the gpu module if needed, prints every variant's calibration time, then one
# ncu report per named variant (speed of light, memory, warp stalls, occupancy).
#   scripts/gpu_profile.sh RESULTS_DIR VARIANT...     e.g. fused-64x128w4 fused-wg64x128
set -uo pipefail
cd "$(dirname "$0")/.."
RES=$1; shift
BUILD=${BUILD_GPU:-build-gpu}
mkdir -p "$RES"
if [ ! -x "$BUILD/qalg_gpu_bench" ]; then
  cmake -S gpu -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >"$RES/cmake.log" 2>&1 &&
    cmake --build "$BUILD" -j"$(nproc)" >"$RES/build.log" 2>&1 || { grep -E "error" -A3 "$RES/build.log" | head -40; exit 1; }
fi
"$BUILD/qalg_gpu_bench" --tables .gpu-carry/tables --suite probe --out "$RES/probe.csv" | tee "$RES/probe.log"
for v in "$@"; do
  QALG_BENCH_VARIANTS=$v ncu --clock-control none --kernel-name regex:"wg_gemm|tc_gemm|wgs_forward|wst_forward" --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
    --section LaunchStats --section SchedulerStats \
    "$BUILD/qalg_gpu_bench" --tables .gpu-carry/tables --suite probe --out /dev/null >"$RES/ncu_$v.txt" 2>&1
  echo "== $v"; grep -E "DRAM Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Memory Throughput|Duration|Issue Slot|Eligible Warps|Active Warps|Achieved Occupancy|Registers Per|Stall|Warp Cycles Per Issued|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|No Eligible|Block Limit" "$RES/ncu_$v.txt" | head -30
done

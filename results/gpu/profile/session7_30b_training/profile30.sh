#!/usr/bin/env bash
# Seventh session: Nsight Compute (--set full) on one launch each of the Qwen3-30B expert's
# training kernels (q = 32, up): forward wsl64x64, dX wm64x64, dW wm64x64, dX wsl64x64 (that last
# kernel was dropped in bfe15db: its line now profiles nothing). Run on the GPU machine from the
# repository root with .gpu-carry/tables carried (scripts/prepare_device_carry.sh):
#   bash results/gpu/profile/session7_30b_training/profile30.sh $OUT
set -uo pipefail
OUT=$1
R=$OUT/profile30; mkdir -p $R
B=build-gpu
t0=$SECONDS
gen=$(command -v ninja >/dev/null && echo "-G Ninja" || true)
cmake -S gpu -B $B $gen -DCMAKE_BUILD_TYPE=Release >$R/cmake.log 2>&1
cmake --build $B -j16 --target qalg_gpu_bench >$R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
echo "build $((SECONDS-t0)) s"
export QALG_BENCH_VARIANTS=fused-wsl64x64
prof() {  # name regex
  timeout 150 ncu --kernel-name-base demangled --kernel-name "regex:$2" --launch-count 1 --set full \
    $B/qalg_gpu_bench --tables .gpu-carry/tables --suite train30 --out /dev/null >$R/ncu_$1.txt 2>&1
  echo "== $1 ($((SECONDS-t0)) s)"
  grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Grid Size|Block Size|Warp Cycles Per Issued|Issue Slots Busy|No Eligible|Active Warps Per|Eligible Warps|L2 Hit Rate|Mem Busy|Max Bandwidth|Waves Per SM|Elapsed Cycles|SM Frequency|DRAM Frequency|Block Limit" $R/ncu_$1.txt | head -40
  grep -iE "stall" $R/ncu_$1.txt | head -6
}
prof fwd 'wgs_forward_kernel<__nv_bfloat16, .int.64, .int.64, .int.3, .int.0, .int.4, .int.0>'
prof dxwm 'wg_gemm_kernel<__nv_bfloat16, .int.1, .int.64, .int.64, .int.3, .int.4'
prof dwwm 'wg_gemm_kernel<__nv_bfloat16, .int.2, .int.64, .int.64, .int.3, .int.4'
prof dxwsl 'wgs_forward_kernel<__nv_bfloat16, .int.64, .int.64, .int.3, .int.0, .int.4, .int.1>'
echo "total $((SECONDS-t0)) s"

#!/usr/bin/env bash
# Eighth session: Nsight Compute (--set full) on the Qwen3-1.7B projection (M = 2048, q = 32,
# cyclic types), qalg's calibrated forward kernel (wsl64x192) beside the Triton peer's kernel, and
# the peer's autotuned configurations on the three shapes where it is faster (1.7B, 8B at q = 32;
# DeepSeek-V3 expert at q = 16). Run on the GPU machine from the repository root with
# .gpu-carry/tables and .gpu-carry/triton_qproj.py carried:
#   bash results/gpu/profile/session8_peer/profile_peer.sh $OUT
set -uo pipefail
OUT=$1
D=$(dirname "$0")
R=$OUT/profile_peer; mkdir -p $R
B=build-gpu
t0=$SECONDS
gen=$(command -v ninja >/dev/null && echo "-G Ninja" || true)
cmake -S gpu -B $B $gen -DCMAKE_BUILD_TYPE=Release >$R/cmake.log 2>&1
cmake --build $B -j16 --target qalg_gpu_bench >$R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
echo "build $((SECONDS-t0)) s"
KEYS="Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Shared Memory Configuration Size|Dynamic Shared|Grid Size|Block Size|Warp Cycles Per Issued|Issue Slots Busy|No Eligible|Active Warps Per|Eligible Warps|L2 Hit Rate|L1/TEX Hit Rate|Mem Busy|Max Bandwidth|Waves Per SM|SM Frequency|Block Limit|excessive|uncoalesced"
# the three shapes, one variant each (the calibrated ones), timed by the bench
QALG_BENCH_VARIANTS=fused-wsl64x192,fused-wsl64x128,fused-wmr128x128 timeout 90 $B/qalg_gpu_bench --tables .gpu-carry/tables \
  --suite peerlost --out $R/peerlost.csv >$R/peerlost.log 2>&1
grep -E "^table|^peerlost" $R/peerlost.log | cut -c1-150
QALG_BENCH_VARIANTS=fused-wsl64x192 timeout 150 ncu --kernel-name-base demangled --kernel-name regex:wgs_forward_kernel \
  --launch-count 1 --set full $B/qalg_gpu_bench --tables .gpu-carry/tables --suite peerlost --out /dev/null \
  >$R/ncu_qalg_wsl64x192.txt 2>&1
echo "== qalg wsl64x192 ($((SECONDS-t0)) s)"; grep -E "$KEYS" $R/ncu_qalg_wsl64x192.txt | head -45
timeout 150 python3 $D/peer_shape.py .gpu-carry/triton_qproj.py 2048:6144:32 4096:12288:32 7168:2048:16 \
  >$R/peer_configs.jsonl 2>$R/peer_configs.err
echo "== peer configs ($((SECONDS-t0)) s)"; cat $R/peer_configs.jsonl; tail -3 $R/peer_configs.err
timeout 200 ncu --profile-from-start off --kernel-name regex:qproj --launch-count 1 --set full \
  python3 $D/peer_shape.py .gpu-carry/triton_qproj.py 2048:6144:32 >$R/ncu_peer_1.7b.txt 2>&1
echo "== peer 1.7B ($((SECONDS-t0)) s)"; grep -E "$KEYS" $R/ncu_peer_1.7b.txt | head -45
echo "total $((SECONDS-t0)) s"

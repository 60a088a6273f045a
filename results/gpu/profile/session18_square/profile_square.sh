#!/usr/bin/env bash
# Eighteenth session: Nsight Compute (--set full, one launch) on the n = 16384 square product
# (b = 128, q = 128, interval types), qalg's calibrated tile (wsl64x128) and the Triton peer's
# kernel on the same shape, with the peer's autotuned configuration. Why: calls 2-4 showed that
# neither halving W's L2 reads (wsp tiles) nor the type-outer item order moves the squares' time,
# so what bounds them is open. Run on the GPU machine from the repository root, carrying
# .gpu-carry (tables, triton_qproj.py):
#   bash results/gpu/profile/session18_square/profile_square.sh $OUT     (T_QALG, T_PEER: the two ncu timeouts, s)
set -uo pipefail
OUT=$1
D=$(dirname "$0")
R=$OUT/profile_square; mkdir -p $R
. scripts/device_build.sh  # B, t0; its logs under $R
KEYS="Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Grid Size|Block Size|Warp Cycles Per Issued|Issue Slots Busy|No Eligible|Active Warps Per|Eligible Warps|L2 Hit Rate|Mem Busy|Max Bandwidth|SM Frequency|DRAM Frequency|Tensor|Stall"
QALG_SQUARE_N=16384 QALG_BENCH_VARIANTS=fused-wsl64x128 timeout ${T_QALG:-150} ncu --kernel-name-base demangled \
  --kernel-name regex:wgs_forward_kernel --launch-count 1 --set full $B/qalg_gpu_bench --tables .gpu-carry/tables \
  --suite square --out /dev/null >$R/ncu_qalg_wsl64x128.txt 2>&1
echo "== qalg wsl64x128 ($((SECONDS-t0)) s)"; grep -E "$KEYS" $R/ncu_qalg_wsl64x128.txt | head -50
timeout ${T_PEER:-200} ncu --profile-from-start off --kernel-name regex:qproj --launch-count 1 --set full \
  python3 results/gpu/profile/session8_peer/peer_shape.py .gpu-carry/triton_qproj.py 16384:16384:128:16384:int \
  >$R/ncu_peer.txt 2>&1
echo "== peer ($((SECONDS-t0)) s)"; grep -E "^\{" $R/ncu_peer.txt; grep -E "$KEYS" $R/ncu_peer.txt | head -50
echo "total $((SECONDS-t0)) s"

#!/usr/bin/env bash
# Eighteenth session, for the next device call: where the cycles of the n = 16384 square product
# go, per SASS instruction, for qalg's wsl64x128 and the Triton peer's kernel on the same shape.
# Call 5 (profile_square.sh) found wsl64x128 latency-bound with no unit saturated (0.60 eligible
# warps per scheduler, ~6200 warp instructions per 64x128 tile); this says which instructions
# the warps wait at (producer's per-step path, epilogue stores, full-barrier spins).
# The peer autotunes once without ncu (its best_config printed), then runs that configuration alone
# under ncu (PEER_CONFIG: no tuning runs inside the profiler, where call 5 ran out of time).
# Run on the GPU machine from the repository root, carrying .gpu-carry (tables, triton_qproj.py):
#   bash results/gpu/profile/session18_square/profile_square_sass.sh $OUT      (~5 minutes)
set -uo pipefail
OUT=$1/profile_square_sass; mkdir -p $OUT
P=results/gpu/profile/session8_peer/peer_shape.py
SHAPE=16384:16384:128:16384:int
R=$OUT
. scripts/device_build.sh  # B, t0; its logs under $OUT
NCU="ncu --clock-control none --launch-count 1 --set full --import-source yes"
QALG_SQUARE_N=16384 QALG_BENCH_VARIANTS=fused-wsl64x128 timeout 120 $NCU --kernel-name regex:wgs_forward_kernel \
  -f -o /tmp/wsl64x128 $B/qalg_gpu_bench --tables .gpu-carry/tables --suite square --out /dev/null >/tmp/ncu_wsl.log 2>&1
echo "qalg wsl64x128 profiled ($((SECONDS - t0)) s)"; tail -2 /tmp/ncu_wsl.log
timeout 150 python3 $P .gpu-carry/triton_qproj.py $SHAPE >$OUT/peer_config.jsonl 2>$OUT/peer_config.err
cat $OUT/peer_config.jsonl | grep best_config
# "BM: 128, BN: 128, BK: 64, num_warps: 8, ..., num_stages: 3, ..." -> 128,128,64,8,3
cfg=$(grep -o '"best_config": "[^"]*"' $OUT/peer_config.jsonl | head -1 |
  sed -E 's/.*BM: ([0-9]+), BN: ([0-9]+), BK: ([0-9]+), num_warps: ([0-9]+).*num_stages: ([0-9]+).*/\1,\2,\3,\4,\5/')
echo "peer configuration: $cfg ($((SECONDS - t0)) s)"
[ -n "$cfg" ] && PEER_CONFIG=$cfg timeout 120 $NCU --profile-from-start off --kernel-name regex:qproj -f -o /tmp/peer \
  python3 $P .gpu-carry/triton_qproj.py $SHAPE >/tmp/ncu_peer.log 2>&1
echo "peer profiled ($((SECONDS - t0)) s)"; tail -2 /tmp/ncu_peer.log
for r in wsl64x128 peer; do
  [ -f /tmp/$r.ncu-rep ] || continue
  ncu -i /tmp/$r.ncu-rep --page source --csv --print-source sass 2>$OUT/${r}_sass.err | gzip >$OUT/${r}_sass.csv.gz
  ncu -i /tmp/$r.ncu-rep --page details --print-details all 2>&1 | gzip >$OUT/${r}_details.txt.gz
  echo "$r:"; zcat $OUT/${r}_details.txt.gz | grep -E "Duration|Warp Cycles Per Issued|Eligible Warps|Executed Instructions  " | head -4
done
echo "total $((SECONDS - t0)) s"

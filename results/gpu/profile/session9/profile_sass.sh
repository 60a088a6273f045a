#!/usr/bin/env bash
# Ninth session: where the cycles of the Qwen3-1.7B forward go, per SASS instruction, for qalg's
# many-CTA tile wl64x64 and the Triton peer's kernel (the same 64×64 tile and grid order, 39.0
# against 29.6 µs in this session's runs). Nsight Compute --set full with source import, then the
# source page (SASS, per-instruction stall samples) as CSV, and the details page.
# Run on the GPU machine from the repository root, carrying .gpu-carry (tables, triton_qproj.py):
#   bash results/gpu/profile/session9/profile_sass.sh $OUT
set -uo pipefail
OUT=$1
B=build-gpu
P=results/gpu/profile/session8_peer/peer_shape.py
t0=$SECONDS
gen=$(command -v ninja >/dev/null && echo "-G Ninja" || true)
cmake -S gpu -B $B $gen -DCMAKE_BUILD_TYPE=Release >/tmp/cmake.log 2>&1
cmake --build $B -j16 --target qalg_gpu_bench >/tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "build $((SECONDS - t0)) s"
NCU="ncu --clock-control none --launch-count 1 --set full --import-source yes"
QALG_BENCH_VARIANTS=fused-wl64x64 timeout 150 $NCU --kernel-name regex:wg_gemm_kernel -f -o /tmp/wl64x64 \
  $B/qalg_gpu_bench --tables .gpu-carry/tables --suite peerlost --out /dev/null >/tmp/ncu_wl.log 2>&1
echo "qalg wl64x64 profiled ($((SECONDS - t0)) s)"; tail -2 /tmp/ncu_wl.log
timeout 150 $NCU --profile-from-start off --kernel-name regex:qproj -f -o /tmp/peer \
  python3 $P .gpu-carry/triton_qproj.py 2048:6144:32 >/tmp/ncu_peer.log 2>&1
echo "peer profiled ($((SECONDS - t0)) s)"; tail -2 /tmp/ncu_peer.log
for r in wl64x64 peer; do
  [ -f /tmp/$r.ncu-rep ] || continue
  ncu -i /tmp/$r.ncu-rep --page source --csv --print-source sass >$OUT/${r}_sass.csv 2>$OUT/${r}_sass.err
  ncu -i /tmp/$r.ncu-rep --page details --print-details all >$OUT/${r}_details.txt 2>&1
  echo "$r: $(wc -l <$OUT/${r}_sass.csv) SASS rows"; grep -E "Duration|Warp Cycles Per Issued" $OUT/${r}_details.txt | head -3
done
echo "total $((SECONDS - t0)) s"

#!/usr/bin/env bash
# Where a benchmark suite's GPU time goes, kernel by kernel (issue 7), on the GPU machine after
# scripts/gpu_check.sh built build-gpu: Nsight Systems' per-kernel summary and the trace of the
# last launches (the suite's final "parts" measurements). Where nsys is not installed (the device
# image of 2026-11-29), Nsight Compute on the first launches of the kernels named by NCU_KERNELS.
#   scripts/gpu_timeline.sh RESULTS_DIR SUITE        e.g. train30
#   NCU_KERNELS='wg_gemm_kernel<__nv_bfloat16, 1' NCU_LAUNCHES=20 scripts/gpu_timeline.sh R train30   (dX only)
set -uo pipefail
cd "$(dirname "$0")/.."
RES=$1 SUITE=$2
BUILD=${BUILD_GPU:-build-gpu}
mkdir -p "$RES"
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems*/bin/nsys 2>/dev/null | head -1)
if [ -n "$NSYS" ]; then
  "$NSYS" profile -t cuda --cuda-graph-trace=node -o "$RES/timeline_$SUITE" --force-overwrite true \
    "$BUILD/qalg_gpu_bench" --tables .gpu-carry/tables --suite "$SUITE" --out "$RES/timeline_$SUITE.csv" >"$RES/timeline_$SUITE.log" 2>&1
  "$NSYS" stats -r cuda_gpu_kern_sum -f csv -o "$RES/kern_sum_$SUITE" "$RES/timeline_$SUITE.nsys-rep" >/dev/null 2>&1
  "$NSYS" stats -r cuda_gpu_trace -f csv -o "$RES/trace_$SUITE" "$RES/timeline_$SUITE.nsys-rep" >/dev/null 2>&1
  rm -f "$RES/timeline_$SUITE.nsys-rep" "$RES/timeline_$SUITE.sqlite"
  # the kernel summary without the template noise: time %, total, instances, avg, name (cut)
  python3 - "$RES/kern_sum_${SUITE}_cuda_gpu_kern_sum.csv" <<'PY'
import csv, re, sys
for r in list(csv.DictReader(open(sys.argv[1])))[:40]:
    name = re.sub(r"qalg::gpu::detail::|__nv_bfloat16|void |\(.*$", "", r["Name"])[:110]
    print(f'{float(r["Time (%)"]):5.1f}%  n={r["Instances"]:>6}  avg={float(r["Avg (ns)"])/1e3:8.2f} us  {name}')
PY
else
  # No nsys on the device image (fifth session). Profile only the first NCU_LAUNCHES launches of
  # the kernels matching NCU_KERNELS (full demangled names, so the template arguments select e.g.
  # dX = mode 1, dW = mode 2 of wg_gemm_kernel): ncu prints at the end of the run, and without a
  # cap it replays every launch of every calibration and the call's time limit kills it first.
  echo "no nsys: Nsight Compute on the first ${NCU_LAUNCHES:-60} launches matching ${NCU_KERNELS:-wg_gemm_kernel}"
  QALG_BENCH_VARIANTS=${QALG_BENCH_VARIANTS:-fused-wm64x64} ncu --kernel-name-base demangled \
    --kernel-name "regex:${NCU_KERNELS:-wg_gemm_kernel}" --launch-count "${NCU_LAUNCHES:-60}" \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --csv --page details \
    "$BUILD/qalg_gpu_bench" --tables .gpu-carry/tables --suite "$SUITE" --out "$RES/timeline_$SUITE.csv" \
    >"$RES/ncu_$SUITE.csv" 2>"$RES/ncu_$SUITE.err"
  tail -3 "$RES/ncu_$SUITE.err"
  grep -E '"Duration"|"Achieved Occupancy"|"Grid Size"|"Registers Per Thread"' "$RES/ncu_$SUITE.csv" | cut -d, -f5,13- | head -40
fi

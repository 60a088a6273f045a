#!/usr/bin/env bash
# Where a benchmark suite's GPU time goes, kernel by kernel (issue 7), on the GPU machine after
# scripts/gpu_check.sh built build-gpu: Nsight Systems' per-kernel summary and the trace of the
# last launches (the suite's final "parts" measurements). Falls back to Nsight Compute durations
# (every launch of the named kernels, serialised) where nsys is not installed.
#   scripts/gpu_timeline.sh RESULTS_DIR SUITE        e.g. train30
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
  echo "no nsys: Nsight Compute durations of every launch"
  ncu --metrics gpu__time_duration.sum --csv "$BUILD/qalg_gpu_bench" --tables .gpu-carry/tables --suite "$SUITE" \
    --out "$RES/timeline_$SUITE.csv" >"$RES/ncu_durations_$SUITE.csv" 2>"$RES/ncu_durations_$SUITE.err"
  tail -5 "$RES/ncu_durations_$SUITE.err"
fi

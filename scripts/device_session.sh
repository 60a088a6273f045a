#!/usr/bin/env bash
# Everything the GPU issues (6, 7, 8, 12) need from one lent H200 call, each step under its own
# time limit so the call ends inside the device tool's 10 minutes, results in ONE archive (the tool
# returns at most 8 files):
#   conformance + compute-sanitizer (gpu_check.sh)   ~1.5 min
#   exported packages: CMake, consumers, PyTorch     ~2.5 min   (if .gpu-carry/export/* exist)
#   benchmark table with the Triton peer             ~4.5 min   (SUITE=table; BENCH=0 skips it)
# Run on the device machine from the repository root, carrying .gpu-carry/tables,
# .gpu-carry/triton_qproj.py and .gpu-carry/export:
#   bash scripts/device_session.sh $OUT
# Prepare here first: `qalg table complete:q --out .gpu-carry/tables/complete_q.json` (see
# results/gpu/README.md) and the two packages of results/export/README.md.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: device_session.sh OUT_DIR}
R=/tmp/qalg_device_session
rm -rf "$R" && mkdir -p "$R"
export BUILD_GPU=${BUILD_GPU:-build-gpu}
t0=$SECONDS
timeout 200 bash scripts/gpu_check.sh "$R/check" >"$R/check.log" 2>&1
echo "check ($((SECONDS - t0)) s):"; tail -6 "$R/check.log"
pkgs=(.gpu-carry/export/*/)
if [ -d "${pkgs[0]:-}" ]; then
  t1=$SECONDS
  timeout 200 bash scripts/export_check.sh "$R/export" "${pkgs[@]}" >"$R/export.log" 2>&1
  echo "export ($((SECONDS - t1)) s):"; grep -E "^(ok|FAIL)|passed|failed" "$R/export/summary.txt" | tail -14
fi
# The bench gets what is left of DEADLINE seconds (the device tool stops a call at 600 s and
# returns nothing then), unless BENCH_SECONDS says otherwise.
left=$(( ${DEADLINE:-560} - (SECONDS - t0) ))
if [ "${BENCH:-1}" = 1 ] && [ "${BENCH_SECONDS:-$left}" -gt 30 ]; then
  t2=$SECONDS
  PEER=${PEER:-1} timeout "${BENCH_SECONDS:-$left}" bash scripts/gpu_bench.sh "$R/bench" "${SUITE:-table}" >"$R/bench.log" 2>&1
  echo "bench ($((SECONDS - t2)) s):"; grep -E "^(table|sweep|probe) " "$R/bench.log" | cut -c1-140
fi
tar czf "$OUT/device_session.tgz" -C /tmp qalg_device_session
echo "total $((SECONDS - t0)) s; results in device_session.tgz"

#!/usr/bin/env bash
# A short device call for when little device time is left (~5 minutes): build gpu/, the whole CUDA
# test suite with its conformance CSV, the benchmark table without the peer, then the Triton peer's
# table1 pass (the five M = 2048 projections) and compute-sanitizer memcheck in what is left of
# DEADLINE seconds. Results under OUT/quick (rows are flushed as they come, so a step cut short
# keeps what it finished). Run on the GPU machine from the repository root, carrying .gpu-carry:
#   DEADLINE=300 bash scripts/device_quick_table.sh $OUT
set -uo pipefail
cd "$(dirname "$0")/.."
R=${1:?usage: device_quick_table.sh OUT_DIR}/quick
mkdir -p "$R/bench"
B=${BUILD_GPU:-build-gpu}
t0=$SECONDS
left() { echo $(( ${DEADLINE:-300} - (SECONDS - t0) )); }
gen=$(command -v ninja >/dev/null && echo "-G Ninja" || true)
cmake -S gpu -B "$B" $gen -DCMAKE_BUILD_TYPE=Release >"$R/cmake.log" 2>&1
cmake --build "$B" -j"$(nproc)" >"$R/build.log" 2>&1 || { grep -E "error" -A3 "$R/build.log" | head -40; exit 1; }
echo "build $((SECONDS - t0)) s"
export QALG_GPU_TABLES=$PWD/.gpu-carry/tables
echo "table,kernel,dtype,inputs,M,K,N,rel_l2,max_abs,unwritten,mismatches,result" >"$R/conformance.csv"
QALG_GPU_RESULTS="$R/conformance.csv" timeout ${T_TESTS:-150} "$B/test_gpu_cuda" --gtest_brief=1 >"$R/conformance.log" 2>&1
echo "tests rc $? ($((SECONDS - t0)) s): $(grep -E "PASSED|FAILED" "$R/conformance.log" | tail -3 | tr '\n' ' ')"
echo "conformance rows: $(($(wc -l <"$R/conformance.csv") - 1)), failures: $(grep -c FAIL "$R/conformance.csv")"
PEER=0 timeout 150 bash scripts/gpu_bench.sh "$R/bench" table >"$R/bench.log" 2>&1
echo "bench ($((SECONDS - t0)) s):"; grep -E "^# GPU" "$R/bench.log" | head -1; grep -E "^table " "$R/bench.log" | cut -c1-140
if [ "$(left)" -gt 45 ] && [ -f .gpu-carry/triton_qproj.py ]; then
  PYTHONUNBUFFERED=1 timeout $(( $(left) - 25 )) python3 .gpu-carry/triton_qproj.py table1 >"$R/bench/peer.jsonl" \
    2>"$R/bench/peer_table1.err"
  echo "peer ($((SECONDS - t0)) s):"; cat "$R/bench/peer.jsonl" | cut -c1-200
fi
if [ "$(left)" -gt 15 ]; then
  timeout $(( $(left) - 5 )) compute-sanitizer --tool memcheck --error-exitcode 3 "$B/test_gpu_cuda" \
    --gtest_filter="${MEMCHECK_FILTER:-SanitizerSmall.*:Fixture.*}" >"$R/sanitizer_memcheck.log" 2>&1
  echo "memcheck rc $?: $(grep -E "ERROR SUMMARY" "$R/sanitizer_memcheck.log" | tail -1)"
fi
echo "total $((SECONDS - t0)) s"

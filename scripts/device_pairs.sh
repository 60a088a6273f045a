#!/usr/bin/env bash
# Device call of the eighteenth session: the paired tiles (wsp, clusters of two CTAs sharing W by
# TMA multicast; wgs_gemm.cuh CL = 2). Builds gpu/, runs the whole CUDA test suite (PairedTiles
# among it) with its conformance CSV, memcheck and racecheck on PairedTiles, then the forward
# suite (projections and squares; the calibration times wsl and wsp side by side; TESTS=FILTER runs
# only those tests). Results under
# OUT/pairs. Run on the GPU machine from the repository root, carrying .gpu-carry:
#   bash scripts/device_pairs.sh $OUT "default" "scope QALG_PAIR_SCOPE=1"    (one forward suite per variant)
#   TABLE=1 …: afterwards the table suite under the variant whose n = 32768 square was fastest
#   SUITES="forward ffn" …: those bench suites per variant (default: forward)
# (The L2 prefetch it was to time next was measured slower by scripts/device_ablate.sh and removed.)
set -uo pipefail
cd "$(dirname "$0")/.."
R=${1:?usage: device_pairs.sh OUT_DIR [VARIANT ...]}/pairs
VARIANTS=("${@:2}")  # (the loops below reset the positional parameters)
mkdir -p "$R"
. scripts/device_build.sh
timeout 60 "$B/test_gpu_cuda" --gtest_filter='PairedTiles.*' >"$R/pairs_test.log" 2>&1
echo "PairedTiles rc $? ($((SECONDS - t0)) s): $(grep -E "PASSED|FAILED|Failure" "$R/pairs_test.log" | head -5 | tr '\n' ' ')"
echo "table,kernel,dtype,inputs,M,K,N,rel_l2,max_abs,unwritten,mismatches,result" >"$R/conformance.csv"
QALG_GPU_RESULTS="$R/conformance.csv" timeout 170 "$B/test_gpu_cuda" --gtest_brief=1 --gtest_filter="${TESTS:-*}" >"$R/conformance.log" 2>&1
echo "tests rc $? ($((SECONDS - t0)) s): $(grep -E "PASSED|FAILED" "$R/conformance.log" | tail -3 | tr '\n' ' ')"
echo "conformance rows: $(($(wc -l <"$R/conformance.csv") - 1)), failures: $(grep -c FAIL "$R/conformance.csv")"
for tool in $([ "${SAN:-1}" = 1 ] && echo memcheck racecheck); do  # SAN=0: none
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 "$B/test_gpu_cuda" \
    --gtest_filter="${SAN_TESTS:-PairedTiles.*}" >"$R/sanitizer_$tool.log" 2>&1
  echo "$tool rc $? ($((SECONDS - t0)) s): $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$R/sanitizer_$tool.log" | tail -1)"
done
# the forward suite once per variant: "name ENV=VALUE ..." (call 2 ran the first form alone)
for v in "${VARIANTS[@]}"; do
  [ -n "$v" ] || v="default"
  set -- $v
  name=$1; shift
  for suite in ${SUITES:-forward}; do  # SUITES="forward ffn": each suite per variant
    env "$@" PEER=0 timeout 150 bash scripts/gpu_bench.sh "$R/bench_$name" $suite >>"$R/bench_$name.log" 2>&1
    echo "bench $name $suite ($*) rc $? ($((SECONDS - t0)) s):"
  done
  grep -E "^# GPU|^# paired" "$R/bench_$name.log" | head -2
  grep -E "wsp|wsl64x128|wsl64x64| projection | square | ffn " "$R/bench_$name.log" | cut -c1-170 | head -90
done
# TABLE=1: then the table suite (no peer) under the variant with the fastest n = 32768 square
if [ "${TABLE:-0}" = 1 ]; then
  best="" bt=""
  for v in "${VARIANTS[@]}"; do
    set -- $v
    us=$(grep -E " square .*n=32768" "$R/bench_$1.log" | sed -E 's/.* alg +([0-9.]+) us.*/\1/')
    [ -n "$us" ] && { [ -z "$bt" ] || awk "BEGIN{exit !($us < $bt)}"; } && best=$v bt=$us
  done
  set -- $best
  name=$1; shift
  echo "table under $name ($*), its n = 32768 square $bt us"
  env "$@" PEER=0 timeout 200 bash scripts/gpu_bench.sh "$R/table_$name" table >"$R/table_$name.log" 2>&1
  echo "table rc $? ($((SECONDS - t0)) s):"
  grep -E "^# GPU|^table " "$R/table_$name.log" | cut -c1-150
fi
echo "total $((SECONDS - t0)) s"

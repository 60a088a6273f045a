#!/usr/bin/env bash
# The narrow-group law tiles on the GPU machine in one call (~4 minutes): build gpu/, their tests
# (NarrowLaw, SanitizerSmall, NonFinite, TileConfigs), memcheck and racecheck on
# SanitizerSmall.NarrowLawTiles, then the wide Qwen3-32B rows on nl64x64 with lane stores
# (QALG_NARROW_TMA_STORE=0) and with TMA stores (the default) alternately, twice, the peerlost
# projections (Qwen3-1.7B, where nl64x64 applies at s = 64, 8B, DS-V3; every tile calibrated) and
# the five gated FFNs at M = 2048 (whose down projections' calibration lists every tile). Results
# under OUT/narrow, one archive OUT/narrow.tgz; the rows are printed last. Carry .gpu-carry
# (prepare_device_carry.sh).
#   [NARROW_RUNS="1 2 4"] bash scripts/device_narrow.sh $OUT   (NARROW_RUNS: also the FFNs at those runs)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: device_narrow.sh OUT_DIR}
R=/tmp/qalg_device_narrow
rm -rf "$R" && mkdir -p "$R"
trap 'tar czf "$OUT/narrow.tgz" -C /tmp qalg_device_narrow' EXIT
source scripts/device_build.sh
timeout 150 "$B/test_gpu_cuda" --gtest_filter='NarrowLaw.*:SanitizerSmall.*:NonFinite.*:TileConfigs.*' >"$R/tests.log" 2>&1
echo "tests rc $? ($((SECONDS - t0)) s): $(grep -E "PASSED|FAILED" "$R/tests.log" | tail -4 | tr '\n' ' ')"
grep -B2 -A8 "Failure" "$R/tests.log" | head -30
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 3 "$B/test_gpu_cuda" \
    --gtest_filter='SanitizerSmall.NarrowLawTiles' >"$R/sanitizer_$tool.log" 2>&1
  echo "$tool rc $? ($((SECONDS - t0)) s): $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$R/sanitizer_$tool.log" | tail -1)"
done
bench() {  # NAME SUITE [VAR=VALUE ...]
  local name=$1 suite=$2
  shift 2
  env "$@" timeout 100 "$B/qalg_gpu_bench" --tables .gpu-carry/tables --suite "$suite" --out "$R/$name.csv" >"$R/$name.log" 2>&1
  echo "$name ($suite $*) rc $? ($((SECONDS - t0)) s)"
}
for rep in 1 2; do
  bench "lanes_$rep" wide QALG_BENCH_VARIANTS=fused-nl64x64 QALG_NARROW_TMA_STORE=0
  bench "tma_$rep" wide QALG_BENCH_VARIANTS=fused-nl64x64
done
bench peerlost peerlost
bench ffn ffn
# nl64x64's run on the FFN down projections where it applies (Qwen3-30B expert s = 24, DS-V3 s = 64)
for run in ${NARROW_RUNS:-}; do bench "ffn_run$run" ffn QALG_BENCH_VARIANTS=fused-nl64x64 QALG_NARROW_RUN=$run; done
for f in "$R"/lanes_*.csv "$R"/tma_*.csv "$R"/peerlost*.csv "$R"/ffn.csv; do
  echo "== $(basename "$f" .csv)"
  grep -hvE "^(suite|ceiling)" "$f" 2>/dev/null | cut -d, -f3,4,7,8,10,13,20,21,30
done
grep -h "calibrate fused-nl\|shortlist\|parts ffn" "$R/ffn.log" | head -40
grep -h "calibrate fused-nl\|shortlist" "$R/peerlost.log" | head -20
for run in ${NARROW_RUNS:-}; do echo "run $run: $(grep -h "parts ffn Qwen3-30B\|parts ffn DeepSeek" "$R/ffn_run$run.log" | cut -c1-80 | tr '\n' ' ')"; done
echo "total $((SECONDS - t0)) s"

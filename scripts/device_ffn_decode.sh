#!/usr/bin/env bash
# The one-launch FFN decode (ffn_decode.cuh) on the GPU machine in one call (~6 minutes): build
# gpu/, the decode tests (FfnDecode, DecodeShapes, the paper's deep decodes and FFN conformance,
# SanitizerSmall.FfnDecodeOneLaunch) with their conformance CSV, memcheck and racecheck on
# SanitizerSmall.FfnDecodeOneLaunch, then the decode suite (M = 1 rows; each FFN decode row times
# the one launch against the two and keeps the faster) three times: chosen, forced two, forced one;
# and the one launch under each shape pair of DECODE_SHAPES (QALG_DECODE_SHAPES=ONE,TWO).
# Results under OUT/ffnd, one archive OUT/ffnd.tgz. Carry .gpu-carry.
#   [DECODE_SHAPES="16x64x4,16x64x8 32x64x4,32x64x4"] bash scripts/device_ffn_decode.sh $OUT
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: device_ffn_decode.sh OUT_DIR}
R=/tmp/qalg_device_ffnd
rm -rf "$R" && mkdir -p "$R"
trap 'tar czf "$OUT/ffnd.tgz" -C /tmp qalg_device_ffnd' EXIT
source scripts/device_build.sh
echo "table,kernel,dtype,inputs,M,K,N,rel_l2,max_abs,unwritten,mismatches,result" >"$R/conformance.csv"
QALG_GPU_RESULTS="$R/conformance.csv" timeout 200 "$B/test_gpu_cuda" \
  --gtest_filter='FfnDecode.*:DecodeShapes.*:PaperConformance.DeepDecodes:PaperConformance.*Ffn*:SanitizerSmall.FfnDecodeOneLaunch:SanitizerSmall.NarrowFfnOneKernel:NonFinite.*' \
  >"$R/tests.log" 2>&1
echo "tests rc $? ($((SECONDS - t0)) s): $(grep -E "PASSED|FAILED" "$R/tests.log" | tail -4 | tr '\n' ' ')"
echo "conformance rows: $(($(wc -l <"$R/conformance.csv") - 1)), failures: $(grep -c FAIL "$R/conformance.csv")"
grep -E "^\[ +(OK|FAILED) +\]" "$R/tests.log" | head -30
grep -B2 -A8 "Failure" "$R/tests.log" | head -40
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 "$B/test_gpu_cuda" \
    --gtest_filter='SanitizerSmall.FfnDecodeOneLaunch' >"$R/sanitizer_$tool.log" 2>&1
  echo "$tool rc $? ($((SECONDS - t0)) s): $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$R/sanitizer_$tool.log" | tail -1)"
done
bench() {  # NAME SUITE [VAR=VALUE ...]
  local name=$1 suite=$2
  shift 2
  env "$@" timeout 100 "$B/qalg_gpu_bench" --tables .gpu-carry/tables --suite "$suite" --out "$R/$name.csv" >"$R/$name.log" 2>&1
  echo "$name ($suite $*) rc $? ($((SECONDS - t0)) s):"
  grep -hvE "^(suite|ceiling)" "$R/$name.csv" 2>/dev/null | grep ",ffn," | cut -d, -f3,4,8,10,13,20,21,28,30
}
bench decode decode
grep -h "ffn-decode-fusion\|parts ffn" "$R/decode.log" | head -20
bench decode_two decode QALG_FFN_DECODE_FUSED=0
bench decode_one decode QALG_FFN_DECODE_FUSED=1
for sh in ${DECODE_SHAPES:-16x64x4,16x64x8 32x64x4,32x64x4 16x64x12,32x64x4}; do
  bench "decode_one_${sh/,/_}" decode QALG_FFN_DECODE_FUSED=1 QALG_DECODE_SHAPES=$sh
done
bench decode_again decode
grep -h "ffn-decode-fusion" "$R/decode_again.log" | head -20
echo "total $((SECONDS - t0)) s"

#!/usr/bin/env bash
# The one-launch FFN decode (ffn_decode.cuh) on the GPU machine in one call (~5 minutes): build
# gpu/, the decode tests (FfnDecode, DecodeShapes, the paper's FFN conformance, two SanitizerSmall
# FFN tests) with their conformance CSV, memcheck and racecheck on SanitizerSmall.FfnDecodeOneLaunch,
# then the decode suite (M = 1 rows; each FFN decode row times the one launch against the two and
# keeps the faster), and the one launch under each shape pair of DECODE_SHAPES (ONE,TWO).
# Every step has its own timeout (the first version of the kernel hung: 600 s of device time).
# Results under OUT/ffnd, one archive OUT/ffnd.tgz. Carry .gpu-carry.
#   [SANITIZERS="memcheck racecheck"] [DECODE_SHAPES="16x64x4,16x64x8 32x64x4,32x64x4"] bash scripts/device_ffn_decode.sh $OUT
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: device_ffn_decode.sh OUT_DIR}
R=/tmp/qalg_device_ffnd
rm -rf "$R" && mkdir -p "$R"
trap 'tar czf "$OUT/ffnd.tgz" -C /tmp qalg_device_ffnd' EXIT
source scripts/device_build.sh
echo "table,kernel,dtype,inputs,M,K,N,rel_l2,max_abs,unwritten,mismatches,result" >"$R/conformance.csv"
QALG_GPU_RESULTS="$R/conformance.csv" timeout 120 "$B/test_gpu_cuda" \
  --gtest_filter='FfnDecode.*:DecodeShapes.*:PaperConformance.*Ffn*:SanitizerSmall.FfnDecodeOneLaunch:SanitizerSmall.NarrowFfnOneKernel' \
  >"$R/tests.log" 2>&1
echo "tests rc $? ($((SECONDS - t0)) s): $(grep -E "PASSED|FAILED" "$R/tests.log" | tail -4 | tr '\n' ' ')"
echo "conformance rows: $(($(wc -l <"$R/conformance.csv") - 1)), failures: $(grep -c FAIL "$R/conformance.csv")"
grep -E "^\[ +(OK|FAILED) +\]" "$R/tests.log" | head -30
grep -B2 -A8 "Failure" "$R/tests.log" | head -40
for tool in ${SANITIZERS:-memcheck racecheck}; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 3 "$B/test_gpu_cuda" \
    --gtest_filter='SanitizerSmall.FfnDecodeOneLaunch' >"$R/sanitizer_$tool.log" 2>&1
  echo "$tool rc $? ($((SECONDS - t0)) s): $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$R/sanitizer_$tool.log" | tail -1)"
  grep -m3 "Race reported\|Invalid" "$R/sanitizer_$tool.log"
done
bench() {  # NAME SUITE [VAR=VALUE ...]
  local name=$1 suite=$2
  shift 2
  env "$@" timeout 70 "$B/qalg_gpu_bench" --tables .gpu-carry/tables --suite "$suite" --out "$R/$name.csv" >"$R/$name.log" 2>&1
  echo "$name ($suite $*) rc $? ($((SECONDS - t0)) s):"
  grep -h "ffn-decode-fusion\|parts ffn\|^table" "$R/$name.log" | head -24
}
bench decode decode
for sh in ${DECODE_SHAPES:-}; do
  bench "decode_one_${sh/,/_}" decode QALG_FFN_DECODE_FUSED=1 QALG_DECODE_SHAPES=$sh
done
echo "total $((SECONDS - t0)) s"

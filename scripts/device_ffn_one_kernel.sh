#!/usr/bin/env bash
# The one-kernel gated FFN (narrow_ffn.cuh) on the GPU machine in one call (~5 minutes): build
# gpu/, the FFN tests (GatedFfn, the paper's FFN conformance, SanitizerSmall) with their conformance
# CSV, memcheck and racecheck on SanitizerSmall.NarrowFfnOneKernel, the five gated FFNs at M = 2048
# (each row times the one kernel against the two where it applies and keeps the faster), then the
# Qwen3-30B expert's FFN alone (suite ffn30) on two kernels and on the one kernel at each
# FFN_RUNS × FFN_STAGES. Results under OUT/ffn1, one archive OUT/ffn1.tgz. Carry .gpu-carry.
#   [FFN_RUNS="0 1 2 4 8"] [FFN_STAGES="2 3"] bash scripts/device_ffn_one_kernel.sh $OUT
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: device_ffn_one_kernel.sh OUT_DIR}
R=/tmp/qalg_device_ffn1
rm -rf "$R" && mkdir -p "$R"
trap 'tar czf "$OUT/ffn1.tgz" -C /tmp qalg_device_ffn1' EXIT
source scripts/device_build.sh
echo "table,kernel,dtype,inputs,M,K,N,rel_l2,max_abs,unwritten,mismatches,result" >"$R/conformance.csv"
QALG_GPU_RESULTS="$R/conformance.csv" timeout 120 "$B/test_gpu_cuda" \
  --gtest_filter='GatedFfn.*:PaperConformance.*Ffn*:PaperConformance.DeepDecodes:SanitizerSmall.*' >"$R/tests.log" 2>&1
echo "tests rc $? ($((SECONDS - t0)) s): $(grep -E "PASSED|FAILED" "$R/tests.log" | tail -4 | tr '\n' ' ')"
echo "conformance rows: $(($(wc -l <"$R/conformance.csv") - 1)), failures: $(grep -c FAIL "$R/conformance.csv")"
grep -B2 -A8 "Failure" "$R/tests.log" | head -30
grep "one-kernel" "$R/conformance.csv" | cut -d, -f1,2,3,5,8,10,12 | head -40
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 "$B/test_gpu_cuda" \
    --gtest_filter='SanitizerSmall.NarrowFfnOneKernel' >"$R/sanitizer_$tool.log" 2>&1
  echo "$tool rc $? ($((SECONDS - t0)) s): $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$R/sanitizer_$tool.log" | tail -1)"
done
bench() {  # NAME SUITE [VAR=VALUE ...]
  local name=$1 suite=$2
  shift 2
  env "$@" timeout 100 "$B/qalg_gpu_bench" --tables .gpu-carry/tables --suite "$suite" --out "$R/$name.csv" >"$R/$name.log" 2>&1
  echo "$name ($suite $*) rc $? ($((SECONDS - t0)) s): $(grep -hvE "^(suite|ceiling)" "$R/$name.csv" 2>/dev/null | cut -d, -f3,4,8,10,13,20,21,25 | tr '\n' ' ')"
}
bench ffn ffn
grep -h "ffn-fusion\|parts ffn" "$R/ffn.log" | head -20
bench ffn30_two ffn30 QALG_NARROW_FFN=0
for st in ${FFN_STAGES:-2 3}; do
  for run in ${FFN_RUNS:-0 1 2 4 8}; do bench "ffn30_s${st}_run$run" ffn30 QALG_NARROW_FFN=1 QALG_NARROW_FFN_STAGES=$st QALG_NARROW_FFN_RUN=$run; done
done
bench ffn30_two_again ffn30 QALG_NARROW_FFN=0
echo "total $((SECONDS - t0)) s"

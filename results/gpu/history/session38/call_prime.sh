#!/usr/bin/env bash
# Thirty-eighth session: one call for set_ws_prime_first and the vote-based last step (~480 s on a
# fresh machine; machines were scarce, so builds, tests, A/B and stamps go in one call).
#   bash results/gpu/history/session38/call_prime.sh $OUT      (carrying .gpu-carry)
# 1. both builds at once (the stamps build in the background while the tests run; timings only after both);
# 2. the warp-specialised forward / gated-FFN tests (every one takes the vote-based last step), WsPrimeFirst
#    included, their conformance rows in OUT/t/conformance.csv;
# 3. the residue suite, base against QALG_WS_PRIME=1, two rounds, on DeepSeek-V3, the 30B expert, Qwen3-1.7B;
# 4. the kernels' stamps the same two ways on the same three (scripts/device_stamps.sh), then their summary.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
OUT=${1:?usage: call_prime.sh OUT}
nvidia-smi --query-gpu=name --format=csv,noheader
g=$(command -v ninja >/dev/null && echo "-G Ninja"); t=$SECONDS
(cmake -S gpu -B build-stamps $g -DCMAKE_BUILD_TYPE=Release -DQALG_WS_STAMPS=ON >/tmp/sb.log 2>&1 &&
  cmake --build build-stamps -j8 --target qalg_gpu_bench >>/tmp/sb.log 2>&1; echo "stamps build rc $? $((SECONDS - t)) s") &
cmake -S gpu -B build-gpu $g -DCMAKE_BUILD_TYPE=Release >/tmp/nb.log 2>&1 && cmake --build build-gpu -j16 >>/tmp/nb.log 2>&1
echo "normal build rc $? $((SECONDS - t)) s"; grep -E "error" -A3 /tmp/nb.log | head -20
mkdir -p "$OUT/t"
F='Calibration.*:WsPrimeFirst.*:TileConfigs.*:WsTiles.*:GatedFfn.*:PairedTiles.*:RowPairTiles.*:GroupPairTiles.*:WsPackTerms.*:GroupedTma.*:TypedRowsTma.*'
QALG_GPU_TABLES=$PWD/.gpu-carry/tables QALG_GPU_RESULTS="$OUT/t/conformance.csv" timeout ${T_TESTS:-160} \
  build-gpu/test_gpu_cuda --gtest_brief=1 --gtest_filter="$F" >/tmp/t.log 2>&1
echo "tests rc $? $((SECONDS - t)) s: $(grep -E "PASSED|FAILED|tests ran" /tmp/t.log | tail -4 | tr '\n' ' ')"
echo "conformance rows $(wc -l <"$OUT/t/conformance.csv"), failures $(grep -c FAIL "$OUT/t/conformance.csv")"
wait
V=fused-ws128x128-types-desc,fused-ws128x64-types-desc,fused-wsl64x192
AB_ENVS="base: prime:QALG_WS_PRIME=1" ROUNDS=2 SHAPES=DeepSeek-V3,Qwen3-30B,Qwen3-1.7B QALG_BENCH_VARIANTS=$V \
  timeout ${AB_SECONDS:-170} bash scripts/device_residue_ab.sh "$OUT" 2>&1 | grep -v "after read" | tail -24
rm -f "$OUT/ra/logs.tar.gz"
export STAMP_ENVS="base: prime:QALG_WS_PRIME=1"
STAMP_SHAPES=DeepSeek-V3 QALG_BENCH_VARIANTS=fused-ws128x128-types-desc timeout 40 bash scripts/device_stamps.sh "$OUT/ds" >/dev/null
STAMP_SHAPES=Qwen3-30B QALG_BENCH_VARIANTS=fused-ws128x64-types-desc timeout 30 bash scripts/device_stamps.sh "$OUT/e30" >/dev/null
STAMP_SHAPES=Qwen3-1.7B QALG_BENCH_VARIANTS=fused-wsl64x192 timeout 30 bash scripts/device_stamps.sh "$OUT/q17" >/dev/null
python3 scripts/stamps_summary.py "$OUT"/*/stamps/stamps.csv
echo "total $((SECONDS - t)) s"

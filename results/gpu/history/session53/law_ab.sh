#!/usr/bin/env bash
# Fifty-third session: set_ws_law_first (wgs_gemm.cuh kLawFirst; on by default since bc7bc8a) on any card, in one call.
#   bash results/gpu/history/session53/law_ab.sh $OUT      (carry .gpu-carry; ~300 s with the build)
# 1. build gpu/ (build-gpu); the GPU tests WsLawFirst, WsPrimeFirst, WsTiles (conformance rows in OUT/ra);
# 2. the residue suite, base (QALG_WS_LAW_FIRST=0) against QALG_WS_LAW_FIRST=1, ROUNDS (default 3) rounds, on the Qwen3-30B
#    expert's ws128x64-types-desc and DeepSeek-V3's ws128x128-types-desc (the table's tiles for them);
# 3. ptxas's registers and spills of the four ws128 instantiations, and the SASS spill instructions of
#    the law-first ws128x64 (cuobjdump), in OUT/ra/sass.txt.
set -uo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")/../../../.."
O=${1:?usage: law_ab.sh OUT}
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
echo "code: $(cat .gpu-carry/code.txt 2>/dev/null) (carry), tree $(git rev-parse --short HEAD 2>/dev/null)"
export QALG_BENCH_VARIANTS=fused-ws128x64-types-desc,fused-ws128x128-types-desc
T_FILTER=${LAW_FILTER:-WsLawFirst.*:WsPrimeFirst.*:WsTiles.*} T_TESTS=${T_TESTS:-150} AB_ENVS="base:QALG_WS_LAW_FIRST=0 law:QALG_WS_LAW_FIRST=1" \
  ROUNDS=${ROUNDS:-3} SHAPES=Qwen3-30B,DeepSeek-V3 timeout ${AB_SECONDS:-420} bash scripts/device_residue_ab.sh "$O"
rm -f "$O/ra/logs.tar.gz"
{
  lib=build-gpu/libqalg_gpu_cuda.a
  cuobjdump -res-usage "$lib" 2>/dev/null | grep -A1 "wgs_forward_kernel.*Li128ELi\(64ELi4\|128ELi6\)ELi0ELi\(1\|2\)ELi0ELi1ELb0ELb0ELb0E" |
    grep -o "Function [^ ]*\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" | paste - - - - 
  cuobjdump -sass "$lib" 2>/dev/null | awk '/Function : /{p = ($0 ~ /Li128ELi64ELi4ELi0ELi2ELi0ELi1ELb0ELb0ELb0ELb1E/)} p' >/tmp/lf_sass.txt
  echo "law-first ws128x64 SASS: $(wc -l </tmp/lf_sass.txt) lines, $(grep -c "STL\|LDL" /tmp/lf_sass.txt) local loads/stores:"
  grep -n "STL\|LDL" /tmp/lf_sass.txt | head -20
} >"$O/ra/sass.txt" 2>&1
cat "$O/ra/sass.txt" | head -12
echo "total $SECONDS s"

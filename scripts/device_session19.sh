#!/usr/bin/env bash
# Nineteenth session, the table call after the TMA-store epilogue became the default: the ablate
# suite's whole / tma-store rows on the square n = 32768 in both item orders (the deferred stage
# release), then scripts/device_quick_table.sh (build, every CUDA test with its conformance CSV,
# the table suite, the Triton peer's table1 pass, memcheck) in what is left of DEADLINE seconds.
# At most 8 files come back from a call: the ones kept are copied to OUT/s19, the other logs
# packed into OUT/s19/logs.tar.gz. Run on the GPU machine from the repository root, carrying .gpu-carry:
#   DEADLINE=540 bash scripts/device_session19.sh $OUT
#   SKIP_ABLATE=1 MEMCHECK_FILTER='SanitizerSmall.*:Fixture.*:WsTmaStore.*' DEADLINE=430 bash scripts/device_session19.sh $OUT   (call 4)
set -uo pipefail
cd "$(dirname "$0")/.."
O=${1:?usage: device_session19.sh OUT_DIR}/s19
W=/tmp/s19; mkdir -p "$O" "$W"
t00=$SECONDS
R=$W; . scripts/device_build.sh
for order in $([ "${SKIP_ABLATE:-0}" = 1 ] || echo columns types); do
  QALG_ABLATE_MODES=whole,tma-store QALG_WS_ORDER=$order QALG_BENCH_VARIANTS=fused-wsl64x128 QALG_SQUARE_N=32768 \
    QALG_ABLATE_SQUARE_ONLY=1 timeout 90 $B/qalg_gpu_bench --tables .gpu-carry/tables --suite ablate \
    --out "$W/ablate_$order.csv" >"$W/ablate_$order.log" 2>&1
  echo "ablate n=32768 ($order) rc $? ($((SECONDS - t00)) s)"; grep -E "^ablate" "$W/ablate_$order.log" | cut -c1-140
done
[ "${SKIP_ABLATE:-0}" = 1 ] || cat "$W"/ablate_columns.log "$W"/ablate_types.log >"$O/ablate_32768.log"
T_TESTS=${T_TESTS:-200} DEADLINE=$(( ${DEADLINE:-540} - (SECONDS - t00) )) bash scripts/device_quick_table.sh "$W"
Q=$W/quick
cp "$Q/conformance.csv" "$Q/bench/bench_table.csv" "$Q/bench/bench_table.log" "$O/" 2>/dev/null
cp "$Q/bench/peer.jsonl" "$Q/bench/clocks_table.csv" "$O/" 2>/dev/null
tar czf "$O/logs.tar.gz" -C "$W" . --exclude='*.csv' 2>/dev/null
ls "$O"; echo "total $((SECONDS - t00)) s"

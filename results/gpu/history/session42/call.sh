#!/usr/bin/env bash
# Forty-second session, one device call that serves whichever card comes (carry .gpu-carry after
# scripts/prepare_device_carry.sh):
#   bash results/gpu/history/session42/call.sh $OUT
# On an H200: the table and the peer (prime on, the wider shortlist: the thirty-eighth session's Next,
# still not run on an H200), DEADLINE 380 (the session's device time left; the peer's later passes
# may be cut).
# Elsewhere (an H100), set_ws_prime_item (QALG_WS_PRIME_ITEM, off by default; wgs_gemm.cuh kPrimeItem):
# the build; the warp-specialised forward tests, WsPrimeItem and WsPrimeFirst first, their
# conformance rows (OUT/ra/conformance.csv); then the residue suite, prime (the default) against
# prime-item, two rounds, on the 30B expert, DeepSeek-V3 and Qwen3-1.7B at their calibrated tiles.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
OUT=${1:?usage: call.sh OUT}
STEPS="table peer" DEADLINE=${DEADLINE:-380} bash scripts/on_card.sh H200 bash scripts/device_session20.sh "$OUT"
rc=$?
[ $rc = 3 ] || exit $rc
T_FILTER='WsPrimeItem.*:WsPrimeFirst.*:WsTiles.*:GatedFfn.*:TileConfigs.*:TypedRowsTma.*' T_TESTS=${T_TESTS:-150} \
  AB_ENVS="prime: item:QALG_WS_PRIME_ITEM=1" ROUNDS=2 SHAPES=Qwen3-30B,DeepSeek-V3,Qwen3-1.7B \
  QALG_BENCH_VARIANTS=fused-ws128x128-types-desc,fused-ws128x64-types-desc,fused-ws128x64-types,fused-wsl64x192 \
  bash scripts/device_residue_ab.sh "$OUT" 2>&1 | grep -v "after read" | tail -40

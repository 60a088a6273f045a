#!/usr/bin/env bash
# Fortieth session, one device call that serves whichever card comes (carry .gpu-carry after
# scripts/prepare_device_carry.sh):
#   bash results/gpu/history/session40/call.sh $OUT
# On an H200: the current table with prime on (the thirty-ninth session's Next 1). Elsewhere: the
# fused FFN decode with 16-byte sums and the resident-cluster rule (its tests, then the decode
# suite's A/B: two launches against the rule's chunks, 4 and 8 chunks).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${1:?usage: call.sh OUT}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "card: $card"
case $card in
  *H200*) STEPS="table peer" DEADLINE=${DEADLINE:-470} bash scripts/device_session20.sh "$out" ;;
  *) DEADLINE=${DEADLINE:-420} AB_ROUNDS=2 AB_HEAD_ENVS="rule:QALG_DECODE_FUSED=0 c4:QALG_DECODE_FUSED=4 c8:QALG_DECODE_FUSED=8" \
       T_FILTER='FfnDecodeFused.*:FfnDecode.*:PaperConformance.DeepDecodes:PaperConformance.GatedFfnQwen3_1_7B_q32' T_TESTS=120 \
       bash results/gpu/history/session39/call_fused.sh "$out" ;;
esac

#!/usr/bin/env bash
# Fortieth session, one device call that serves whichever card comes (carry .gpu-carry after
# scripts/prepare_device_carry.sh):
#   bash results/gpu/history/session40/call.sh $OUT
# On an H200: the current table with prime on (the thirty-ninth session's Next 1). Elsewhere: call 1
# (H100, 8c68b24) ran the fused decode's tests and A/B (`results/gpu/history/session39/call_fused.sh`
# with AB_HEAD_ENVS="rule:QALG_DECODE_FUSED=0 c4:QALG_DECODE_FUSED=4 c8:QALG_DECODE_FUSED=8",
# T_TESTS=120, DEADLINE=420); later calls run the decode graph tests repeated (below).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${1:?usage: call.sh OUT}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "card: $card"
case $card in
  *H200*) STEPS="table peer" DEADLINE=${DEADLINE:-470} bash scripts/device_session20.sh "$out" ;;
  *) # (after call 1) the decode graph tests, five times, with the harness's poison and uploads
     # now waited for
     GTEST_REPEAT=${GTEST_REPEAT:-5} T_FILTER=${T_FILTER:-'FfnDecode.*:FfnDecodeFused.*'} T_TESTS=150 STEPS=tests \
       DEADLINE=${DEADLINE:-260} bash scripts/device_session20.sh "$out" ;;
esac

#!/usr/bin/env bash
# Forty-third session, one device call (carry .gpu-carry after scripts/prepare_device_carry.sh):
#   bash results/gpu/history/session43/call_export.sh $OUT
# On an H200: the table and the peer (the current table's Next, as call.sh). Elsewhere (an H100):
# the exported packages on the GPU (scripts/export_check.sh), with the two named packages of
# `qalg export --name` (8657965) in one CMake project and one Python process (FFN_PAIR).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${1:?usage: call_export.sh OUT}
STEPS="table peer" DEADLINE=${DEADLINE:-470} bash scripts/on_card.sh H200 bash scripts/device_session20.sh "$out"
rc=$?
[ $rc = 3 ] || exit $rc
FFN_PAIR=.gpu-carry/ffn/ffn_up:.gpu-carry/ffn/ffn_down timeout ${T_EXPORT:-420} \
  bash scripts/export_check.sh "$out/export" .gpu-carry/export/q4_bf16 .gpu-carry/export/q2sq_odd

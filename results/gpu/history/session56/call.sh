#!/usr/bin/env bash
# Fifty-sixth session's device call for the next session. On an H200: the fifty-fourth session's call
# (the table with set_ws_law_first on; TABLE_ONLY=1 TABLE_DEADLINE=330 for the table alone). On any
# other card, so that an H100 hit is not spent on nothing: racecheck of WsLawFirst.* with cuBLAS's
# kernels left uninstrumented (SAN_EXCLUDE=kns=nvjet; without it two calls ran out of time inside the
# dense reference), DEADLINE OFF_DEADLINE (default 400; keep it 20 s under the tool's timeout).
#   bash results/gpu/history/session56/call.sh $OUT      (carry .gpu-carry; tool timeout ~595)
#   TABLE_ONLY=1 TABLE_DEADLINE=330 OFF_DEADLINE=340 bash …/session56/call.sh $OUT   (timeout ~380)
set -uo pipefail
cd "$(dirname "$(realpath "$0")")/../../../.."
[ $# = 1 ] || { echo "usage: call.sh OUT (the folder the results go to)" >&2; exit 2; }
[[ ${OFF_DEADLINE:-400} =~ ^[1-9][0-9]*$ ]] || { echo "call.sh: OFF_DEADLINE must be a positive integer (got '${OFF_DEADLINE}')" >&2; exit 2; }
O=$1
# the card decides, not an exit code: on an H200 the table call, whatever it exits with
bash scripts/on_card.sh H200 true >/dev/null 2>&1 && exec bash results/gpu/history/session54/call.sh "$O"
card=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
[ -n "$card" ] || { echo "call.sh: no GPU named by nvidia-smi: nothing run"; exit 3; }
echo "card: $card (not an H200): racecheck of WsLawFirst.* with cuBLAS uninstrumented"
exec env STEPS=memcheck MEMCHECK_FILTER='WsLawFirst.*' SAN_TOOLS=racecheck SAN_EXCLUDE=kns=nvjet \
  DEADLINE="${OFF_DEADLINE:-400}" bash scripts/device_session20.sh "$O"

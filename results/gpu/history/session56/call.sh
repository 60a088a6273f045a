#!/usr/bin/env bash
# Fifty-sixth session's device call for the next session. On an H200: the fifty-fourth session's call
# (the table with set_ws_law_first on; TABLE_ONLY=1 TABLE_DEADLINE=330 for the table alone). On any
# other card, so that an H100 hit is not spent on nothing: racecheck of WsLawFirst.* with cuBLAS's
# kernels left uninstrumented (SAN_EXCLUDE=kns=nvjet; without it two calls ran out of time inside the
# dense reference), DEADLINE OFF_DEADLINE (default 400; keep it 20 s under the tool's timeout).
#   bash results/gpu/history/session56/call.sh $OUT      (carry .gpu-carry; tool timeout ~595)
#   TABLE_ONLY=1 TABLE_DEADLINE=330 OFF_DEADLINE=340 bash …/session56/call.sh $OUT   (timeout ~380)
# (scripts/table_or_offcard.sh since the fifty-seventh session: the H200 / other-card choice and its checks)
set -uo pipefail
cd "$(dirname "$(realpath "$0")")/../../../.."
[ $# = 1 ] || { echo "usage: call.sh OUT (the folder the results go to)" >&2; exit 2; }
exec bash scripts/table_or_offcard.sh "${1:-}" "racecheck of WsLawFirst.* with cuBLAS uninstrumented" \
  STEPS=memcheck MEMCHECK_FILTER='WsLawFirst.*' SAN_TOOLS=racecheck SAN_EXCLUDE=kns=nvjet

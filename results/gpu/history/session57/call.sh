#!/usr/bin/env bash
# Fifty-seventh session's device call, for the next session. On an H200: the fifty-fourth session's
# call (the table with set_ws_law_first on; TABLE_ONLY=1 TABLE_DEADLINE=330 for the table alone). On
# any other card: racecheck of SanitizerSmall.LawFirstManyItems (law first where CTAs go on from the
# closed-form first item to listed ones, which LawFirstTiles never does) with the tests' dense
# reference on the plain GEMM (QALG_REFERENCE_GEMM=plain, no cuBLAS kernel), DEADLINE OFF_DEADLINE
# (default 400; keep it 20 s under the tool's timeout). What this session ran on its H100 (ReferenceGemm.*,
# the --kernel-name-exclude check, WsLawFirst.* with the plain reference) is this file at f5270c1.
#   bash results/gpu/history/session57/call.sh $OUT      (carry .gpu-carry; tool timeout ~595)
set -uo pipefail
cd "$(dirname "$(realpath "$0")")/../../../.."
[ $# = 1 ] || { echo "usage: call.sh OUT (the folder the results go to)" >&2; exit 2; }
[[ ${OFF_DEADLINE:-400} =~ ^[1-9][0-9]*$ ]] || { echo "call.sh: OFF_DEADLINE must be a positive integer (got '${OFF_DEADLINE}')" >&2; exit 2; }
O=$1
bash scripts/on_card.sh H200 true >/dev/null 2>&1 && exec bash results/gpu/history/session54/call.sh "$O"
card=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
[ -n "$card" ] || { echo "call.sh: no GPU named by nvidia-smi: nothing run"; exit 3; }
echo "card: $card (not an H200): racecheck of SanitizerSmall.LawFirstManyItems with the plain reference"
exec env QALG_REFERENCE_GEMM=plain STEPS=memcheck MEMCHECK_FILTER='SanitizerSmall.LawFirstManyItems' SAN_TOOLS=racecheck \
  DEADLINE="${OFF_DEADLINE:-400}" bash scripts/device_session20.sh "$O"

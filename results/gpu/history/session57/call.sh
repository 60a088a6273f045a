#!/usr/bin/env bash
# Fifty-seventh session's device call, for the next session. On an H200: the fifty-fourth session's
# call (the table with set_ws_law_first on; TABLE_ONLY=1 TABLE_DEADLINE=330 for the table alone). On
# any other card: racecheck of SanitizerSmall.LawFirstManyItems (law first where CTAs go on from the
# closed-form first item to listed ones, which LawFirstTiles never does) with the tests' dense
# reference on the plain GEMM (QALG_REFERENCE_GEMM=plain, no cuBLAS kernel), DEADLINE OFF_DEADLINE
# (default 400; keep it 20 s under the tool's timeout). What this session ran on its H100 (ReferenceGemm.*,
# the --kernel-name-exclude check, WsLawFirst.* with the plain reference) is this file at f5270c1.
#   bash results/gpu/history/session57/call.sh $OUT      (carry .gpu-carry; tool timeout ~595)
# (scripts/table_or_offcard.sh since the fifty-seventh session: the H200 / other-card choice and its checks)
set -uo pipefail
cd "$(dirname "$(realpath "$0")")/../../../.."
[ $# = 1 ] || { echo "usage: call.sh OUT (the folder the results go to)" >&2; exit 2; }
exec bash scripts/table_or_offcard.sh "${1:-}" "racecheck of SanitizerSmall.LawFirstManyItems with the plain reference" \
  QALG_REFERENCE_GEMM=plain STEPS=memcheck MEMCHECK_FILTER='SanitizerSmall.LawFirstManyItems' SAN_TOOLS=racecheck

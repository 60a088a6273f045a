#!/usr/bin/env bash
# Fifty-seventh session's device call. On an H200: the fifty-fourth session's call (the table with
# set_ws_law_first on; TABLE_ONLY=1 TABLE_DEADLINE=330 for the table alone). On any other card:
#  a. ReferenceGemm.* (the dense reference's new plain GEMM against cuBLAS, bit for bit), then a
#     check of compute-sanitizer's --kernel-name-exclude under racecheck. With SAN_EXCLUDE=kns=nvjet,
#     WsLawFirst.* ended at once in "The Sanitizer failed to handle a hardware exception" (an illegal
#     address surfacing after cuBLAS's uninstrumented GEMM; H100, this session), where the same test
#     fully instrumented ran 330 s without one. SanitizerSmall.LawFirstTiles was clean fully
#     instrumented (0 hazards, session 56); with the same exclusion it tells whether the exclusion
#     alone breaks cuBLAS under racecheck (the same fault) or not.
#  b. racecheck of WsLawFirst.* with QALG_REFERENCE_GEMM=plain (no cuBLAS kernel to instrument or
#     exclude), in what is left of OFF_DEADLINE (default 400; keep it 20 s under the tool's timeout).
#   bash results/gpu/history/session57/call.sh $OUT      (carry .gpu-carry; tool timeout ~595)
set -uo pipefail
cd "$(dirname "$(realpath "$0")")/../../../.."
[ $# = 1 ] || { echo "usage: call.sh OUT (the folder the results go to)" >&2; exit 2; }
[[ ${OFF_DEADLINE:-400} =~ ^[1-9][0-9]*$ ]] || { echo "call.sh: OFF_DEADLINE must be a positive integer (got '${OFF_DEADLINE}')" >&2; exit 2; }
O=$1
bash scripts/on_card.sh H200 true >/dev/null 2>&1 && exec bash results/gpu/history/session54/call.sh "$O"
card=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
[ -n "$card" ] || { echo "call.sh: no GPU named by nvidia-smi: nothing run"; exit 3; }
echo "card: $card (not an H200): ReferenceGemm.*, racecheck of SanitizerSmall.LawFirstTiles with cuBLAS uninstrumented, then of WsLawFirst.* with the plain reference"
t0=$SECONDS
off=${OFF_DEADLINE:-400}
env STEPS="tests memcheck" T_FILTER='ReferenceGemm.*' T_TESTS=60 MEMCHECK_FILTER='SanitizerSmall.LawFirstTiles' \
  SAN_TOOLS=racecheck SAN_EXCLUDE=kns=nvjet DEADLINE=$(( off < 170 ? off : 170 )) bash scripts/device_session20.sh "$O/a"
rc=$?
[ $rc = 2 ] && exit 2  # a setting refused: nothing built, nothing more to run
left=$(( off - (SECONDS - t0) ))
[ $left -gt 40 ] || { echo "call.sh: ${left} s left of OFF_DEADLINE, WsLawFirst's racecheck not run"; exit $rc; }
exec env QALG_REFERENCE_GEMM=plain STEPS=memcheck MEMCHECK_FILTER='WsLawFirst.*' SAN_TOOLS=racecheck \
  DEADLINE=$left bash scripts/device_session20.sh "$O/b"

#!/usr/bin/env bash
# Fifty-fourth session's device call: on an H200 the fifty-second session's call (ab_clocks.sh and
# the table with clock samples, ~590 s; set_ws_law_first on by default), or with SMALL=1 (less device
# time left than the table needs) the fifty-third session's SMALL path (law_ab.sh and ab_clocks.sh).
# TABLE_ONLY=1 (~420 s): only the fifty-first session's table call (DEADLINE TABLE_DEADLINE, default 380).
# On any other card nothing is timed: the law A/B has run on two H100s (session53/h100_law,
# session54/h100_law), and the targets are the H200's, so an H100 hit should cost only its start.
#   bash results/gpu/history/session54/call.sh $OUT      (carry .gpu-carry; tool timeout ~595)
set -uo pipefail
cd "$(dirname "$(realpath "$0")")/../../../.."
[ $# = 1 ] || { echo "usage: call.sh OUT (the folder the results go to)" >&2; exit 2; }
O=$1
# the card check is scripts/on_card.sh's (exit 3, nothing run, off an H200)
if [ "${TABLE_ONLY:-0}" = 1 ]; then
  exec env DEADLINE="${TABLE_DEADLINE:-380}" bash scripts/on_card.sh H200 bash results/gpu/history/session51/call.sh "$O"
fi
exec bash scripts/on_card.sh H200 bash results/gpu/history/session53/call.sh "$O"

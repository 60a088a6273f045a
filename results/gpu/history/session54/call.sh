#!/usr/bin/env bash
# Fifty-fourth session's device call: on an H200 the fifty-second session's call (ab_clocks.sh and
# the table with clock samples, ~590 s; set_ws_law_first on by default), or with SMALL=1 (less device
# time left than the table needs) the fifty-third session's SMALL path (law_ab.sh and ab_clocks.sh).
# TABLE_ONLY=1 (~420 s): only the fifty-first session's table call (DEADLINE TABLE_DEADLINE, default 380).
# On any other card nothing is timed: the law A/B has run on two H100s (session53/h100_law,
# session54/h100_law), and the targets are the H200's, so an H100 hit should cost only its start.
#   bash results/gpu/history/session54/call.sh $OUT      (carry .gpu-carry; tool timeout ~595)
set -uo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")/../../../.."
O=${1:?usage: call.sh OUT}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case $card in
  *H200*) [ "${TABLE_ONLY:-0}" = 1 ] &&
      exec env DEADLINE="${TABLE_DEADLINE:-380}" bash results/gpu/history/session51/call.sh "$O"
    exec bash results/gpu/history/session53/call.sh "$O" ;;
  *) echo "call.sh: '$card' is not an H200; nothing timed"; exit 3 ;;
esac

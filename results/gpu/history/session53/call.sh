#!/usr/bin/env bash
# Fifty-third session's device call: on an H200 the fifty-second session's call (ab_clocks.sh and the
# table, ~590 s, with the defaults: set_ws_law_first on since bc7bc8a); on any other card law_ab.sh (~200-300 s).
# SMALL=1 (less device time left than a table needs): on an H200 law_ab.sh, then ab_clocks.sh
# (DEADLINE AB_DEADLINE, default 200; its seven files packed into ab.tar).
#   bash results/gpu/history/session53/call.sh $OUT      (carry .gpu-carry; tool timeout ~595)
set -uo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")/../../../.."
O=${1:?usage: call.sh OUT}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case $card in
  "") echo "call.sh: no GPU"; exit 2 ;;
  *H200*) [ "${SMALL:-0}" = 1 ] || exec bash results/gpu/history/session52/call.sh "$O"
    LAW_FILTER="WsLawFirst.*" T_TESTS=100 ROUNDS=2 bash results/gpu/history/session53/law_ab.sh "$O"
    CARD=H200 DEADLINE=${AB_DEADLINE:-200} bash results/gpu/history/session52/ab_clocks.sh "$O/ab"
    tar cf "$O/ab.tar" -C "$O" ab && rm -rf "$O/ab"
    ls "$O" "$O/ra" ;;
  *) exec bash results/gpu/history/session53/law_ab.sh "$O" ;;
esac

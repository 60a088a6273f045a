#!/usr/bin/env bash
# Fifty-third session's device call: on an H200 the fifty-second session's call (ab_clocks.sh and the
# table, ~590 s; set_ws_law_first off, as by default); on any other card law_ab.sh (~300 s).
#   bash results/gpu/history/session53/call.sh $OUT      (carry .gpu-carry; tool timeout ~595)
set -uo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")/../../../.."
O=${1:?usage: call.sh OUT}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case $card in
  *H200*) exec bash results/gpu/history/session52/call.sh "$O" ;;
  "") echo "call.sh: no GPU"; exit 2 ;;
  *) exec bash results/gpu/history/session53/law_ab.sh "$O" ;;
esac

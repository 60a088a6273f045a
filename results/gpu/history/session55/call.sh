#!/usr/bin/env bash
# Fifty-fifth session's device call. On an H200: the fifty-fourth session's call (the table with
# set_ws_law_first on; TABLE_ONLY=1 TABLE_DEADLINE=330 for the table alone, ~350 s). On any other
# card: the exported kernel packages' whole check (scripts/export_check.sh on q4_bf16, q2sq_odd and
# the ffn_up/ffn_down pair, ~300 s), which no GPU has run since the forty-third session while the
# forward's launches moved to two translation units (5d7ef46) and law first went in (bc7bc8a).
#   bash results/gpu/history/session55/call.sh $OUT      (carry .gpu-carry; tool timeout ~595)
set -uo pipefail
cd "$(dirname "$(realpath "$0")")/../../../.."
[ $# = 1 ] || { echo "usage: call.sh OUT (the folder the results go to)" >&2; exit 2; }
O=$1
card=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
[ -n "$card" ] || { echo "call.sh: no GPU named by nvidia-smi: nothing run"; exit 3; }
echo "card: $card"
case $card in
  *H200*) exec bash results/gpu/history/session54/call.sh "$O" ;;
esac
# the card and code go to stdout only: export_check.sh writes 8 files, the most a call brings back
echo "code: $(cat .gpu-carry/code.txt 2>/dev/null)"
FFN_PAIR=.gpu-carry/ffn/ffn_up:.gpu-carry/ffn/ffn_down timeout "${EXPORT_SECONDS:-480}" \
  bash scripts/export_check.sh "$O/export" .gpu-carry/export/q4_bf16 .gpu-carry/export/q2sq_odd

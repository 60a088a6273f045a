#!/usr/bin/env bash
# One device call that is of use on whichever card comes (fifty-sixth and fifty-seventh sessions'
# call.sh): a request of kind nvidia-h200 often gets an H100, and its start costs ~90 s either way.
#   bash scripts/table_or_offcard.sh OUT "WHAT" [VAR=value ...]
# On an H200: results/gpu/history/session54/call.sh OUT (the table with set_ws_law_first on;
# TABLE_ONLY=1 TABLE_DEADLINE=330 for the table alone), whatever it exits with. On any other card:
# WHAT is printed and scripts/device_session20.sh OUT runs with the VAR=value settings and DEADLINE
# OFF_DEADLINE (default 400; keep it 20 s under the tool's timeout). Exit 2 for bad usage or a bad
# OFF_DEADLINE (checked first), 3 without a GPU; else the command's.
set -uo pipefail
cd "$(dirname "$(realpath "$0")")/.."
[ $# -ge 2 ] && [ -n "$1" ] || { echo "usage: call.sh OUT (the folder the results go to)" >&2; exit 2; }
[[ ${OFF_DEADLINE:-400} =~ ^[1-9][0-9]*$ ]] || { echo "call.sh: OFF_DEADLINE must be a positive integer (got '${OFF_DEADLINE}')" >&2; exit 2; }
O=$1 what=$2; shift 2
for kv in "$@"; do [[ $kv =~ ^[A-Z_][A-Z0-9_]*= ]] || { echo "table_or_offcard.sh: '$kv' is not VAR=value" >&2; exit 2; }; done
# the card decides, not an exit code: on an H200 the table call, whatever it exits with
bash scripts/on_card.sh H200 true >/dev/null 2>&1 && exec bash results/gpu/history/session54/call.sh "$O"
card=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
[ -n "$card" ] || { echo "call.sh: no GPU named by nvidia-smi: nothing run"; exit 3; }
echo "card: $card (not an H200): $what"
exec env "$@" DEADLINE="${OFF_DEADLINE:-400}" bash scripts/device_session20.sh "$O"

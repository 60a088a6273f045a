#!/usr/bin/env bash
# Fifty-second session: ab_clocks.sh (HEAD against adf5a40 on the wide rows, clock samples) and then
# the fifty-first session's table call on the same H200, in one device call, within the tool's
# eight files back: ab_clocks.sh's seven go into ab.tar (with the table call's code.txt at the end).
#   AB_REF=adf5a40 bash scripts/prepare_device_carry.sh      (here, after `make build`)
#   bash results/gpu/history/session52/call.sh $OUT   (carry .gpu-carry; tool timeout ~590)
# The table call reuses the build (build-gpu), so it starts at once. Exits at once on another card.
set -uo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")/../../../.."
O=${1:?usage: call.sh OUT}
bash scripts/on_card.sh "${CARD:-H200}" true || { [ $? = 3 ] && exit 0; exit 2; }
CARD=${CARD:-H200} DEADLINE=${AB_DEADLINE:-200} bash results/gpu/history/session52/ab_clocks.sh "$O/ab"
tar cf "$O/ab.tar" -C "$O" ab && rm -rf "$O/ab"
CARD=${CARD:-H200} DEADLINE=${TABLE_DEADLINE:-380} bash results/gpu/history/session51/call.sh "$O"
[ -f "$O/code.txt" ] && tar rf "$O/ab.tar" -C "$O" code.txt && rm "$O/code.txt"
ls "$O"

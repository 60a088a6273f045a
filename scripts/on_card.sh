#!/usr/bin/env bash
# Runs a command only on the named card (thirty-sixth session): a device call naming nvidia-h200 may
# get an H100, and a table on the wrong card costs a whole call (~400 s) where this check costs ~30 s
# (the machine's start). SPEC §6's figures are one H200's, so a current table is made only on one.
#   bash scripts/on_card.sh H200 bash scripts/device_session20.sh $OUT/t
# Exit 3 (nothing run) on another card or without nvidia-smi; 2 for bad usage; else the command's.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: on_card.sh CARD COMMAND [ARG ...] (CARD: a substring of nvidia-smi's name, e.g. H200)" >&2; exit 2; }
want=$1; shift
name_re='^[A-Za-z0-9][A-Za-z0-9 _-]*$'
[[ $want =~ $name_re ]] || { echo "on_card.sh: CARD must be letters, digits, spaces, - or _ (got '$want')" >&2; exit 2; }
card=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
[ -n "$card" ] || { echo "on_card.sh: no GPU named by nvidia-smi: nothing run"; exit 3; }
echo "card: $card"
case $card in *"$want"*) exec "$@" ;; esac
echo "on_card.sh: not an $want: nothing run"
exit 3

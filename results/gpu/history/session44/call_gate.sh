#!/usr/bin/env bash
# Forty-fourth session, one device call that serves whichever card comes (carry .gpu-carry after
# scripts/prepare_device_carry.sh):
#   bash results/gpu/history/session44/call_gate.sh $OUT
# On an H200: the table and the peer (prime on, the wider shortlist, the held columns), to become
# the current table. Elsewhere (an H100): the deeper gate/up tiles (FfnGateEngine ws64x64s4: 4 stages,
# 2 CTAs per SM; ws64x128s4: 4 stages, 1 CTA per SM) written this session: the gated-FFN tests, then
# the ffn suite (the five FFNs at M = 2048) under each gate/up engine, two rounds in turn
# (gate/up = the FFN minus its down projection: the `parts` lines).
# Call 3 ran its H100 branch (history/session44/call3); both tiles were slower and were removed after
# it (the commit that added them, then its revert), so that branch now fails at QALG_FFN_GATE.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${1:?usage: call_gate.sh OUT}
STEPS="table peer" DEADLINE=${DEADLINE:-470} bash scripts/on_card.sh H200 bash scripts/device_session20.sh "$out"
rc=$?
[ $rc = 3 ] || exit $rc
if [ "${ONLY_H200:-0}" = 1 ]; then echo "not an H200: nothing run (ONLY_H200=1)"; exit 0; fi
g="ws64x64 ws64x64s4 ws64x128s4 ws64x128"
T_FILTER='GatedFfn.*:WsItemOrder.GateUpTypesOuterMatchesTheReference' T_TESTS=200 GATES="$g $g" STEPS="tests gate" \
  DEADLINE=${DEADLINE_H100:-480} bash scripts/device_session20.sh "$out"

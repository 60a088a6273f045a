#!/usr/bin/env bash
# Forty-first session, one device call that serves whichever card comes (carry .gpu-carry after
# scripts/prepare_device_carry.sh):
#   bash results/gpu/history/session41/call.sh $OUT
# On an H200: the table with prime on and the wider calibration shortlist (87a6737), to become the
# current table (the thirty-eighth session's Next, still not run).
# Elsewhere (an H100): with ONLY_H200=1 nothing; with FALLBACK=tests the whole CUDA suite and its
# conformance rows on the current code (the thirty-eighth session's call 2 was the last such run);
# by default (after call 3) one table and the peer, the first GPU run of the wider calibration
# shortlist (87a6737); with FALLBACK=parts-ab the table with QALG_CALIBRATE_PARTS_ALTERNATING off
# and on; with FALLBACK=prime-ab (call 1) the table with prime off and on in the same call, as the
# thirty-sixth
# session's call 7 did for its switches: the first whole-table measure of set_ws_prime_first
# (the thirty-eighth session measured it on DeepSeek-V3's residue suite only).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${1:?usage: call.sh OUT}
case ${FALLBACK:-table} in table|tests|prime-ab|parts-ab) ;;  # refused before anything runs
  *) echo "FALLBACK must be table, tests, prime-ab or parts-ab (got '$FALLBACK')"; exit 2 ;; esac
# scripts/on_card.sh runs the table only on an H200 and exits 3 (nothing run) elsewhere
# (device_session20.sh exits 0, 1 or 2).
STEPS="table peer" DEADLINE=${DEADLINE:-470} bash scripts/on_card.sh H200 bash scripts/device_session20.sh "$out"
rc=$?
[ $rc = 3 ] || exit $rc
if [ "${ONLY_H200:-0}" = 1 ]; then echo "not an H200: nothing run (ONLY_H200=1)"; exit 0; fi
case ${FALLBACK:-table} in
  tests)  # the whole CUDA suite on the current code (240 s was too short by the forty-third session: 247 s)
    T_TESTS=${T_TESTS:-400} STEPS=tests DEADLINE=${DEADLINE:-560} bash scripts/device_session20.sh "$out"; exit ;;
  table)  # (after call 3) one table with the wider shortlist
    STEPS="table peer" DEADLINE=${DEADLINE:-420} bash scripts/device_session20.sh "$out"; exit ;;
  prime-ab) sw=QALG_WS_PRIME ;;  # call 1
  parts-ab) sw=QALG_CALIBRATE_PARTS_ALTERNATING ;;  # the FFN's and training's own tiles shortlisted alternating
esac
# a switch off and on, a table each, one machine
mkdir -p "$out/off" "$out/on"
env "$sw=0" STEPS=table DEADLINE=${DEADLINE_OFF:-270} bash scripts/device_session20.sh "$out/off"
env "$sw=1" STEPS=table DEADLINE=${DEADLINE_ON:-250} bash scripts/device_session20.sh "$out/on"

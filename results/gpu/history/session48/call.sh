#!/usr/bin/env bash
# Forty-eighth session: the current table's call in 300-400 s instead of ~520, on an H200 only (carry
# .gpu-carry after `make build` and scripts/prepare_device_carry.sh):
#   DEADLINE=400 bash results/gpu/history/session48/call.sh $OUT   (tool timeout ~420)
# Why: call 1 (an H100) ran the whole table and the peer on two shapes in 170 s with the build, so
# the table itself is ~1 min and the rest of the ~520 s asked so far was the peer's. Call 2 (an H100,
# DEADLINE=330) timed each part: build 87 s, table 53 s, the peer's table1 pass 114 s, its squares
# 43 s; its `more` pass was left out (under 40 s left; its time not yet measured alone), so
# DEADLINE=400 leaves it ~100 s and DEADLINE=300 gives all but it. This runs, in
# order of what the targets need: the whole table (bench_table.csv), the peer on table1's shapes in
# qalg's protocols (peer.jsonl), its squares (peer_squares.jsonl), its `more` pass (peer_more.jsonl),
# each while DEADLINE leaves room, every file written under $OUT as it is made, so a call stopped
# at the tool's limit still brings back what was done. Exits at once (nothing built) on a card whose
# name lacks $CARD (default H200; the check is scripts/on_card.sh's, which refuses a bad CARD with exit 2).
set -uo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")/../../../.."
O=${1:?usage: call.sh OUT}
if [ -z "${QALG_CALL_ON_CARD:-}" ]; then  # the card check is scripts/on_card.sh's (exit 3: another card)
  QALG_CALL_ON_CARD=1 bash scripts/on_card.sh "${CARD:-H200}" bash "$self" "$@"; rc=$?
  [ $rc = 3 ] && exit 0; exit $rc
fi
W=/tmp/s48; mkdir -p "$O" "$W"
# code.txt: what scripts/prepare_device_carry.sh recorded here (the device copy's .git can be older
# than its tree, so its own describe is kept only as the second line)
{ echo "carry made at: $(cat .gpu-carry/code.txt 2>/dev/null || echo unknown)"
  echo "device copy's git: $(git describe --always --dirty 2>/dev/null)"; } >"$O/code.txt"
R=$W; . scripts/device_build.sh
left() { echo $(( ${DEADLINE:-300} - (SECONDS - t0) )); }
unset QALG_TABLE_ROWS
timeout $(( $(left) - 5 )) stdbuf -oL build-gpu/qalg_gpu_bench --tables .gpu-carry/tables \
  --suite table --out "$O/bench_table.csv" >"$O/bench_table.log" 2>&1
echo "table rc $? ($((SECONDS - t0)) s)"; grep -E "^table|FAIL|rror" "$O/bench_table.log" | cut -c1-160
peer() {  # peer NAME ARGS...: one pass of the peer while at least 40 s are left
  local name=$1; shift
  [ "$(left)" -gt 40 ] || { echo "peer $name: no time left"; return; }
  PYTHONUNBUFFERED=1 timeout $(( $(left) - 5 )) "$@" >"$O/$name.jsonl" 2>"$W/$name.err"
  echo "peer $name rc $? ($((SECONDS - t0)) s)"; cut -c1-200 "$O/$name.jsonl"; tail -2 "$W/$name.err"
}
peer peer python3 scripts/peer_protocols.py .gpu-carry/triton_qproj.py
peer peer_squares python3 scripts/peer_protocols.py .gpu-carry/triton_qproj.py --squares
peer peer_more python3 .gpu-carry/triton_qproj.py more
python3 scripts/issue7_targets.py "$O/bench_table.csv" $(for f in peer peer_more peer_squares; do
  [ -s "$O/$f.jsonl" ] && echo "$O/$f.jsonl"; done) >"$O/targets.md" 2>&1
grep -E "\*\*no\*\*|^met|^card" "$O/targets.md" | cut -c1-200
echo "total $((SECONDS - t0)) s"

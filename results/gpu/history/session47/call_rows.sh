#!/usr/bin/env bash
# Forty-seventh session: on an H200 only, the table suite's unmet rows (QALG_TABLE_ROWS) and the peer
# on the two shapes it is compared on, for a call with less device time left than the whole table
# needs (carry .gpu-carry after scripts/prepare_device_carry.sh):
#   DEADLINE=200 bash results/gpu/history/session47/call_rows.sh $OUT
# Everything is written under $OUT as it is made (the bench flushes each row), so a call the tool
# stops at its limit still brings back the rows done. On a card whose name lacks $CARD (default H200)
# it exits at once (nothing built). ROWS: QALG_TABLE_ROWS's items (default the unmet rows), or `all`
# for the whole table (call 2 on an H100: the six rows took ~3 s after a 97 s build, so the table's
# time is the peer's, not its rows').
set -uo pipefail
cd "$(dirname "$0")/../../../.."
O=${1:?usage: call_rows.sh OUT}; W=/tmp/s47; mkdir -p "$O" "$W"
card=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "card: $card"
want=${CARD:-H200}
case $card in *"$want"*) ;; *) echo "not an $want: nothing run"; exit 0 ;; esac
R=$W; . scripts/device_build.sh
left() { echo $(( ${DEADLINE:-200} - (SECONDS - t0) )); }
rows=${ROWS:-projection:Qwen3-30B,projection:DeepSeek-V3,ffn:DeepSeek-V3,ffn:Qwen3-1.7B@1,ffn:Qwen3-8B@1}
if [ "$rows" = all ]; then unset QALG_TABLE_ROWS; else export QALG_TABLE_ROWS=$rows; fi
timeout $(( $(left) - 5 )) stdbuf -oL build-gpu/qalg_gpu_bench --tables .gpu-carry/tables \
  --suite table --out "$O/bench_rows.csv" >"$O/bench_rows.log" 2>&1
echo "rows rc $? ($((SECONDS - t0)) s)"; grep -E "^table|FAIL|rror" "$O/bench_rows.log" | cut -c1-200
if [ "$(left)" -gt 30 ]; then
  PYTHONUNBUFFERED=1 timeout $(( $(left) - 5 )) python3 scripts/peer_protocols.py .gpu-carry/triton_qproj.py \
    "Qwen3-30B-A3B expert" "DeepSeek-V3 expert" >"$O/peer.jsonl" 2>"$W/peer.err"
  echo "peer rc $? ($((SECONDS - t0)) s)"; cut -c1-200 "$O/peer.jsonl"; tail -2 "$W/peer.err"
fi
python3 scripts/issue7_targets.py "$O/bench_rows.csv" $([ -s "$O/peer.jsonl" ] && echo "$O/peer.jsonl") >"$O/targets.md" 2>&1
grep -E "\*\*no\*\*|yes" "$O/targets.md" | cut -c1-200
echo "total $((SECONDS - t0)) s"

#!/usr/bin/env bash
# Fifty-first session: how the SM clock recovers after dense on the current code (Qwen3-32B M = 32768)
#   bash results/gpu/history/session51/clocks.sh $OUT   (carry .gpu-carry; ~150 s with the build)
# Why: in this session's two H200 tables the row's kernel (fused-nl64x64, code unchanged since the
# thirty-sixth session) took 907-909 µs timed before dense's graph existed (alg_before_dense_us),
# as in the thirty-sixth session's table (910.6), but 1055.8 / 1064.1 µs alternating with dense
# (1032.9 then): 16 % slower after dense's 12 ms calls; over the committed H200 tables that cost grew
# from +107 µs (medians of sessions 15-26) to +132 (29-51) (m32768_drift.txt). The tenth session's
# samples (history/clocks_table_session10_run1.csv) showed dense's GEMMs at the power cap (1290-1450
# MHz) and the clock recovering inside the algebraic trial after them. This samples nvidia-smi every 50 ms
# (SM/memory clock, power, temperature, the clock-event reasons) while the table suite times that
# row alone, stamping each bench output line with the same clock so the two can be lined up.
set -uo pipefail
cd "$(dirname "$(realpath "$0")")/../../../.."
O=${1:?usage: clocks.sh OUT}; W=/tmp/s51; mkdir -p "$O" "$W"
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$O/card.txt"
R=$W; . scripts/device_build.sh
. scripts/clock_sampler.sh
start_clock_sampler "$O/smi.csv" 50
sleep 2   # idle samples first
for rows in projection:Qwen3-32B@32768 projection:Qwen3-30B-A3B-expert; do
  QALG_TABLE_ROWS=$rows timeout 200 stdbuf -oL build-gpu/qalg_gpu_bench --tables .gpu-carry/tables \
    --suite table --out "$O/rows_${rows##*:}.csv" 2>&1 | while IFS= read -r l; do
      echo "$(date +%Y/%m/%d\ %H:%M:%S.%3N) $l"; done >>"$O/bench.log"
  sleep 1
done
stop_clock_sampler
echo "samples: $(wc -l <"$O/smi.csv")"
cut -c1-200 "$O/bench.log" | grep -E "table|rror" | head
python3 - "$O/smi.csv" <<'PY'
import csv, sys, statistics as st
rows = list(csv.reader(open(sys.argv[1])))[1:]
sm = [int(r[1].split()[0]) for r in rows if r[1].strip().split()[0].isdigit()]
pw = [float(r[4].split()[0]) for r in rows if r[4].strip().split()[0].replace('.', '').isdigit()]  # timestamp, sm, mem, temperature, power, reasons
if not sm or not pw: sys.exit("no clock samples")
print("SM MHz min/median/max", min(sm), st.median(sm), max(sm), "| W median/max", st.median(pw), max(pw))
from collections import Counter
print("reasons", Counter(r[5].strip() for r in rows).most_common(5))
PY
echo "total $((SECONDS - t0)) s"

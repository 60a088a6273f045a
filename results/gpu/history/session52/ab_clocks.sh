#!/usr/bin/env bash
# Fifty-second session: is Qwen3-32B at M = 32768 slower after dense because of the code or the card?
#   AB_REF=adf5a40 bash scripts/prepare_device_carry.sh      (here, after `make build`)
#   DEADLINE=540 bash results/gpu/history/session52/ab_clocks.sh $OUT   (carry .gpu-carry; H200 only)
#   (CARD=H100, or CARD=H for either card: the fifty-second session ran it so on an H100, h100_ab/)
# Why: over the committed H200 tables the row's time alternating with dense (fused-nl64x64 in all)
# grew from a median 1006.3 µs (sessions 15-26) to 1039.7 (29-51), its time before dense only from
# 899.3 to 907.3 (history/session51/m32768_drift.txt). Between adf5a40 (the twenty-sixth session's
# table) and 7b90a4d (the twenty-ninth's) the narrow kernel's files changed (launch_narrow.cu,
# narrow_law.cuh: the unit-order and one-wave-run switches), so the drift may be code. This builds
# HEAD and adf5a40's gpu/ (`.gpu-carry/ref`) and times both builds' `wide` suite (Qwen3-32B at
# M = 8192 and 32768 in the table's protocol, each build calibrating its own kernels) in one call on
# one card, rounds alternating which side goes first; first HEAD's table rows for M = 32768 and the
# 30B expert alone (history/session51/clocks.sh's run). nvidia-smi samples every 50 ms throughout,
# and every bench line carries its UTC time, so the clocks line up with the rows.
# Files under OUT: info.txt, smi.csv, bench.log (every bench line, time-stamped), table_rows.csv,
# ab_ref.csv and ab_head.csv (the wide suite's rows, suite column tagged side+round), summary.txt.
set -uo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")/../../../.."
O=${1:?usage: ab_clocks.sh OUT}
if [ -z "${QALG_CALL_ON_CARD:-}" ]; then  # exit 3 from on_card.sh: another card, nothing run
  QALG_CALL_ON_CARD=1 bash scripts/on_card.sh "${CARD:-H200}" bash "$self" "$@"; rc=$?
  [ $rc = 3 ] && exit 0; exit $rc
fi
W=/tmp/s52; mkdir -p "$O" "$W"
[ -d .gpu-carry/ref/gpu ] || { echo "ab_clocks: no .gpu-carry/ref (AB_REF=adf5a40 bash scripts/prepare_device_carry.sh)"; exit 2; }
{ nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader
  echo "carry made at: $(cat .gpu-carry/code.txt 2>/dev/null || echo unknown)"; } >"$O/info.txt"
R=$W; . scripts/device_build.sh
left() { echo $(( ${DEADLINE:-540} - (SECONDS - t0) )); }
ref_ok=1
cmake -S .gpu-carry/ref/gpu -B build-ref -G Ninja -DCMAKE_BUILD_TYPE=Release >"$W/ref_cmake.log" 2>&1 &&
  cmake --build build-ref -j"$(nproc)" --target qalg_gpu_bench >"$W/ref_build.log" 2>&1 ||
  { echo "ref build failed: the A/B is left out" | tee -a "$O/info.txt"; grep -E "error" -A3 "$W/ref_build.log" | head -20 >>"$O/info.txt"; ref_ok=0; }
echo "builds done ($((SECONDS - t0)) s)" | tee -a "$O/info.txt"
. scripts/clock_sampler.sh
start_clock_sampler "$O/smi.csv" 50
stamp() { while IFS= read -r l; do echo "$(date -u +%H:%M:%S.%3N) $*: $l"; done >>"$O/bench.log"; }
sleep 2  # idle samples first
unset QALG_TABLE_ROWS
for rows in projection:Qwen3-32B@32768 projection:Qwen3-30B-A3B-expert; do
  [ "$(left)" -gt 60 ] || break
  rm -f "$W/rows.csv"
  QALG_TABLE_ROWS=$rows timeout $(( $(left) - 5 )) stdbuf -oL build-gpu/qalg_gpu_bench --tables .gpu-carry/tables \
    --suite table --out "$W/rows.csv" 2>&1 | stamp "head table ${rows##*:}"
  [ -s "$O/table_rows.csv" ] || head -1 "$W/rows.csv" >"$O/table_rows.csv"
  tail -n +2 "$W/rows.csv" >>"$O/table_rows.csv" 2>/dev/null
  sleep 1
done
echo "table rows done ($((SECONDS - t0)) s)" | tee -a "$O/info.txt"
rounds="1 2 3 4"; [ $ref_ok = 1 ] || rounds=""  # no reference build: no A/B
for round in $rounds; do
  order="ref head"; [ $((round % 2)) = 0 ] && order="head ref"
  for side in $order; do
    [ "$(left)" -gt 45 ] || { echo "round $round $side: no time left" | tee -a "$O/info.txt"; break 2; }
    bin=build-gpu/qalg_gpu_bench; [ $side = ref ] && bin=build-ref/qalg_gpu_bench
    echo "$(date -u +%H:%M:%S.%3N) start $side round $round" >>"$O/bench.log"
    rm -f "$W/wide.csv"
    timeout $(( $(left) - 5 )) stdbuf -oL $bin --tables .gpu-carry/tables --suite wide --out "$W/wide.csv" 2>&1 |
      stamp "$side$round wide"
    # one file per side: the two builds' CSV headers need not agree
    [ -s "$O/ab_$side.csv" ] || head -1 "$W/wide.csv" >"$O/ab_$side.csv" 2>/dev/null
    tail -n +2 "$W/wide.csv" 2>/dev/null | sed -E "s/^([a-z]+),/\1@$side$round,/" >>"$O/ab_$side.csv"
    echo "$side round $round ($((SECONDS - t0)) s)" | tee -a "$O/info.txt"
  done
done
stop_clock_sampler
python3 - "$O" <<'PY' | tee "$O/summary.txt"
# The wide suite's Qwen3-32B rows per side: each round's alternating (warm), flushed, alone and
# before-dense times, then the medians; the same columns are read from the header, not positions.
import csv, sys, statistics as st
o = sys.argv[1]
rows = []
for side in ("ref", "head"):
    try:
        rows += list(csv.DictReader(open(f"{o}/ab_{side}.csv")))
    except FileNotFoundError:
        print(f"no ab_{side}.csv")
cols = ["variant", "alg_warm_us", "alg_flush_us", "alg_alone_us", "alg_before_dense_us", "dense_warm_us", "speedup_warm"]
by = {}
for r in rows:
    side = r["suite"].split("@")[1].rstrip("0123456789")
    print(r["suite"], r["M"], *(r.get(c, "") for c in cols))
    by.setdefault((side, r["M"]), []).append(r)
for (side, m), rs in sorted(by.items()):
    med = {c: st.median(float(r[c]) for r in rs if r.get(c)) for c in cols[1:] if any(r.get(c) for r in rs)}
    print(f"median {side} M={m} n={len(rs)}", " ".join(f"{c}={v:.1f}" for c, v in med.items()))
PY
echo "samples: $(wc -l <"$O/smi.csv" 2>/dev/null)"
echo "total $((SECONDS - t0)) s" | tee -a "$O/info.txt"

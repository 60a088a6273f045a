#!/usr/bin/env bash
# Issue 2 speed benchmark: the exact core behind `qalg inspect` (build Q_G + every check) against
# GAP 4.12 (../shared/peers/gap_complete_graph.g) in the same run.
# qalg: Google Benchmark bench_inspect, median CPU time of REPEAT repetitions, in-process.
# GAP: the sum of the peer script's own per-phase CPU times (build, IsAssociative, One, radical,
#      J², quotient, central idempotents) — GAP's start-up is not counted.
# Peak memory: /usr/bin/time on `qalg inspect --json` (whole process).
# Usage: bench/inspect_vs_gap.sh [BUILD_DIR] > results/inspect_bench.md
# GAP_QS (default "8 16") chooses the q that GAP also runs (q = 16 takes GAP ~4 CPU minutes).
set -euo pipefail
BUILD=${1:-build}
REPEAT=${REPEAT:-5}
GAP_QS=${GAP_QS:-"8 16"}
PEER=${PEER:-../shared/peers/gap_complete_graph.g}
[ -x "$BUILD/qalg" ] && [ -x "$BUILD/bench/bench_inspect" ] || { echo "build qalg and bench_inspect first" >&2; exit 2; }

csv=$("$BUILD/bench/bench_inspect" --benchmark_repetitions="$REPEAT" --benchmark_report_aggregates_only=true \
      --benchmark_format=csv 2>/dev/null)
qalg_ms() {  # median CPU ms of bench case $1
  echo "$csv" | awk -F, -v name="\"inspect_family/$1" 'index($1, name) == 1 && $1 ~ /_median"$/ {print $4 + 0}'
}
peak_mb() {
  /usr/bin/time -f "%M" -o /tmp/qalg_mem.$$ "$BUILD/qalg" inspect "$1" --json >/dev/null 2>&1
  echo $(( $(cat /tmp/qalg_mem.$$) / 1024 ))
}
gap_ms() {
  gap -q -b -c "q:=$1; F:=Rationals;" "$PEER" 2>/dev/null | awk '/cpu=/ {sub(/.*cpu=/, ""); s += $1} END {print s + 0}'
}

echo "# qalg inspect vs GAP ($(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m))"
echo
echo "Command: \`bench/inspect_vs_gap.sh $BUILD\` (REPEAT=$REPEAT, GAP_QS=\"$GAP_QS\"); CPU milliseconds."
echo
echo "| input | dim | qalg median CPU ms | qalg peak MB | GAP CPU ms (same run) | GAP / qalg |"
echo "|---|---|---|---|---|---|"
row() {  # case spec dim
  local ms mb gap="—" ratio="—"
  ms=$(qalg_ms "$1"); mb=$(peak_mb "$2")
  local q=${2#complete:}
  if [[ "$2" == complete:* && " $GAP_QS " == *" $q "* ]]; then
    gap=$(gap_ms "$q")
    ratio=$(awk -v a="$gap" -v b="$ms" 'BEGIN {printf (b > 0 ? "%.0f" : "—"), a / b}')
  fi
  echo "| $2 | $3 | $ms | $mb | $gap | $ratio |"
}
row complete8 complete:8 64
row complete16 complete:16 256
row complete64 complete:64 4096
row complete256 complete:256 65536
row random1e6 "random:1415,0.5,1" "≈1.0·10⁶"
rm -f /tmp/qalg_mem.$$

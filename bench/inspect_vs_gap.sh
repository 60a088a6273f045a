#!/usr/bin/env bash
# Issue 2 speed benchmark: `qalg inspect` against GAP 4.12 (peers/gap_complete_graph.g) in the
# same run, plus qalg alone on the large inputs. Medians of REPEAT runs; peak memory from
# /usr/bin/time. Usage: bench/inspect_vs_gap.sh [BUILD_DIR] > results/inspect_bench.md
# GAP_QS (default "4 8") chooses the q that GAP also runs (q = 16 takes GAP ~4 minutes).
set -euo pipefail
BUILD=${1:-build}
QALG=$BUILD/qalg
REPEAT=${REPEAT:-5}
GAP_QS=${GAP_QS:-"4 8"}
PEER=${PEER:-../shared/peers/gap_complete_graph.g}
[ -x "$QALG" ] || { echo "no $QALG: build first" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# seconds and peak KB of one command
measure() { /usr/bin/time -f "%e %M" -o /tmp/qalg_time.$$ "$@" >/dev/null 2>&1; cat /tmp/qalg_time.$$; }

qalg_row() {  # spec -> "median_s peak_MB"
  local times=() mem=0
  for _ in $(seq "$REPEAT"); do
    read -r s kb < <(measure "$QALG" inspect "$1" --json)
    times+=("$s"); mem=$kb
  done
  printf '%s %s\n' "$(printf '%s\n' "${times[@]}" | median)" "$((mem / 1024))"
}

echo "# qalg inspect vs GAP ($(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m))"
echo
echo "Command: \`bench/inspect_vs_gap.sh $BUILD\` (REPEAT=$REPEAT, GAP_QS=\"$GAP_QS\")"
echo
echo "| input | dim | qalg median s | qalg peak MB | GAP s (same run) | GAP / qalg |"
echo "|---|---|---|---|---|---|"
for q in 16 64 256; do
  read -r s mb < <(qalg_row "complete:$q")
  gap="—"; ratio="—"
  if [[ " $GAP_QS " == *" $q "* ]]; then
    read -r gs _ < <(measure gap -q -b -c "q:=$q; F:=Rationals;" "$PEER")
    gap=$gs; ratio=$(awk -v a="$gs" -v b="$s" 'BEGIN {printf "%.0f", (b > 0 ? a / b : 0)}')
  fi
  echo "| complete:$q | $((q * q)) | $s | $mb | $gap | $ratio |"
done
for q in $GAP_QS; do
  [[ " 16 64 256 " == *" $q "* ]] && continue
  read -r s mb < <(qalg_row "complete:$q")
  read -r gs _ < <(measure gap -q -b -c "q:=$q; F:=Rationals;" "$PEER")
  echo "| complete:$q | $((q * q)) | $s | $mb | $gs | $(awk -v a="$gs" -v b="$s" 'BEGIN {printf "%.0f", (b > 0 ? a / b : 0)}') |"
done
read -r s mb < <(qalg_row "random:1415,0.5,1")
echo "| random:1415,0.5,1 (≈10⁶ arrows) | ≈1.0·10⁶ | $s | $mb | — | — |"
rm -f /tmp/qalg_time.$$

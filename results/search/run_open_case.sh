#!/usr/bin/env bash
# The open case Q_2 ⊗ Q_2 again with the factor-index walk (issue 11, results/search/README.md,
# "Open case, second run"): one thread, nice -n 10, 290 s per arithmetic (14.5 min CPU in all).
#   results/search/run_open_case.sh [QALG] [OUT]
# Summaries go to results/search/q2sq-<mode>-1thread.summary.json, algorithm files to OUT.
set -euo pipefail
QALG=${1:-./build/qalg}
OUT=${2:-/tmp/search_open}
mkdir -p "$OUT"
for mode in F2 F3 Z3; do
  echo "== q2sq-$mode: qalg search complete:2 --power 2 --field $mode --time 290 --threads 1" >&2
  nice -n 10 "$QALG" search complete:2 --power 2 --field "$mode" --time 290 --threads 1 --seed 1 \
    --walk-flips 200000 --plateau 5000 --out "$OUT" --json --quiet \
    > "results/search/q2sq-$mode-1thread.summary.json"
done

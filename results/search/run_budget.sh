#!/usr/bin/env bash
# The documented search budget of results/search/README.md (issue 11). Usage:
#   results/search/run_budget.sh [QALG] [OUT]
# Each run writes its best verified algorithm file to OUT and a JSON summary OUT/<name>.json.log.
set -euo pipefail
QALG=${1:-./build/qalg}
OUT=${2:-results/search}
mkdir -p "$OUT"
run() {  # name, then the qalg search arguments
  local name=$1; shift
  echo "== $name: qalg search $*" >&2
  "$QALG" search "$@" --threads 2 --seed 1 --walk-flips 200000 --plateau 5000 --out "$OUT" --json --quiet > "$OUT/$name.summary.json"
}
# The paper's algebra Q_2 ⊗ Q_2 (dim 16, known 28 <= R <= 36), three arithmetics.
run q2sq-F2 complete:2 --power 2 --field F2 --time 120
run q2sq-F3 complete:2 --power 2 --field F3 --time 120
run q2sq-Z3 complete:2 --power 2 --field Z3 --time 60
# Other small tensor squares and products of quivers.
run path2sq-F3 path:2 --power 2 --field F3 --time 40
run q2-x-loop-F3 complete:2 --tensor cycle:1 --field F3 --time 40
run loopcube-F3 cycle:1 --power 3 --field F3 --time 40
run path3sq-F3 path:3 --power 2 --field F3 --time 40

#!/usr/bin/env bash
# Executes every notebook in notebooks/ from a clean kernel and fails on the first error or failed
# assertion (issue 10). Outputs go to a temporary folder: the committed notebooks stay output-free.
#   scripts/run_notebooks.sh [PYTHONPATH_OF_THE_MODULE]     (default: build/python)
# Also refuses committed notebooks that carry outputs, so no stale number is ever shown.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
module_dir="$(cd "${1:-$root/build/python}" && pwd)"
python="${Python_EXECUTABLE:-python3}"
export PYTHONPATH="$module_dir${PYTHONPATH:+:$PYTHONPATH}"
export QALG_ROOT="$root"
export MPLBACKEND=Agg
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

"$python" - "$root"/notebooks/*.ipynb <<'PY'
import sys, nbformat
stale = [p for p in sys.argv[1:]
         if any(c.get("outputs") or c.get("execution_count") for c in nbformat.read(p, 4).cells if c.cell_type == "code")]
if stale:
    sys.exit("notebooks committed with outputs (strip them): " + ", ".join(stale))
PY

failed=0
for nb in "$root"/notebooks/*.ipynb; do
  name="$(basename "$nb")"
  start=$SECONDS
  if "$python" -m jupyter nbconvert --to notebook --execute "$nb" --output-dir "$out" \
       --ExecutePreprocessor.timeout=600 --log-level=WARN >"$out/$name.log" 2>&1; then
    echo "ok      $name ($((SECONDS - start)) s)"
  else
    echo "FAILED  $name"
    grep -v "running over TCP" "$out/$name.log" | tail -n 30
    failed=$((failed + 1))
  fi
done
count=$(ls "$root"/notebooks/*.ipynb | wc -l)
echo "$((count - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]

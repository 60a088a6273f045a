#!/usr/bin/env bash
# Benchmark suites under environment variants, in one device call after scripts/gpu_check.sh
# (or device_session.sh) built build-gpu: each argument is "NAME SUITE [VAR=VALUE ...]", run with
# PEER=0 under its own time limit (VARIANT_SECONDS, default 90); results in ONE archive, and the
# rows of every variant printed last (the device tool returns the end of the output).
#   bash scripts/device_variants.sh OUT "regs decode QALG_DECODE_BULK=0" "law peerlost" ...
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: device_variants.sh OUT_DIR "NAME SUITE [VAR=VALUE ...]" ...}
shift
R=/tmp/qalg_device_variants
rm -rf "$R" && mkdir -p "$R"
for v in "$@"; do
  read -r name suite vars <<<"$v"
  t0=$SECONDS
  env PEER=0 $vars timeout "${VARIANT_SECONDS:-90}" bash scripts/gpu_bench.sh "$R/$name" "$suite" >"$R/$name.log" 2>&1
  echo "variant $name ($suite, ${vars:-defaults}): rc $? in $((SECONDS - t0)) s"
done
tar czf "$OUT/device_variants.tgz" -C /tmp qalg_device_variants
for v in "$@"; do
  read -r name suite vars <<<"$v"
  echo "== $name"; grep -hvE "^(suite|ceiling)" "$R/$name"/bench_*.csv 2>/dev/null | cut -d, -f2-8,10,13,20,21 | cut -c1-120
done

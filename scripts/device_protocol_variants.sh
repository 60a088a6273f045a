#!/usr/bin/env bash
# Thirty-fourth session: one shape's row (alternating with dense, warm and flushed, and each call
# alone: the table's protocols) for each of several forced tiles, then the Triton peer on the same
# shape in the same protocols (scripts/peer_protocols.py). Why: the peer gains from the dense call's
# L2 residue (DeepSeek-V3: 23.2 us alternating against 25.2 alone) and qalg's pick does not (25.1
# against 24.1); the calibration picks the tile alone. Run on the GPU machine from the repository
# root, carrying .gpu-carry (T_FILTER=<gtest filter>: those CUDA tests first):
#   SHAPE=DeepSeek-V3-expert PEER_SHAPE="DeepSeek-V3 expert" VARIANTS="fused-ws128x128 fused-wm128x128" \
#     bash scripts/device_protocol_variants.sh $OUT
set -uo pipefail
cd "$(dirname "$0")/.."
O=${1:?usage: device_protocol_variants.sh OUT_DIR}/pv
: "${SHAPE:?SHAPE (a peerlost shape: Qwen3-1.7B, Qwen3-8B, DeepSeek-V3-expert)}" "${VARIANTS:?VARIANTS (bench variant names)}"
# SUITE (thirty-fifth session): peerlost (the default: the table's three protocols) or residue (the same
# three, after dense / after itself / flushed, and after read-only passes over X and W: bench_residue.hpp)
SUITE=${SUITE:-peerlost}
case $SUITE in peerlost|residue) ;; *) echo "device_protocol_variants.sh: SUITE must be peerlost or residue (got '$SUITE')" >&2; exit 2 ;; esac
R=/tmp/pv; mkdir -p "$O" "$R"
. scripts/device_build.sh
# T_FILTER: the CUDA tests of that gtest filter first (their conformance rows in OUT/pv/conformance.csv)
. scripts/device_filtered_tests.sh
# (a variant named twice runs twice: a repeat in the same call; files by position, so none is overwritten)
i=0
# An entry VARIANT:VAR=v,VAR=v runs that variant with those settings (e.g. fused-ws128x128:QALG_WS128_TWO_PER_SM=1).
for entry in $VARIANTS; do
  i=$((i + 1))
  v=${entry%%:*}; envs=""
  [ "$entry" != "$v" ] && envs=$(echo "${entry#*:}" | tr , ' ')
  env $envs QALG_ABLATE_SHAPES=$SHAPE QALG_BENCH_VARIANTS=$v timeout 120 "$B/qalg_gpu_bench" --tables .gpu-carry/tables \
    --suite $SUITE --out "$R/pl_$i.csv" >"$R/pl_$i.log" 2>&1
  echo "$entry rc $? ($((SECONDS - t0)) s):"; grep -E "^$SUITE" "$R/pl_$i.log" | cut -c1-200
done
# variants.csv: the bench's rows with the entry (variant and settings) in a first column
{ echo "entry,$(head -1 "$R/pl_1.csv")"
  j=0; for entry in $VARIANTS; do j=$((j + 1)); tail -n +2 "$R/pl_$j.csv" | grep -v "^ceiling" | sed "s|^|$entry,|"; done
} >"$O/variants.csv"
if [ -n "${PEER_SHAPE:-}" ]; then
  PYTHONUNBUFFERED=1 timeout 200 python3 scripts/peer_protocols.py .gpu-carry/triton_qproj.py "$PEER_SHAPE" \
    >"$O/peer.jsonl" 2>"$R/peer.err"
  echo "peer rc $? ($((SECONDS - t0)) s)"; cat "$O/peer.jsonl"; tail -3 "$R/peer.err"
fi
tar czf "$O/logs.tar.gz" -C "$R" .

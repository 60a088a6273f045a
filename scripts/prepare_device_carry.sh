#!/usr/bin/env bash
# Fills the git-ignored .gpu-carry/ that the device calls carry (run HERE, where FLINT is, after
# `make` or `cmake --build build`): the FLINT-written tables the GPU conformance and benchmarks
# read, and the exported packages that scripts/export_check.sh builds and tests on the GPU.
# Re-export after every change under gpu/ or export/: the packages embed the kernel sources.
#   bash scripts/prepare_device_carry.sh [BUILD_DIR]      (default build)
#   AB_REF=e73d0cb bash scripts/prepare_device_carry.sh  (also a reference tree, see below)
# Then carry .gpu-carry/tables, .gpu-carry/export (and .gpu-carry/triton_qproj.py, a copy of
# ../shared/peers/triton_qproj.py) and run `bash scripts/device_session.sh $OUT` on the device.
set -euo pipefail
cd "$(dirname "$0")/.."
QALG=${1:-build}/qalg
[ -x "$QALG" ] || { echo "prepare_device_carry: $QALG not built (run make first)" >&2; exit 2; }
mkdir -p .gpu-carry/tables
for q in 4 8 16 32 64 128 256; do "$QALG" table complete:$q --out .gpu-carry/tables/complete_$q.json >/dev/null; done
"$QALG" table complete:2 --power 2 --out .gpu-carry/tables/q2_pow2.json >/dev/null
"$QALG" table complete:2 --power 3 --out .gpu-carry/tables/q2_pow3.json >/dev/null
"$QALG" table cycle:5 --out .gpu-carry/tables/cycle_5.json >/dev/null
"$QALG" table path:4 --out .gpu-carry/tables/path_4.json >/dev/null
rm -rf .gpu-carry/export && mkdir -p .gpu-carry/export
"$QALG" export complete:4 --widths 64 --dtype bf16 --out .gpu-carry/export/q4_bf16 >/dev/null
"$QALG" export complete:2 --power 2 --widths 3,5,2,4 --output-widths 4,2,3,5 --dtype fp32 \
  --out .gpu-carry/export/q2sq_odd >/dev/null
# Two named packages that chain (a gated FFN's up and down projections, K -> N -> K), for
# export_check.sh's FFN_PAIR steps: one CMake project and one Python process with both.
rm -rf .gpu-carry/ffn && mkdir -p .gpu-carry/ffn
"$QALG" export complete:4 --widths 64 --output-widths 128 --dtype bf16 --name ffn_up --out .gpu-carry/ffn/ffn_up >/dev/null
"$QALG" export complete:4 --widths 128 --output-widths 64 --dtype bf16 --name ffn_down --out .gpu-carry/ffn/ffn_down >/dev/null
# AB_REF=<commit>: that commit's gpu/, bench/ and tests/gpu/ in .gpu-carry/ref, for the device
# script's `ab` step (the same kernels' timings at two commits in one call).
rm -rf .gpu-carry/ref
if [ -n "${AB_REF:-}" ]; then
  mkdir -p .gpu-carry/ref && git archive "$AB_REF" gpu bench tests/gpu | tar x -C .gpu-carry/ref
  echo "ab reference: $(git rev-parse --short "$AB_REF") in .gpu-carry/ref"
fi
peer=../shared/peers/triton_qproj.py
[ -f "$peer" ] && cp "$peer" .gpu-carry/triton_qproj.py
# The commit (and whether the tree differs from it) these files were made from, for the device
# scripts' code.txt: the device copy's own .git can be older than its tree (forty-eighth session's
# call 2, forty-ninth's call 1), so its `git describe` is not the code that ran.
git describe --always --dirty >.gpu-carry/code.txt 2>/dev/null || echo unknown >.gpu-carry/code.txt
echo "prepared: $(ls .gpu-carry/tables | wc -l) tables, packages: $(ls .gpu-carry/export | tr '\n' ' ')+ $(ls .gpu-carry/ffn | tr '\n' ' ')"

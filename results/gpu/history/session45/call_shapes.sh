#!/usr/bin/env bash
# Forty-fifth session, call 3 (any card; carry .gpu-carry after scripts/prepare_device_carry.sh):
#   bash results/gpu/history/session45/call_shapes.sh $OUT
# The register decode's CTA shapes when the weights come from DRAM: calls 1-2 found the FFN decodes'
# warm misses to be qalg's weights evicted by the dense decode's stream, and the decode's shapes
# were chosen (the fit rule) on L2-resident weights. Here `decode-residue` (after dense / … / alone)
# for the three decodes that miss warm, once with the rule's shapes and once per compiled gate/up
# shape (down the rule's) and per down shape (gate/up the rule's), QALG_DECODE_SHAPES=ONE,TWO.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
O=${1:?usage: call_shapes.sh OUT}; W=/tmp/s45s; mkdir -p "$O" "$W"
R=$W; . scripts/device_build.sh
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
export QALG_ABLATE_SHAPES=${SHAPES:-Qwen3-1.7B,Qwen3-8B,DeepSeek-V3}
: >"$W/shapes.log"
for s in rule ,64x64x4 ,32x64x4 ,32x64x8 ,64x32x8 ,32x32x8 ,16x64x8 64x64x4, 32x64x4, 32x64x12, 16x64x4, 16x64x12,; do
  [ $((SECONDS - t0)) -lt ${CALL_SECONDS:-280} ] || { echo "skip $s: time"; continue; }
  if [ "$s" = rule ]; then env_s=(); else env_s=(QALG_DECODE_SHAPES=$s); fi
  env "${env_s[@]}" timeout 60 build-gpu/qalg_gpu_bench --tables .gpu-carry/tables --suite decode-residue \
    --out "$W/r_${s//,/_}.csv" >"$W/r.log" 2>&1
  rc=$?
  echo "== shapes '$s' rc $rc ($((SECONDS - t0)) s)" | tee -a "$W/shapes.log"
  grep -E "^residue|rror|FAIL" "$W/r.log" | grep -E "after (dense|itself) |rror|FAIL" | cut -c1-120 | tee -a "$W/shapes.log"
  tail -n +2 "$W/r_${s//,/_}.csv" | sed "s/^/${s//,/;},/" >>"$W/all.csv"
done
cp "$W/shapes.log" "$W/all.csv" "$O/"

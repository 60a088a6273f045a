#!/usr/bin/env bash
# Thirty-fifth session: the residue suite (bench_residue.hpp: each M = 2048 projection's calibrated tile
# after the dense GEMM on the same X and W, i.e. the table's warm protocol, with the dense call's own
# median; alone; flushed; after read-only passes over X and W) under each setting of AB_ENVS, ROUNDS
# times in turn, so that clock drift falls on all alike. Why: set_ws_items_descending (QALG_WS_DESCENDING)
# ran DeepSeek-V3's ws128x128 in 28.1 µs after dense against 31.3 ascending (H100), 0.7 µs slower flushed.
# Run on the GPU machine from the repository root, carrying .gpu-carry:
#   AB_ENVS="asc:QALG_WS_DESCENDING=0 desc:QALG_WS_DESCENDING=1" ROUNDS=2 SHAPES=Qwen3-1.7B,DeepSeek-V3 \
#     bash scripts/device_residue_ab.sh $OUT
# OUT/ra/residue.csv: the bench's rows with the setting's name and the round in two first columns.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${1:?usage: device_residue_ab.sh OUT_DIR}/ra
bad() { echo "device_residue_ab.sh: $*" >&2; exit 2; }
[[ ${ROUNDS:-2} =~ ^[1-9][0-9]*$ ]] || bad "ROUNDS must be a positive integer (got '${ROUNDS}')"
[ -n "${AB_ENVS:-}" ] || bad "AB_ENVS must name the settings (name:VAR=v,VAR=v … separated by spaces)"
for side in $AB_ENVS; do
  [[ $side =~ ^[A-Za-z0-9_-]+:([A-Z_0-9]+=[^,]*(,[A-Z_0-9]+=[^,]*)*)?$ ]] || bad "AB_ENVS: '$side' is not name:VAR=value[,VAR=value…]"
done
R=/tmp/ra; mkdir -p "$O" "$R"
. scripts/device_build.sh
# T_FILTER=<gtest filter>: those CUDA tests first (their conformance rows in OUT/ra/conformance.csv)
. scripts/device_filtered_tests.sh
header=""
for round in $(seq "${ROUNDS:-2}"); do
  for side in $AB_ENVS; do
    name=${side%%:*}; envs=$(echo "${side#*:}" | tr , ' ')
    env $envs QALG_ABLATE_SHAPES=${SHAPES:-Qwen3-1.7B,Qwen3-4B,Qwen3-8B,Qwen3-30B,DeepSeek-V3,Qwen3-32B} \
      timeout 200 "$B/qalg_gpu_bench" --tables .gpu-carry/tables --suite residue --out "$R/r_${name}_$round.csv" \
      >"$R/r_${name}_$round.log" 2>&1
    echo "$name round $round rc $? ($((SECONDS - t0)) s)"
    grep -E "^residue .*after (dense|itself|dense-flushed) " "$R/r_${name}_$round.log" | cut -c9-120
    [ -z "$header" ] && header="setting,round,$(head -1 "$R/r_${name}_$round.csv")" && echo "$header" >"$O/residue.csv"
    tail -n +2 "$R/r_${name}_$round.csv" | grep "^residue" | sed "s|^|$name,$round,|" >>"$O/residue.csv"
  done
done
tar czf "$O/logs.tar.gz" -C "$R" .

#!/usr/bin/env bash
# Forty-fifth session's device call (any card; carry .gpu-carry after scripts/prepare_device_carry.sh):
#   bash results/gpu/history/session45/call.sh $OUT
# 1. The bench suite `decode-residue` (bench_residue.hpp Bench::decode_residue): why the FFN decodes
#    miss the paper warm but not alone. Each decode alternating with the dense decode (the table's
#    warm protocol), with the dense decode then one of its own, with a read of dense's weights, with
#    that read then one of its own, and alone. If the dense call's weights evicting qalg's blocks
#    from L2 is the cost: after dense ≈ after the read > after either then itself ≈ alone.
# 2. On an H200 only (SPEC §6's card): then the table and the peer (the thirty-sixth session's table
#    is still the current one; prime and the wider shortlist have never run on an H200).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
O=${1:?usage: call.sh OUT}; W=/tmp/s45; mkdir -p "$O" "$W"
R=$W; . scripts/device_build.sh
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "card: $card"
timeout ${T_RESIDUE:-150} build-gpu/qalg_gpu_bench --tables .gpu-carry/tables --suite decode-residue \
  --out "$O/decode_residue.csv" >"$W/decode_residue.log" 2>&1
echo "decode-residue rc $? ($((SECONDS - t0)) s)"
grep -E "^residue|^# GPU|FAIL|rror" "$W/decode_residue.log" | cut -c1-200
cp "$W/decode_residue.log" "$O/"
case $card in
  *H200*) STEPS="table peer" DEADLINE=$(( ${CALL_SECONDS:-590} - (SECONDS - t0) )) bash scripts/device_session20.sh "$O/t" ;;
  *) echo "not an H200: no table" ;;
esac

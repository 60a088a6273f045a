#!/usr/bin/env bash
# Thirty-ninth session: the FFN decode in one launch (set_decode_fused), first GPU run (~540 s on a
# fresh machine, carrying .gpu-carry after scripts/prepare_device_carry.sh):
#   bash results/gpu/history/session39/call_fused.sh $OUT
# 1. the build; 2. its tests (FfnDecodeFused.*, the two-launch decode tests, the paper's FFN
# conformance with the new /fused rows); 3. the decode suite (the table's protocol: alternating
# with dense cuBLAS, warm and flushed) with the two launches (ref), the rule's chunks and 8 chunks,
# two rounds (scripts/ab_summary.py compares the FFN decodes).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
nvidia-smi --query-gpu=name --format=csv,noheader
T_FILTER=${T_FILTER:-'FfnDecodeFused.*:FfnDecode.*:DecodeShapes.*:PaperConformance.DeepDecodes:PaperConformance.GatedFfnQwen3_1_7B_q32'} \
  T_TESTS=${T_TESTS:-150} AB_REF_SELF=1 AB_SUITES=dec AB_HEAD_ENVS=${AB_HEAD_ENVS:-"rule:QALG_DECODE_FUSED=0 c8:QALG_DECODE_FUSED=8"} AB_ROUNDS=${AB_ROUNDS:-2} \
  STEPS="tests ab" DEADLINE=${DEADLINE:-540} bash scripts/device_session20.sh "${1:?usage: call_fused.sh OUT}" 2>&1 | tail -80

#!/usr/bin/env bash
# Forty-fourth session, call 1 (any card; carry .gpu-carry after scripts/prepare_device_carry.sh):
#   bash results/gpu/history/session44/call_held.sh $OUT
# The held warm protocol's first run (bench/gpu/gpu_timing.hpp Timer::set_hold_us): build; the test
# BenchProbes.*; the bench suite `launch` (the empty replay, the three smallest M = 2048 projections,
# the five FFN decodes: each row warm as before, warm held, flushed) with the default 20 µs hold and
# again with 60 µs (the held times should not move if 20 µs covers the host's submission).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
O=${1:?usage: call_held.sh OUT}; W=/tmp/s44; mkdir -p "$O" "$W"
R=$W; . scripts/device_build.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 60 build-gpu/test_gpu_cuda --gtest_filter='BenchProbes.*' >"$W/tests.log" 2>&1
echo "tests rc $?: $(grep -E "PASSED|FAILED|OK \]|FAILED \]" "$W/tests.log" | tr '\n' ' ')"
for hold in ${HOLDS:-20 60}; do
  QALG_BENCH_HOLD_US=$hold timeout 200 build-gpu/qalg_gpu_bench --tables .gpu-carry/tables --suite launch \
    --out "$O/launch_hold$hold.csv" >"$W/launch_hold$hold.log" 2>&1
  echo "launch hold $hold rc $? ($((SECONDS - t0)) s)"
  grep -E "^launch|^table|^# GPU" "$W/launch_hold$hold.log" | cut -c1-260
done
cp "$W/tests.log" "$W/launch_hold20.log" "$W/launch_hold60.log" "$O/" 2>/dev/null

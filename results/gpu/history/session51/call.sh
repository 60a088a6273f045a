#!/usr/bin/env bash
# Fifty-first session: the table call of the forty-eighth session with the SM clock sampled beside it,
# as scripts/gpu_bench.sh did up to the nineteenth session (the forty-eighth's call dropped it):
#   DEADLINE=400 bash results/gpu/history/session51/call.sh $OUT   (carry .gpu-carry; tool timeout ~420)
# Why: Qwen3-32B at M = 32768 is 2-4 % slower after dense's calls than it was in the thirty-sixth
# session's table with the same kernel (m32768_drift.txt), and the tenth session's samples are the
# last that show how the clock recovers after dense. Every row's log line ends with its UTC time, so
# $OUT/clocks_table.csv (SM and memory clock, temperature, power, clock-event reasons every 250 ms)
# lines up with the rows. The eighth file back from the call (the tool returns at most 8): the
# forty-eighth's call writes seven. Exits at once on another card, as that call does.
set -uo pipefail
cd "$(dirname "$(realpath "$0")")/../../../.."
O=${1:?usage: call.sh OUT}; mkdir -p "$O"
. scripts/clock_sampler.sh
bash scripts/on_card.sh "${CARD:-H200}" true >/dev/null 2>&1 && start_clock_sampler "$O/clocks_table.csv" 250
bash results/gpu/history/session48/call.sh "$O"; rc=$?
[ -n "${CLOCK_SAMPLER:-}" ] && { stop_clock_sampler; echo "clock samples: $(($(wc -l <"$O/clocks_table.csv") - 1))"; }
exit $rc

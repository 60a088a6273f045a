#!/usr/bin/env bash
# Fuzzing (issue 12): build the libFuzzer targets of fuzz/ with clang (ASan + UBSan + coverage)
# into build-fuzz/, then run each for FUZZ_SECONDS seconds. Crashes, uncaught exceptions, leaks,
# hangs (-timeout, seconds per input) and out-of-memory (-rss_limit_mb) fail the run; the input
# that did it is saved under build-fuzz/fuzz-artifacts/<target>/.
#   scripts/fuzz.sh [TARGET...]     (default: every fuzz/fuzz_*.cpp)
#   FUZZ_SECONDS=10 FUZZ_RUNS=N FUZZ_JOBS=1 BUILD_FUZZ=build-fuzz FUZZ_NICE=19 UNITY=ON
# A fresh build directory is configured for Ninja and unity sources (as make build and
# scripts/sanitize.sh: the libraries compile in about half the time on CI's 2 cores).
# New corpus entries go to build-fuzz/fuzz-corpus/<target>; the committed seeds in
# fuzz/corpus/<target> are read, never written.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD_FUZZ:-build-fuzz}
SECONDS_EACH=${FUZZ_SECONDS:-10}
RUNS=${FUZZ_RUNS:--1}
NICE=${FUZZ_NICE:-0}
JOBS=${JOBS:-$(nproc)}
UNITY=${UNITY:-ON}
mkdir -p "$BUILD"
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
  CC=clang CXX=clang++ cmake -S . -B "$BUILD" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DQALG_SANITIZE=ON -DCMAKE_UNITY_BUILD="$UNITY" \
    -DQALG_WITH_CUDA=OFF >"$BUILD/configure.log" 2>&1 || { tail -30 "$BUILD/configure.log"; exit 1; }
fi
# Every target: the one target `fuzzers` (fuzz/CMakeLists.txt), so that all cores stay busy.
build_targets=(fuzzers)
if [ $# -gt 0 ]; then targets=("$@"); build_targets=("$@"); else
  targets=(); for f in fuzz/fuzz_*.cpp; do targets+=("$(basename "$f" .cpp)"); done
fi
start=$(date +%s)
nice -n "$NICE" cmake --build "$BUILD" -j "$JOBS" --target "${build_targets[@]}" || exit 1
echo "fuzz build: $(( $(date +%s) - start )) s wall; CPU time (user, sys) of the build:"
times >"$BUILD/.build-times"; tail -1 "$BUILD/.build-times"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
printf '%-24s %12s %10s %8s %s\n' target executions exec/s cover result
for t in "${targets[@]}"; do
  name=${t#fuzz_}
  work="$BUILD/fuzz-corpus/$name" art="$BUILD/fuzz-artifacts/$name"
  mkdir -p "$work" "$art"
  dict=fuzz/json.dict
  case $name in dot) dict=fuzz/dot.dict ;; edge_list|family) dict="" ;; esac
  log="$BUILD/fuzz-$name.log"
  nice -n "$NICE" "$BUILD/fuzz/$t" "$work" "fuzz/corpus/$name" ${dict:+-dict=$dict} \
    -max_total_time="$SECONDS_EACH" -runs="$RUNS" -timeout=5 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
    -max_len=8192 -print_final_stats=1 -artifact_prefix="$art/" >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
  result=ok
  if [ $rc -ne 0 ]; then
    result="FAILED (exit $rc, see $log)"; status=1
    grep -m3 -E "ERROR: |SUMMARY: |fuzz law broken|runtime error|terminate called" "$log" | sed 's/^/    /'
  fi
  printf '%-24s %12s %10s %8s %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$result"
done
exit $status

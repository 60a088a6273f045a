#!/usr/bin/env bash
# Issue 8 on the GPU machine, in one call: for each exported kernel package (made here with
# `qalg export`, carried in .gpu-carry/export/), build the CMake package and run its conformance
# test, install it and build + run the example consumer through find_package; for the first
# package also through add_subdirectory; build the PyTorch extension and run the torch tests
# (examples/pytorch) and the example script. Everything builds in parallel first.
#   [FFN_PAIR=UP:DOWN] scripts/export_check.sh RESULTS_DIR PACKAGE_DIR...
# FFN_PAIR: two packages exported with --name ffn_up and --name ffn_down (UP's N = DOWN's K):
# examples/consumer_ffn builds both in one CMake project (add_subdirectory; one kernel runtime)
# with both conformance tests, and runs h = up(x), y = down(h) against both plans;
# examples/pytorch/test_two_packages.py loads both in one Python process.
# ONLY_TORCH=1: only the PyTorch extensions' builds and tests (no CMake builds, conformance or consumers).
# Writes summary.txt, build.log, conformance_<name>.json, pytest.log, torch_results.jsonl
# under RESULTS_DIR; prints the summary last. Exit 1 if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
RES=$(mkdir -p "$1" && cd "$1" && pwd); shift
PKGS=()
for p in "$@"; do PKGS+=("$(cd "$p" && pwd)"); done
W=${EXPORT_WORK:-/tmp/qalg_export_check}
rm -rf "$W" && mkdir -p "$W"
gen=$(command -v ninja >/dev/null && echo "-G Ninja" || true)
J=$(nproc)
export TORCH_EXTENSIONS_DIR=$W/torch_extensions MAX_JOBS=$J PYTHONUNBUFFERED=1
summary=$RES/summary.txt
: >"$summary"
status=0
note() { echo "$*" | tee -a "$summary"; }
step() {  # step NAME COMMAND...: run, log to $W/NAME.log, record ok/FAIL
  local name=$1; shift
  local t0=$SECONDS
  if "$@" >"$W/$name.log" 2>&1; then note "ok    $name ($((SECONDS - t0)) s)"; else note "FAIL  $name ($((SECONDS - t0)) s)"; status=1; fi
}
build_cmake() {  # package, name
  cmake -S "$1" -B "$W/$2/build" $gen -DCMAKE_BUILD_TYPE=Release && cmake --build "$W/$2/build" -j"$J" &&
    cmake --install "$W/$2/build" --prefix "$W/$2/prefix" &&
    cmake -S examples/consumer_cmake -B "$W/$2/find" $gen -DCMAKE_PREFIX_PATH="$W/$2/prefix" &&
    cmake --build "$W/$2/find" -j"$J"
}
build_subdir() { cmake -S examples/consumer_cmake -B "$W/subdir" $gen -DQALG_KERNELS_DIR="$1" && cmake --build "$W/subdir" -j"$J"; }
build_ffn() {
  cmake -S examples/consumer_ffn -B "$W/ffn" $gen -DQALG_FFN_UP_DIR="$UP" -DQALG_FFN_DOWN_DIR="$DOWN" \
    -DQALG_KERNELS_CONFORMANCE=ON &&
    cmake --build "$W/ffn" -j"$J"
}
build_torch() { python3 -c "import sys; sys.path.insert(0, '$1/torch'); import qalg_torch; qalg_torch.load('$1', verbose=True)"; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$summary"
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)" | tee -a "$summary"
t0=$SECONDS
cm=$([ "${ONLY_TORCH:-0}" = 1 ] && echo false || echo true)  # ONLY_TORCH=1: the PyTorch steps only
for p in "${PKGS[@]}"; do
  n=$(basename "$p")
  $cm && step "cmake_$n" build_cmake "$p" "$n" &
  step "torch_build_$n" build_torch "$p" &
done
$cm && step cmake_subdir build_subdir "${PKGS[0]}" &
if [ -n "${FFN_PAIR:-}" ]; then
  UP=$(cd "${FFN_PAIR%%:*}" && pwd) DOWN=$(cd "${FFN_PAIR#*:}" && pwd)
  $cm && step cmake_ffn build_ffn &
  step torch_build_ffn_up build_torch "$UP" &
  step torch_build_ffn_down build_torch "$DOWN" &
fi
wait
note "builds: $((SECONDS - t0)) s"

$cm && for p in "${PKGS[@]}"; do
  n=$(basename "$p")
  step "conformance_$n" "$W/$n/build/qalg_kernels_conformance" "$RES/conformance_$n.json"
  tail -1 "$W/conformance_$n.log" | tee -a "$summary"
  step "consumer_find_$n" "$W/$n/find/consumer"
done
$cm && step consumer_subdir "$W/subdir/consumer"
# One pytest process per package (a crash in one cannot hide the other's results).
export QALG_TORCH_RESULTS=$RES/torch_results.jsonl
: >"$QALG_TORCH_RESULTS"
: >"$RES/pytest.log"
for p in "${PKGS[@]}"; do
  n=$(basename "$p")
  export QALG_EXPORT_DIRS=$p
  step "pytest_$n" python3 -m pytest -q -rfE -p no:cacheprovider examples/pytorch
  tail -3 "$W/pytest_$n.log" | tee -a "$summary"
  cat "$W/pytest_$n.log" >>"$RES/pytest.log"  # at once: a call's timeout must not lose it
done
if [ -n "${FFN_PAIR:-}" ]; then
  $cm && for n in ffn_up ffn_down; do  # each package's own conformance test, both on the one runtime
    step "conformance_$n" "$W/ffn/$n/${n}_conformance" "$RES/conformance_$n.json"
    tail -1 "$W/conformance_$n.log" | tee -a "$summary"
  done
  $cm && step consumer_ffn "$W/ffn/consumer_ffn" 211 && tail -1 "$W/consumer_ffn.log" | tee -a "$summary"
  QALG_FFN_PACKAGES="$UP:$DOWN" step pytest_two_packages python3 -m pytest -q -rfE -p no:cacheprovider \
    examples/pytorch/test_two_packages.py
  tail -3 "$W/pytest_two_packages.log" | tee -a "$summary"
  cat "$W/pytest_two_packages.log" >>"$RES/pytest.log"
fi
step example python3 examples/pytorch/example.py "${PKGS[0]}"
tail -2 "$W/example.log" | tee -a "$summary"

for f in "$W"/*.log; do echo "===== $(basename "$f")"; tail -60 "$f"; done >"$RES/build.log"
grep -h "FAIL\|error" "$W"/cmake_*.log "$W"/torch_build_*.log 2>/dev/null | head -20
echo "===== summary"; cat "$summary"
grep -q '^FAIL' "$summary" && status=1  # steps run in the background record failures only there
exit $status

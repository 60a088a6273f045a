#!/usr/bin/env bash
# (thirty-seventh session) Where the warp-specialised forward's CTAs spend their start and end: a
# build of gpu/ of its own with the kernels' %globaltimer stamps (-DQALG_WS_STAMPS=ON; never the
# measured build), then the bench's stamps suite (bench/gpu/bench_stamps.hpp) on STAMP_SHAPES
# (default DeepSeek-V3,Qwen3-30B: QALG_ABLATE_SHAPES's matching), once per side of STAMP_ENVS
# ("name:VAR=value[,VAR=value…]", default "base:"), --trials STAMP_TRIALS (default 30).
# Run on the GPU machine from the repository root, carrying .gpu-carry:
#   bash scripts/device_stamps.sh $OUT
# Writes OUT/stamps/stamps.csv (every side's rows, the side's name first) and stamps.log (the build's
# logs stay in /tmp/stamps_logs).
set -uo pipefail
cd "$(dirname "$0")/.."
bad() { echo "device_stamps.sh: $*" >&2; exit 2; }
[ $# -eq 1 ] || bad "usage: device_stamps.sh OUT_DIR"
O=$1/stamps
[[ ${STAMP_TRIALS:-30} =~ ^[1-9][0-9]{0,3}$ ]] || bad "STAMP_TRIALS must be a positive integer (got '${STAMP_TRIALS}')"
for side in ${STAMP_ENVS:-base:}; do
  [[ $side =~ ^[A-Za-z0-9_]+:([A-Z_0-9]+=[^,]*(,[A-Z_0-9]+=[^,]*)*)?$ ]] ||
    bad "STAMP_ENVS: '$side' is not name:VAR=value[,VAR=value…]"
done
[ -d .gpu-carry/tables ] || bad "no .gpu-carry/tables (run scripts/prepare_device_carry.sh here first)"
mkdir -p "$O"
B=${BUILD_STAMPS:-build-stamps}
t0=$SECONDS
gen=$(command -v ninja >/dev/null && echo "-G Ninja" || true)
L=/tmp/stamps_logs; mkdir -p "$L"  # (the build's logs stay there: at most 8 files come back from a call)
cmake -S gpu -B "$B" $gen -DCMAKE_BUILD_TYPE=Release -DQALG_WS_STAMPS=ON >"$L/cmake.log" 2>&1 &&
  cmake --build "$B" -j"$(nproc)" --target qalg_gpu_bench >"$L/build.log" 2>&1 ||
  { tail -5 "$L/cmake.log"; grep -E "error" -A3 "$L/build.log" | head -40; exit 1; }
echo "stamps build $((SECONDS - t0)) s"
: >"$O/stamps.csv"; : >"$O/stamps.log"
for side in ${STAMP_ENVS:-base:}; do
  name=${side%%:*}
  (
    for e in $(echo "${side#*:}" | tr , ' '); do export "$e"; done
    QALG_ABLATE_SHAPES=${STAMP_SHAPES:-DeepSeek-V3,Qwen3-30B} "$B/qalg_gpu_bench" --tables .gpu-carry/tables \
      --suite stamps --trials "${STAMP_TRIALS:-30}" --out "$O/side.csv" >"$O/side.log" 2>&1
  )
  echo "side $name rc $? ($((SECONDS - t0)) s)"
  sed "s/^/$name,/" "$O/side.csv" >>"$O/stamps.csv"
  { echo "== $name (${side#*:})"; cat "$O/side.log"; } >>"$O/stamps.log"
  grep -E "^stamps|^  " "$O/side.log"
done
rm -f "$O/side.csv" "$O/side.log"
echo "total $((SECONDS - t0)) s"

# Sourced by the device scripts (run on the GPU machine from the repository root): configures and
# builds gpu/ into $B (BUILD_GPU, default build-gpu), logs under $R, stops the script on a build
# error; sets t0 for the scripts' elapsed times.
B=${BUILD_GPU:-build-gpu}
t0=$SECONDS
gen=$(command -v ninja >/dev/null && echo "-G Ninja" || true)
cmake -S gpu -B "$B" $gen -DCMAKE_BUILD_TYPE=Release >"$R/cmake.log" 2>&1
cmake --build "$B" -j"$(nproc)" >"$R/build.log" 2>&1 || { grep -E "error" -A3 "$R/build.log" | head -40; exit 1; }
echo "build $((SECONDS - t0)) s"
export QALG_GPU_TABLES=$PWD/.gpu-carry/tables

# Sourced by the device scripts: start_clock_sampler FILE MS starts nvidia-smi in the background,
# writing a header and then, every MS milliseconds, the SM and memory clock, temperature, power and
# the clock-event reasons (the field's newer name, else its older one) to FILE, and sets
# CLOCK_SAMPLER to its pid (empty without nvidia-smi); stop_clock_sampler ends it. Why: the sixth
# session found the same kernel 35 % slower right after long dense GEMMs than before them, and the
# eighth and tenth sessions' samples showed the power cap behind it; rows print their UTC time.
start_clock_sampler() {
  local file=$1 ms=$2 reasons q
  CLOCK_SAMPLER=""
  command -v nvidia-smi >/dev/null 2>&1 || return 0
  for reasons in clocks_event_reasons.active clocks_throttle_reasons.active; do
    q="timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw,$reasons"
    nvidia-smi --query-gpu="$q" --format=csv,noheader >/dev/null 2>&1 || continue
    echo "$q" >"$file"
    nvidia-smi --query-gpu="$q" --format=csv,noheader -lms "$ms" >>"$file" 2>/dev/null &
    CLOCK_SAMPLER=$!
    return 0
  done
}
stop_clock_sampler() {
  [ -n "${CLOCK_SAMPLER:-}" ] || return 0
  kill "$CLOCK_SAMPLER" 2>/dev/null; wait "$CLOCK_SAMPLER" 2>/dev/null; CLOCK_SAMPLER=""
}

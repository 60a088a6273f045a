#!/usr/bin/env bash
# Twentieth session's device calls. STEPS (space-separated, in order) picks what runs after the build:
#   order   the ablate suite's `tma-store` mode (the default epilogue) (warm medians of 20, alone) of the warp-specialised tiles
#           on every M = 2048 projection and the square n = 32768, under QALG_WS_ORDER=columns and
#           =types: which item order the default should be
#   sweep   the sweep suite (target 6: q in {4 … 64} for M in {1, 32, 512, 2048}, Qwen3-32B q = 32 … 256)
#   peer    the Triton peer's `more` pass (Qwen3-8B M = 1/32/512 and Qwen3-32B at q = 16/32/64, squares)
#   tests   the CUDA tests (T_FILTER, default all) with their conformance CSV (T_TESTS seconds)
#   trim    a 0|1 switch (SWITCH, default QALG_WS_TRIM) off / on: ablate suite on the M = 2048
#           projections and the square n = 4096, ffn suite
#   gate    the ffn suite under each of GATES (QALG_FFN_GATE; default ws64x64 wsl64x64)
#   table   the table suite (bench_table.csv) and the peer's table1 shapes in each protocol (peer_protocols.py),
#           then (thirty-seventh session) its squares so (--squares, peer_squares.jsonl)
#   ablate  the ablate suite's ABLATE_MODES (default tma-store,loads-only) on the M = 2048 projections
#           and the square n = ABLATE_SQUARE_N (default 32768)
#   memcheck compute-sanitizer (SAN_TOOLS, default memcheck) on MEMCHECK_FILTER; SAN_EXCLUDE (fifty-sixth
#           session): a --kernel-name-exclude filter, e.g. kns=nvjet. Under racecheck on an H100 (fifty-seventh
#           session) cuBLAS's kernels left out so ended in "The Sanitizer failed to handle a hardware
#           exception" in two tests that were clean fully instrumented: export QALG_REFERENCE_GEMM=plain
#           instead (the tests' dense reference then runs no cuBLAS kernel)
#   gorder  (twenty-second session) the ffn suite under each of GATES (default ws64x64 wsl64x64 ws64x128) in
#           both gate/up item orders (QALG_FFN_GATE_ORDER)
#   ab      (twenty-second session) HEAD against .gpu-carry/ref (AB_REF=<commit> bash
#           scripts/prepare_device_carry.sh): ffn suite and ablate tma-store, both builds, twice;
#           AB_REF_SELF=1: the reference is HEAD's build with default settings (runtime switches)
#   ncu     (twenty-second session) Nsight Compute (full set, SASS stall samples) on one ablate kernel
#           (NCU_SHAPE, NCU_VARIANT, NCU_MODE); the top stalled instructions by scripts/ncu_top_stalls.py;
#           (thirty-third) the PM-sampling timeline by scripts/ncu_pm_timeline.py (raw page, *_raw.csv.gz)
#   pdl     (twenty-first session) the ffn suite with the FFN's down projection by PDL off / on, twice;
#           later steps run with the faster (QALG_FFN_PDL exported)
#   residue (thirty-fourth session) the bench suite residue (RESIDUE_SHAPES, default DeepSeek-V3,Qwen3-8B: each
#           calibrated tile after the dense call, after read-only passes over X / W, alone, flushed) and the
#           peer the same way (peer_protocols.py --residue on PEER_RESIDUE_SHAPES, default "DeepSeek-V3 expert")
#   ncupeer (thirty-sixth session) Nsight Compute (full set) on one launch of the Triton peer's kernel
#           (peer_protocols.py --profile PEER_NCU_SETTING, default q16-int, on PEER_NCU_SHAPE, default
#           "DeepSeek-V3 expert"; ncu flushes the caches first), its PM-sampling timeline beside qalg's
#           (the `ncu` step: same set, same flush) by scripts/ncu_pm_timeline.py
#   segments (twenty-seventh session) the bench suite segments: the narrow kernel's memory pattern (Y-like
#           64-row tiles of 208 … 1024 bytes per row at a 51 200-byte pitch) against a contiguous copy
# Each step runs only while DEADLINE (seconds from the start) leaves it room. At most 8 files come
# back from a call: the CSVs named below are copied to OUT/s20, every log is packed into
# OUT/s20/logs.tar.gz. Run on the GPU machine from the repository root, carrying .gpu-carry:
#   STEPS="order sweep peer" DEADLINE=540 bash scripts/device_session20.sh $OUT
set -uo pipefail
cd "$(dirname "$0")/.."
O=${1:?usage: device_session20.sh OUT_DIR}/s20
# The settings, checked before anything is built (a bad one is refused, exit 2, nothing written)
bad() { echo "device_session20.sh: $*" >&2; exit 2; }
for step in ${STEPS:-order sweep}; do
  case $step in order|sweep|peer|tests|trim|gate|table|ablate|memcheck|gorder|ab|ncu|ncupeer|pdl|segments|residue) ;;
    *) bad "unknown step '$step' in STEPS (order sweep peer tests trim gate table ablate memcheck gorder ab ncu ncupeer pdl segments residue)" ;; esac
done
[[ ${PEER_NCU_SETTING:-q16-int} =~ ^q(16|32)-(int|cyc)$ ]] ||
  bad "PEER_NCU_SETTING must be q16-int, q16-cyc, q32-int or q32-cyc (got '${PEER_NCU_SETTING}')"
case ${PEER_NCU_SHAPE:-DeepSeek-V3 expert} in  # table1's shapes (peer_protocols.py SHAPES)
  "Qwen3-1.7B"|"Qwen3-4B"|"Qwen3-8B"|"Qwen3-30B-A3B expert"|"DeepSeek-V3 expert") ;;
  *) bad "PEER_NCU_SHAPE must be one of table1's: Qwen3-1.7B, Qwen3-4B, Qwen3-8B, Qwen3-30B-A3B expert, DeepSeek-V3 expert (got '${PEER_NCU_SHAPE}')" ;;
esac
for t in ${SAN_TOOLS:-memcheck}; do
  case $t in memcheck|racecheck|synccheck|initcheck) ;;
    *) bad "unknown tool '$t' in SAN_TOOLS (memcheck racecheck synccheck initcheck)" ;; esac
done
# SAN_EXCLUDE: compute-sanitizer's --kernel-name-exclude filter, key=value entries joined by commas
[ -z "${SAN_EXCLUDE:-}" ] || [[ $SAN_EXCLUDE =~ ^(kns|kernel_substring|kne|kernel_name|regex)=[^,[:space:]]+(,(kns|kernel_substring|kne|kernel_name|regex)=[^,[:space:]]+)*$ ]] ||
  bad "SAN_EXCLUDE: '$SAN_EXCLUDE' is not a --kernel-name-exclude filter (kns=, kernel_substring=, kne=, kernel_name= or regex= entries, comma-separated)"
for f in ${AB_SUITES:-ffn abl}; do
  case $f in ffn|abl|fwd|wid|dec) ;; *) bad "unknown suite '$f' in AB_SUITES (ffn abl fwd wid dec)" ;; esac
done
[[ ${AB_ROUNDS:-2} =~ ^[1-9][0-9]*$ ]] || bad "AB_ROUNDS must be a positive integer (got '${AB_ROUNDS}')"
case ${AB_REF_SELF:-0} in 0|1) ;; *) bad "AB_REF_SELF must be 0 or 1 (got '${AB_REF_SELF}')" ;; esac
for side in ${AB_HEAD_ENVS:-head:}; do
  [[ $side =~ ^[A-Za-z0-9_]+:([A-Z_0-9]+=[^,]*(,[A-Z_0-9]+=[^,]*)*)?$ ]] && [ "${side%%:*}" != ref ] ||
    bad "AB_HEAD_ENVS: '$side' is not name:VAR=value[,VAR=value…] (name not ref)"
done
for run in ${NCU_RUNS:-}; do
  IFS=: read -r tag shape variant mode extra <<<"$run"
  [ -n "$tag" ] && [ -n "$shape" ] && [ -n "$variant" ] && [ -n "$mode" ] && [ -z "$extra" ] ||
    bad "NCU_RUNS: '$run' is not tag:shape:variant:mode"
done
W=/tmp/s20; mkdir -p "$O" "$W"
t00=$SECONDS
left() { echo $(( ${DEADLINE:-540} - (SECONDS - t00) )); }
R=$W; . scripts/device_build.sh
BIN=$B/qalg_gpu_bench
V=${ORDER_VARIANTS:-fused-wsl64x64,fused-wsl64x128,fused-wsl64x192,fused-ws64x128}
for step in ${STEPS:-order sweep}; do
  [ "$(left)" -gt 30 ] || { echo "skip $step: $(left) s left"; continue; }
  case $step in
    order)
      for order in columns types; do
        QALG_ABLATE_MODES=tma-store QALG_WS_ORDER=$order QALG_BENCH_VARIANTS=$V QALG_SQUARE_N=32768 \
          timeout $(( $(left) - 10 )) $BIN --tables .gpu-carry/tables --suite ablate --out "$W/order_$order.csv" \
          >"$W/order_$order.log" 2>&1
        echo "order $order rc $? ($((SECONDS - t00)) s)"
      done
      cat "$W"/order_columns.csv >"$O/order.csv"; tail -n +2 "$W"/order_types.csv | sed 's/^ablate,tma-store,/ablate,tma-store-types,/' >>"$O/order.csv"
      python3 - "$W" <<'EOF'
import csv, sys
rows = {}
for order in ("columns", "types"):
    for r in csv.reader(open(f"{sys.argv[1]}/order_{order}.csv")):
        if r[0] == "ablate": rows.setdefault((r[2], r[7]), {})[order] = float(r[12])
for (shape, v), t in rows.items():
    if len(t) == 2: print(f"order {shape:24s} {v:18s} columns {t['columns']:8.1f}  types {t['types']:8.1f}  types/columns {t['types']/t['columns']:.3f}")
EOF
      ;;
    sweep)
      timeout $(( $(left) - 10 )) $BIN --tables .gpu-carry/tables --suite sweep --out "$W/bench_sweep.csv" >"$W/bench_sweep.log" 2>&1
      echo "sweep rc $? ($((SECONDS - t00)) s): $(grep -c '^sweep' "$W/bench_sweep.csv") rows"
      cp "$W/bench_sweep.csv" "$O/"
      ;;
    peer)
      [ -f .gpu-carry/triton_qproj.py ] || { echo "no peer"; continue; }
      PYTHONUNBUFFERED=1 timeout $(( $(left) - 10 )) python3 .gpu-carry/triton_qproj.py more >"$W/peer_more.jsonl" 2>"$W/peer_more.err"
      echo "peer more rc $? ($((SECONDS - t00)) s)"; cut -c1-220 "$W/peer_more.jsonl"
      cp "$W/peer_more.jsonl" "$O/"
      ;;
    trim)  # a 0|1 switch (SWITCH, default QALG_WS_TRIM: kTrimTail) off / on: the ablate suite (TRIM_MODES)
      # on the M = 2048 projections and the square n = 4096, then the ffn suite
      SW=${SWITCH:-QALG_WS_TRIM}
      for t in 0 1; do
        env $SW=$t QALG_ABLATE_MODES=${TRIM_MODES:-tma-store,loads-only} QALG_BENCH_VARIANTS=$V QALG_SQUARE_N=4096 \
          timeout $(( $(left) - 10 )) $BIN --tables .gpu-carry/tables --suite ablate --out "$W/trim_$t.csv" >"$W/trim_$t.log" 2>&1
        echo "$SW=$t ablate rc $? ($((SECONDS - t00)) s)"
        env $SW=$t timeout $(( $(left) - 10 )) $BIN --tables .gpu-carry/tables --suite ffn --out "$W/ffn_trim_$t.csv" \
          >"$W/ffn_trim_$t.log" 2>&1
        echo "$SW=$t ffn rc $? ($((SECONDS - t00)) s)"; grep -E "^table " "$W/ffn_trim_$t.log" | cut -c1-150
      done
      { cat "$W/trim_0.csv"; tail -n +2 "$W/trim_1.csv" | sed -E 's/^ablate,([a-z-]+),/ablate,\1+on,/'; } >"$O/switch_$SW.csv"
      { cat "$W/ffn_trim_0.csv"; tail -n +2 "$W/ffn_trim_1.csv" | sed -E 's/^([a-z]+),/\1+on,/'; } >"$O/ffn_switch_$SW.csv"
      python3 - "$W" "$SW" <<'EOF2'
import csv, sys
rows = {}
for t in ("0", "1"):
    for r in csv.reader(open(f"{sys.argv[1]}/trim_{t}.csv")):
        if r[0] == "ablate": rows.setdefault((r[2], r[7], r[1]), {})[t] = float(r[12])
for (shape, v, mode), x in rows.items():
    if len(x) == 2: print(f"{sys.argv[2]} {shape:24s} {v:18s} {mode:12s} 0: {x['0']:8.1f}  1: {x['1']:8.1f}  1/0 {x['1']/x['0']:.3f}")
EOF2
      ;;
    pdl)  # twenty-first session: the ffn suite under QALG_FFN_PDL=0, 1, 0, 1; the faster setting (sum of
      # the M = 2048 rows' warm medians over both passes, by more than 1 %) is exported for later steps
      for p in 0 1 0 1; do
        QALG_FFN_PDL=$p timeout $(( $(left) - 10 )) $BIN --tables .gpu-carry/tables --suite ffn --out "$W/ffn_pdl_$p.csv" \
          >>"$W/ffn_pdl_$p.log" 2>&1
        tail -n +2 "$W/ffn_pdl_$p.csv" | sed -E "s/^([a-z]+),/\1-pdl$p,/" >>"$W/ffn_pdl_all.csv"
        echo "QALG_FFN_PDL=$p rc $? ($((SECONDS - t00)) s)"; grep -E "^table " "$W/ffn_pdl_$p.log" | tail -5 | cut -c1-150
      done
      { head -1 "$W/ffn_pdl_0.csv"; cat "$W/ffn_pdl_all.csv"; } >"$O/ffn_pdl.csv"
      win=$(python3 - "$O/ffn_pdl.csv" <<'EOF3'
import csv, sys
t = {"0": 0.0, "1": 0.0}
for r in csv.DictReader(open(sys.argv[1])):
    if r["M"] == "2048" and "-pdl" in r["suite"]: t[r["suite"][-1]] += float(r["alg_warm_us"])
print("1" if t["1"] < 0.99 * t["0"] else "0", f"(sums: off {t['0']:.1f} on {t['1']:.1f} us)")
EOF3
)
      export QALG_FFN_PDL=${win%% *}; echo "pdl: later steps run QALG_FFN_PDL=$QALG_FFN_PDL $win"
      ;;
    gate)  # the ffn suite under each GATES engine (QALG_FFN_GATE)
      for e in ${GATES:-ws64x64 wsl64x64}; do
        QALG_FFN_GATE=$e timeout $(( $(left) - 10 )) $BIN --tables .gpu-carry/tables --suite ffn --out "$W/ffn_gate_$e.csv" \
          >"$W/ffn_gate_$e.log" 2>&1
        echo "gate $e rc $? ($((SECONDS - t00)) s)"; grep -E "^table |parts" "$W/ffn_gate_$e.log" | cut -c1-150
      done
      for e in ${GATES:-ws64x64 wsl64x64}; do tail -n +2 "$W/ffn_gate_$e.csv" | sed -E "s/^([a-z]+),/\1-$e,/"; done >"$O/ffn_gates.csv"
      ;;
    gorder)  # (twenty-second session) the ffn suite under each GATES engine and gate/up item order
      # (QALG_FFN_GATE x QALG_FFN_GATE_ORDER); gate/up = the FFN minus its down projection (parts lines)
      for e in ${GATES:-ws64x64 wsl64x64 ws64x128}; do
        for o in columns types; do
          QALG_FFN_GATE=$e QALG_FFN_GATE_ORDER=$o timeout $(( $(left) - 10 )) $BIN --tables .gpu-carry/tables --suite ffn \
            --out "$W/ffn_go_$e-$o.csv" >"$W/ffn_go_$e-$o.log" 2>&1
          echo "gate $e order $o rc $? ($((SECONDS - t00)) s)"; grep -E "^  parts" "$W/ffn_go_$e-$o.log" | cut -c3-120
          tail -n +2 "$W/ffn_go_$e-$o.csv" | sed -E "s/^([a-z]+),/\1-$e-$o,/" >>"$W/ffn_go_all.csv"
        done
      done
      { head -1 "$W/ffn_go_$e-$o.csv"; cat "$W/ffn_go_all.csv"; } >"$O/ffn_gate_order.csv"
      ;;
    ab)  # (twenty-second session) HEAD against the reference tree in .gpu-carry/ref (AB_REF of
      # prepare_device_carry.sh), built here into build-ref: the ffn suite and ablate tma-store
      # (variants V, the M = 2048 projections and the square n = 4096), ref then HEAD, twice
      # AB_REF_SELF=1 (twenty-sixth session): the reference side is HEAD's own build with no setting
      # changed (no .gpu-carry/ref, no second build): for A/B of runtime switches only
      refbin=build-ref/qalg_gpu_bench
      if [ "${AB_REF_SELF:-0}" = 1 ]; then
        refbin=$BIN; echo "ab: reference = HEAD's build, default settings"
      else
        [ -d .gpu-carry/ref/gpu ] || { echo "ab: no .gpu-carry/ref"; continue; }
        cmake -S .gpu-carry/ref/gpu -B build-ref -G Ninja -DCMAKE_BUILD_TYPE=Release >"$W/ab_cmake.log" 2>&1 &&
          cmake --build build-ref -j"$(nproc)" --target qalg_gpu_bench >"$W/ab_build.log" 2>&1 ||
          { echo "ab: reference build failed"; grep -E "error|Error" -A3 "$W/ab_build.log" | head -20; continue; }
        echo "ab: reference built ($((SECONDS - t00)) s)"
      fi
      # AB_HEAD_ENVS (twenty-third session): HEAD once per name:VAR=value (comma-separated VARs), e.g.
      # "pdl0:QALG_FFN_PDL=0 pdl1:QALG_FFN_PDL=1"; default one side, head
      for round in $(seq 1 "${AB_ROUNDS:-2}"); do  # AB_ROUNDS (twenty-third session), default 2
        for side in ref ${AB_HEAD_ENVS:-head:}; do
          name=${side%%:*}; envs=${side#*:}; [ "$side" = ref ] && envs=
          bin=$BIN; [ $name = ref ] && bin=$refbin
          # AB_SUITES (twenty-third session): any of ffn abl fwd (the forward suite: projections and
          # squares as in the table, warm and flushed) wid (twenty-seventh: the wide suite, Qwen3-32B
          # at M = 8192 and 32768 alone) dec (twenty-seventh: the decode suite, M = 1); default "ffn abl"
          for f in ${AB_SUITES:-ffn abl}; do
            case $f in
              ffn) env ${envs//,/ } timeout $(( $(left) - 10 )) $bin --tables .gpu-carry/tables --suite ffn \
                     --out "$W/ab_ffn_$name$round.csv" >"$W/ab_ffn_$name$round.log" 2>&1 ;;
              abl) env ${envs//,/ } QALG_ABLATE_MODES=tma-store QALG_BENCH_VARIANTS=$V QALG_SQUARE_N=4096 \
                     timeout $(( $(left) - 10 )) $bin --tables .gpu-carry/tables --suite ablate \
                     --out "$W/ab_abl_$name$round.csv" >"$W/ab_abl_$name$round.log" 2>&1 ;;
              fwd) env ${envs//,/ } timeout $(( $(left) - 10 )) $bin --tables .gpu-carry/tables --suite forward \
                     --out "$W/ab_fwd_$name$round.csv" >"$W/ab_fwd_$name$round.log" 2>&1 ;;
              wid) env ${envs//,/ } timeout $(( $(left) - 10 )) $bin --tables .gpu-carry/tables --suite wide \
                     --out "$W/ab_wid_$name$round.csv" >"$W/ab_wid_$name$round.log" 2>&1 ;;  # Qwen3-32B M = 8192, 32768
              dec) env ${envs//,/ } timeout $(( $(left) - 10 )) $bin --tables .gpu-carry/tables --suite decode \
                     --out "$W/ab_dec_$name$round.csv" >"$W/ab_dec_$name$round.log" 2>&1 ;;  # the M = 1 rows
            esac
            tail -n +2 "$W/ab_${f}_$name$round.csv" | sed -E "s/^([a-z]+),/\1@$name$round,/" >>"$W/ab_all.csv"
          done
          echo "ab $name round $round ($((SECONDS - t00)) s)"
        done
      done
      { head -1 "$(ls "$W"/ab_*_ref1.csv | head -1)"; cat "$W/ab_all.csv"; } >"$O/ab.csv"
      python3 scripts/ab_summary.py "$O/ab.csv" "$W/ab_best" || { echo "ab: no summary"; continue; }
      # later steps run with the fastest HEAD side's settings (geometric mean over the rows)
      win=$(cat "$W/ab_best"); for side in ${AB_HEAD_ENVS:-head:}; do
        [ "${side%%:*}" = "$win" ] && for e in $(echo "${side#*:}" | tr , ' '); do export "$e"; done
      done; echo "ab: later steps with $win's settings"
      ;;
    ncu)  # (twenty-second session) Nsight Compute, full set with SASS-level stall samples, on one ablate
      # kernel: NCU_SHAPE (default Qwen3-32B), NCU_VARIANT (fused-wsl64x128), NCU_MODE (tma-store);
      # or (twenty-third session) several: NCU_RUNS="tag:shape:variant:mode …", outputs prefixed by tag
      for run in ${NCU_RUNS:-ncu:${NCU_SHAPE:-Qwen3-32B}:${NCU_VARIANT:-fused-wsl64x128}:${NCU_MODE:-tma-store}}; do
        IFS=: read -r tag shape variant mode <<<"$run"
        [ "$(left)" -gt 60 ] || { echo "skip ncu $tag: $(left) s left"; continue; }
        # NCU_SUITE / NCU_KERNEL (twenty-seventh session): another suite and kernel-name regex, e.g.
        # NCU_SUITE=wide NCU_KERNEL=narrow_law (the first wide row, Qwen3-32B at M = 8192)
        QALG_ABLATE_SHAPES=$shape QALG_BENCH_VARIANTS=$variant QALG_ABLATE_MODES=$mode \
          timeout $(( $(left) - 30 )) ncu --set full --import-source yes \
          --kernel-name regex:${NCU_KERNEL:-wgs_forward} --launch-skip 4 --launch-count 1 -f -o "$W/$tag" \
          $BIN --tables .gpu-carry/tables --suite ${NCU_SUITE:-ablate} --out "$W/${tag}_ablate.csv" >"$W/${tag}_run.log" 2>&1
        echo "ncu $tag ($shape $variant $mode) rc $? ($((SECONDS - t00)) s)"; tail -3 "$W/${tag}_run.log"
        ncu -i "$W/$tag.ncu-rep" --page details >"$W/${tag}_details.txt" 2>&1
        ncu -i "$W/$tag.ncu-rep" --page source --csv --print-source sass >"$W/${tag}_source.csv" 2>"$W/${tag}_source.err"
        grep -E "Duration|Throughput|Warp Cycles Per Issued|Issue Slot|Eligible|Active Warps|Stall|Registers|Occupancy" \
          "$W/${tag}_details.txt" | head -40
        python3 scripts/ncu_top_stalls.py "$W/${tag}_source.csv" | tee "$W/${tag}_top.txt" | head -60
        cp "$W/${tag}_top.txt" "$W/${tag}_details.txt" "$O/" 2>/dev/null
        # (thirty-third session) the PM-sampling timeline (raw page) instead of the SASS source page,
        # which top.txt summarises: at most 8 files come back, 4 per run with the logs would not fit
        ncu -i "$W/$tag.ncu-rep" --page raw --csv --print-metric-instances values 2>/dev/null | gzip >"$O/${tag}_raw.csv.gz"
        python3 scripts/ncu_pm_timeline.py "$O/${tag}_raw.csv.gz" | tee "$W/${tag}_timeline.txt"
      done
      ;;
    ncupeer)
      ps=${PEER_NCU_SHAPE:-DeepSeek-V3 expert}; pset=${PEER_NCU_SETTING:-q16-int}
      [ -f .gpu-carry/triton_qproj.py ] || { echo "ncupeer: no .gpu-carry/triton_qproj.py"; continue; }
      PYTHONUNBUFFERED=1 timeout $(( $(left) - 30 )) ncu --set full --nvtx --nvtx-include "peer_profile/" \
        --kernel-name regex:qproj_kernel --launch-count 1 -f -o "$W/peer" \
        python3 scripts/peer_protocols.py .gpu-carry/triton_qproj.py --profile "$pset" "$ps" >"$W/peer_run.log" 2>&1
      echo "ncupeer ($ps $pset) rc $? ($((SECONDS - t00)) s)"; tail -3 "$W/peer_run.log"
      ncu -i "$W/peer.ncu-rep" --page details >"$W/peer_details.txt" 2>&1
      grep -E "Duration|Throughput|Registers|Occupancy|Grid Size|Block Size" "$W/peer_details.txt" | head -20
      cp "$W/peer_details.txt" "$O/"
      ncu -i "$W/peer.ncu-rep" --page raw --csv --print-metric-instances values 2>/dev/null | gzip >"$O/peer_raw.csv.gz"
      python3 scripts/ncu_pm_timeline.py "$O/peer_raw.csv.gz" | tee "$W/peer_timeline.txt"
      ;;
    tests)
      echo "table,kernel,dtype,inputs,M,K,N,rel_l2,max_abs,unwritten,mismatches,result" >"$W/conformance.csv"
      # line-buffered and not brief: a run that timeout kills still leaves each finished test's line
      # and time (the forty-third session's call 1 was killed at 240 s with an empty log)
      QALG_GPU_RESULTS="$W/conformance.csv" timeout ${T_TESTS:-200} stdbuf -oL -eL "$B/test_gpu_cuda" \
        --gtest_filter="${T_FILTER:-*}" >"$W/conformance.log" 2>&1
      echo "tests rc $? ($((SECONDS - t00)) s): $(grep -E "PASSED|FAILED" "$W/conformance.log" | tail -3 | tr '\n' ' ')"
      echo "tests finished: $(grep -c '^\[       OK' "$W/conformance.log"); last started: $(grep '^\[ RUN' "$W/conformance.log" | tail -1)"
      grep -E '^\[ +(OK|FAILED) +\]' "$W/conformance.log" | sort -t'(' -k2 -n -r | head -8
      cp "$W/conformance.log" "$O/"
      echo "conformance rows: $(($(wc -l <"$W/conformance.csv") - 1)), failures: $(grep -c FAIL "$W/conformance.csv")"
      cp "$W/conformance.csv" "$O/"
      ;;
    table)
      PEER=0 timeout $(( $(left) - 10 )) bash scripts/gpu_bench.sh "$W/bench" table >"$W/bench.log" 2>&1
      echo "table ($((SECONDS - t00)) s):"; grep -E "^table " "$W/bench.log" | cut -c1-140
      cp "$W/bench/bench_table.csv" "$O/" 2>/dev/null
      if [ "$(left)" -gt 60 ] && [ -f .gpu-carry/triton_qproj.py ]; then
        # (thirty-fourth session) table1's shapes and settings in each of qalg's protocols (alone, as the
        # peer's own pass; alternating with dense, warm and flushed): scripts/peer_protocols.py
        PYTHONUNBUFFERED=1 timeout $(( $(left) - 20 )) python3 scripts/peer_protocols.py .gpu-carry/triton_qproj.py \
          >"$W/peer.jsonl" 2>"$W/peer_table1.err"
        echo "peer protocols rc $? ($((SECONDS - t00)) s):"; cut -c1-200 "$W/peer.jsonl"; tail -3 "$W/peer_table1.err"
        cp "$W/peer.jsonl" "$O/"
      fi
      if [ "$(left)" -gt 40 ] && [ -f .gpu-carry/triton_qproj.py ]; then
        # (thirty-seventh session) the squares in the same protocols (peer_protocols.py --squares)
        PYTHONUNBUFFERED=1 timeout $(( $(left) - 15 )) python3 scripts/peer_protocols.py .gpu-carry/triton_qproj.py \
          --squares >"$W/peer_squares.jsonl" 2>"$W/peer_squares.err"
        echo "peer squares rc $? ($((SECONDS - t00)) s):"; cut -c1-200 "$W/peer_squares.jsonl"; tail -3 "$W/peer_squares.err"
        cp "$W/peer_squares.jsonl" "$O/"
      fi
      # (twenty-seventh session) the targets against the paper and the peer (peer_more of an earlier step too)
      [ -f "$O/bench_table.csv" ] && python3 scripts/issue7_targets.py "$O/bench_table.csv" $(ls "$O"/peer*.jsonl 2>/dev/null) \
        >"$W/targets.md" 2>&1; grep -E "\*\*no\*\*|^met|^card|issue7_targets" "$W/targets.md"
      ;;
    ablate)
      QALG_ABLATE_MODES=${ABLATE_MODES:-tma-store,loads-only} QALG_BENCH_VARIANTS=$V QALG_SQUARE_N=${ABLATE_SQUARE_N:-32768} \
        timeout $(( $(left) - 10 )) $BIN --tables .gpu-carry/tables --suite ablate --out "$W/ablate.csv" >"$W/ablate.log" 2>&1
      echo "ablate rc $? ($((SECONDS - t00)) s)"; grep -E "^ablate" "$W/ablate.log" | cut -c1-150
      cp "$W/ablate.csv" "$O/"
      ;;
    residue)  # (thirty-fourth session) which operand's L2 residue the projection and the peer gain from
      QALG_ABLATE_SHAPES=${RESIDUE_SHAPES:-DeepSeek-V3,Qwen3-8B} timeout $(( $(left) - 60 )) $BIN --tables .gpu-carry/tables \
        --suite residue --out "$W/residue.csv" >"$W/residue.log" 2>&1
      echo "residue rc $? ($((SECONDS - t00)) s)"; grep -E "^residue" "$W/residue.log" | cut -c1-150
      cp "$W/residue.csv" "$O/"
      if [ -f .gpu-carry/triton_qproj.py ]; then
        PYTHONUNBUFFERED=1 timeout $(( $(left) - 10 )) python3 scripts/peer_protocols.py .gpu-carry/triton_qproj.py --residue \
          "${PEER_RESIDUE_SHAPES:-DeepSeek-V3 expert}" >"$W/peer_residue.jsonl" 2>"$W/peer_residue.err"
        echo "peer residue rc $? ($((SECONDS - t00)) s)"; cut -c1-220 "$W/peer_residue.jsonl"; cp "$W/peer_residue.jsonl" "$O/"
      fi
      ;;
    segments)  # (twenty-seventh session) the narrow kernel's memory pattern alone: 64-row tiles of 208 … 1024
      # bytes per row at a 51 200-byte pitch copied, against a contiguous copy (bench suite segments)
      timeout $(( $(left) - 10 )) $BIN --tables .gpu-carry/tables --suite segments --out "$W/segments.csv" >"$W/segments.log" 2>&1
      echo "segments rc $? ($((SECONDS - t00)) s)"; grep -E "^segments" "$W/segments.log" | cut -c1-150
      cp "$W/segments.csv" "$O/"
      ;;
    memcheck)  # SAN_TOOLS (default memcheck) on MEMCHECK_FILTER
      # Line-buffered, and each finished conformance case appended to sanitizer_<tool>_cases.txt (the
      # harness's QALG_GPU_RESULTS; .txt so that logs.tar.gz keeps it): a run the deadline cuts still
      # shows how far it got (the fifty-seventh session's racecheck of WsLawFirst.* left only its
      # "[ RUN ]" line after 180 s).
      for tool in ${SAN_TOOLS:-memcheck}; do
        : >"$W/sanitizer_${tool}_cases.txt"
        QALG_GPU_RESULTS="$W/sanitizer_${tool}_cases.txt" timeout $(( $(left) - 5 )) stdbuf -oL -eL \
          compute-sanitizer --tool "$tool" --error-exitcode 3 \
          ${SAN_EXCLUDE:+--kernel-name-exclude "$SAN_EXCLUDE"} "$B/test_gpu_cuda" \
          --gtest_filter="${MEMCHECK_FILTER:-SanitizerSmall.*:Fixture.*}" >"$W/sanitizer_$tool.log" 2>&1
        echo "$tool rc $?: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$W/sanitizer_$tool.log" | tail -1)" \
          "($(wc -l <"$W/sanitizer_${tool}_cases.txt") conformance cases finished)"
      done
      ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
done
tar czf "$O/logs.tar.gz" -C "$W" --exclude='*.csv' --exclude='*.jsonl' . 2>/dev/null
ls "$O"; echo "total $((SECONDS - t00)) s"

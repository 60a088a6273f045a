#!/usr/bin/env bash
# Issue 3 speed benchmark: radical + t(A) of the general tables Q_2^{⊗L} (dim 4^L = 64, 256, 1024)
# over Q, GF(2), GF(101): qalg (bench_general, Google Benchmark, CPU and wall medians) against GAP
# 4.12 (RadicalOfAlgebra + CentralIdempotentsOfAlgebra of A/rad) and PARI/GP (algradical +
# algsimpledec) on the same exported tables in the same run. GAP and PARI times are their own CPU
# clocks (Runtime(), gettime()) around the computation, after reading the table.
# Usage: bench/general_vs_gap_pari.sh [BUILD_DIR] > results/general_bench.md
# PEER_TIMEOUT (s, default 60) stops a peer; PARI is skipped at dim 1024 (its input would be 1024
# dense 1024×1024 matrices), GAP at dim 1024 when it did not finish dim 256 for that field.
set -euo pipefail
BUILD=${1:-build}
TIMEOUT=${PEER_TIMEOUT:-60}
QALG=$BUILD/qalg
BENCH=$BUILD/bench/bench_general
[ -x "$QALG" ] && [ -x "$BENCH" ] || { echo "build qalg and bench_general first" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$BENCH" --benchmark_filter='q2_power_radical_t' --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_format=json > "$WORK/qalg.json" 2>/dev/null
qalg_ms() {  # p L -> "cpu_ms wall_ms" (medians)
  python3 - "$WORK/qalg.json" "$1" "$2" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
name = f"q2_power_radical_t/p:{sys.argv[2]}/L:{sys.argv[3]}_median"
for b in data["benchmarks"]:
    if b["name"] == name:
        print(f'{b["cpu_time"]:.1f} {b["real_time"]:.1f}')
PY
}

gap_ms() {  # file.g -> "ms rad t" or "timeout"
  cat "$1" - > "$WORK/run.g" <<'G'
t0 := Runtime(); R := RadicalOfAlgebra(A);
if Dimension(R) = 0 then B := A; else B := ImagesSource(NaturalHomomorphismByIdeal(A, R)); fi;
t := Length(CentralIdempotentsOfAlgebra(B));
Print("PEER ", Runtime() - t0, " ", Dimension(R), " ", t, "\n"); QUIT;
G
  (ulimit -v 8000000; timeout "$TIMEOUT" gap -q -b -o 6g "$WORK/run.g" 2>&1 || true) | awk '/^PEER/ {print $2, $3, $4; f=1} END {if (!f) print "timeout"}'
}

pari_ms() {  # file.gp -> "ms rad t" or "timeout"
  { cat "$1"; echo 'gettime(); r = algradical(A); d = algsimpledec(A); print("PEER ", gettime(), " ", if(r == 0, 0, matsize(r)[2]), " ", #d[2]); quit;'; } > "$WORK/run.gp"
  (ulimit -v 8000000; timeout "$TIMEOUT" gp -q -s 2G "$WORK/run.gp" 2>&1 || true) | awk '/^PEER/ {print $2, $3, $4; f=1} END {if (!f) print "timeout"}'
}

echo "# Radical + t(A) of general tables: qalg vs GAP vs PARI/GP ($(date -u +%Y-%m-%d), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
echo
echo "Command: \`bench/general_vs_gap_pari.sh $BUILD\` (PEER_TIMEOUT=$TIMEOUT s). Tables: Q_2^{⊗L}, the"
echo "L-th tensor power of the 2-cycle's graph algebra (not a graph algebra itself; general route)."
echo "qalg: medians of 3 (CPU ms / wall ms); GAP, PARI: their own CPU ms for the same computation."
echo
echo "| field | dim | dim rad | t | qalg CPU ms | qalg wall ms | GAP ms | PARI ms | GAP / qalg | PARI / qalg |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for p in 0 2 101; do
  field=$([ "$p" = 0 ] && echo Q || echo "GF($p)")
  gap_alive=1
  for L in 3 4 5; do
    dim=$((4 ** L))
    read -r qcpu qwall < <(qalg_ms "$p" "$L")
    args=(complete:2 --power "$L" --field "$field")
    gap="not run"; pari="not run"
    if [ "$gap_alive" = 1 ]; then
      "$QALG" export "${args[@]}" --gap "$WORK/t.g" >/dev/null
      gap=$(gap_ms "$WORK/t.g")
      [ "$gap" = timeout ] && gap_alive=0
    fi
    if [ "$L" -lt 5 ]; then
      "$QALG" export "${args[@]}" --pari "$WORK/t.gp" >/dev/null
      pari=$(pari_ms "$WORK/t.gp")
    fi
    rad=$(( dim - 2 ** L )); t=$(( 2 ** L ))
    cell() { case "$1" in timeout) echo "> ${TIMEOUT} s";; "not run") echo "—";; *) set -- $1; [ "$2" = "$rad" ] && [ "$3" = "$t" ] && echo "$1" || echo "$1 (rad $2, t $3: DISAGREES)";; esac; }
    ratio() { case "$1" in timeout) echo "> $(awk -v a="$TIMEOUT" -v b="$qcpu" 'BEGIN{printf "%.0f", a*1000/b}')";; "not run") echo "—";; *) set -- $1; awk -v a="$1" -v b="$qcpu" 'BEGIN{printf "%.0f", a/b}';; esac; }
    echo "| $field | $dim | $rad | $t | $qcpu | $qwall | $(cell "$gap") | $(cell "$pari") | $(ratio "$gap") | $(ratio "$pari") |"
  done
done

#!/usr/bin/env bash
# Coq checks run by ctest (proofs/CMakeLists.txt). Exit 77 (skipped) only when coqc is missing.
#   theories SRC WORK              copy and compile every theory; no Admitted, one Axiom
#   assumptions WORK FILE EXPECT   compile FILE; its Print Assumptions must show only
#                                  alder_strassen (EXPECT=alder_strassen) or nothing (closed)
#   instance WORK QALG NAME ARGS   qalg coq ARGS --out WORK/NAME.v, then coqc accepts it
#   random WORK QALG SEED          the same for a random quiver with loops and parallel arrows
#   corrupted WORK QALG            tampered copies of a good certificate are rejected by coqc
set -euo pipefail
command -v coqc >/dev/null 2>&1 || { echo "coqc not found: skipping the Coq checks"; exit 77; }
THEORIES="Ring Sums Tensor GraphAlgebra AlderStrassen GraphRank Certify"
mode=$1; shift
fail() { echo "FAIL: $*" >&2; exit 1; }
# Runs a command and reports its wall time (the CI image need not have /usr/bin/time).
timed() {
  local label=$1 t0 t1; shift
  t0=$(date +%s%N); "$@" || return $?; t1=$(date +%s%N)
  echo "$label: $(( (t1 - t0) / 1000000 )) ms"
}

# The axioms named in the Print Assumptions output on stdin, one per line, sorted.
axioms_of() {
  awk '/^Axioms:/ {block=1; next} /^Closed under the global context/ {block=0; next}
       block && /^[^ ]/ {print $1}' | sort -u
}

# Compile WORK/NAME.v; its Print Assumptions (if any) may name alder_strassen only.
check_file() {
  local work=$1 name=$2 log t0
  t0=$(date +%s%N)
  log=$(cd "$work" && coqc -Q theories Qalg "$name.v" 2>&1) || { echo "$log"; fail "coqc rejected $name.v"; }
  echo "coqc $name.v: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  echo "$log" | grep -v '^ ' | grep -v '^$' || true
  local extra
  extra=$(echo "$log" | axioms_of | grep -vx 'AlderStrassen.alder_strassen' || true)
  [ -z "$extra" ] || fail "$name.v depends on unexpected axioms: $extra"
}

case $mode in
theories)
  src=$1 work=$2
  rm -rf "$work/theories" && mkdir -p "$work/theories"
  cp "$src"/*.v "$work/theories/"
  if grep -nwE 'Admitted|admit|Abort' "$src"/*.v; then fail "unfinished proofs in the theories"; fi
  axioms=$(grep -lwE '^(Axiom|Axioms|Parameter|Parameters|Conjecture)' "$src"/*.v || true)
  [ "$axioms" = "$src/AlderStrassen.v" ] || fail "axioms outside AlderStrassen.v: $axioms"
  for t in $THEORIES; do
    (cd "$work/theories" && timed "coqc $t.v" coqc -Q . Qalg "$t.v") || fail "coqc $t.v"
  done
  [ "$(ls "$work/theories"/*.v | wc -l)" -eq "$(echo $THEORIES | wc -w)" ] \
    || fail "a theory in $src is not in the compile list"
  ;;
assumptions)
  work=$1 file=$2 expect=$3
  out=$(cd "$work" && coqc -Q theories Qalg "$file" 2>&1) || { echo "$out"; fail "coqc $file"; }
  echo "$out"
  got=$(echo "$out" | axioms_of | tr '\n' ' ')
  printed=$(grep -c '^Print Assumptions' "$file")
  closed=$(echo "$out" | grep -c '^Closed under the global context' || true)
  blocks=$(echo "$out" | grep -c '^Axioms:' || true)
  if [ "$expect" = closed ]; then
    [ "$closed" -eq "$printed" ] && [ -z "$got" ] || fail "expected no assumptions, got: $got"
  else
    [ "$got" = "AlderStrassen.alder_strassen " ] && [ "$blocks" -eq "$printed" ] \
      || fail "expected exactly alder_strassen in each of $printed theorems, got: $got ($blocks blocks)"
  fi
  ;;
instance)
  work=$1 qalg=$2 name=$3; shift 3
  "$qalg" coq "$@" --out "$work/$name.v"
  check_file "$work" "$name"
  ;;
random)
  work=$1 qalg=$2 seed=$3
  # 5 vertices, 12 arrows drawn uniformly from all ordered pairs: loops and parallel arrows
  # included; at least one loop forced.
  awk -v seed="$seed" 'BEGIN { srand(seed); print "v0 v0";
    for (a = 0; a < 11; a++) printf "v%d v%d\n", int(rand() * 5), int(rand() * 5) }' \
    > "$work/random_loops.txt"
  cat "$work/random_loops.txt" | tr '\n' ' '; echo
  "$qalg" coq "$work/random_loops.txt" --out "$work/RandomLoops.v"
  grep -q '^Theorem rank' "$work/RandomLoops.v" || fail "no rank lemma for the random quiver"
  check_file "$work" RandomLoops
  ;;
corrupted)
  work=$1 qalg=$2
  "$qalg" coq complete:2 --out "$work/Good.v"
  check_file "$work" Good
  # (a) e_1 a = b instead of a, (b) a e_2 = 2a: the table is no longer associative;
  # (c) the first multiplication writes to e_2 instead of e_1: the algorithm is wrong;
  # (d) the quiver claims the arrow 2 -> 2 instead of 2 -> 1: the rank lemma's bridge fails.
  sed 's/(0, 2, 2, 1%Z)/(0, 2, 3, 1%Z)/' "$work/Good.v" > "$work/TamperedA.v"
  sed 's/(2, 1, 2, 1%Z)/(2, 1, 2, 2%Z)/' "$work/Good.v" > "$work/TamperedB.v"
  sed '0,/(\[(0, 1%Z)\], \[(0, 1%Z)\], \[(0, 1%Z)\])/s//([(0, 1%Z)], [(0, 1%Z)], [(1, 1%Z)])/' \
    "$work/Good.v" > "$work/TamperedC.v"
  sed 's/^  (0, 1); (1, 0)\]\./  (0, 1); (1, 1)]./' "$work/Good.v" > "$work/TamperedD.v"
  for t in TamperedA TamperedB TamperedC TamperedD; do
    ! cmp -s "$work/Good.v" "$work/$t.v" || fail "$t.v: the tampering did not change the file"
    if out=$(cd "$work" && coqc -Q theories Qalg "$t.v" 2>&1); then
      fail "coqc accepted the tampered certificate $t.v"
    fi
    # A checker that computes false: the kernel refuses eq_refl true at Qed.
    echo "$out" | grep -qE 'The term "eq_refl" has type "true = true" while it is expected|Unable to unify "(true|false)" with "(true|false)"' \
      || { echo "$out"; fail "$t.v was rejected, but not by a failing checker"; }
    echo "$t.v rejected: $(echo "$out" | grep -m1 '^File')"
  done
  ;;
*) fail "unknown mode $mode" ;;
esac

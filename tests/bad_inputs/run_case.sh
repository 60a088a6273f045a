#!/usr/bin/env bash
# Runs one bad-input case (issue 12): tests/bad_inputs/<case>.expect names the command and what
# it must answer. Lines of a .expect file:
#   run: qalg inspect {input}     the command; {input} = the case's own input file (same stem,
#                                 other extension), {out} = a path in a fresh folder, {dir} = it
#   exit: 2                       the exit code it must return
#   error: text                   a substring of its error message (one line per required text)
#   # ...                         a comment saying what is wrong with the input
# Also checked: the error is exactly one line on stderr, no sanitizer or crash report appears, and
# nothing is left at {out} (nor a temporary file beside it): nothing written half-way.
#   run_case.sh QALG_BINARY READ_PLAN_BINARY CASE.expect
set -uo pipefail
qalg=$1 read_plan=$2 expect=$3
dir=$(mktemp -d) && trap 'rm -rf "$dir"' EXIT
stem=${expect%.expect}
input=$(ls "$stem".* 2>/dev/null | grep -v '\.expect$' | head -1)
[ -n "$input" ] && input=$(realpath "$input")
cmd=$(sed -n 's/^run: //p' "$expect")
want_exit=$(sed -n 's/^exit: //p' "$expect")
[ -n "$cmd" ] && [ -n "$want_exit" ] || { echo "$expect: needs 'run:' and 'exit:' lines"; exit 1; }
# Words are split on spaces; {input}/{out}/{dir} are substituted after splitting, so file names
# with spaces stay one argument.
read -r -a words <<<"$cmd"
args=()
for w in "${words[@]}"; do
  w=${w//\{input\}/$input}; w=${w//\{out\}/$dir/out}; w=${w//\{dir\}/$dir}
  args+=("$w")
done
case ${args[0]} in
  qalg) args[0]=$qalg ;;
  read_plan) args[0]=$read_plan ;;
  *) echo "$expect: unknown program '${args[0]}'"; exit 1 ;;
esac
(cd "$dir" && timeout 120 "${args[@]}" >"$dir/stdout" 2>"$dir/stderr" </dev/null)
got=$?
fail=0
say() { echo "$expect: $*"; fail=1; }
[ "$got" = "$want_exit" ] || say "exit code $got, expected $want_exit"
lines=$(wc -l <"$dir/stderr")
if [ "$want_exit" = 2 ] && [ "$lines" != 1 ]; then say "error message has $lines lines, expected one"; fi
while IFS= read -r text; do
  grep -qF -- "$text" "$dir/stderr" "$dir/stdout" || say "output lacks '$text'"
done < <(sed -n 's/^error: //p' "$expect")
grep -qE "Sanitizer|runtime error|terminate called|Segmentation|Aborted" "$dir/stderr" && say "crash or sanitizer report"
if [ "$want_exit" = 2 ]; then
  leftovers=$(ls -A "$dir" | grep -vE '^(stdout|stderr)$')
  [ -z "$leftovers" ] || say "files written despite the error: $leftovers"
fi
if [ $fail = 1 ]; then
  echo "command: ${args[*]}"; echo "--- stderr:"; head -c 2000 "$dir/stderr"; echo "--- stdout:"; head -c 1000 "$dir/stdout"
  exit 1
fi
echo "ok: exit $got: $(head -c 300 "$dir/stderr")"

# The GPU benchmark's environment switches refuse bad values with exit code 2 and a message naming
# the variable, before it touches the GPU (so this runs on CI's machine without one).
#   cmake -DBENCH=path/to/qalg_gpu_bench -P bench_env_check.cmake
set(cases
    "QALG_NARROW_TMA_STORE=x|QALG_NARROW_TMA_STORE must be 0, 1, 2 or 3 \\(got 'x'\\)"
    "QALG_NARROW_TMA_STORE=4|QALG_NARROW_TMA_STORE must be 0, 1, 2 or 3 \\(got '4'\\)"
    "QALG_FFN_GATE=wide|QALG_FFN_GATE must be mma, ws64x64, ws64x128 or wsl64x64 \\(got 'wide'\\)"
    "QALG_FFN_GATE=ws64|QALG_FFN_GATE must be mma, ws64x64, ws64x128 or wsl64x64 \\(got 'ws64'\\)"
    "QALG_BENCH_HOLD_US=0|QALG_BENCH_HOLD_US must be a whole number of microseconds in \\[1, 100000\\] \\(got '0'\\)"
    "QALG_BENCH_HOLD_US=2.5|QALG_BENCH_HOLD_US must be a whole number of microseconds in \\[1, 100000\\] \\(got '2.5'\\)"
    "QALG_BENCH_HOLD_US=100001|QALG_BENCH_HOLD_US must be a whole number of microseconds in \\[1, 100000\\] \\(got '100001'\\)"
    "QALG_NARROW_FFN=2|QALG_NARROW_FFN must be 0 or 1 \\(got '2'\\)"
    "QALG_NARROW_FFN_STAGES=4|QALG_NARROW_FFN_STAGES: set_narrow_ffn_stages: 2 or 3, got 4"
    "QALG_PAIR_SCOPE=yes|QALG_PAIR_SCOPE must be 0 or 1 \\(got 'yes'\\)"
    "QALG_WS_TMA_STORE=on|QALG_WS_TMA_STORE must be 0 or 1 \\(got 'on'\\)"
    "QALG_WS_TMA_STORE_TALL=2|QALG_WS_TMA_STORE_TALL must be 0 or 1 \\(got '2'\\)"
    "QALG_WSM_TWO_PER_SM=yes|QALG_WSM_TWO_PER_SM must be 0 or 1 \\(got 'yes'\\)"
    "QALG_WS128_TWO_PER_SM=2|QALG_WS128_TWO_PER_SM must be 0 or 1 \\(got '2'\\)"
    "QALG_WS_TERM_STRIDE=on|QALG_WS_TERM_STRIDE must be 0 or 1 \\(got 'on'\\)"
    "QALG_WS_EXIT_AFTER_READ=2|QALG_WS_EXIT_AFTER_READ must be 0 or 1 \\(got '2'\\)"
    "QALG_WS_DESCENDING=yes|QALG_WS_DESCENDING must be 0 or 1 \\(got 'yes'\\)"
    "QALG_BENCH_DESCENDING=2|QALG_BENCH_DESCENDING must be 0 or 1 \\(got '2'\\)"
    "QALG_CALIBRATE_ALTERNATING=on|QALG_CALIBRATE_ALTERNATING must be 0 or 1 \\(got 'on'\\)"
    "QALG_CALIBRATE_PARTS_ALTERNATING=yes|QALG_CALIBRATE_PARTS_ALTERNATING must be 0 or 1 \\(got 'yes'\\)"
    "QALG_WS_PRIME=on|QALG_WS_PRIME must be 0 or 1 \\(got 'on'\\)"
    "QALG_WS_PRIME_ITEM=2|QALG_WS_PRIME_ITEM must be 0 or 1 \\(got '2'\\)"
    "QALG_WS_LAW_FIRST=yes|QALG_WS_LAW_FIRST must be 0 or 1 \\(got 'yes'\\)"
    "QALG_WS_TRIM=yes|QALG_WS_TRIM must be 0 or 1 \\(got 'yes'\\)"
    "QALG_WS_NARROW_W=on|QALG_WS_NARROW_W must be 0 or 1 \\(got 'on'\\)"
    "QALG_FFN_PDL=2|QALG_FFN_PDL must be 0 or 1 \\(got '2'\\)"
    "QALG_FFN_PACK=on|QALG_FFN_PACK must be 0 or 1 \\(got 'on'\\)"
    "QALG_WS_PACK=3|QALG_WS_PACK must be 0, 1 or 2 \\(got '3'\\)"
    "QALG_WS_PACK=always|QALG_WS_PACK must be 0, 1 or 2 \\(got 'always'\\)"
    "QALG_FFN_GATE_ORDER=rows|QALG_FFN_GATE_ORDER must be columns or types \\(got 'rows'\\)"
    "QALG_ABLATE_SHAPES=Qwen4|QALG_ABLATE_SHAPES: 'Qwen4' starts no ablate shape's name"
    "QALG_ABLATE_SHAPES=square,,Qwen3-32B|QALG_ABLATE_SHAPES: '' starts no ablate shape's name"
    "QALG_WS_ORDER=rows|QALG_WS_ORDER must be columns or types \\(got 'rows'\\)"
    "QALG_SQUARE_N=1000|QALG_SQUARE_N must be a positive multiple of 128 \\(got '1000'\\)"
    "QALG_SQUARE_N=abc|QALG_SQUARE_N must be a positive multiple of 128 \\(got 'abc'\\)"
    "QALG_NARROW_PREFETCH=9|QALG_NARROW_PREFETCH must be 0 to 8 \\(got '9'\\)"
    "QALG_NARROW_ORDER=rows|QALG_NARROW_ORDER must be runs or strided \\(got 'rows'\\)"
    "QALG_DECODE_READY=on|QALG_DECODE_READY must be 0 or 1 \\(got 'on'\\)"
    "QALG_DECODE_FUSED=9|QALG_DECODE_FUSED must be -1, 0 or 1 ... 8 \\(got '9'\\)"
    "QALG_DECODE_FUSED=on|QALG_DECODE_FUSED must be -1, 0 or 1 ... 8 \\(got 'on'\\)"
    "QALG_TABLE_ROWS=ffn:Qwen3-9B|QALG_TABLE_ROWS: 'ffn:Qwen3-9B': selects no row of the table"
    "QALG_TABLE_ROWS=decode:Qwen3-8B|QALG_TABLE_ROWS: 'decode:Qwen3-8B': kind must be projection, ffn, training or square"
    "QALG_TABLE_ROWS=ffn:Qwen3-8B@1x|QALG_TABLE_ROWS: 'ffn:Qwen3-8B@1x': M must be a positive integer"
    "QALG_TABLE_ROWS=ffn:Qwen3-8B@1|QALG_TABLE_ROWS is read by the table and all suites only \\(suite 'ffn'\\)"
    "QALG_WIDE_M=4096|QALG_WIDE_M must be 8192 or 32768 \\(got '4096'\\)"
    "QALG_NARROW_RUN=5000|QALG_NARROW_RUN: set_narrow_run: units per CTA must be 0 \\(automatic\\) or in \\[1, 4096\\], got 5000")
# Runs the bench with `command` (a list: an env prefix, or options after the fixed ones) and
# requires exit code 2 and a stderr matching `expected`.
function(expect_refusal label expected)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "${label}: exit code ${rc}, expected 2 (${out}${err})")
  endif()
  if(NOT "${err}" MATCHES "${expected}")
    message(FATAL_ERROR "${label}: stderr '${err}' does not match '${expected}'")
  endif()
  message(STATUS "${label}: refused (${err})")
endfunction()
# Splits a case "what|expected" into the two. (A function, not a macro: a macro's arguments are
# substituted as text and parsed again, which would drop the regular expressions' backslashes.)
function(split_case c what expected)
  string(FIND "${c}" "|" bar)
  string(SUBSTRING "${c}" 0 ${bar} w)
  math(EXPR from "${bar} + 1")
  string(SUBSTRING "${c}" ${from} -1 e)
  set(${what} "${w}" PARENT_SCOPE)
  set(${expected} "${e}" PARENT_SCOPE)
endfunction()
foreach(c IN LISTS cases)
  split_case("${c}" setting expected)
  expect_refusal("${setting}" "${expected}"
                 ${CMAKE_COMMAND} -E env ${setting} ${BENCH} --tables /nonexistent --suite ffn --out /dev/null)
endforeach()
# The options too (thirty-fourth session): an unknown suite would time nothing and say nothing, and
# a --trials that is not a positive integer threw out of std::stoi.
set(option_cases
    "--suite resdue|unknown suite 'resdue'"
    "--trials x|--trials must be a positive integer \\(got 'x'\\)"
    "--trials 3x|--trials must be a positive integer \\(got '3x'\\)"
    "--trials 0|--trials must be a positive integer \\(got '0'\\)")
foreach(c IN LISTS option_cases)
  split_case("${c}" opt expected)
  separate_arguments(args UNIX_COMMAND "${opt}")  # "--trials x" -> two arguments
  expect_refusal("${opt}" "${expected}" ${BENCH} --tables /nonexistent --out /dev/null ${args})
endforeach()

# Sourced by the device scripts after device_build.sh (needs O, R, B, t0): with T_FILTER set (a gtest
# filter), those CUDA tests, their conformance rows in $O/conformance.csv, the log in $R; T_TESTS: their
# time limit in seconds (default 200).
if [ -n "${T_FILTER:-}" ]; then
  echo "table,kernel,dtype,inputs,M,K,N,rel_l2,max_abs,unwritten,mismatches,result" >"$O/conformance.csv"
  QALG_GPU_RESULTS="$O/conformance.csv" timeout ${T_TESTS:-200} "$B/test_gpu_cuda" --gtest_brief=1 \
    --gtest_filter="$T_FILTER" >"$R/conformance.log" 2>&1
  echo "tests rc $? ($((SECONDS - t0)) s): $(grep -E "PASSED|FAILED" "$R/conformance.log" | tail -3 | tr '\n' ' ')"
  echo "conformance rows: $(($(wc -l <"$O/conformance.csv") - 1)), failures: $(grep -c FAIL "$O/conformance.csv")"
fi

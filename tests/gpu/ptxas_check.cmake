# ctest gpu_ptxas_no_wgmma_serialisation (see ptxas_probe.cu): compile the probe for sm_90a with
# ptxas' info output and fail on C7515 / C7517 / C7518. Arguments: NVCC, SRC, INCLUDE (gpu/cuda), OUT.
execute_process(COMMAND ${NVCC} -O3 -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -std=c++17
                        -I${INCLUDE} -cubin ${SRC} -o ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc failed (${rc}):\n${out}${err}")
endif()
string(REGEX MATCHALL "[^\n]*C751[578][^\n]*" hits "${out}${err}")
if(hits)
  string(REPLACE ";" "\n" hits "${hits}")
  message(FATAL_ERROR "ptxas serialises or waits on wgmma where the code does not:\n${hits}")
endif()
message(STATUS "no C7515 / C7517 / C7518 in ${SRC}")

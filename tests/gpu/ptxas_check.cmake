# ctest gpu_ptxas_no_wgmma_serialisation (see ptxas_probe.cu): compile the probe for sm_90a with
# ptxas' info output and fail on C7511 / C7515 / C7517 / C7518, or on more than 24 bytes of spill
# stores in any kernel. (C7511, "too few registers for the wgmma pipeline", came with an m64n128
# product beside m64n64 products on its halves: the group-pair tile's first form.) Arguments: NVCC, SRC, INCLUDE (gpu/cuda), OUT.
execute_process(COMMAND ${NVCC} -O3 -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -std=c++17
                        -Xptxas -v -I${INCLUDE} -cubin ${SRC} -o ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc failed (${rc}):\n${out}${err}")
endif()
string(REGEX MATCHALL "[^\n]*C751[1578][^\n]*" hits "${out}${err}")
if(hits)
  string(REPLACE ";" "\n" hits "${hits}")
  message(FATAL_ERROR "ptxas serialises or waits on wgmma where the code does not:\n${hits}")
endif()
# "Function properties for NAME" then "... N bytes spill stores" on the next line, per kernel.
set(spill_budget 24)
string(REGEX MATCHALL "Function properties for [^\n]+\n[^\n]*bytes spill stores" blocks "${out}${err}")
list(LENGTH blocks kernels)
if(kernels EQUAL 0)
  message(FATAL_ERROR "no spill figures in ptxas' output (-Xptxas -v):\n${out}${err}")
endif()
set(over "")
foreach(block IN LISTS blocks)
  string(REGEX MATCH "for ([^\n]+)\n[^\n]* ([0-9]+) bytes spill stores" _ "${block}")
  if(CMAKE_MATCH_2 GREATER spill_budget)
    string(APPEND over "  ${CMAKE_MATCH_2} bytes: ${CMAKE_MATCH_1}\n")
  endif()
endforeach()
if(over)
  message(FATAL_ERROR "ptxas spills more than ${spill_budget} bytes in:\n${over}")
endif()
message(STATUS "no C7511 / C7515 / C7517 / C7518 in ${SRC}; ${kernels} kernels within ${spill_budget} bytes of spills")

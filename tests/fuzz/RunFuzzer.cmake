# Runs the parser fuzzer for SECONDS from a fresh corpus seeded with SEED_DIRS.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/corpus ${WORK_DIR}/artifacts)
foreach(dir IN LISTS SEED_DIRS)
  file(GLOB seeds ${dir}/*)
  file(COPY ${seeds} DESTINATION ${WORK_DIR}/corpus)
endforeach()
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048
          -max_len=8192 -dict=${DICTIONARY} -print_final_stats=1
          -artifact_prefix=${WORK_DIR}/artifacts/ ${WORK_DIR}/corpus
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "the parser fuzzer found a failure (exit ${result}); the input is in "
                      "${WORK_DIR}/artifacts/: copy it into tests/fuzz/regressions/")
endif()

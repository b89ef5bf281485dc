# The suite's program count (tests/program_count.c writes one log per test).
#   cmake -DDIR=<log dir> -DMODE=reset -P program_count.cmake   empties DIR before a run
#   cmake -DDIR=<log dir> -DMODE=total -P program_count.cmake   prints each test's builds and the suite's
# A program is its source and options: one that several tests build is compiled once on a cold
# PoCL cache and loaded from the cache after, so the suite's count is of distinct programs.
if(MODE STREQUAL "reset")
  file(REMOVE_RECURSE "${DIR}")
  file(MAKE_DIRECTORY "${DIR}")
  return()
endif()
file(GLOB logs "${DIR}/*.log")
list(SORT logs)
set(all)
set(builds 0)
foreach(log IN LISTS logs)
  get_filename_component(name "${log}" NAME_WE)
  file(STRINGS "${log}" lines)
  list(LENGTH lines n)
  list(APPEND all ${lines})
  list(REMOVE_DUPLICATES lines)
  list(LENGTH lines d)
  math(EXPR builds "${builds} + ${n}")
  message("${name}: ${n} builds, ${d} distinct programs")
endforeach()
list(REMOVE_DUPLICATES all)
list(LENGTH all total)
message("programs built by the suite: ${total} (${builds} builds)")

# tests/bench/rotation.cmake: counters shared in turns, their error against known
# traffic (issue 44), included by tests/bench/CMakeLists.txt. Run by hand:
# build/tests/bench/bench_rotation [SECONDS]   (60 by default: a minute of real time)
add_executable(bench_rotation ${CMAKE_CURRENT_LIST_DIR}/rotation.c)
target_compile_definitions(bench_rotation PRIVATE _GNU_SOURCE)
target_link_libraries(bench_rotation PRIVATE rdtalloc m)

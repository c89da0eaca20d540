# tests/bench/replay.cmake: the cache model's speed (issue 24), included by
# tests/bench/CMakeLists.txt. Links the library's objects to reach the trace
# reader for its baseline. Run by hand: build/tests/bench/bench_replay
add_executable(bench_replay ${CMAKE_CURRENT_LIST_DIR}/replay.c)
target_compile_definitions(bench_replay PRIVATE _GNU_SOURCE)
target_link_libraries(bench_replay PRIVATE rdtalloc_obj)

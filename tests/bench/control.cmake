# tests/bench/control.cmake: the closed-loop controller against its
# baselines (issue 35), included by tests/bench/CMakeLists.txt. Links the
# library's objects for the cache model its own replay (static plans, the
# oracle) runs on. Run by hand: build/tests/bench/bench_control
add_executable(bench_control ${CMAKE_CURRENT_LIST_DIR}/control.c)
target_compile_definitions(bench_control PRIVATE _GNU_SOURCE
	RDT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
target_link_libraries(bench_control PRIVATE rdtalloc_obj)

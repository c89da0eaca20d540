# tests/bench/monitor.cmake: one monitor sample on sim and msr (issue 22),
# included by tests/bench/CMakeLists.txt. Run by hand: build/tests/bench/bench_monitor
add_executable(bench_monitor ${CMAKE_CURRENT_LIST_DIR}/monitor.c)
target_compile_definitions(bench_monitor PRIVATE _GNU_SOURCE RDTCTL_PATH="$<TARGET_FILE:rdtctl>")
add_dependencies(bench_monitor rdtctl)

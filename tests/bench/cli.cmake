# tests/bench/cli.cmake: the rdtctl benchmark (issue 4), included by
# tests/bench/CMakeLists.txt. Built by default, run by hand: build/tests/bench/bench_cli
add_executable(bench_cli ${CMAKE_CURRENT_LIST_DIR}/cli.c)
target_compile_definitions(bench_cli PRIVATE _GNU_SOURCE RDTCTL_PATH="$<TARGET_FILE:rdtctl>")
add_dependencies(bench_cli rdtctl)

# tests/bench/oci.cmake: the OCI hook's cost to runc run (issue 23), included
# by tests/bench/CMakeLists.txt. Run by hand, as root: build/tests/bench/bench_oci
add_executable(bench_oci ${CMAKE_CURRENT_LIST_DIR}/oci.c)
target_compile_definitions(bench_oci PRIVATE _GNU_SOURCE RDTCTL_PATH="$<TARGET_FILE:rdtctl>")
add_dependencies(bench_oci rdtctl)

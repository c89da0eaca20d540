# tests/bench/resctrl.cmake: rdtctl on the resctrl backend against the
# emulator, included by tests/bench/CMakeLists.txt when the emulator is
# built. Run by hand, as root: build/tests/bench/bench_resctrl
add_executable(bench_resctrl ${CMAKE_CURRENT_LIST_DIR}/resctrl.c)
target_compile_definitions(bench_resctrl PRIVATE _GNU_SOURCE
	RDTCTL_PATH="$<TARGET_FILE:rdtctl>"
	RESCTRLFS_PATH="$<TARGET_FILE:rdtalloc-resctrlfs>")
add_dependencies(bench_resctrl rdtctl rdtalloc-resctrlfs)

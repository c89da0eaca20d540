# tests/bench/agent.cmake: the agent's figures (issue 32), included by
# tests/bench/CMakeLists.txt when the agent and the emulator are built.
# Run by hand, as root: build/tests/bench/bench_agent [JOINS [IDLE_SECONDS]]
add_executable(bench_agent ${CMAKE_CURRENT_LIST_DIR}/agent.c)
target_compile_definitions(bench_agent PRIVATE _GNU_SOURCE
	RDTCTL_PATH="$<TARGET_FILE:rdtctl>"
	AGENT_PATH="$<TARGET_FILE:rdtalloc-agent>"
	RESCTRLFS_PATH="$<TARGET_FILE:rdtalloc-resctrlfs>")
add_dependencies(bench_agent rdtctl rdtalloc-agent rdtalloc-resctrlfs)

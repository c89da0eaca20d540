# tests/bench/hook.cmake: the switch hook benchmark (issue 7), included by
# tests/bench/CMakeLists.txt. Built when the hook is (bpf/), run by hand as
# root: build/tests/bench/bench_hook. Against the library's objects, as it
# reads the hook's pins and loads the skeleton's empty program itself.
if(TARGET rdtalloc_bpf_skel)
	add_executable(bench_hook ${CMAKE_CURRENT_LIST_DIR}/hook.c)
	target_compile_definitions(bench_hook PRIVATE _GNU_SOURCE)
	target_include_directories(bench_hook PRIVATE ${PROJECT_BINARY_DIR}/bpf)
	target_link_libraries(bench_hook PRIVATE rdtalloc_obj PkgConfig::LIBBPF)
	add_dependencies(bench_hook rdtalloc_bpf_skel)
endif()

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * quickstart.cpp: the same as quickstart.c from C++, with the context held
 * by a std::unique_ptr and failures turned into exceptions. It shows that
 * the header works as-is from C++ (extern "C", no C-only constructs
 * needed).
 *
 * Build: c++ -std=c++17 quickstart.cpp $(pkg-config --cflags --libs rdtalloc)
 * Usage: quickstart-cpp [MACHINE-DESCRIPTION]
 */
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include <rdtalloc/rdtalloc.h>

namespace {

struct closer {
	void operator()(rdtalloc_t *r) const { rdtalloc_close(r); }
};
using context = std::unique_ptr<rdtalloc_t, closer>;

[[noreturn]] void fail(const rdtalloc_t *r, const std::string &what, int err)
{
	throw std::runtime_error(what + ": " + rdtalloc_strerror(err) + " (" +
				 rdtalloc_errmsg(r) + ")");
}

int check(const rdtalloc_t *r, const std::string &what, int err)
{
	if (err < 0)
		fail(r, what, err);
	return err;
}

context open_sim(const char *machine)
{
	rdtalloc_opts opts{};
	rdtalloc_t *r = nullptr;

	opts.sz = sizeof(opts);
	opts.backend = "sim";
	opts.machine = machine;
	opts.flags = RDTALLOC_F_EPHEMERAL;
	check(nullptr, "open", rdtalloc_open(&r, &opts));
	return context(r);
}

std::string schema_of(rdtalloc_t *r, const char *group)
{
	std::vector<char> buf(256);

	check(r, "schema", rdtalloc_get_schema(r, group, buf.data(), buf.size()));
	return buf.data();
}

} // namespace

int main(int argc, char **argv)
{
	try {
		context r = open_sim(argc > 1 ? argv[1] : "topology=package:2 l3:1 core:2 pu:1");
		unsigned int closid = 0;

		check(r.get(), "group rt", rdtalloc_group_create(r.get(), "rt"));
		check(r.get(), "group rt", rdtalloc_set_schema(r.get(), "rt", "L3:0=f8000"));
		check(r.get(), "bind", rdtalloc_bind_task(r.get(), "rt", 0));
		check(r.get(), "closid", rdtalloc_effective_closid(r.get(), 0, gettid(), &closid));
		std::printf("librdtalloc %s (C++), backend %s\n", rdtalloc_version_string(),
			    rdtalloc_backend(r.get()));
		std::printf("group rt: %s", schema_of(r.get(), "rt").c_str());
		std::printf("thread %d runs with CLOSID %u on CPU 0\n", static_cast<int>(gettid()),
			    closid);
	} catch (const std::exception &e) {
		std::fprintf(stderr, "quickstart-cpp: %s\n", e.what());
		return 1;
	}
	return 0;
}

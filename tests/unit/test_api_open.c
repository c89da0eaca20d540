// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_open: opening contexts and the ABI rules of the public API:
 * the size-carrying opts struct (too small, larger with zero or non-zero
 * tail), the auto backend, machine descriptions and their errors, the
 * inspection calls (resources, domains, CPUs), output structs filled only
 * up to their .sz, errmsg rules (set on every failure, per context, cleared
 * by success), strerror and the version calls.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_api_util.h"

static void opts_size_checks(void **state)
{
	struct {
		struct rdtalloc_opts o;
		char tail[32];
	} big;
	rdtalloc_t *r = (rdtalloc_t *)&big;
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .machine = M2V,
		      .flags = RDTALLOC_F_EPHEMERAL);

	/* Too small to hold even the first fields. */
	o.sz = 0;
	assert_int_equal(rdtalloc_open(&r, &o), -EINVAL);
	assert_null(r);
	assert_true(rdtalloc_errmsg(NULL)[0] != '\0');
	o.sz = 4;
	r = (rdtalloc_t *)&big;
	assert_int_equal(rdtalloc_open(&r, &o), -EINVAL);
	assert_null(r);
	assert_true(rdtalloc_errmsg(NULL)[0] != '\0');

	/* A newer caller's larger struct: fine while the unknown tail is zero. */
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.o.backend = "sim";
	big.o.machine = M2V;
	big.o.flags = RDTALLOC_F_EPHEMERAL;
	assert_int_equal(rdtalloc_open(&r, &big.o), 0);
	assert_non_null(r);
	rdtalloc_close(r);
	big.tail[17] = 1;
	assert_int_equal(rdtalloc_open(&r, &big.o), -EINVAL);
	assert_null(r);
	assert_true(rdtalloc_errmsg(NULL)[0] != '\0');

	/* The exact size. */
	o.sz = sizeof(o);
	assert_int_equal(rdtalloc_open(&r, &o), 0);
	rdtalloc_close(r);
}

static void unknown_flags_rejected(void **state)
{
	rdtalloc_t *r;

	assert_int_equal(tu_open_rc(&r, NULL, M2V, RDTALLOC_F_EPHEMERAL | (1u << 30)), -EINVAL);
	assert_null(r);
	assert_true(rdtalloc_errmsg(NULL)[0] != '\0');
}

static void backend_names(void **state)
{
	rdtalloc_t *r;
	RDTALLOC_OPTS(rdtalloc_opts, o, .machine = M2V, .flags = RDTALLOC_F_EPHEMERAL);

	unsetenv("RDTALLOC_BACKEND");
	/* NULL and "auto" pick the best available: the simulator here. */
	assert_int_equal(rdtalloc_open(&r, &o), 0);
	assert_string_equal(rdtalloc_backend(r), "sim");
	assert_true(rdtalloc_backend_reason(r)[0] != '\0');
	assert_null(strchr(rdtalloc_backend_reason(r), '\n'));
	rdtalloc_close(r);
	o.backend = "auto";
	assert_int_equal(rdtalloc_open(&r, &o), 0);
	assert_string_equal(rdtalloc_backend(r), "sim");
	rdtalloc_close(r);
	/* RDTALLOC_BACKEND forces one. */
	setenv("RDTALLOC_BACKEND", "sim", 1);
	assert_int_equal(rdtalloc_open(&r, &o), 0);
	assert_string_equal(rdtalloc_backend(r), "sim");
	rdtalloc_close(r);
	unsetenv("RDTALLOC_BACKEND");
	o.backend = "sim";
	assert_int_equal(rdtalloc_open(&r, &o), 0);
	assert_string_equal(rdtalloc_backend(r), "sim");
	rdtalloc_close(r);
	/* An unknown backend is named in the message. */
	o.backend = "nosuchbackend";
	assert_true(rdtalloc_open(&r, &o) < 0);
	assert_null(r);
	tu_msg_has(rdtalloc_errmsg(NULL), "nosuchbackend");
}

/* Where an open without state_dir keeps the state, for a tool whose open failed. */
static void default_state_dir(void **state)
{
	const char *want = geteuid() == 0 ? "/run/rdtalloc/resctrl" : "/x/rdtalloc/resctrl";
	char buf[64], small[8] = "unset";

	(void)state;
	setenv("XDG_RUNTIME_DIR", "/x", 1);	/* not root: under it */
	assert_int_equal(rdtalloc_default_state_dir("resctrl", buf, sizeof(buf)),
			 (int)strlen(want));
	assert_string_equal(buf, want);
	assert_string_equal(rdtalloc_errmsg(NULL), "");
	assert_int_equal(rdtalloc_default_state_dir("resctrl", NULL, 0), (int)strlen(want));
	/* cut like snprintf, the full length returned */
	assert_int_equal(rdtalloc_default_state_dir("resctrl", small, sizeof(small)),
			 (int)strlen(want));
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_int_equal(memcmp(small, want, sizeof(small) - 1), 0);
	assert_int_equal(rdtalloc_default_state_dir("sim", buf, sizeof(buf)),
			 (int)strlen(want) - 4);
	assert_int_equal(memcmp(buf + strlen(buf) - 4, "/sim", 4), 0);
	/* bad input: refused, named, buf untouched */
	strcpy(buf, "kept");
	assert_int_equal(rdtalloc_default_state_dir("auto", buf, sizeof(buf)), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(NULL), "rdtalloc_default_state_dir: no backend "
			    "'auto' (a state's directory is its backend's: resctrl, msr or sim)");
	assert_int_equal(rdtalloc_default_state_dir("../sim", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(rdtalloc_default_state_dir(NULL, buf, sizeof(buf)), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(NULL), "rdtalloc_default_state_dir: backend is NULL");
	assert_int_equal(rdtalloc_default_state_dir("sim", NULL, 4), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(NULL), "rdtalloc_default_state_dir: buf is NULL");
	assert_string_equal(buf, "kept");
	unsetenv("XDG_RUNTIME_DIR");
}

static void bad_machine_descriptions(void **state)
{
	static const struct {
		const char *desc, *names;
	} cases[] = {
		{ M2 ";l3.closids=abc", "l3.closids" },
		{ M2 ";l3.foo=1", "l3.foo" },
		{ M2 ";l3.cbm_len=70", "l3.cbm_len" },
		{ M2 ";l3.cbm_len=0", "l3.cbm_len" },
		{ M2 ";l3.min_cbm_bits=21", "l3.min_cbm_bits" },
		{ M2 ";bogus", "bogus" },
		{ "topology=nonsense:2", "topology" },
		{ M2 ";l2.closids=8", "l2" },
		{ M2 ";tasks=maybe", "tasks" },
		{ "preset=no-such-part", "no-such-part" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rdtalloc_t *r;
		int rc = tu_open_rc(&r, NULL, cases[i].desc, RDTALLOC_F_EPHEMERAL);

		if (rc != -EINVAL)
			print_error("machine \"%s\": %d (%s)\n", cases[i].desc, rc,
				    rdtalloc_errmsg(NULL));
		assert_int_equal(rc, -EINVAL);
		assert_null(r);
		/* Named in the message, in whatever case. */
		if (!strcasestr(rdtalloc_errmsg(NULL), cases[i].names))
			print_error("machine \"%s\": message \"%s\" does not name \"%s\"\n",
				    cases[i].desc, rdtalloc_errmsg(NULL), cases[i].names);
		assert_non_null(strcasestr(rdtalloc_errmsg(NULL), cases[i].names));
	}
}

static void resources_and_domains(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	struct rdtalloc_resource_info ri = tu_res(r, 0);
	RDTALLOC_OPTS(rdtalloc_resource_info, bad);
	unsigned int ids[4] = { 9, 9, 9, 9 };
	int cpus[4];

	assert_int_equal(rdtalloc_resource_count(r), 1);
	assert_string_equal(ri.name, "L3");
	assert_int_equal(ri.num_closids, 16);
	assert_int_equal(ri.hw_closids, 16);
	assert_int_equal(ri.cbm_len, 20);
	assert_int_equal(ri.min_cbm_bits, 1);
	assert_int_equal(ri.shareable_bits, 0);
	assert_int_equal(ri.cdp_supported, 1);
	assert_int_equal(ri.cdp_enabled, 0);
	assert_int_equal(ri.sparse_masks, 0);
	assert_int_equal(ri.num_domains, 2);
	assert_int_equal(rdtalloc_get_resource_info(r, 1, &bad), -EINVAL);
	assert_true(rdtalloc_errmsg(r)[0] != '\0');

	assert_int_equal(rdtalloc_domains(r, "L3", ids, 4), 2);
	assert_int_equal(ids[0], 0);
	assert_int_equal(ids[1], 1);
	assert_int_equal(ids[2], 9);
	assert_int_equal(rdtalloc_domains(r, "L3", ids, 1), 2);
	assert_int_equal(rdtalloc_domain_cpus(r, "L3", 0, cpus, 4), 2);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[1], 1);
	assert_int_equal(rdtalloc_domain_cpus(r, "L3", 1, cpus, 4), 2);
	assert_int_equal(cpus[0], 2);
	assert_int_equal(cpus[1], 3);
	assert_int_equal(rdtalloc_cpu_count(r), 4);
	assert_true(rdtalloc_domain_cpus(r, "L3", 2, cpus, 4) < 0);
	assert_true(rdtalloc_errmsg(r)[0] != '\0');
	assert_true(rdtalloc_domains(r, "L2", ids, 4) < 0);
	assert_true(rdtalloc_errmsg(r)[0] != '\0');
	rdtalloc_close(r);
}

static void machine_keys(void **state)
{
	rdtalloc_t *r = tu_eph("topology=package:4 l3:1 core:2 pu:2;l3.closids=4;l3.cbm_len=11;"
			       "l3.min_cbm_bits=2;l3.shareable_bits=600;l3.cdp=0;l3.sparse=1;"
			       "tasks=virtual");
	struct rdtalloc_resource_info ri = tu_res(r, 0);
	int cpus[8];

	assert_int_equal(ri.num_closids, 4);
	assert_int_equal(ri.hw_closids, 4);
	assert_int_equal(ri.cbm_len, 11);
	assert_int_equal(ri.min_cbm_bits, 2);
	assert_int_equal(ri.shareable_bits, 0x600);
	assert_int_equal(ri.cdp_supported, 0);
	assert_int_equal(ri.sparse_masks, 1);
	assert_int_equal(ri.num_domains, 4);
	assert_int_equal(rdtalloc_cpu_count(r), 16);
	assert_int_equal(rdtalloc_domain_cpus(r, "L3", 3, cpus, 8), 4);
	assert_int_equal(cpus[0], 12);
	assert_int_equal(cpus[3], 15);
	assert_schema(r, NULL, "L3:0=7ff;1=7ff;2=7ff;3=7ff\n");
	/* Only 4 CLOSIDs: c (sharing CLOSID 0 with d) cannot get a fifth. */
	assert_ok(r, rdtalloc_group_create(r, "a"));
	assert_ok(r, rdtalloc_group_create(r, "b"));
	assert_ok(r, rdtalloc_group_create(r, "c"));
	assert_ok(r, rdtalloc_group_create(r, "d"));
	assert_ok(r, rdtalloc_set_schema(r, "a", "L3:2=3"));
	assert_ok(r, rdtalloc_set_schema(r, "b", "L3:2=c"));
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:2=30"));
	assert_err(r, rdtalloc_set_schema(r, "c", "L3:2=c0"), -ENOSPC);
	assert_errmsg_has(r, "L3 cache id 2: no free CLOSID (4 in use)");
	rdtalloc_close(r);
}

static void output_structs_honour_sz(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	struct rdtalloc_resource_info ri;
	struct rdtalloc_stats st;
	struct rdtalloc_switch sw;
	const unsigned char *p;
	size_t i, cut;

	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=f"));

	/* An older caller knowing only up to cbm_len: nothing past it is written. */
	cut = offsetof(struct rdtalloc_resource_info, cbm_len);
	memset(&ri, 0xa5, sizeof(ri));
	ri.sz = cut;
	assert_ok(r, rdtalloc_get_resource_info(r, 0, &ri));
	assert_string_equal(ri.name, "L3");
	assert_int_equal(ri.num_closids, 16);
	for (p = (const unsigned char *)&ri, i = cut; i < sizeof(ri); i++)
		assert_int_equal(p[i], 0xa5);

	cut = offsetof(struct rdtalloc_stats, pqr_writes);
	memset(&st, 0xa5, sizeof(st));
	st.sz = cut;
	assert_ok(r, rdtalloc_get_stats(r, &st));
	assert_int_equal(st.mask_writes, 1);
	for (p = (const unsigned char *)&st, i = cut; i < sizeof(st); i++)
		assert_int_equal(p[i], 0xa5);

	cut = offsetof(struct rdtalloc_switch, pqr_written);
	memset(&sw, 0xa5, sizeof(sw));
	sw.sz = cut;
	assert_ok(r, rdtalloc_sim_switch(r, 0, 0, &sw));
	assert_int_equal(sw.closid, 0);
	for (p = (const unsigned char *)&sw, i = cut; i < sizeof(sw); i++)
		assert_int_equal(p[i], 0xa5);
	rdtalloc_close(r);
}

static void errmsg_rules(void **state)
{
	rdtalloc_t *a = tu_eph(M2V), *b = tu_eph(M2V);
	char msg[512];

	assert_string_equal(rdtalloc_errmsg(a), "");
	assert_err(a, rdtalloc_group_remove(a, "nosuch"), -ENOENT);
	snprintf(msg, sizeof(msg), "%s", rdtalloc_errmsg(a));
	/* A failure on another context does not touch this one's message... */
	assert_err(b, rdtalloc_set_schema(b, NULL, "L3:0=5"), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(a), msg);
	assert_true(strcmp(rdtalloc_errmsg(b), msg) != 0);
	/* ...and a successful call clears the message of its context. */
	assert_ok(a, rdtalloc_group_create(a, "g"));
	assert_string_equal(rdtalloc_errmsg(a), "");
	rdtalloc_close(a);
	rdtalloc_close(b);
}

static void every_failure_sets_errmsg(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char buf[8];
	unsigned int c;
	uint64_t v;
	int i, rc;

	for (i = 0; i < 14; i++) {
		/* A success first, so that a stale message cannot pass for a new one. */
		assert_ok(r, rdtalloc_group_count(r));
		assert_ok(r, rdtalloc_group_create(r, "ok"));
		assert_ok(r, rdtalloc_group_remove(r, "ok"));
		switch (i) {
		case 0: rc = rdtalloc_group_create(r, "a b"); break;
		case 1: rc = rdtalloc_group_remove(r, "x"); break;
		case 2: rc = rdtalloc_set_schema(r, NULL, "L3:9=1"); break;
		case 3: rc = rdtalloc_get_schema(r, NULL, buf, sizeof(buf)); break;
		case 4: rc = rdtalloc_bind_task(r, NULL, -1); break;
		case 5: rc = rdtalloc_bind_cpu(r, NULL, 99); break;
		case 6: rc = rdtalloc_closids(r, "L9", 0, NULL, 0); break;
		case 7: rc = rdtalloc_group_closid(r, "x", "L3", 0, &c); break;
		case 8: rc = rdtalloc_effective_closid(r, 99, 0, &c); break;
		case 9: rc = rdtalloc_set_cdp(r, "L2", 1); break;
		case 10: rc = rdtalloc_read_mask(r, "L3", 0, 99, &v); break;
		case 11: rc = rdtalloc_read_pqr(r, 99, &c); break;
		case 12: rc = rdtalloc_task_group(r, -1, buf, sizeof(buf)); break;
		default: rc = rdtalloc_apply_config(r, "bogus line\n", 0); break;
		}
		if (rc >= 0 || rdtalloc_errmsg(r)[0] == '\0')
			print_error("case %d: rc %d, errmsg \"%s\"\n", i, rc, rdtalloc_errmsg(r));
		assert_true(rc < 0);
		assert_true(rdtalloc_errmsg(r)[0] != '\0');
	}
	rdtalloc_close(r);
}

static void strerror_texts(void **state)
{
	static const int errs[] = {
		EINVAL, ENOENT, EEXIST, ENOSPC, ESRCH, EBUSY, EPERM, EACCES, ENODEV,
		EOPNOTSUPP, ERANGE, ENOMEM,
	};
	unsigned int i, j;

	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		const char *s = rdtalloc_strerror(-errs[i]);

		assert_non_null(s);
		assert_true(s[0] != '\0');
		assert_null(strstr(s, "Unknown error"));
		for (j = 0; j < i; j++)
			assert_string_not_equal(s, rdtalloc_strerror(-errs[j]));
	}
	assert_non_null(rdtalloc_strerror(-12345));
	assert_non_null(rdtalloc_strerror(0));
}

static void version_calls(void **state)
{
	char want[32];

	assert_int_equal(rdtalloc_version(), RDTALLOC_VERSION_CODE);
	assert_int_equal(rdtalloc_version() >> 16, RDTALLOC_VERSION_MAJOR);
	assert_string_equal(rdtalloc_version_string(), RDTALLOC_VERSION_STRING);
	snprintf(want, sizeof(want), "%d.%d.%d", RDTALLOC_VERSION_MAJOR, RDTALLOC_VERSION_MINOR,
		 RDTALLOC_VERSION_PATCH);
	assert_string_equal(rdtalloc_version_string(), want);
}

struct preset_walk {
	int n, failed;
};

static int preset_cb(const char *name, const char *desc, const char *source, void *arg)
{
	struct preset_walk *w = arg;
	char machine[128];
	rdtalloc_t *r;

	w->n++;
	if (!name[0] || !desc[0] || !source[0]) {
		print_error("preset %d: empty name, description or source\n", w->n);
		w->failed++;
		return 0;
	}
	snprintf(machine, sizeof(machine), "preset=%s;tasks=virtual", name);
	if (tu_open_rc(&r, NULL, machine, RDTALLOC_F_EPHEMERAL)) {
		print_error("preset %s: %s\n", name, rdtalloc_errmsg(NULL));
		w->failed++;
		return 0;
	}
	if (rdtalloc_resource_count(r) < 1 || rdtalloc_group_create(r, "g") ||
	    rdtalloc_bind_cpu(r, "g", 0))
		w->failed++;
	rdtalloc_close(r);
	return 0;
}

static void presets_open(void **state)
{
	struct preset_walk w = { 0 };

	assert_int_equal(rdtalloc_preset_foreach(preset_cb, &w), 0);
	assert_true(w.n >= 1);
	assert_int_equal(w.failed, 0);
}

static void close_null(void **state)
{
	rdtalloc_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(opts_size_checks),
		cmocka_unit_test(unknown_flags_rejected),
		cmocka_unit_test(backend_names),
		cmocka_unit_test(default_state_dir),
		cmocka_unit_test(bad_machine_descriptions),
		cmocka_unit_test(resources_and_domains),
		cmocka_unit_test(machine_keys),
		cmocka_unit_test(output_structs_honour_sz),
		cmocka_unit_test(errmsg_rules),
		cmocka_unit_test(every_failure_sets_errmsg),
		cmocka_unit_test(strerror_texts),
		cmocka_unit_test(version_calls),
		cmocka_unit_test(presets_open),
		cmocka_unit_test(close_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

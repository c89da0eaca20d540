/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_api_util.h: helpers shared by the black-box API tests
 * (tests/unit/test_api_*.c). Only the public header is used here: these
 * tests check the contract of include/rdtalloc/rdtalloc.h, not internals.
 * Owns: opening test contexts, temporary state directories, a textual dump
 * of everything the API can observe (to assert "nothing changed"), and a
 * checker of the CLOSID invariants. Include it after <cmocka.h>.
 */
#ifndef TEST_API_UTIL_H
#define TEST_API_UTIL_H

#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdtalloc/rdtalloc.h>

/* The 2-socket machine of the 2016 resctrl patch set's examples: L3 ids 0 (CPUs 0-1) and 1 (CPUs 2-3). */
#define M2 "topology=package:2 l3:1 core:2 pu:1"
#define M2V M2 ";tasks=virtual"
#define M2CDP M2 ";l3.cdp=1;tasks=virtual"
/* One L3 holding two L2 domains (CPUs 0-1, 2-3) with L2 CAT. */
#define ML2 "topology=package:1 l3:1 l2:2 core:1 pu:2;l2.closids=8;l2.cbm_len=8;tasks=virtual"

#define TU_UNUSED __attribute__((unused))

/* ---- contexts --------------------------------------------------------- */

static TU_UNUSED int tu_open_rc(rdtalloc_t **r, const char *dir, const char *machine,
				unsigned int flags)
{
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .state_dir = dir,
		      .machine = machine, .flags = flags);

	*r = NULL;
	return rdtalloc_open(r, &o);
}

static TU_UNUSED rdtalloc_t *tu_open(const char *dir, const char *machine, unsigned int flags)
{
	rdtalloc_t *r;
	int rc = tu_open_rc(&r, dir, machine, flags);

	if (rc)
		print_error("rdtalloc_open(%s, \"%s\"): %d: %s\n", dir ? dir : "ephemeral",
			    machine ? machine : "(null)", rc, rdtalloc_errmsg(NULL));
	assert_int_equal(rc, 0);
	assert_non_null(r);
	return r;
}

static TU_UNUSED rdtalloc_t *tu_eph(const char *machine)
{
	return tu_open(NULL, machine, RDTALLOC_F_EPHEMERAL);
}

/* ---- assertions --------------------------------------------------------- */

#define assert_ok(r, expr)							\
	do {									\
		int tu_rc_ = (expr);						\
		if (tu_rc_ < 0)							\
			print_error("%s: %d (%s)\n", #expr, tu_rc_,		\
				    rdtalloc_errmsg(r));			\
		assert_true(tu_rc_ >= 0);					\
	} while (0)

/* expr fails with exactly err, and errmsg(r) is set. */
#define assert_err(r, expr, err)						\
	do {									\
		int tu_rc_ = (expr);						\
		if (tu_rc_ != (err))						\
			print_error("%s: got %d, want %d (%s)\n", #expr,	\
				    tu_rc_, (err), rdtalloc_errmsg(r));		\
		assert_int_equal(tu_rc_, (err));				\
		assert_true(rdtalloc_errmsg(r)[0] != '\0');			\
	} while (0)

static TU_UNUSED void tu_msg_has(const char *msg, const char *want)
{
	if (!strstr(msg, want)) {
		print_error("errmsg \"%s\"\n  does not contain \"%s\"\n", msg, want);
		fail();
	}
}

#define assert_errmsg_has(r, want) tu_msg_has(rdtalloc_errmsg(r), (want))

/* ---- temporary directories -------------------------------------------- */

static TU_UNUSED int tu_rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(path);
}

static TU_UNUSED void tu_rm_rf(const char *path)
{
	nftw(path, tu_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh 0700 directory: buf must hold 64 bytes. */
static TU_UNUSED char *tu_mkdtemp(char *buf)
{
	strcpy(buf, "/tmp/rdtalloc-apitest-XXXXXX");
	assert_non_null(mkdtemp(buf));
	return buf;
}

/* ---- a growable string ---------------------------------------------------- */

struct tu_buf {
	char *s;
	size_t len, cap;
};

static TU_UNUSED __attribute__((format(printf, 2, 3)))
void tu_printf(struct tu_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		assert_true(n >= 0);
		if (b->s && b->len + n < b->cap)
			break;
		b->cap = (b->cap + n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		assert_non_null(b->s);
	}
	b->len += n;
}

/* ---- reading state through the API ------------------------------------------ */

#define TU_MAX_GROUPS 256

struct tu_groups {
	int n;
	char name[TU_MAX_GROUPS][RDTALLOC_NAME_MAX + 1];
};

static TU_UNUSED int tu_collect_cb(const char *name, void *arg)
{
	struct tu_groups *g = arg;

	if (g->n >= TU_MAX_GROUPS)
		return -E2BIG;
	snprintf(g->name[g->n++], sizeof(g->name[0]), "%s", name);
	return 0;
}

/* Every group, "default" first, in the library's order. */
static TU_UNUSED struct tu_groups *tu_groups(rdtalloc_t *r)
{
	struct tu_groups *g = calloc(1, sizeof(*g));

	assert_non_null(g);
	assert_ok(r, rdtalloc_group_foreach(r, tu_collect_cb, g));
	return g;
}

/* The schema of a group as malloc'd text. */
static TU_UNUSED char *tu_schema(rdtalloc_t *r, const char *group)
{
	size_t cap = 1 << 16;
	char *buf = malloc(cap);
	int n;

	assert_non_null(buf);
	n = rdtalloc_get_schema(r, group, buf, cap);
	assert_ok(r, n);
	assert_int_equal(strlen(buf), n);
	return buf;
}

static TU_UNUSED void assert_schema(rdtalloc_t *r, const char *group, const char *want)
{
	char *s = tu_schema(r, group);

	assert_string_equal(s, want);
	free(s);
}

struct tu_closid {
	unsigned int closid;
	uint64_t mask, code;
	unsigned int refcount;
};

/* The CLOSID table of one domain must be exactly want[0..n-1]. */
static TU_UNUSED void assert_closids(rdtalloc_t *r, const char *res, unsigned int id,
				     const struct tu_closid *want, int n)
{
	struct rdtalloc_closid_info got[64];
	int i, cnt;

	memset(got, 0, sizeof(got));
	cnt = rdtalloc_closids(r, res, id, got, 64);
	assert_ok(r, cnt);
	if (cnt != n) {
		print_error("%s cache id %u: %d CLOSIDs in use, want %d\n", res, id, cnt, n);
		for (i = 0; i < cnt && i < 64; i++)
			print_error("  closid %u mask %#" PRIx64 " code %#" PRIx64 " rc %u\n",
				    got[i].closid, got[i].mask, got[i].code_mask, got[i].refcount);
	}
	assert_int_equal(cnt, n);
	for (i = 0; i < n; i++) {
		if (got[i].closid != want[i].closid || got[i].mask != want[i].mask ||
		    got[i].code_mask != want[i].code || got[i].refcount != want[i].refcount)
			print_error("%s cache id %u entry %d: got closid %u mask %#" PRIx64
				    " code %#" PRIx64 " rc %u; want closid %u mask %#" PRIx64
				    " code %#" PRIx64 " rc %u\n", res, id, i, got[i].closid,
				    got[i].mask, got[i].code_mask, got[i].refcount,
				    want[i].closid, want[i].mask, want[i].code,
				    want[i].refcount);
		assert_int_equal(got[i].closid, want[i].closid);
		assert_int_equal(got[i].mask, want[i].mask);
		assert_int_equal(got[i].code_mask, want[i].code);
		assert_int_equal(got[i].refcount, want[i].refcount);
	}
}

static TU_UNUSED unsigned int tu_closid(rdtalloc_t *r, const char *group, const char *res,
					unsigned int id)
{
	unsigned int c = UINT_MAX;

	assert_ok(r, rdtalloc_group_closid(r, group, res, id, &c));
	return c;
}

static TU_UNUSED struct rdtalloc_stats tu_stats(rdtalloc_t *r)
{
	RDTALLOC_OPTS(rdtalloc_stats, st);

	assert_ok(r, rdtalloc_get_stats(r, &st));
	return st;
}

static TU_UNUSED uint64_t tu_reg(rdtalloc_t *r, const char *res, unsigned int id,
				 unsigned int reg)
{
	uint64_t v = 0;

	assert_ok(r, rdtalloc_read_mask(r, res, id, reg, &v));
	return v;
}

static TU_UNUSED unsigned int tu_pqr(rdtalloc_t *r, int cpu)
{
	unsigned int c = UINT_MAX;

	assert_ok(r, rdtalloc_read_pqr(r, cpu, &c));
	return c;
}

static TU_UNUSED unsigned int tu_eff(rdtalloc_t *r, int cpu, pid_t tid)
{
	unsigned int c = UINT_MAX;

	assert_ok(r, rdtalloc_effective_closid(r, cpu, tid, &c));
	return c;
}

static TU_UNUSED struct rdtalloc_resource_info tu_res(rdtalloc_t *r, unsigned int idx)
{
	RDTALLOC_OPTS(rdtalloc_resource_info, info);

	assert_ok(r, rdtalloc_get_resource_info(r, idx, &info));
	return info;
}

/* Tasks of a group (malloc'd, *n entries). */
static TU_UNUSED pid_t *tu_tasks(rdtalloc_t *r, const char *group, int *n)
{
	int cnt = rdtalloc_group_tasks(r, group, NULL, 0);
	pid_t *t;

	assert_ok(r, cnt);
	t = calloc(cnt + 1, sizeof(*t));
	assert_non_null(t);
	/* The count may change between the calls for the default group. */
	*n = rdtalloc_group_tasks(r, group, t, cnt + 1);
	assert_ok(r, *n);
	if (*n > cnt + 1)
		*n = cnt + 1;
	return t;
}

static TU_UNUSED bool tu_has_task(rdtalloc_t *r, const char *group, pid_t tid)
{
	int n, i;
	pid_t *t = tu_tasks(r, group, &n);
	bool found = false;

	for (i = 0; i < n; i++)
		found |= t[i] == tid;
	free(t);
	return found;
}

static TU_UNUSED void assert_tasks(rdtalloc_t *r, const char *group, const pid_t *want, int n)
{
	int got, i;
	pid_t *t = tu_tasks(r, group, &got);

	if (got != n) {
		print_error("group %s: %d tasks, want %d:", group ? group : "(null)", got, n);
		for (i = 0; i < got; i++)
			print_error(" %d", (int)t[i]);
		print_error("\n");
	}
	assert_int_equal(got, n);
	for (i = 0; i < n; i++)
		assert_int_equal(t[i], want[i]);
	free(t);
}

static TU_UNUSED void assert_cpus(rdtalloc_t *r, const char *group, const int *want, int n)
{
	int got[64];
	int cnt, i;

	cnt = rdtalloc_group_cpus(r, group, got, 64);
	assert_ok(r, cnt);
	if (cnt != n) {
		print_error("group %s: %d CPUs, want %d:", group ? group : "(null)", cnt, n);
		for (i = 0; i < cnt && i < 64; i++)
			print_error(" %d", got[i]);
		print_error("\n");
	}
	assert_int_equal(cnt, n);
	for (i = 0; i < n; i++)
		assert_int_equal(got[i], want[i]);
}

static TU_UNUSED void assert_task_group(rdtalloc_t *r, pid_t tid, const char *want)
{
	char buf[RDTALLOC_NAME_MAX + 1];

	assert_ok(r, rdtalloc_task_group(r, tid, buf, sizeof(buf)));
	assert_string_equal(buf, want);
}

static TU_UNUSED void assert_cpu_group(rdtalloc_t *r, int cpu, const char *want)
{
	char buf[RDTALLOC_NAME_MAX + 1];

	assert_ok(r, rdtalloc_cpu_group(r, cpu, buf, sizeof(buf)));
	assert_string_equal(buf, want);
}

/* ---- a dump of everything observable: for "nothing changed" ------------ */

static TU_UNUSED void tu_dump_list_int(struct tu_buf *b, const char *what, const int *v, int n)
{
	int i;

	tu_printf(b, " %s[%d]:", what, n);
	for (i = 0; i < n; i++)
		tu_printf(b, " %d", v[i]);
	tu_printf(b, "\n");
}

static TU_UNUSED void tu_dump_group(struct tu_buf *b, rdtalloc_t *r, const char *name,
				    bool with_tasks)
{
	int cpus[4096];
	char *s = tu_schema(r, name);
	int n, i;

	tu_printf(b, "group %s\n schema %s", name, s);
	free(s);
	n = rdtalloc_group_cpus(r, name, cpus, 4096);
	assert_ok(r, n);
	tu_dump_list_int(b, "cpus", cpus, n < 4096 ? n : 4096);
	if (with_tasks) {
		pid_t *t = tu_tasks(r, name, &n);

		tu_printf(b, " tasks[%d]:", n);
		for (i = 0; i < n; i++)
			tu_printf(b, " %d", (int)t[i]);
		tu_printf(b, "\n");
		free(t);
	}
}

static TU_UNUSED void tu_dump_domain(struct tu_buf *b, rdtalloc_t *r,
				     const struct rdtalloc_resource_info *ri,
			   unsigned int id, const struct tu_groups *g)
{
	struct rdtalloc_closid_info ci[512];
	unsigned int reg;
	int n, i;

	n = rdtalloc_closids(r, ri->name, id, ci, 512);
	assert_ok(r, n);
	tu_printf(b, " domain %u closids[%d]:", id, n);
	for (i = 0; i < n; i++)
		tu_printf(b, " %u=%" PRIx64 "/%" PRIx64 "x%u", ci[i].closid, ci[i].mask,
			  ci[i].code_mask, ci[i].refcount);
	tu_printf(b, "\n  regs:");
	for (reg = 0; reg < ri->hw_closids; reg++)
		tu_printf(b, " %" PRIx64, tu_reg(r, ri->name, id, reg));
	tu_printf(b, "\n  group closids:");
	for (i = 0; i < g->n; i++)
		tu_printf(b, " %s=%u", g->name[i], tu_closid(r, g->name[i], ri->name, id));
	tu_printf(b, "\n");
}

/*
 * Everything the API shows about a context, as text. The default group's
 * task list is left out when tasks are real: it follows the whole system.
 */
static TU_UNUSED char *tu_dump(rdtalloc_t *r, bool default_tasks)
{
	struct tu_buf b = { 0 };
	struct tu_groups *g = tu_groups(r);
	struct rdtalloc_stats st = tu_stats(r);
	int nres = rdtalloc_resource_count(r);
	int i, cpu, ncpu;

	tu_printf(&b, "groups %d (count %d)\n", g->n, rdtalloc_group_count(r));
	for (i = 0; i < g->n; i++)
		tu_dump_group(&b, r, g->name[i], i > 0 || default_tasks);
	assert_ok(r, nres);
	for (i = 0; i < nres; i++) {
		struct rdtalloc_resource_info ri = tu_res(r, i);
		unsigned int ids[256];
		int nd, d;

		tu_printf(&b, "resource %s closids %u/%u cdp %d/%d\n", ri.name, ri.num_closids,
			  ri.hw_closids, ri.cdp_enabled, rdtalloc_get_cdp(r, ri.name));
		nd = rdtalloc_domains(r, ri.name, ids, 256);
		assert_ok(r, nd);
		for (d = 0; d < nd; d++)
			tu_dump_domain(&b, r, &ri, ids[d], g);
	}
	ncpu = rdtalloc_cpu_count(r);
	assert_ok(r, ncpu);
	tu_printf(&b, "pqr:");
	for (cpu = 0; cpu < ncpu; cpu++)
		tu_printf(&b, " %u", tu_pqr(r, cpu));
	tu_printf(&b, "\nstats mask %" PRIu64 " pqr %" PRIu64 " cfg %" PRIu64 "\n",
		  st.mask_writes, st.pqr_writes, st.cfg_writes);
	free(g);
	return b.s;
}

/* The dump must equal before (which is freed). */
static TU_UNUSED void assert_unchanged(rdtalloc_t *r, char *before, bool default_tasks)
{
	char *now = tu_dump(r, default_tasks);

	if (strcmp(before, now))
		print_error("state changed:\n--- before\n%s--- after\n%s", before, now);
	assert_string_equal(before, now);
	free(before);
	free(now);
}

/* ---- schema text as the tests read it back ------------------------------ */

struct tu_masks {		/* masks of one group, [resource index][domain index] */
	int nres;
	int ndom[2];
	uint64_t data[2][64], code[2][64];
};

/* Parse get_schema output ("L3:0=003ff;1=fffff\nL2:0=ff,0f\n"). */
static TU_UNUSED void tu_parse_schema(rdtalloc_t *r, const char *group, struct tu_masks *m)
{
	char *s = tu_schema(r, group), *line, *save = NULL;
	int res = 0;

	memset(m, 0, sizeof(*m));
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *p = strchr(line, ':');
		int d = 0;

		assert_non_null(p);
		assert_true(res < 2);
		p++;
		while (*p) {
			char *end;

			strtoul(p, &end, 10);
			assert_true(*end == '=');
			m->data[res][d] = strtoull(end + 1, &end, 16);
			m->code[res][d] = m->data[res][d];
			if (*end == ',')
				m->code[res][d] = strtoull(end + 1, &end, 16);
			d++;
			assert_true(*end == ';' || *end == '\0');
			p = *end ? end + 1 : end;
		}
		m->ndom[res++] = d;
	}
	m->nres = res;
	free(s);
}

/* All resource domains of a context, with their CPUs. */
struct tu_doms {
	int n;
	struct {
		int res, idx;
		unsigned int id;
		int ncpus;
		int cpus[256];
	} d[64];
};

static TU_UNUSED void tu_get_doms(rdtalloc_t *r, struct tu_doms *ds)
{
	int nres = rdtalloc_resource_count(r), res, i;

	ds->n = 0;
	for (res = 0; res < nres; res++) {
		struct rdtalloc_resource_info ri = tu_res(r, res);
		unsigned int ids[64];
		int nd = rdtalloc_domains(r, ri.name, ids, 64);

		assert_ok(r, nd);
		for (i = 0; i < nd; i++) {
			assert_true(ds->n < 64);
			ds->d[ds->n].res = res;
			ds->d[ds->n].idx = i;
			ds->d[ds->n].id = ids[i];
			ds->d[ds->n].ncpus = rdtalloc_domain_cpus(r, ri.name, ids[i],
								  ds->d[ds->n].cpus, 256);
			assert_ok(r, ds->d[ds->n].ncpus);
			ds->n++;
		}
	}
}

static TU_UNUSED bool tu_cpus_within(const int *a, int na, const int *b, int nb)
{
	int i, j;

	for (i = 0; i < na; i++) {
		for (j = 0; j < nb && b[j] != a[i]; j++)
			;
		if (j == nb)
			return false;
	}
	return true;
}

/*
 * Domains whose masks make up the key of a CLOSID table that domain k is
 * in. PQR_ASSOC holds one CLOSID for all resources of a CPU, so with L3 and
 * L2 both present a CLOSID stands for the masks of an L3 domain and of the
 * L2 domains inside it (lib/hw/engine.h); with one resource it is just k.
 */
static TU_UNUSED int tu_key_doms(rdtalloc_t *r, const struct tu_doms *ds, int k, int *out)
{
	int l3 = -1, i, n = 0;

	for (i = 0; i < ds->n; i++)
		if (ds->d[i].res == 0 && !strcmp(tu_res(r, 0).name, "L3") &&
		    tu_cpus_within(ds->d[k].cpus, ds->d[k].ncpus, ds->d[i].cpus, ds->d[i].ncpus))
			l3 = i;
	if (l3 < 0) {
		out[0] = k;
		return 1;
	}
	for (i = 0; i < ds->n; i++)
		if (i == l3 || (ds->d[i].res != 0 &&
				tu_cpus_within(ds->d[i].cpus, ds->d[i].ncpus,
					       ds->d[l3].cpus, ds->d[l3].ncpus)))
			out[n++] = i;
	return n;
}

static TU_UNUSED bool tu_same_key(const struct tu_masks *a, const struct tu_masks *b,
			const struct tu_doms *ds, const int *key, int nkey)
{
	int i;

	for (i = 0; i < nkey; i++) {
		int res = ds->d[key[i]].res, idx = ds->d[key[i]].idx;

		if (a->data[res][idx] != b->data[res][idx] ||
		    a->code[res][idx] != b->code[res][idx])
			return false;
	}
	return true;
}

/* One domain: the table against the groups' masks and the registers. */
static TU_UNUSED void tu_check_domain(rdtalloc_t *r, const struct tu_groups *g,
				      const struct tu_masks *gm,
			    const struct tu_doms *ds, int k)
{
	struct rdtalloc_resource_info ri = tu_res(r, ds->d[k].res);
	struct rdtalloc_closid_info ci[512];
	unsigned int refs[512] = { 0 };
	unsigned int id = ds->d[k].id, sum = 0;
	int res = ds->d[k].res, idx = ds->d[k].idx;
	int key[64], nkey = tu_key_doms(r, ds, k, key);
	int n = rdtalloc_closids(r, ri.name, id, ci, 512), distinct = 0, i, j;

	assert_ok(r, n);
	assert_true(n >= 1 && (unsigned int)n <= ri.num_closids);
	for (i = 0; i < n; i++) {
		assert_true(ci[i].closid < ri.num_closids);
		if (i)
			assert_true(ci[i].closid > ci[i - 1].closid);
		assert_true(ci[i].refcount >= 1);
		if (!ri.cdp_enabled) {
			assert_int_equal(ci[i].code_mask, ci[i].mask);
			assert_int_equal(tu_reg(r, ri.name, id, ci[i].closid), ci[i].mask);
		} else {
			assert_int_equal(tu_reg(r, ri.name, id, 2 * ci[i].closid), ci[i].mask);
			assert_int_equal(tu_reg(r, ri.name, id, 2 * ci[i].closid + 1),
					 ci[i].code_mask);
		}
		sum += ci[i].refcount;
	}
	assert_int_equal(sum, g->n);
	for (i = 0; i < g->n; i++) {
		unsigned int c = tu_closid(r, g->name[i], ri.name, id);
		int e;

		for (e = 0; e < n && ci[e].closid != c; e++)
			;
		if (e == n)
			print_error("group %s holds %s/%u CLOSID %u, not in use\n",
				    g->name[i], ri.name, id, c);
		assert_true(e < n);
		assert_int_equal(ci[e].mask, gm[i].data[res][idx]);
		assert_int_equal(ci[e].code_mask, gm[i].code[res][idx]);
		refs[e]++;
		for (j = 0; j < i; j++)
			if (tu_same_key(&gm[j], &gm[i], ds, key, nkey))
				break;
		distinct += j == i;
	}
	for (i = 0; i < n; i++)
		assert_int_equal(refs[i], ci[i].refcount);
	if (n != distinct)
		print_error("%s cache id %u: %d CLOSIDs in use for %d distinct masks\n",
			    ri.name, id, n, distinct);
	assert_int_equal(n, distinct);
}

/*
 * The invariants of the CLOSID engine, checked through the API alone:
 * in every domain the CLOSIDs in use are exactly the distinct masks of the
 * groups, each group's CLOSID carries its mask, refcounts are exact and sum
 * to the number of groups, CLOSIDs are below num_closids, and the mask
 * registers hold what the table says (data 2n / code 2n+1 with CDP).
 */
static TU_UNUSED void tu_check_invariants(rdtalloc_t *r)
{
	struct tu_groups *g = tu_groups(r);
	struct tu_masks *gm = calloc(g->n, sizeof(*gm));
	struct tu_doms *ds = calloc(1, sizeof(*ds));
	int i;

	assert_non_null(gm);
	assert_non_null(ds);
	assert_int_equal(rdtalloc_group_count(r), g->n);
	for (i = 0; i < g->n; i++)
		tu_parse_schema(r, g->name[i], &gm[i]);
	tu_get_doms(r, ds);
	for (i = 0; i < ds->n; i++)
		tu_check_domain(r, g, gm, ds, i);
	free(ds);
	free(gm);
	free(g);
}

/* Mask registers of every domain of every resource, in one array (for write counting). */
static TU_UNUSED int tu_regs(rdtalloc_t *r, uint64_t *out, int max)
{
	int nres = rdtalloc_resource_count(r), res, n = 0;

	for (res = 0; res < nres; res++) {
		struct rdtalloc_resource_info ri = tu_res(r, res);
		unsigned int ids[64], reg;
		int nd = rdtalloc_domains(r, ri.name, ids, 64), d;

		for (d = 0; d < nd; d++)
			for (reg = 0; reg < ri.hw_closids; reg++) {
				assert_true(n < max);
				out[n++] = tu_reg(r, ri.name, ids[d], reg);
			}
	}
	return n;
}

#endif

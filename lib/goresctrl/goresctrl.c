// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * goresctrl: a goresctrl RDT configuration (the rdt_config_file of
 * containerd and CRI-O: options, partitions, classes) resolved into our
 * configuration text, one group per class, so that it applies as one
 * all-or-nothing configuration. The rules are goresctrl's
 * (pkg/rdt/config.go, read for behaviour; this is our own code):
 *
 *  - a partition's cache share is exclusive: partitions are laid out from
 *    bit 0 in name order; percentages are resolved smallest first, each
 *    getting req * available / available% bits (rounded down, at least
 *    min_cbm_bits, the last one the rest); absolute masks must not overlap;
 *    all partitions give the same kind of request for a cache id, or none;
 *  - a class's cache share is relative to its partition's mask: "N%" and
 *    "L-H%" take bits (L-1)*W/100 .. (H-1)*W/100 of the partition's W bits,
 *    widened to min_cbm_bits; a mask or bit list is shifted to the
 *    partition's first bit and must fit in it;
 *  - cache ids: "all" (the default, else 100%) and lists such as "0,2-3";
 *    per id "unified" or "code" and "data" (CDP);
 *  - MB: percentages (the first "N%" of a list), a class's value relative
 *    to its partition's, never under the minimum bandwidth; on an mba_MBps
 *    machine the first "NMBps", capped at its partition's;
 *  - options.{l2,l3,mb}.optional: a resource the machine lacks is an error
 *    only when a class asks for it and it is not optional.
 *
 * Map keys match without regard to case and unknown keys are ignored, as
 * Go's encoding/json does. The class "system/default" (or "") is our
 * default group. A class's kubernetes: {denyPodAnnotation,
 * denyContainerAnnotation} is recorded when the configuration is applied
 * (policy.h), for the OCI hook.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rdtalloc/rdtalloc.h>

#include "config.h"
#include "context.h"
#include "errors.h"
#include "goresctrl/policy.h"
#include "goresctrl/yaml.h"

#define MAX_PARTITIONS 256
#define MAX_CLASSES 1024
#define ERRLEN 512

enum level { LV_L2, LV_L3, NLV };
enum ctype { CT_UNIFIED, CT_CODE, CT_DATA, NCT };
enum akind { AK_NONE, AK_ABS, AK_PCT, AK_RANGE };

static const char *const lv_name[NLV] = { "L2", "L3" };
static const char *const ct_name[NCT] = { "unified", "code", "data" };
static const enum rdt_res lv_res[NLV] = { RDT_L2, RDT_L3 };

struct alloc {
	enum akind k;
	uint64_t mask;			/* AK_ABS */
	unsigned int lo, hi;		/* AK_PCT (hi), AK_RANGE */
};

/* One cache level of a partition or class: per domain index, per type. */
struct cat {
	bool set;			/* configured (goresctrl: Alloc != nil) */
	struct alloc *a;		/* [ndom * NCT] */
};

struct mb {
	bool set;
	uint64_t *v;			/* [ndom] percent */
};

/* What the machine says, as goresctrl's info would. */
struct minfo {
	bool cat[NLV], cdp[NLV], mb;
	bool mb_amd;			/* MB in 1/8 GB/s: goresctrl's percentages do not apply */
	bool mb_mbps;			/* mba_MBps: the MBps values apply, not the percentages */
	unsigned int ndom[NLV], cbm_len[NLV], min_bits[NLV];
	const struct rdt_domain *dom[NLV];
	unsigned int nmb, mb_min;
	uint64_t mb_max;		/* mba_MBps: unthrottled */
	const struct rdt_domain *mbdom;
};

struct partition {
	const char *name;
	const struct rdt_ynode *node;
	struct cat cat[NLV];		/* the resolved (absolute) grant */
	bool cat_given[NLV], mb_given;
	struct mb mb;
};

struct ctx {
	struct minfo mi;
	bool optional[NLV], mb_optional;
	/* each class's group and what its kubernetes options deny (RDT_POLICY_DENY_*) */
	const char *group[MAX_CLASSES];
	unsigned int deny[MAX_CLASSES];
	unsigned int nclasses;
	char err[ERRLEN];
};

static int gr_fail(struct ctx *c, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int gr_fail(struct ctx *c, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return err;
}

static bool is_str(const struct rdt_ynode *n)
{
	return n && n->kind == RDT_Y_SCALAR;
}

static bool all_of(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

/*
 * A plain scalar that YAML 1.1 (Go's yaml.v2, under goresctrl's
 * sigs.k8s.io/yaml) resolves to null, a bool, an int or a float: JSON gives
 * goresctrl a number there, and a string field refuses it. 50 is not "50".
 */
static bool resolves_to_non_string(const struct rdt_ynode *n)
{
	static const char *const words[] = {
		"", "~", "null", "Null", "NULL", "y", "Y", "yes", "Yes", "YES", "n", "N", "no",
		"No", "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON",
		"off", "Off", "OFF", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
		"-.Inf", "-.INF", ".nan", ".NaN", ".NAN",
	};
	char t[64], *e;
	size_t i, o = 0;
	const char *p;

	if (!n->plain)
		return false;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(n->s, words[i]))
			return true;
	for (p = n->s; *p && o + 1 < sizeof(t); p++)
		if (*p != '_')
			t[o++] = *p;
	if (*p)
		return false;	/* longer than any number: text */
	t[o] = '\0';
	p = t + (*t == '-' || *t == '+');
	if ((!strncmp(p, "0x", 2) && all_of(p + 2, "0123456789abcdefABCDEF")) ||
	    (!strncmp(p, "0b", 2) && all_of(p + 2, "01")) ||
	    (!strncmp(p, "0o", 2) && all_of(p + 2, "01234567")) || all_of(p, "0123456789"))
		return true;
	/* a float: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
	if (!strchr(".0123456789", *p) || !strpbrk(p, "0123456789"))
		return false;
	errno = 0;
	strtod(p, &e);
	return !*e && !strpbrk(p, "xXpPnNiI");
}

/* A value goresctrl reads as a string: a scalar, quoted unless it reads as text. */
static int need_text(struct ctx *c, const struct rdt_ynode *n, const char *where,
		     const char *what)
{
	if (!is_str(n))
		return gr_fail(c, -EINVAL, "%s: %s is not a string (line %u)", where, what, n->line);
	if (resolves_to_non_string(n))
		return gr_fail(c, -EINVAL, "%s: %s is the YAML %s %s (line %u), which goresctrl "
			    "refuses where it reads a string: quote it (\"%s\")", where, what,
			    *n->s && strpbrk(n->s, "0123456789") ? "number" : "value",
			    *n->s ? n->s : "null", n->line, n->s);
	return 0;
}

/* ---- values ------------------------------------------------------------------ */

/* strconv.ParseUint(s, 10, bits): digits only, within bits. */
static bool parse_uint(const char *s, size_t n, unsigned int bits, uint64_t *out)
{
	uint64_t v = 0, max = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (max - (uint64_t)(s[i] - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

static bool parse_hex(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!*s)
		return false;
	for (i = 0; s[i]; i++) {
		int d = s[i] >= '0' && s[i] <= '9' ? s[i] - '0' :
			s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10 :
			s[i] >= 'A' && s[i] <= 'F' ? s[i] - 'A' + 10 : -1;

		if (d < 0 || v >> 60)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return true;
}

/* "0,2-5": bit numbers 0..63 into a mask (listStrToBitmask). */
static bool parse_bits(const char *s, uint64_t *out)
{
	uint64_t m = 0, a, b;
	const char *p = s;

	if (!*s)
		return (*out = 0), true;
	while (*p) {
		size_t n = strcspn(p, ","), d = strcspn(p, "-");

		if (d < n) {
			if (!parse_uint(p, d, 6, &a) || !parse_uint(p + d + 1, n - d - 1, 6, &b) ||
			    b <= a)
				return false;
			m |= (b - a + 1 >= 64 ? UINT64_MAX : ((UINT64_C(1) << (b - a + 1)) - 1)) << a;
		} else {
			if (!parse_uint(p, n, 6, &a))
				return false;
			m |= UINT64_C(1) << a;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	*out = m;
	return true;
}

static unsigned int ones(uint64_t v)
{
	return (unsigned int)__builtin_popcountll(v);
}

/* CacheProportion.parse: "" none; "N%", "L-H%", "0xMASK", "0-5,6". */
static int parse_prop(struct ctx *c, const char *s, unsigned int min_bits, struct alloc *a,
		      const char *where)
{
	size_t n = strlen(s);
	uint64_t lo, hi, v;

	*a = (struct alloc){ .k = AK_NONE };
	if (!n)
		return 0;
	if (s[n - 1] == '%') {
		const char *dash = memchr(s, '-', n - 1);

		if (!dash) {
			if (!parse_uint(s, n - 1, 7, &hi) || hi > 100)
				return gr_fail(c, -EINVAL, "%s: invalid percentage value \"%s\"", where, s);
			*a = (struct alloc){ AK_PCT, 0, 0, (unsigned int)hi };
			return 0;
		}
		if (!parse_uint(s, (size_t)(dash - s), 7, &lo) ||
		    !parse_uint(dash + 1, (size_t)(s + n - 1 - dash - 1), 7, &hi) || lo > hi ||
		    hi > 100)
			return gr_fail(c, -EINVAL, "%s: invalid percentage range \"%s\"", where, s);
		*a = (struct alloc){ AK_RANGE, 0, (unsigned int)lo, (unsigned int)hi };
		return 0;
	}
	if (!strncmp(s, "0x", 2) ? !parse_hex(s + 2, &v) : !parse_bits(s, &v))
		return gr_fail(c, -EINVAL, "%s: \"%s\" is neither a percentage, a range, a hex mask "
			    "nor a list of bits", where, s);
	if (v && ones(v) != 64 - (unsigned int)__builtin_clzll(v) - (unsigned int)__builtin_ctzll(v))
		return gr_fail(c, -EINVAL, "%s: invalid cache bitmask \"%s\": more than one "
			    "continuous block of ones", where, s);
	if (ones(v) < min_bits)
		return gr_fail(c, -EINVAL, "%s: invalid cache bitmask \"%s\": number of bits less than "
			    "%u", where, s, min_bits);
	*a = (struct alloc){ .k = AK_ABS, .mask = v };
	return 0;
}

/* "0,2-3": cache ids (listStrToArray: each fits 8 signed bits) into want[]. */
static int parse_ids(struct ctx *c, const char *s, const struct rdt_domain *dom, unsigned int ndom,
		     bool *want, const char *where)
{
	const char *p = s;
	uint64_t a, b;
	unsigned int d;

	while (*p) {
		size_t n = strcspn(p, ","), k = strcspn(p, "-");

		if (k < n) {
			if (!parse_uint(p, k, 7, &a) || !parse_uint(p + k + 1, n - k - 1, 7, &b) ||
			    b <= a)
				return gr_fail(c, -EINVAL, "%s: invalid cache id list \"%s\"", where, s);
		} else if (!parse_uint(p, n, 7, &a)) {
			return gr_fail(c, -EINVAL, "%s: invalid cache id list \"%s\"", where, s);
		} else {
			b = a;
		}
		for (d = 0; d < ndom; d++)
			if (dom[d].cache_id >= a && dom[d].cache_id <= b)
				want[d] = true;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* ---- allocations of a partition or class -------------------------------------- */

/* CacheIdCatConfig: a string (unified) or {unified, code, data}. */
static int parse_idcat(struct ctx *c, const struct rdt_ynode *n, unsigned int min_bits,
		       struct alloc *a, const char *where)
{
	const char *s[NCT] = { "", "", "" };
	unsigned int t;
	int ret;

	if (is_str(n)) {
		ret = need_text(c, n, where, "the allocation");
		if (ret)
			return ret;
		s[CT_UNIFIED] = n->s;
	} else if (n->kind == RDT_Y_MAP) {
		for (t = 0; t < NCT; t++) {
			const struct rdt_ynode *v = rdt_yaml_get(n, ct_name[t]);

			if (v && (ret = need_text(c, v, where, ct_name[t])))
				return ret;
			s[t] = v ? v->s : "";
		}
	} else {
		return gr_fail(c, -EINVAL, "%s: not a string or a map (line %u)", where, n->line);
	}
	for (t = 0; t < NCT; t++) {
		ret = parse_prop(c, s[t], min_bits, &a[t], where);
		if (ret)
			return ret;
	}
	if (a[CT_UNIFIED].k == AK_NONE)
		return gr_fail(c, -EINVAL, "%s: 'unified' not specified in cache schema", where);
	if ((a[CT_CODE].k == AK_NONE) != (a[CT_DATA].k == AK_NONE))
		return gr_fail(c, -EINVAL, "%s: 'code' and 'data' go together: both or neither", where);
	return 0;
}

/* CatConfig.toSchema: a string for all ids, or {all|IDS: CacheIdCatConfig}. */
static int parse_cat(struct ctx *c, const struct rdt_ynode *n, enum level lv, struct cat *out,
		     const char *where)
{
	const struct minfo *mi = &c->mi;
	unsigned int nd = mi->ndom[lv], d, t;
	struct alloc def[NCT];
	char w[ERRLEN / 2];
	size_t i;
	int ret;

	out->set = false;
	if (!n)
		return 0;
	out->set = true;
	out->a = calloc(nd ? nd * NCT : 1, sizeof(*out->a));
	if (!out->a)
		return gr_fail(c, -ENOMEM, "out of memory");
	if (is_str(n)) {
		ret = parse_idcat(c, n, mi->min_bits[lv], def, where);
	} else if (n->kind == RDT_Y_MAP) {
		const struct rdt_ynode *all = rdt_yaml_get(n, "all");

		snprintf(w, sizeof(w), "%s, cache ids all", where);
		if (all) {
			ret = parse_idcat(c, all, mi->min_bits[lv], def, w);
		} else {
			def[CT_UNIFIED] = (struct alloc){ AK_PCT, 0, 0, 100 };
			def[CT_CODE] = def[CT_DATA] = (struct alloc){ .k = AK_NONE };
			ret = 0;
		}
	} else {
		return gr_fail(c, -EINVAL, "%s: not a string or a map (line %u)", where, n->line);
	}
	for (d = 0; !ret && d < nd; d++)
		for (t = 0; t < NCT; t++)
			out->a[d * NCT + t] = def[t];
	for (i = 0; !ret && n->kind == RDT_Y_MAP && i < n->n; i++) {
		bool want[256] = { false };
		struct alloc v[NCT];

		if (!strcasecmp(n->k[i]->s, "all"))
			continue;
		snprintf(w, sizeof(w), "%s, cache ids %.40s", where, n->k[i]->s);
		ret = parse_ids(c, n->k[i]->s, mi->dom[lv], nd > 256 ? 256 : nd, want, w);
		if (!ret)
			ret = parse_idcat(c, n->v[i], mi->min_bits[lv], v, w);
		for (d = 0; !ret && d < nd && d < 256; d++)
			if (want[d])
				memcpy(&out->a[d * NCT], v, sizeof(v));
	}
	return ret;
}

/*
 * CacheIdMbaConfig.parse: the first "N%" (percent mode), or on an
 * mba_MBps machine the first "NMBps".
 */
static int parse_mbvals(struct ctx *c, const struct rdt_ynode *n, uint64_t *out, const char *where)
{
	size_t i;

	if (n->kind != RDT_Y_SEQ)
		return gr_fail(c, -EINVAL, "%s: not a list such as [\"50%%\"] (line %u)", where,
			    n->line);
	for (i = 0; i < n->n; i++) {
		const char *s = n->v[i]->s;
		size_t len;

		if (!is_str(n->v[i]))
			return gr_fail(c, -EINVAL, "%s: not a string (line %u)", where, n->v[i]->line);
		if (need_text(c, n->v[i], where, "the value"))
			return -EINVAL;
		len = strlen(s);
		if (c->mi.mb_mbps) {
			if (len > 4 && !strcmp(s + len - 4, "MBps")) {
				if (!parse_uint(s, len - 4, 32, out))
					return gr_fail(c, -EINVAL, "%s: \"%s\" is not a bandwidth in "
						    "MBps", where, s);
				return 0;
			}
			continue;	/* percentages are for the other mode */
		}
		if (len && s[len - 1] == '%') {
			if (!parse_uint(s, len - 1, 7, out))
				return gr_fail(c, -EINVAL, "%s: \"%s\" is not a percentage", where, s);
			/* goresctrl passes it on and the kernel refuses it: say so here */
			if (*out > 100)
				return gr_fail(c, -EINVAL, "%s: \"%s\" is more than 100%%", where, s);
			return 0;
		}
		/* "...MBps" is for mba_MBps; anything else goresctrl warns about and skips */
	}
	if (c->mi.mb_mbps)
		return gr_fail(c, -EINVAL, "%s: missing 'MBps' value; required because mba_MBps is "
			    "what this machine has", where);
	return gr_fail(c, -EINVAL, "%s: missing '%%' value; required because percentage-based MBA "
		    "allocation is what this machine has", where);
}

/* MbaConfig.toSchema: a list for all ids, or {all|IDS: list}. */
static int parse_mb(struct ctx *c, const struct rdt_ynode *n, struct mb *out, const char *where)
{
	const struct minfo *mi = &c->mi;
	uint64_t def = mi->mb_mbps ? mi->mb_max : 100, v;
	char w[ERRLEN / 2];
	unsigned int d;
	size_t i;
	int ret = 0;

	out->set = false;
	if (!n)
		return 0;
	out->set = true;
	out->v = calloc(mi->nmb ? mi->nmb : 1, sizeof(*out->v));
	if (!out->v)
		return gr_fail(c, -ENOMEM, "out of memory");
	if (n->kind == RDT_Y_SEQ) {
		ret = parse_mbvals(c, n, &def, where);
	} else if (n->kind == RDT_Y_MAP) {
		const struct rdt_ynode *all = rdt_yaml_get(n, "all");

		snprintf(w, sizeof(w), "%s, cache ids all", where);
		if (all)
			ret = parse_mbvals(c, all, &def, w);
	} else {
		return gr_fail(c, -EINVAL, "%s: not a list or a map (line %u)", where, n->line);
	}
	for (d = 0; d < mi->nmb; d++)
		out->v[d] = def;
	for (i = 0; !ret && n->kind == RDT_Y_MAP && i < n->n; i++) {
		bool want[256] = { false };

		if (!strcasecmp(n->k[i]->s, "all"))
			continue;
		snprintf(w, sizeof(w), "%s, cache ids %.40s", where, n->k[i]->s);
		ret = parse_ids(c, n->k[i]->s, mi->mbdom, mi->nmb > 256 ? 256 : mi->nmb, want, w);
		if (!ret)
			ret = parse_mbvals(c, n->v[i], &v, w);
		for (d = 0; !ret && d < mi->nmb && d < 256; d++)
			if (want[d])
				out->v[d] = v;
	}
	return ret;
}

/* ---- partitions ----------------------------------------------------------------- */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct partition *)a)->name, ((const struct partition *)b)->name);
}

struct req {
	unsigned int p;		/* partition index */
	unsigned int pct;
};

/* Percentages, smallest first (stable: equal ones keep name order). */
static void sort_reqs(struct req *r, unsigned int n)
{
	unsigned int i, j;

	for (i = 1; i < n; i++) {
		struct req x = r[i];

		for (j = i; j > 0 && r[j - 1].pct > x.pct; j--)
			r[j] = r[j - 1];
		r[j] = x;
	}
}

static int resolve_relative(struct ctx *c, struct partition *ps, unsigned int np,
			    const struct cat *req, enum level lv, unsigned int d, enum ctype t)
{
	uint64_t total = 0, bits_total, avail, grant[MAX_PARTITIONS], lsb = 0;
	unsigned int width = c->mi.cbm_len[lv], min_bits = c->mi.min_bits[lv], i;
	struct req r[MAX_PARTITIONS];

	for (i = 0; i < np; i++) {
		const struct alloc *a = &req[i].a[d * NCT + t];

		if (a->k == AK_ABS)
			return gr_fail(c, -EINVAL, "%s cache id %u: partitions mix relative and "
				    "absolute allocations", lv_name[lv], c->mi.dom[lv][d].cache_id);
		if (a->k == AK_RANGE)
			return gr_fail(c, -EINVAL, "partition %s: percentage ranges in partition "
				    "allocations are not supported", ps[i].name);
		r[i] = (struct req){ i, a->hi };
		total += a->hi;
	}
	if (total > 100)
		return gr_fail(c, -EINVAL, "accumulated %s \"%s\" partition allocation requests for "
			    "cache id %u exceed 100%% (%" PRIu64 "%%)", lv_name[lv], ct_name[t],
			    c->mi.dom[lv][d].cache_id, total);
	sort_reqs(r, np);
	bits_total = total * width / 100;
	avail = bits_total;
	for (i = 0; i < np; i++) {
		uint64_t pct_avail = bits_total ? avail * total / bits_total : 0, n;

		if (avail < min_bits || !pct_avail)
			return gr_fail(c, -EINVAL, "unable to resolve %s allocation for cache id %u: "
				    "not enough exclusive bits available", lv_name[lv],
				    c->mi.dom[lv][d].cache_id);
		n = r[i].pct * avail / pct_avail;
		if (n < min_bits)
			n = min_bits;
		if (n > avail || i == np - 1)
			n = avail;
		grant[r[i].p] = n;
		avail -= n;
	}
	for (i = 0; i < np; i++) {
		struct alloc *g = &ps[i].cat[lv].a[d * NCT + t];

		*g = (struct alloc){ .k = AK_ABS, .mask = grant[i] >= 64 ? UINT64_MAX << lsb :
					     ((UINT64_C(1) << grant[i]) - 1) << lsb };
		lsb += grant[i];
	}
	return 0;
}

static int resolve_absolute(struct ctx *c, struct partition *ps, unsigned int np,
			    const struct cat *req, enum level lv, unsigned int d, enum ctype t)
{
	uint64_t seen = 0;
	unsigned int i;

	for (i = 0; i < np; i++) {
		const struct alloc *a = &req[i].a[d * NCT + t];

		if (a->k != AK_ABS)
			return gr_fail(c, -EINVAL, "%s cache id %u: partitions mix absolute and "
				    "relative allocations", lv_name[lv], c->mi.dom[lv][d].cache_id);
		/* goresctrl passes it on and the kernel refuses it: say so here */
		if (c->mi.cbm_len[lv] < 64 && a->mask >> c->mi.cbm_len[lv])
			return gr_fail(c, -EINVAL, "partition %s: %s allocation 0x%" PRIx64 " for cache "
				    "id %u has bits beyond the %u-bit cache mask", ps[i].name,
				    lv_name[lv], a->mask, c->mi.dom[lv][d].cache_id,
				    c->mi.cbm_len[lv]);
		if (a->mask & seen)
			return gr_fail(c, -EINVAL, "partition %s: %s allocation 0x%" PRIx64 " for cache "
				    "id %u overlaps another partition's", ps[i].name, lv_name[lv],
				    a->mask, c->mi.dom[lv][d].cache_id);
		seen |= a->mask;
		ps[i].cat[lv].a[d * NCT + t] = *a;
	}
	return 0;
}

/* resolveCatPartitions: every partition's exclusive share of one cache level. */
static int resolve_partitions(struct ctx *c, struct partition *ps, unsigned int np, enum level lv)
{
	unsigned int nd = c->mi.ndom[lv], i, d, t, nnil;
	struct cat *req = calloc(np ? np : 1, sizeof(*req));
	char w[ERRLEN / 2];
	int ret = 0;

	if (!req)
		return gr_fail(c, -ENOMEM, "out of memory");
	for (i = 0; !ret && i < np; i++) {
		snprintf(w, sizeof(w), "partition %s, %s", ps[i].name,
			 lv == LV_L3 ? "l3Allocation" : "l2Allocation");
		ret = parse_cat(c, rdt_yaml_get(ps[i].node, lv == LV_L3 ? "l3Allocation" :
						"l2Allocation"), lv, &req[i], w);
		ps[i].cat_given[lv] = req[i].set;
		ps[i].cat[lv].set = false;
		if (!ret && nd && !(ps[i].cat[lv].a = calloc(nd * NCT, sizeof(struct alloc))))
			ret = gr_fail(c, -ENOMEM, "out of memory");
	}
	for (d = 0; !ret && d < nd; d++) {
		for (t = 0; !ret && t < NCT; t++) {
			char names[ERRLEN / 4] = "";
			size_t off = 0;

			for (i = 0, nnil = 0; i < np; i++) {
				if (req[i].set && req[i].a[d * NCT + t].k != AK_NONE)
					continue;
				nnil++;
				/* a list cut where the buffer ends, never written past it */
				if (off + 1 < sizeof(names)) {
					int nw = snprintf(names + off, sizeof(names) - off, "%s%s",
							  nnil > 1 ? ", " : "", ps[i].name);

					off += nw < 0 ? 0 : (size_t)nw;
					if (off >= sizeof(names))
						off = sizeof(names) - 1;
				}
			}
			if (nnil == np)
				continue;
			if (nnil)
				ret = gr_fail(c, -EINVAL, "some partitions (%s) miss the %s \"%s\" "
					   "allocation for cache id %u", names, lv_name[lv],
					   ct_name[t], c->mi.dom[lv][d].cache_id);
			else if (req[0].a[d * NCT + t].k == AK_ABS)
				ret = resolve_absolute(c, ps, np, req, lv, d, t);
			else
				ret = resolve_relative(c, ps, np, req, lv, d, t);
			for (i = 0; !ret && i < np; i++)
				ps[i].cat[lv].set = true;
		}
	}
	for (i = 0; i < np; i++)
		free(req[i].a);
	free(req);
	return ret;
}

/* ---- a class's schema ---------------------------------------------------------------- */

static unsigned int msb(uint64_t v)
{
	return 63 - (unsigned int)__builtin_clzll(v);
}

/* Overlay: a class's allocation on its partition's mask. */
static int overlay(struct ctx *c, const struct alloc *a, uint64_t base, unsigned int min_bits,
		   uint64_t *out, const char *where)
{
	unsigned int lsb, w, lo, hi;
	uint64_t l, h, n, gap;

	if (!base || ones(base) != msb(base) - (unsigned int)__builtin_ctzll(base) + 1 ||
	    ones(base) < min_bits)
		return gr_fail(c, -EINVAL, "%s: the partition's mask 0x%" PRIx64 " is not one block of "
			    "at least %u bits", where, base, min_bits);
	lsb = (unsigned int)__builtin_ctzll(base);
	w = msb(base) - lsb + 1;
	if (a->k == AK_ABS) {
		uint64_t m = lsb >= 64 ? 0 : a->mask << lsb;

		if ((m | base) != base || (m >> lsb) != a->mask)
			return gr_fail(c, -EINVAL, "%s: bitmask 0x%" PRIx64 " does not fit the "
				    "partition's mask 0x%" PRIx64, where, a->mask, base);
		*out = m;
		return 0;
	}
	lo = a->k == AK_RANGE ? a->lo : 0;
	hi = a->hi;
	if (!lo)
		lo = 1;
	if (lo > hi || hi > 100)
		return gr_fail(c, -EINVAL, "%s: invalid percentage range %u-%u%%", where, lo, hi);
	l = (uint64_t)(lo - 1) * w / 100;
	h = (uint64_t)(hi - 1) * w / 100;
	n = h - l + 1;
	if (n < min_bits) {
		gap = min_bits - n;
		if (gap <= l) {
			l -= gap;
			gap = 0;
		} else {
			gap -= l;
			l = 0;
		}
		if (gap > w - h - 1)
			return gr_fail(c, -EINVAL, "%s: not enough bits for %u%% of the partition's "
				    "mask 0x%" PRIx64, where, hi, base);
		h += gap;
	}
	*out = (h - l + 1 >= 64 ? UINT64_MAX : ((UINT64_C(1) << (h - l + 1)) - 1)) << (l + lsb);
	return 0;
}

static const struct alloc *effective(const struct alloc *a, enum ctype t)
{
	return t != CT_UNIFIED && a[t].k != AK_NONE ? &a[t] : &a[CT_UNIFIED];
}

/* catSchema.toStr: one schema line of a class, after its partition's base. */
static int cat_line(struct ctx *c, const struct cat *cls, const struct cat *part, enum level lv,
		    enum ctype t, const char *cname, FILE *f)
{
	unsigned int d;
	char w[ERRLEN / 2];
	int ret;

	fprintf(f, "\tschema %s%s:", lv_name[lv], t == CT_UNIFIED ? "" : t == CT_CODE ? "CODE" :
		"DATA");
	for (d = 0; d < c->mi.ndom[lv]; d++) {
		uint64_t full = c->mi.cbm_len[lv] >= 64 ? UINT64_MAX :
				(UINT64_C(1) << c->mi.cbm_len[lv]) - 1, base = full, m;

		if (part->set)
			base = effective(&part->a[d * NCT], t)->mask;
		m = base;
		if (cls->set) {
			snprintf(w, sizeof(w), "class %s, %s cache id %u", cname, lv_name[lv],
				 c->mi.dom[lv][d].cache_id);
			ret = overlay(c, effective(&cls->a[d * NCT], t), base, c->mi.min_bits[lv], &m,
				      w);
			if (ret)
				return ret;
		}
		fprintf(f, "%s%u=%" PRIx64, d ? ";" : "", c->mi.dom[lv][d].cache_id, m);
	}
	fputc('\n', f);
	return 0;
}

/*
 * The root class: "system/default" and its one alias "" (goresctrl's
 * isRootClass), our default group. "DEFAULT", its name in goresctrl's
 * releases of 2021, is an ordinary class there now, and so it is here: a
 * group named DEFAULT, which the hook finds and `save --format goresctrl`
 * writes back under that name.
 */
static bool root_class(const char *name)
{
	return !*name || !strcmp(name, "system/default");
}

/* A YAML null ("key:" with nothing after it, "~", "null"): an empty map to Go's decoder. */
static bool is_null(const struct rdt_ynode *n)
{
	return n && n->kind == RDT_Y_SCALAR && n->plain &&
	       (!*n->s || !strcmp(n->s, "~") || !strcmp(n->s, "null") || !strcmp(n->s, "Null") ||
		!strcmp(n->s, "NULL"));
}

/*
 * A boolean as Go's YAML reader (YAML 1.1) gives one to a bool field: a
 * plain true/false, yes/no, on/off, y/n; absent or null is false. Anything
 * else (a quoted "true" is a string) Go's decoder refuses, and so do we.
 */
static int read_bool(struct ctx *c, const struct rdt_ynode *n, const char *where, bool *out)
{
	static const char *const t[] = { "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On",
					 "ON", "y", "Y" };
	static const char *const f[] = { "false", "False", "FALSE", "no", "No", "NO", "off", "Off",
					 "OFF", "n", "N" };
	size_t i;

	*out = false;
	if (!n || is_null(n))
		return 0;
	for (i = 0; n->kind == RDT_Y_SCALAR && n->plain && i < sizeof(t) / sizeof(t[0]); i++) {
		if (!strcmp(n->s, t[i]))
			return *out = true, 0;
		if (!strcmp(n->s, f[i]))
			return 0;
	}
	return gr_fail(c, -EINVAL, "%s: not a boolean (line %u): true or false", where, n->line);
}

/* A class's kubernetes: {denyPodAnnotation, denyContainerAnnotation}, as RDT_POLICY_DENY_*. */
static int read_kubernetes(struct ctx *c, const char *name, const struct rdt_ynode *cn,
			   unsigned int *deny)
{
	const struct rdt_ynode *k = rdt_yaml_get(cn, "kubernetes");
	char w[ERRLEN / 2];
	bool pod, ctr;
	int ret;

	*deny = 0;
	if (!k || is_null(k))
		return 0;
	if (k->kind != RDT_Y_MAP)
		return gr_fail(c, -EINVAL, "class %s, kubernetes: not a map (line %u)", name,
			       k->line);
	snprintf(w, sizeof(w), "class %s, kubernetes.denyPodAnnotation", name);
	ret = read_bool(c, rdt_yaml_get(k, "denyPodAnnotation"), w, &pod);
	if (ret)
		return ret;
	snprintf(w, sizeof(w), "class %s, kubernetes.denyContainerAnnotation", name);
	ret = read_bool(c, rdt_yaml_get(k, "denyContainerAnnotation"), w, &ctr);
	if (ret)
		return ret;
	*deny = (pod ? RDT_POLICY_DENY_POD : 0) | (ctr ? RDT_POLICY_DENY_CONTAINER : 0);
	return 0;
}

static void mb_line(struct ctx *c, const struct mb *cls, const struct mb *part, FILE *f)
{
	unsigned int d;

	fprintf(f, "\tschema MB:");
	for (d = 0; d < c->mi.nmb; d++) {
		uint64_t full = c->mi.mb_mbps ? c->mi.mb_max : 100;
		uint64_t base = part->set ? part->v[d] : full, a = cls->set ? cls->v[d] : full;
		/* percent: a share of the partition's; mba_MBps: MBps, capped at the partition's */
		uint64_t v = c->mi.mb_mbps ? (a < base ? a : base) : a * base / 100;

		if (v < c->mi.mb_min)
			v = c->mi.mb_min;
		fprintf(f, "%s%u=%" PRIu64, d ? ";" : "", c->mi.mbdom[d].cache_id, v);
	}
	fputc('\n', f);
}

/* A class: its group and schema lines. */
static int emit_class(struct ctx *c, const char *name, const struct rdt_ynode *cn,
		      const struct partition *p, FILE *f)
{
	struct cat cat[NLV] = { { 0 } };
	struct mb mb = { 0 };
	char w[ERRLEN / 2];
	unsigned int lv;
	bool root = root_class(name);
	int ret = 0;

	if (is_null(cn))
		cn = NULL;	/* "classes:\n  guaranteed:" - a class with every default */
	if (!root && (!rdt_name_valid(name) || !strcmp(name, "default")))
		return gr_fail(c, -EINVAL, "class \"%.64s\" (partition %s): not a group name here (1 to "
			    "63 of A-Z a-z 0-9 _ . -, not starting with '.'; \"system/default\" "
			    "is the default group)", name, p->name);
	if (cn && cn->kind != RDT_Y_MAP)
		return gr_fail(c, -EINVAL, "class %s: not a map (line %u)", name, cn->line);
	for (lv = 0; !ret && lv < NLV; lv++) {
		snprintf(w, sizeof(w), "class %s, %s", name, lv == LV_L3 ? "l3Allocation" :
			 "l2Allocation");
		ret = parse_cat(c, rdt_yaml_get(cn, lv == LV_L3 ? "l3Allocation" : "l2Allocation"),
				lv, &cat[lv], w);
		if (!ret && cat[lv].set && !p->cat_given[lv])
			ret = gr_fail(c, -EINVAL, "%s allocation missing from partition %s but class %s "
				   "specifies one", lv_name[lv], p->name, name);
	}
	if (!ret) {
		snprintf(w, sizeof(w), "class %s, mbAllocation", name);
		ret = parse_mb(c, rdt_yaml_get(cn, "mbAllocation"), &mb, w);
		if (!ret && mb.set && !p->mb_given)
			ret = gr_fail(c, -EINVAL, "MB allocation missing from partition %s but class %s "
				   "specifies one", p->name, name);
	}
	if (!ret)
		ret = read_kubernetes(c, name, cn, &c->deny[c->nclasses]);
	if (!ret) {
		c->group[c->nclasses++] = root ? "default" : name;
		fprintf(f, "\ngroup %s\t# partition %s\n", root ? "default" : name, p->name);
	}
	for (lv = 0; !ret && lv < NLV; lv++) {
		if (!c->mi.cat[lv]) {
			if (cat[lv].set && !c->optional[lv])
				ret = gr_fail(c, -EOPNOTSUPP, "%s cache allocation for %s specified in the "
					   "configuration but this machine has none (options.%s."
					   "optional: true allows that)", lv_name[lv], name,
					   lv == LV_L3 ? "l3" : "l2");
			continue;
		}
		if (!c->mi.cdp[lv]) {
			ret = cat_line(c, &cat[lv], &p->cat[lv], lv, CT_UNIFIED, name, f);
		} else {
			ret = cat_line(c, &cat[lv], &p->cat[lv], lv, CT_CODE, name, f);
			if (!ret)
				ret = cat_line(c, &cat[lv], &p->cat[lv], lv, CT_DATA, name, f);
		}
	}
	/*
	 * AMD's MB is in 1/8 GB/s: goresctrl writes no MB line for a percentage
	 * there (the number would cap the class at 12.5 GB/s or less), and a
	 * class that asks for MB is refused unless MB is optional.
	 */
	if (!ret && c->mi.mb && c->mi.mb_amd && (mb.set || p->mb_given) && !c->mb_optional)
		ret = gr_fail(c, -EOPNOTSUPP, "memory bandwidth allocation for %s is in percent, and "
			   "MB on this machine is in 1/8 GB/s (AMD): goresctrl writes no MB line "
			   "there (options.mb.optional: true allows that)", name);
	else if (!ret && c->mi.mb && !c->mi.mb_amd)
		mb_line(c, &mb, &p->mb, f);
	else if (!ret && !c->mi.mb && mb.set && !c->mb_optional)
		ret = gr_fail(c, -EOPNOTSUPP, "memory bandwidth allocation for %s specified in the "
			   "configuration but this machine has none (options.mb.optional: true "
			   "allows that)", name);
	for (lv = 0; lv < NLV; lv++)
		free(cat[lv].a);
	free(mb.v);
	return ret;
}

/* ---- the document ---------------------------------------------------------------------- */

static bool yes(const struct rdt_ynode *n)
{
	static const char *const t[] = { "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On",
					 "ON", "y", "Y" };
	size_t i;

	for (i = 0; is_str(n) && i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(n->s, t[i]))
			return true;
	return false;
}

static int read_options(struct ctx *c, const struct rdt_ynode *root)
{
	const struct rdt_ynode *o = rdt_yaml_get(root, "options");

	if (o && o->kind != RDT_Y_MAP && !is_null(o))
		return gr_fail(c, -EINVAL, "options: not a map (line %u)", o->line);
	c->optional[LV_L2] = yes(rdt_yaml_get(rdt_yaml_get(o, "l2"), "optional"));
	c->optional[LV_L3] = yes(rdt_yaml_get(rdt_yaml_get(o, "l3"), "optional"));
	c->mb_optional = yes(rdt_yaml_get(rdt_yaml_get(o, "mb"), "optional"));
	return 0;
}

static void machine_info(rdtalloc_t *r, struct minfo *mi)
{
	const struct rdt_machine *m = rdt_core_machine(r);
	unsigned int lv;

	memset(mi, 0, sizeof(*mi));
	for (lv = 0; lv < NLV; lv++) {
		const struct rdt_caps *cp = &m->caps[lv_res[lv]];

		mi->cat[lv] = cp->present && m->ndom[lv_res[lv]];
		mi->cdp[lv] = mi->cat[lv] && rdt_core_state(r)->cdp[lv_res[lv]];
		mi->ndom[lv] = mi->cat[lv] ? m->ndom[lv_res[lv]] : 0;
		mi->dom[lv] = m->dom[lv_res[lv]];
		mi->cbm_len[lv] = cp->cbm_len;
		mi->min_bits[lv] = mi->cat[lv] ? cp->min_cbm_bits : 0;
	}
	mi->mb = m->caps[RDT_MB].present && m->ndom[RDT_MB];
	mi->nmb = mi->mb ? m->ndom[RDT_MB] : 0;
	mi->mbdom = m->dom[RDT_MB];
	mi->mb_min = m->caps[RDT_MB].mb_min;
	mi->mb_amd = mi->mb && m->caps[RDT_MB].mb_amd;
	mi->mb_mbps = mi->mb && m->caps[RDT_MB].mb_mbps;
	mi->mb_max = m->caps[RDT_MB].mb_max;
}

static int convert(struct ctx *c, const struct rdt_ynode *root, FILE *f)
{
	const struct rdt_ynode *pn = rdt_yaml_get(root, "partitions");
	struct partition *ps = NULL;
	unsigned int np = 0, i, lv, nclasses = 0;
	char w[ERRLEN / 2];
	size_t k, j;
	int ret;

	if (root && root->kind != RDT_Y_MAP)
		return gr_fail(c, -EINVAL, "not a goresctrl configuration: the document is not a map");
	ret = read_options(c, root);
	if (ret)
		return ret;
	if (is_null(pn))
		pn = NULL;
	if (pn && pn->kind != RDT_Y_MAP)
		return gr_fail(c, -EINVAL, "partitions: not a map (line %u)", pn->line);
	if (pn && pn->n > MAX_PARTITIONS)
		return gr_fail(c, -E2BIG, "%zu partitions: at most %d", pn->n, MAX_PARTITIONS);
	if (pn && pn->n) {
		ps = calloc(pn->n, sizeof(*ps));
		if (!ps)
			return gr_fail(c, -ENOMEM, "out of memory");
		for (k = 0; k < pn->n; k++) {
			if (pn->v[k]->kind != RDT_Y_MAP && !is_null(pn->v[k])) {
				ret = gr_fail(c, -EINVAL, "partition %s: not a map (line %u)",
					   pn->k[k]->s, pn->v[k]->line);
				goto out;
			}
			ps[np++] = (struct partition){ .name = pn->k[k]->s, .node = pn->v[k] };
		}
		qsort(ps, np, sizeof(*ps), cmp_name);
	}
	for (lv = 0; !ret && lv < NLV; lv++)
		ret = resolve_partitions(c, ps, np, lv);
	for (i = 0; !ret && i < np; i++) {
		snprintf(w, sizeof(w), "partition %s, mbAllocation", ps[i].name);
		ret = parse_mb(c, rdt_yaml_get(ps[i].node, "mbAllocation"), &ps[i].mb, w);
		ps[i].mb_given = ps[i].mb.set;
		for (k = 0; !ret && ps[i].mb.set && k < c->mi.nmb; k++)
			if (ps[i].mb.v[k] < c->mi.mb_min)
				ps[i].mb.v[k] = c->mi.mb_min;
	}
	for (i = 0; !ret && i < np; i++) {
		const struct rdt_ynode *cl = rdt_yaml_get(ps[i].node, "classes");

		if (is_null(cl))
			cl = NULL;
		if (cl && cl->kind != RDT_Y_MAP) {
			ret = gr_fail(c, -EINVAL, "partition %s, classes: not a map (line %u)",
				   ps[i].name, cl->line);
			break;
		}
		for (k = 0; !ret && cl && k < cl->n; k++) {
			const char *name = cl->k[k]->s;

			/* class names are unique across partitions */
			for (unsigned int p2 = 0; !ret && p2 <= i; p2++) {
				const struct rdt_ynode *c2 = rdt_yaml_get(ps[p2].node, "classes");

				for (j = 0; !ret && c2 && j < (p2 == i ? k : c2->n); j++)
					if (!strcmp(c2->k[j]->s, name) ||
					    (root_class(name) && root_class(c2->k[j]->s)))
						ret = gr_fail(c, -EINVAL, "class names must be unique: "
							   "\"%.64s\" is given twice", name);
			}
			if (!ret && ++nclasses > MAX_CLASSES)
				ret = gr_fail(c, -E2BIG, "more than %d classes", MAX_CLASSES);
			if (!ret)
				ret = emit_class(c, name, cl->v[k], &ps[i], f);
		}
	}
out:
	for (i = 0; i < np; i++) {
		for (lv = 0; lv < NLV; lv++)
			free(ps[i].cat[lv].a);
		free(ps[i].mb.v);
	}
	free(ps);
	return ret;
}

/* The YAML read, before the state is locked (a big file stalls no writer); *c to free. */
static int load(rdtalloc_t *r, const char *yaml, size_t len, struct rdt_ynode **root,
		struct ctx **c)
{
	char yerr[256];
	int ret;

	rdt_clear_err(r);
	*c = NULL;
	ret = rdt_yaml_load(yaml ? yaml : "", len, root, yerr, sizeof(yerr));
	if (ret)
		return rdt_fail(r, ret, "goresctrl configuration: %s", yerr);
	*c = calloc(1, sizeof(**c));
	if (!*c) {
		rdt_yaml_free(*root);
		*root = NULL;
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	return 0;
}

/* Inside a call: the configuration text for this machine (*text malloc'd), or -errno. */
static int resolve(rdtalloc_t *r, struct ctx *c, const struct rdt_ynode *root, char **text,
		   size_t *tlen)
{
	FILE *f;
	int ret;

	*text = NULL;
	machine_info(r, &c->mi);
	f = open_memstream(text, tlen);
	if (!f)
		return rdt_fail(r, -ENOMEM, "out of memory");
	fprintf(f, "# from a goresctrl configuration: a group per class\n");
	ret = convert(c, root, f);
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	if (ret)
		return rdt_fail(r, ret, "goresctrl configuration: %s", c->err[0] ? c->err :
				"out of memory");
	if (*tlen > INT32_MAX)
		return rdt_fail(r, -E2BIG, "goresctrl configuration: the result is too long");
	return 0;
}

/*
 * One call: the file resolved, and then either its text into buf (apply
 * false: returns its length) or applied as rdtalloc_apply_config_report
 * does, with its classes' policy recorded: all or nothing.
 */
static int goresctrl_call(rdtalloc_t *r, const char *yaml, size_t len, const char *name,
			  bool apply, unsigned int flags, char *buf, size_t buflen,
			  size_t *report_len)
{
	bool write = apply && !(flags & RDTALLOC_APPLY_DRY_RUN);
	struct rdt_ynode *root = NULL;
	struct ctx *c;
	char *text = NULL;
	size_t tlen = 0;
	int ret, changed;

	if (!r || (!yaml && len) || (!buf && buflen))
		return -EINVAL;
	ret = load(r, yaml, len, &root, &c);
	if (ret)
		return ret;
	ret = rdt_core_begin(r, write);
	if (ret)
		goto out;
	ret = resolve(r, c, root, &text, &tlen);
	if (!ret && apply)
		ret = rdt_apply_in_call(r, text, name, flags, buf, buflen, report_len);
	else if (!ret)
		ret = buflen ? snprintf(buf, buflen, "%s", text) : (int)tlen;
	if (ret >= 0 && write) {
		changed = rdt_policy_replace(rdt_core_state(r), c->group, c->deny, c->nclasses);
		if (changed < 0)
			ret = rdt_fail(r, changed, "out of memory");
		else if (changed)
			rdt_core_mark_dirty(r);
	}
	ret = rdt_core_end(r, write, ret);
out:
	free(text);
	rdt_yaml_free(root);
	free(c);
	return ret;
}

RDTALLOC_API int rdtalloc_goresctrl_config(rdtalloc_t *r, const char *yaml, size_t len, char *buf,
					   size_t buflen)
{
	return goresctrl_call(r, yaml, len, NULL, false, 0, buf, buflen, NULL);
}

RDTALLOC_API int rdtalloc_goresctrl_apply(rdtalloc_t *r, const char *yaml, size_t len,
					  const char *name, unsigned int flags, char *report,
					  size_t rlen, size_t *report_len)
{
	return goresctrl_call(r, yaml, len, name, true, flags, report, rlen, report_len);
}

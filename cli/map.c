// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * map: rdtctl map [RESOURCE] [--domain N] [--color=WHEN] [--svg FILE] - the
 * way map. Per cache domain, one row per group over the ways of the CBM
 * (highest bit on the left, as masks are written), the ways shareable with
 * other agents (I/O) and the ways no group uses, as text, JSON or SVG. One
 * JSON document per run; the text and the SVG are renderings of it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "rdtctl.h"

/* One group's row(s) in one domain. */
struct map_group {
	const char *name;
	uint64_t mask;		/* the data mask with CDP on */
	uint64_t code_mask;	/* equal to mask with CDP off */
	bool exclusive;		/* the group's mode: no other group on its ways */
};

/* What the renderings need beyond the document. */
static struct {
	bool color;
	const char *svg;
	/*
	 * Plain text: each domain is printed from what the library answered,
	 * with no document in between (at 10,000 groups building and reading
	 * it back cost most of the command).
	 */
	bool direct;
	/* -j (not pretty, no SVG): each domain printed as soon as it is made */
	bool stream;
	bool streamed;		/* a domain was printed: the next needs a comma */
} map_opts;

/*
 * Group colours, cycled: ANSI for the terminal and the same hues for SVG.
 * Yellow and red are left out; they mark shareable and unused ways.
 */
static const char *const ansi_palette[] = {
	"32", "34", "35", "36", "92", "94", "95", "96",
};
static const char *const svg_palette[] = {
	"#2ca02c", "#1f77b4", "#9467bd", "#17becf", "#98df8a", "#aec7e8", "#c5b0d5", "#9edae5",
};
#define PALETTE_LEN (sizeof(ansi_palette) / sizeof(ansi_palette[0]))
#define ANSI_SHAREABLE "33"
#define ANSI_UNUSED "31"
#define SVG_SHAREABLE "#ffd700"
#define SVG_UNUSED "#ffffff"
#define SVG_EMPTY "#eeeeee"

static uint64_t full_mask(unsigned int cbm_len)
{
	return cbm_len >= 64 ? ~0ULL : (1ULL << cbm_len) - 1;
}

static unsigned int popcount(uint64_t m)
{
	return (unsigned int)__builtin_popcountll(m);
}

/* ---- the data ------------------------------------------------------------- */

/*
 * The CLOSID table of a domain with the group names, grown until it fits
 * (it may change between two calls). Both arrays are malloc'd.
 */
static int domain_entries(rdtalloc_t *r, const char *res, unsigned int id,
			  struct rdtalloc_closid_entry **out, char **names)
{
	size_t cap = 16, nlen = 1024;
	struct rdtalloc_closid_entry *ent = NULL;
	char *buf = NULL;
	int ret;

	for (;;) {
		struct rdtalloc_closid_entry *ne = realloc(ent, cap * sizeof(*ent));
		char *nb = ne ? realloc(buf, nlen) : NULL;

		if (ne)
			ent = ne;
		if (!nb) {
			ret = -ENOMEM;
			fail_msg("out of memory");
			break;
		}
		buf = nb;
		ent[0].sz = sizeof(*ent);
		ret = rdtalloc_closid_entries(r, res, id, ent, cap, buf, nlen);
		if (ret == -ERANGE) {
			nlen *= 4;
			continue;
		}
		if (ret < 0) {
			fail_lib(r, ret);
			break;
		}
		if ((size_t)ret <= cap) {
			*out = ent;
			*names = buf;
			return ret;
		}
		cap = (size_t)ret;
	}
	free(ent);
	free(buf);
	return ret;
}

/* Is name one of the comma-separated list? */
/* A group of a CLOSID table entry: its name (a copy) and the entry. */
struct member {
	char *name;
	int entry;
};

static int cmp_member(const void *a, const void *b)
{
	return strcmp(((const struct member *)a)->name, ((const struct member *)b)->name);
}

static void members_free(struct member *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(m[i].name);
	free(m);
}

/*
 * Every group named in the entries' lists ("a,b,c"), sorted by name: each
 * group is then found by a binary search, not a scan of every list (which
 * made the map of 10,000 groups quadratic).
 */
static struct member *index_members(const struct rdtalloc_closid_entry *ent, int nent,
				    size_t *count)
{
	struct member *m = NULL;
	size_t n = 0, cap = 0;

	for (int e = 0; e < nent; e++) {
		for (const char *p = ent[e].groups; p && *p;) {
			size_t l = strcspn(p, ",");

			if (n == cap) {
				struct member *v = realloc(m, (cap ? cap * 2 : 64) * sizeof(*m));

				if (!v)
					goto nomem;
				m = v;
				cap = cap ? cap * 2 : 64;
			}
			m[n].name = strndup(p, l);
			if (!m[n].name)
				goto nomem;
			m[n++].entry = e;
			p += l + (p[l] == ',');
		}
	}
	if (n)
		qsort(m, n, sizeof(*m), cmp_member);
	*count = n;
	return m ? m : calloc(1, sizeof(*m));
nomem:
	members_free(m, n);
	return NULL;
}

/*
 * The groups of the domain's CLOSID table with their masks and modes, in
 * the order of names (list_groups: default first, then creation order).
 * Returns the count (rows filled into out, which has room for ngroups), or
 * a negative errno (reported).
 */
static int table_groups(rdtalloc_t *r, const struct rdtalloc_closid_entry *ent, int nent,
			char **names, int ngroups, int *modes, struct map_group *out)
{
	size_t nm = 0;
	struct member *m = index_members(ent, nent, &nm);
	int n = 0;

	if (!m)
		return fail_msg("out of memory"), -ENOMEM;
	for (int g = 0; g < ngroups; g++) {
		struct member key = { .name = names[g] };
		const struct member *hit = nm ? bsearch(&key, m, nm, sizeof(*m), cmp_member) : NULL;
		int mode;

		if (!hit)
			continue;
		/* asked once per group, not once per domain: modes[g] < 0 until then */
		mode = modes[g] >= 0 ? modes[g] : (modes[g] = rdtalloc_group_get_mode(r, names[g]));
		if (mode < 0) {
			members_free(m, nm);
			return fail_lib(r, mode), mode;
		}
		out[n].name = names[g];
		out[n].mask = ent[hit->entry].mask;
		out[n].code_mask = ent[hit->entry].code_mask;
		out[n].exclusive = mode & RDTALLOC_MODE_EXCLUSIVE;
		n++;
	}
	members_free(m, nm);
	return n;
}

/*
 * Bit indexes of mask, ascending. Groups share few masks (10,000 groups on
 * five masks, say): the list of a mask seen lately is the same JSON value,
 * referenced again (json-c counts references), not built anew.
 */
static json_object *jbits(uint64_t mask)
{
	static struct {
		uint64_t mask;
		json_object *a;
	} seen[16];
	static unsigned int next;
	json_object *a;

	for (unsigned int i = 0; i < 16; i++)
		if (seen[i].a && seen[i].mask == mask)
			return json_object_get(seen[i].a);
	a = jarr();
	for (unsigned int b = 0; b < 64; b++) {
		if (mask & (1ULL << b))
			jpush(a, jint(b));
	}
	/*
	 * Written out once: json-c would print the shared list anew for every
	 * group holding it (the most of -j map at 10,000 groups). Pretty
	 * printing indents it by where it stands, so there it is left alone.
	 */
	if (!g_opts.pretty) {
		char *text = strdup(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN));

		if (text)
			json_object_set_serializer(a, json_object_userdata_to_json_string, text,
						   json_object_free_userdata);
	}
	/* the cache holds a reference of its own, dropped when it is replaced */
	json_object_put(seen[next].a);
	seen[next].mask = mask;
	seen[next].a = json_object_get(a);
	next = (next + 1) % 16;
	return a;
}

/* A number many rows repeat (a mask's bytes), one JSON value referenced again. */
static json_object *shared_int(long long n)
{
	static struct {
		long long n;
		json_object *v;
	} seen[16];
	static unsigned int next;
	json_object *v;

	for (unsigned int i = 0; i < 16; i++)
		if (seen[i].v && seen[i].n == n)
			return json_object_get(seen[i].v);
	v = jint(n);
	json_object_put(seen[next].v);
	seen[next].n = n;
	seen[next].v = json_object_get(v);
	next = (next + 1) % 16;
	return v;
}

/* The share of the cache that mask allocates, or null when the size is unknown. */
static void jset_bytes(json_object *o, const char *key, uint64_t size, uint64_t mask,
		       unsigned int cbm_len)
{
	if (size && cbm_len)
		jset(o, key, shared_int((long long)(size / cbm_len * popcount(mask))));
	else
		jset_null(o, key);
}

/*
 * The values of a mask that many groups share: its hex text and its bytes,
 * one JSON value each, referenced again (as jbits does for the way list).
 */
static json_object *shared_hex(uint64_t mask)
{
	static struct {
		uint64_t mask;
		json_object *v;
	} seen[16];
	static unsigned int next;

	for (unsigned int i = 0; i < 16; i++)
		if (seen[i].v && seen[i].mask == mask)
			return json_object_get(seen[i].v);
	json_object_put(seen[next].v);
	seen[next].mask = mask;
	seen[next].v = jhex(mask);
	json_object_get(seen[next].v);
	next = (next + 1) % 16;
	return seen[(next + 15) % 16].v;
}

static json_object *shared_bool(bool b)
{
	static json_object *v[2];

	if (!v[b])
		v[b] = jbool(b);
	return json_object_get(v[b]);
}

static json_object *group_row(const struct map_group *g, bool cdp, uint64_t size,
			      unsigned int cbm_len)
{
	json_object *o = jobj();

	jset(o, "name", jstr(g->name));
	jset(o, "mask", shared_hex(g->mask));
	if (cdp)
		jset(o, "code_mask", shared_hex(g->code_mask));
	/* the way lists are for readers of -j; the text and the SVG draw the masks */
	if (g_opts.json) {
		jset(o, "ways", jbits(g->mask));
		if (cdp)
			jset(o, "code_ways", jbits(g->code_mask));
	}
	jset_bytes(o, "bytes", size, g->mask, cbm_len);
	if (cdp)
		jset_bytes(o, "code_bytes", size, g->code_mask, cbm_len);
	jset(o, "exclusive", shared_bool(g->exclusive));
	return o;
}

/* The ways any group uses, with its data or its code mask. */
static uint64_t used_ways(const struct map_group *gr, int n, unsigned int cbm_len)
{
	uint64_t used = 0;

	for (int i = 0; i < n; i++)
		used |= gr[i].mask | gr[i].code_mask;
	return used & full_mask(cbm_len);
}

/*
 * used: ways some group of ours uses (data or code); shared: those of them
 * that other agents (I/O) may use too; free: ways no group uses; exclusive:
 * ways of exclusive groups, which no other group of ours may use.
 */
static json_object *summary(const struct map_group *gr, int n, uint64_t shareable,
			    unsigned int cbm_len)
{
	uint64_t used = used_ways(gr, n, cbm_len), excl = 0;
	json_object *o = jobj();

	for (int i = 0; i < n; i++) {
		if (gr[i].exclusive)
			excl |= gr[i].mask | gr[i].code_mask;
	}
	jset(o, "used", jint(popcount(used)));
	jset(o, "shared", jint(popcount(used & shareable)));
	jset(o, "free", jint(cbm_len - popcount(used)));
	jset(o, "exclusive", jint(popcount(excl)));
	return o;
}

static int print_direct(const struct rdtalloc_resource_info *ri, unsigned int id,
			const struct map_group *gr, int n, uint64_t size);

/* The document of one domain; NULL when a library call failed (reported). */
static json_object *domain_doc(rdtalloc_t *r, const struct rdtalloc_resource_info *ri,
			       unsigned int id, char **names, int ngroups, int *modes)
{
	struct rdtalloc_ways_info w = { .sz = sizeof(w) };
	struct rdtalloc_resource_info io;
	struct rdtalloc_closid_entry *ent;
	struct map_group *gr;
	json_object *dom, *rows;
	uint64_t size = 0;
	unsigned int ways = 0;
	char *buf;
	int nent, n, ret;

	ret = rdtalloc_domain_cache(r, ri->name, id, &size, &ways);
	if (!ret)
		ret = rdtalloc_domain_ways(r, ri->name, id, &w);
	if (ret < 0) {
		fail_lib(r, ret);
		return NULL;
	}
	/* the I/O row: the hardware's ways (bit_usage H/X, io_alloc), not only shareable_bits */
	io = *ri;
	io.shareable_bits = w.io_ways;
	nent = domain_entries(r, ri->name, id, &ent, &buf);
	if (nent < 0)
		return NULL;
	gr = calloc((size_t)ngroups + 1, sizeof(*gr));
	if (!gr) {
		free(ent);
		free(buf);
		fail_msg("out of memory");
		return NULL;
	}
	n = table_groups(r, ent, nent, names, ngroups, modes, gr);
	if (n < 0 || map_opts.direct) {
		ret = n < 0 ? EXIT_FAIL : print_direct(&io, id, gr, n, size);
		free(gr);
		free(ent);
		free(buf);
		return ret ? NULL : jobj();	/* printed: an empty stand-in */
	}
	dom = jobj();
	jset(dom, "resource", jstr(ri->name));
	jset(dom, "cache_id", jint(id));
	jset(dom, "cbm_len", jint(ri->cbm_len));
	if (size)
		jset(dom, "cache_size", jint((long long)size));
	else
		jset_null(dom, "cache_size");
	jset(dom, "shareable_bits", jhex(ri->shareable_bits));
	jset(dom, "io_ways", jhex(w.io_ways));
	jset(dom, "foreign_ways", jhex(w.foreign_ways));
	if (w.io_alloc_enabled)
		jset(dom, "io_alloc_mask", jhex(w.io_alloc_mask));
	jset(dom, "cdp", jbool(ri->cdp_enabled));
	rows = jarr();
	for (int i = 0; i < n; i++)
		jpush(rows, group_row(&gr[i], ri->cdp_enabled, size, ri->cbm_len));
	jset(dom, "groups", rows);
	jset(dom, "unused", jbits(~used_ways(gr, n, ri->cbm_len) & full_mask(ri->cbm_len)));
	jset(dom, "summary", summary(gr, n, w.io_ways, ri->cbm_len));
	free(gr);
	free(ent);
	free(buf);
	return dom;
}

/* ---- reading the document back ------------------------------------------- */

static uint64_t jget_mask(json_object *o, const char *key)
{
	return strtoull(jget_str(o, key), NULL, 16);
}

static uint64_t mask_of_bits(json_object *a)
{
	uint64_t m = 0;

	for (size_t i = 0; i < json_object_array_length(a); i++)
		m |= 1ULL << json_object_get_int(json_object_array_get_idx(a, i));
	return m;
}

/* "9.0 MiB", "-" when unknown (v < 0). */
static void fmt_bytes(char *buf, size_t len, long long v)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double b;
	int u = -1;

	if (v < 0) {
		snprintf(buf, len, "-");
		return;
	}
	b = (double)v;
	while (b >= 1024 && u < 3) {
		b /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%lld B", v);
	else
		snprintf(buf, len, "%.1f %s", b, unit[u]);
}

/* A JSON byte count, -1 for null (unknown). */
static long long jbytes(json_object *v)
{
	return v ? (long long)json_object_get_int64(v) : -1;
}

/* One drawn row: a label, a mask over the ways, what it allocates. */
struct row {
	char label[RDTALLOC_NAME_MAX + 16];
	uint64_t mask;
	long long bytes;	/* -1: unknown; no size column for shareable, unused */
	char mark;		/* '#' a group's, 's' shareable, 'u' unused */
	int color;		/* palette index, -1: the mark's own colour */
	bool exclusive;
};

/* The rows of a domain, in drawing order; returns the count (rows has room). */
static int domain_rows(json_object *dom, struct row *rows)
{
	json_object *groups = jget(dom, "groups");
	bool cdp = jget_bool(dom, "cdp");
	int n = 0;

	for (size_t i = 0; i < json_object_array_length(groups); i++) {
		json_object *g = json_object_array_get_idx(groups, i);

		for (int code = 0; code <= (int)cdp; code++) {
			struct row *w = &rows[n++];

			snprintf(w->label, sizeof(w->label), "%s%s", jget_str(g, "name"),
				 !cdp ? "" : code ? " (code)" : " (data)");
			w->mask = jget_mask(g, code ? "code_mask" : "mask");
			w->bytes = jbytes(jget(g, code ? "code_bytes" : "bytes"));
			w->mark = '#';
			w->color = (int)(i % PALETTE_LEN);
			w->exclusive = jget_bool(g, "exclusive");
		}
	}
	snprintf(rows[n].label, sizeof(rows[n].label), "shareable (I/O)");
	rows[n].mask = jget_mask(dom, "io_ways");
	rows[n].bytes = -1;
	rows[n].mark = 's';
	rows[n].color = -1;
	rows[n++].exclusive = false;
	snprintf(rows[n].label, sizeof(rows[n].label), "unused");
	rows[n].mask = mask_of_bits(jget(dom, "unused"));
	rows[n].bytes = -1;
	rows[n].mark = 'u';
	rows[n].color = -1;
	rows[n++].exclusive = false;
	return n;
}

static size_t domain_nrows(json_object *dom)
{
	size_t ng = json_object_array_length(jget(dom, "groups"));

	return ng * (jget_bool(dom, "cdp") ? 2 : 1) + 2;
}

/* ---- text ------------------------------------------------------------------- */

static const char *row_ansi(const struct row *w)
{
	if (w->color >= 0)
		return ansi_palette[w->color];
	return w->mark == 's' ? ANSI_SHAREABLE : ANSI_UNUSED;
}

static void print_cells(FILE *f, const struct row *w, unsigned int cbm_len)
{
	bool on = false;

	for (unsigned int b = cbm_len; b-- > 0;) {
		bool set = w->mask & (1ULL << b);

		if (map_opts.color && set != on)
			fprintf(f, set ? "\033[%sm" : "\033[0m", row_ansi(w));
		on = set;
		fputc(set ? w->mark : '.', f);
	}
	if (map_opts.color && on)
		fputs("\033[0m", f);
}

static void print_row(FILE *f, const char *ind, const struct row *w, int label_w,
		      unsigned int cbm_len)
{
	int hex_w = (int)(cbm_len + 3) / 4;
	unsigned int n = popcount(w->mask);
	char size[32];

	if (map_opts.color && w->color >= 0)
		fprintf(f, "%s  \033[%sm%-*s\033[0m |", ind, row_ansi(w), label_w, w->label);
	else
		fprintf(f, "%s  %-*s |", ind, label_w, w->label);
	print_cells(f, w, cbm_len);
	fprintf(f, "|  0x%0*llx", hex_w, (unsigned long long)w->mask);
	if (w->mark == '#') {
		fmt_bytes(size, sizeof(size), w->bytes);
		fprintf(f, "  %*u way%s  %s", cbm_len >= 10 ? 2 : 1, n, n == 1 ? " " : "s", size);
	}
	if (w->exclusive)
		fputs("  exclusive", f);
	fputc('\n', f);
}

static void print_legend(void)
{
	printf("ways: highest bit on the left; '#' a group's, 's' shareable with I/O, "
	       "'u' used by no group\n");
}

/* What a domain's text begins and ends with. */
struct dom_head {
	const char *res;
	long long cache_id, cache_size;	/* cache_size -1: unknown */
	unsigned int cbm_len;
	bool cdp;
	long long used, shared, free, excl;
};

/* One domain's rows and summary on f, every line after IND (demo indents). */
static void print_rows(FILE *f, const char *ind, const struct dom_head *h, const struct row *rows,
		       int n)
{
	int label_w = 0;
	char size[32];

	for (int i = 0; i < n; i++) {
		int l = (int)strlen(rows[i].label);

		label_w = l > label_w ? l : label_w;
	}
	fmt_bytes(size, sizeof(size), h->cache_size);
	fprintf(f, "%s%s cache id %lld: %u ways (bits %u..0), %s%s\n", ind, h->res, h->cache_id,
		h->cbm_len, h->cbm_len - 1, strcmp(size, "-") ? size : "size unknown",
		h->cdp ? ", CDP on" : "");
	for (int i = 0; i < n; i++)
		print_row(f, ind, &rows[i], label_w, h->cbm_len);
	fprintf(f, "%s  used %lld, shared with I/O %lld, free %lld, exclusive %lld\n", ind,
		h->used, h->shared, h->free, h->excl);
}

static void print_domain(FILE *f, const char *ind, json_object *dom)
{
	json_object *sum = jget(dom, "summary");
	struct dom_head h = {
		.res = jget_str(dom, "resource"),
		.cache_id = jget_int(dom, "cache_id"),
		.cache_size = jbytes(jget(dom, "cache_size")),
		.cbm_len = (unsigned int)jget_int(dom, "cbm_len"),
		.cdp = jget_bool(dom, "cdp"),
		.used = jget_int(sum, "used"),
		.shared = jget_int(sum, "shared"),
		.free = jget_int(sum, "free"),
		.excl = jget_int(sum, "exclusive"),
	};
	struct row *rows = calloc(domain_nrows(dom), sizeof(*rows));

	if (!rows) {
		fail_msg("out of memory");
		return;
	}
	print_rows(f, ind, &h, rows, domain_rows(dom, rows));
	free(rows);
}

/* The same text straight from the groups of a domain (map_opts.direct). */
static int print_direct(const struct rdtalloc_resource_info *ri, unsigned int id,
			const struct map_group *gr, int n, uint64_t size)
{
	uint64_t used = used_ways(gr, n, ri->cbm_len), excl = 0;
	bool cdp = ri->cdp_enabled;
	struct row *rows = calloc((size_t)n * (cdp ? 2 : 1) + 2, sizeof(*rows));
	struct dom_head h = {
		.res = ri->name, .cache_id = id, .cache_size = size ? (long long)size : -1,
		.cbm_len = ri->cbm_len, .cdp = cdp,
	};
	int k = 0;

	static bool legend;

	if (!rows)
		return fail_msg("out of memory");
	/* the legend with the first domain: a map that fails prints nothing */
	if (!legend)
		print_legend();
	legend = true;
	for (int i = 0; i < n; i++) {
		if (gr[i].exclusive)
			excl |= gr[i].mask | gr[i].code_mask;
		for (int code = 0; code <= (int)cdp; code++) {
			struct row *w = &rows[k++];

			snprintf(w->label, sizeof(w->label), "%s%s", gr[i].name,
				 !cdp ? "" : code ? " (code)" : " (data)");
			w->mask = code ? gr[i].code_mask : gr[i].mask;
			w->bytes = size && ri->cbm_len ?
				   (long long)(size / ri->cbm_len * popcount(w->mask)) : -1;
			w->mark = '#';
			w->color = i % PALETTE_LEN;
			w->exclusive = gr[i].exclusive;
		}
	}
	rows[k] = (struct row){ .label = "shareable (I/O)", .mask = ri->shareable_bits,
				.bytes = -1, .mark = 's', .color = -1 };
	rows[k + 1] = (struct row){ .label = "unused", .mask = ~used & full_mask(ri->cbm_len),
				    .bytes = -1, .mark = 'u', .color = -1 };
	k += 2;
	h.used = popcount(used);
	h.shared = popcount(used & ri->shareable_bits);
	h.free = ri->cbm_len - popcount(used);
	h.excl = popcount(excl);
	print_rows(stdout, "", &h, rows, k);
	free(rows);
	return EXIT_OK;
}

static void print_map(json_object *doc)
{
	print_legend();
	for (size_t i = 0; i < json_object_array_length(doc); i++)
		print_domain(stdout, "", json_object_array_get_idx(doc, i));
}

/* ---- SVG -------------------------------------------------------------------- */

#define SVG_CELL 16
#define SVG_CHAR 8		/* width of a character of the 13px monospace text */
#define SVG_MARGIN 10

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

static void svg_text(FILE *f, const char *cls, int x, int y, const char *s)
{
	fprintf(f, "<text class=\"%s\" x=\"%d\" y=\"%d\">", cls, x, y);
	xml_text(f, s);
	fputs("</text>\n", f);
}

static const char *row_fill(const struct row *w, bool set)
{
	if (!set)
		return SVG_EMPTY;
	if (w->color >= 0)
		return svg_palette[w->color];
	return w->mark == 's' ? SVG_SHAREABLE : SVG_UNUSED;
}

static const char *row_class(const struct row *w)
{
	return w->mark == '#' ? "way" : w->mark == 's' ? "shareable" : "unused";
}

/* One row at y: its label, a rect per way (highest bit left), its mask. */
static void svg_row(FILE *f, const struct row *w, int y, int label_px, unsigned int cbm_len)
{
	int x0 = SVG_MARGIN + label_px;
	char info[64], size[32];

	svg_text(f, w->mark == '#' ? "group" : "label", SVG_MARGIN, y + SVG_CELL - 4, w->label);
	for (unsigned int b = cbm_len; b-- > 0;) {
		bool set = w->mask & (1ULL << b);

		fprintf(f, "<rect class=\"%s\" data-bit=\"%u\" x=\"%d\" y=\"%d\" width=\"%d\" "
			"height=\"%d\" fill=\"%s\" stroke=\"#999999\"/>\n", row_class(w), b,
			x0 + (int)(cbm_len - 1 - b) * SVG_CELL, y, SVG_CELL, SVG_CELL,
			row_fill(w, set));
	}
	if (w->mark == '#') {
		fmt_bytes(size, sizeof(size), w->bytes);
		snprintf(info, sizeof(info), "0x%llx  %u ways  %s%s",
			 (unsigned long long)w->mask, popcount(w->mask), size,
			 w->exclusive ? "  exclusive" : "");
	} else {
		snprintf(info, sizeof(info), "0x%llx", (unsigned long long)w->mask);
	}
	svg_text(f, "info", x0 + (int)cbm_len * SVG_CELL + SVG_MARGIN, y + SVG_CELL - 4, info);
}

/* The domain at *y; returns false when out of memory (reported). */
static bool svg_domain(FILE *f, json_object *dom, int *y, int label_px)
{
	unsigned int cbm_len = (unsigned int)jget_int(dom, "cbm_len");
	json_object *sum = jget(dom, "summary");
	char title[128], size[32];
	struct row *rows;
	int n;

	rows = calloc(domain_nrows(dom), sizeof(*rows));
	if (!rows) {
		fail_msg("out of memory");
		return false;
	}
	n = domain_rows(dom, rows);
	fmt_bytes(size, sizeof(size), jbytes(jget(dom, "cache_size")));
	snprintf(title, sizeof(title), "%s cache id %lld: %u ways, %s%s",
		 jget_str(dom, "resource"), jget_int(dom, "cache_id"), cbm_len,
		 strcmp(size, "-") ? size : "size unknown", jget_bool(dom, "cdp") ? ", CDP on" : "");
	*y += SVG_CELL;
	fputs("<g font-weight=\"bold\">", f);
	svg_text(f, "title", SVG_MARGIN, *y, title);
	fputs("</g>\n", f);
	*y += SVG_CELL / 2;
	for (int i = 0; i < n; i++, *y += SVG_CELL + 2)
		svg_row(f, &rows[i], *y, label_px, cbm_len);
	snprintf(title, sizeof(title), "used %lld, shared with I/O %lld, free %lld, exclusive %lld",
		 jget_int(sum, "used"), jget_int(sum, "shared"), jget_int(sum, "free"),
		 jget_int(sum, "exclusive"));
	*y += SVG_CELL - 4;
	svg_text(f, "summary", SVG_MARGIN, *y, title);
	*y += SVG_CELL / 2;
	free(rows);
	return true;
}

static void svg_legend(FILE *f, int y)
{
	static const struct {
		const char *fill, *text;
	} keys[] = {
		{ SVG_SHAREABLE, "shareable with I/O (other agents use these ways too)" },
		{ SVG_UNUSED, "unused (no group uses these ways)" },
		{ SVG_EMPTY, "not in the row's mask" },
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++, y += SVG_CELL + 4) {
		fprintf(f, "<rect class=\"legend\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
			"fill=\"%s\" stroke=\"#999999\"/>\n", SVG_MARGIN, y, SVG_CELL, SVG_CELL,
			keys[i].fill);
		svg_text(f, "legend", SVG_MARGIN + SVG_CELL + 6, y + SVG_CELL - 4, keys[i].text);
	}
}

/* Size of the picture: the widest label and CBM, every row. */
static void svg_extent(json_object *doc, int *label_px, int *width, int *height)
{
	unsigned int max_len = 0;
	size_t label = strlen("shareable (I/O)"), rows = 0;

	for (size_t i = 0; i < json_object_array_length(doc); i++) {
		json_object *dom = json_object_array_get_idx(doc, i);
		json_object *groups = jget(dom, "groups");
		unsigned int len = (unsigned int)jget_int(dom, "cbm_len");

		max_len = len > max_len ? len : max_len;
		rows += domain_nrows(dom);
		for (size_t k = 0; k < json_object_array_length(groups); k++) {
			size_t l = strlen(jget_str(json_object_array_get_idx(groups, k), "name"));

			l += jget_bool(dom, "cdp") ? strlen(" (data)") : 0;
			label = l > label ? l : label;
		}
	}
	*label_px = (int)(label + 2) * SVG_CHAR;
	/* the mask text right of the ways: "0x7ff  11 ways  1023.9 MiB  exclusive" */
	*width = 2 * SVG_MARGIN + *label_px + (int)max_len * SVG_CELL + 48 * SVG_CHAR;
	*height = (int)json_object_array_length(doc) * (3 * SVG_CELL) +
		  (int)rows * (SVG_CELL + 2) + 3 * (SVG_CELL + 4) + 2 * SVG_MARGIN;
}

static int write_svg(json_object *doc, const char *path)
{
	int label_px, width, height, y = SVG_MARGIN;
	bool ok = true;
	FILE *f;

	f = create_output(path, "map: SVG file");
	if (!f)
		return EXIT_FAIL;
	svg_extent(doc, &label_px, &width, &height);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"13\">\n",
		width, height, width, height);
	fputs("<title>rdtctl map: cache ways per group, highest bit on the left</title>\n", f);
	fprintf(f, "<rect class=\"background\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		"fill=\"#ffffff\"/>\n", width, height);
	for (size_t i = 0; ok && i < json_object_array_length(doc); i++)
		ok = svg_domain(f, json_object_array_get_idx(doc, i), &y, label_px);
	svg_legend(f, y + SVG_CELL / 2);
	fputs("</svg>\n", f);
	if (ferror(f) || fclose(f)) {
		if (ok)
			fail_msg("map: cannot write %s: %s", path, strerror(errno ? errno : EIO));
		return EXIT_FAIL;
	}
	return ok ? EXIT_OK : EXIT_FAIL;
}

/* ---- the command ---------------------------------------------------------- */

/* --color=WHEN; NO_COLOR (any non-empty value) only overrides auto. */
static int parse_color(const char *when)
{
	const char *no_color = getenv("NO_COLOR");

	if (!when || !strcmp(when, "auto"))
		map_opts.color = isatty(STDOUT_FILENO) && !(no_color && no_color[0]);
	else if (!strcmp(when, "always"))
		map_opts.color = true;
	else if (!strcmp(when, "never"))
		map_opts.color = false;
	else
		return usage_error("map: --color '%s': use auto, always or never", when);
	return 0;
}

/* "7" into *id; false: not a cache id. */
static bool parse_id(const char *s, unsigned int *id)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > 0xffffffffUL)
		return false;
	*id = (unsigned int)v;
	return true;
}

/* Append the domains of one cache resource (only cache id *id if given). */
static int add_resource(rdtalloc_t *r, json_object *doc, const struct rdtalloc_resource_info *ri,
			const unsigned int *id, char **names, int ngroups, int *modes)
{
	unsigned int *ids;
	int n;

	if (id) {
		int ret = rdtalloc_domain_cpus(r, ri->name, *id, NULL, 0);

		if (ret < 0)
			return fail_lib(r, ret);
		ids = NULL;
		n = 1;
	} else {
		n = domain_ids(r, ri->name, &ids);
		if (n < 0)
			return EXIT_FAIL;
	}
	for (int i = 0; i < n; i++) {
		json_object *dom = domain_doc(r, ri, id ? *id : ids[i], names, ngroups, modes);

		if (!dom) {
			free(ids);
			return EXIT_FAIL;
		}
		if (map_opts.stream) {
			drift_mark(dom);
			printf("%s%s", map_opts.streamed ? "," : "[",
			       json_object_to_json_string_ext(dom, JSON_C_TO_STRING_NOSLASHESCAPE |
								 JSON_C_TO_STRING_PLAIN));
			map_opts.streamed = true;
			json_object_put(dom);
			dom = jobj();	/* printed: an empty stand-in */
		}
		jpush(doc, dom);
	}
	free(ids);
	return EXIT_OK;
}

/*
 * The map of every cache resource, or of res alone. With --domain and no
 * resource, the resources lacking that cache id are left out; when none has
 * it, the library says so for the first cache resource.
 */
static json_object *map_doc(rdtalloc_t *r, const char *res, const unsigned int *id)
{
	int nres = rdtalloc_resource_count(r), ng, ret = EXIT_OK, found = 0;
	char **names, first[sizeof(((struct rdtalloc_resource_info *)0)->name)] = "";
	json_object *doc;
	int *modes;

	if (nres < 0) {
		fail_lib(r, nres);
		return NULL;
	}
	ng = list_groups(r, &names);
	if (ng < 0)
		return NULL;
	modes = malloc(((size_t)ng + 1) * sizeof(*modes));
	if (!modes) {
		free_names(names, ng);
		fail_msg("out of memory");
		return NULL;
	}
	for (int g = 0; g < ng; g++)
		modes[g] = -1;
	doc = jarr();
	for (int i = 0; i < nres; i++) {
		struct rdtalloc_resource_info ri = { .sz = sizeof(ri) };

		ret = rdtalloc_get_resource_info(r, (unsigned int)i, &ri);
		if (ret < 0) {
			ret = fail_lib(r, ret);
			break;
		}
		if ((res && strcasecmp(res, ri.name)) || !ri.cbm_len)
			continue;
		if (!first[0])
			snprintf(first, sizeof(first), "%s", ri.name);
		if (id && !res && rdtalloc_domain_cpus(r, ri.name, *id, NULL, 0) < 0)
			continue;
		ret = add_resource(r, doc, &ri, id, names, ng, modes);
		if (ret)
			break;
		found++;
	}
	if (!ret && !found && id && !res && first[0])
		fail_lib(r, rdtalloc_domain_cpus(r, first, *id, NULL, 0));
	else if (!ret && !found)
		fail_msg("map: the machine has no cache allocation to draw");
	free_names(names, ng);
	free(modes);
	if (ret || !found) {
		json_object_put(doc);
		return NULL;
	}
	return doc;
}

json_object *map_document(rdtalloc_t *r)
{
	return map_doc(r, NULL, NULL);
}

void map_print(json_object *doc, const char *indent)
{
	for (size_t i = 0; i < json_object_array_length(doc); i++)
		print_domain(stdout, indent, json_object_array_get_idx(doc, i));
}

/* RESOURCE must exist (the library's message lists what does) and have ways. */
static int check_resource(rdtalloc_t *r, const char *res)
{
	unsigned int *ids;

	if (domain_ids(r, res, &ids) < 0)
		return EXIT_FAIL;
	free(ids);
	if (!strcasecmp(res, "MB"))
		return fail_msg("map: MB has no ways to draw");
	return EXIT_OK;
}

int do_map(int argc, char **argv)
{
	static const char synopsis[] =
		"map [RESOURCE] [--domain N] [--color=auto|always|never] [--svg FILE]";
	const char *domain = NULL, *color = NULL, *svg = NULL;
	const struct flag flags[] = {
		{ "--domain", NULL, &domain },
		{ "--color", NULL, &color },
		{ "--svg", NULL, &svg },
		{ NULL, NULL, NULL },
	};
	unsigned int id;
	json_object *doc;
	rdtalloc_t *r;
	int ret;

	ret = parse_flags("map", &argc, argv, flags);
	if (ret)
		return ret;
	MAX_ARGS(1, synopsis);
	ret = parse_color(color);
	if (ret)
		return ret;
	if (domain && !parse_id(domain, &id))
		return usage_error("map: --domain '%s' is not a cache id", domain);
	map_opts.svg = svg;
	r = ctx_ro();
	if (!r)
		return EXIT_FAIL;
	if (argc == 1 && check_resource(r, argv[0]))
		return EXIT_FAIL;
	if (!g_opts.json && !svg) {
		map_opts.direct = true;
		doc = map_doc(r, argc == 1 ? argv[0] : NULL, domain ? &id : NULL);
		json_object_put(doc);
		if (doc)
			drift_print();
		return doc ? EXIT_OK : EXIT_FAIL;
	}
	if (g_opts.json && !g_opts.pretty && !svg) {
		map_opts.stream = true;
		doc = map_doc(r, argc == 1 ? argv[0] : NULL, domain ? &id : NULL);
		if (map_opts.streamed)
			puts("]");
		json_object_put(doc);
		return doc ? EXIT_OK : EXIT_FAIL;
	}
	doc = map_doc(r, argc == 1 ? argv[0] : NULL, domain ? &id : NULL);
	if (!doc)
		return EXIT_FAIL;
	if (svg && write_svg(doc, svg)) {
		json_object_put(doc);
		return EXIT_FAIL;
	}
	/* with --svg the picture is the result: -q prints nothing else */
	return svg ? emit_change(doc, print_map) : emit(doc, print_map);
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * section: the controller's part of the state - the state file's member
 * "control", one controller per L3 domain: the groups it may change (by
 * sequence number: a group removed drops out), their goals, the ways it
 * leaves alone, the interval and the write limit, and the layout in force,
 * so that a controller started again (a new `rdtctl control run`, the
 * agent restarted) goes on from it instead of from all shared - and the
 * calls that keep and read it (rdtalloc_control_set, _get). This file and
 * one line of lib/sections.c are all the controller adds to the state: the
 * engine and lib/state.c know nothing of it (hw/section.h).
 *
 * The part is an array of what is configured, so that a state without a
 * controller copies nothing for a call's undo image.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "cache/cache.h"
#include "control/control.h"
#include "context.h"
#include "errors.h"
#include "hw/section.h"
#include "ways.h"

extern const struct rdt_section rdt_control_section;

_Static_assert(RDT_CTL_NAME_LEN == RDTALLOC_NAME_MAX + 1, "a group's name and its NUL");
_Static_assert(RDT_CTL_MAX == RDTALLOC_CONTROL_MAX, "groups one controller changes");
_Static_assert(RDT_CTL_OWNER_LEN == RDT_OWNER_MAX + 1, "an owner's text and its NUL");

struct rdt_control_state *rdt_control(const struct rdt_state *st)
{
	return rdt_state_part(st, &rdt_control_section);
}

struct rdt_ctl_kept *rdt_control_find(const struct rdt_state *st, int cache_id)
{
	struct rdt_control_state *c = rdt_control(st);

	for (size_t k = 0; k < c->ndom; k++)
		if (c->d[k].cache_id == cache_id)
			return &c->d[k];
	return NULL;
}

static void ctl_free(void *part)
{
	struct rdt_control_state *c = part;

	free(c->d);
	c->d = NULL;
	c->ndom = 0;
}

static int ctl_copy(void *to, const void *from)
{
	const struct rdt_control_state *f = from;
	struct rdt_control_state *t = to;

	if (!f->ndom)
		return 0;
	t->d = malloc(f->ndom * sizeof(*t->d));
	if (!t->d)
		return -ENOMEM;
	memcpy(t->d, f->d, f->ndom * sizeof(*t->d));
	t->ndom = f->ndom;
	return 0;
}

static const char *const kind_name[] = { "shared", "confined", "reserved" };

static json_object *save_dom(const struct rdt_ctl_kept *c)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();

	json_object_object_add(o, "cache_id", json_object_new_int(c->cache_id));
	json_object_object_add(o, "avoid", json_object_new_int64((int64_t)c->avoid));
	json_object_object_add(o, "interval_ms", json_object_new_int((int)c->interval_ms));
	json_object_object_add(o, "writes_per_minute",
			       json_object_new_int((int)c->writes_per_minute));
	if (c->flags & RDTALLOC_CONTROL_ADVISORY)
		json_object_object_add(o, "advisory", json_object_new_boolean(1));
	if (c->flags & RDTALLOC_CONTROL_SHAREABLE)
		json_object_object_add(o, "shareable", json_object_new_boolean(1));
	for (size_t i = 0; i < c->n; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "group", json_object_new_int64((int64_t)c->g[i].seq));
		if (c->g[i].bound_ratio > 0)
			json_object_object_add(e, "bound_miss_ratio",
					       json_object_new_double(c->g[i].bound_ratio));
		if (c->g[i].bound_bps)
			json_object_object_add(e, "bound_bytes_per_sec",
					       json_object_new_int64((int64_t)c->g[i].bound_bps));
		if (c->g[i].exclusive)
			json_object_object_add(e, "exclusive", json_object_new_boolean(1));
		json_object_object_add(e, "kind", json_object_new_string(kind_name[c->g[i].kind]));
		json_object_object_add(e, "ways", json_object_new_int(c->g[i].w));
		if (c->g[i].declared) {
			json_object *d = json_object_new_array();

			json_object_array_add(d, json_object_new_int64((int64_t)c->g[i].decl[0]));
			json_object_array_add(d, json_object_new_int64((int64_t)c->g[i].decl[1]));
			json_object_object_add(e, "declared", d);
			if (c->g[i].decl_owner[0])
				json_object_object_add(e, "declared_owner",
						       json_object_new_string(c->g[i].decl_owner));
		}
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, "groups", arr);
	return o;
}

static json_object *ctl_save(const struct rdt_state *st, const void *part)
{
	const struct rdt_control_state *c = part;
	json_object *o, *arr;

	(void)st;
	if (!c->ndom)
		return NULL;
	o = json_object_new_object();
	arr = json_object_new_array();
	for (size_t k = 0; k < c->ndom; k++)
		json_object_array_add(arr, save_dom(&c->d[k]));
	json_object_object_add(o, "domains", arr);
	return o;
}

static int get_int(json_object *o, const char *key, int64_t lo, int64_t hi, int64_t *v)
{
	json_object *x;

	if (!json_object_object_get_ex(o, key, &x))
		return 0;
	if (!json_object_is_type(x, json_type_int))
		return -EINVAL;
	*v = json_object_get_int64(x);
	return *v < lo || *v > hi ? -EINVAL : 1;
}

static int get_bool(json_object *o, const char *key, bool *v)
{
	json_object *x;

	if (!json_object_object_get_ex(o, key, &x))
		return 0;
	if (!json_object_is_type(x, json_type_boolean))
		return -EINVAL;
	*v = json_object_get_boolean(x);
	return 1;
}

/* "declared": [data, code], the group's masks before the controller's writes */
static int get_declared(json_object *e, struct rdt_ctl_kept_group *g)
{
	char why[128];
	json_object *x;

	if (!json_object_object_get_ex(e, "declared", &x))
		return 0;
	if (!json_object_is_type(x, json_type_array) || json_object_array_length(x) != 2)
		return -EINVAL;
	for (size_t h = 0; h < 2; h++) {
		json_object *m = json_object_array_get_idx(x, h);

		if (!json_object_is_type(m, json_type_int))
			return -EINVAL;
		g->decl[h] = (uint64_t)json_object_get_int64(m);
	}
	g->declared = true;
	if (!json_object_object_get_ex(e, "declared_owner", &x))
		return 0;
	if (!json_object_is_type(x, json_type_string) ||
	    rdt_owner_check(json_object_get_string(x), why, sizeof(why)))
		return -EINVAL;
	snprintf(g->decl_owner, sizeof(g->decl_owner), "%s", json_object_get_string(x));
	return 0;
}

/* One group: 0 read, 1 its group was removed since (it drops out), -EINVAL. */
static int load_group(struct rdt_state *st, struct rdt_ctl_kept_group *g, json_object *e)
{
	int64_t seq = 0, bps = 0, w = 0;
	json_object *x;
	unsigned int k;

	if (!json_object_is_type(e, json_type_object) ||
	    get_int(e, "group", 1, INT64_MAX - 1, &seq) != 1 ||
	    get_int(e, "bound_bytes_per_sec", 1, INT64_MAX, &bps) < 0 ||
	    get_int(e, "ways", 0, 64, &w) < 0)
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	g->seq = (uint64_t)seq;
	g->bound_bps = (uint64_t)bps;
	g->w = (unsigned char)w;
	if (json_object_object_get_ex(e, "bound_miss_ratio", &x)) {
		if (!json_object_is_type(x, json_type_double) &&
		    !json_object_is_type(x, json_type_int))
			return -EINVAL;
		g->bound_ratio = json_object_get_double(x);
		if (!(g->bound_ratio > 0 && g->bound_ratio < 1))
			return -EINVAL;
	}
	if (get_bool(e, "exclusive", &g->exclusive) < 0 || get_declared(e, g) < 0)
		return -EINVAL;
	if (!json_object_object_get_ex(e, "kind", &x) || !json_object_is_type(x, json_type_string))
		return -EINVAL;
	for (k = 0; k < 3 && strcmp(kind_name[k], json_object_get_string(x)); k++)
		;
	if (k == 3 || (k != RDT_CTL_SHARED && !g->w))
		return -EINVAL;
	g->kind = (unsigned char)k;
	return rdt_group_by_seq(st, g->seq) < 0 ? 1 : 0;
}

static int load_dom(struct rdt_state *st, struct rdt_ctl_kept *c, json_object *o)
{
	int64_t cid = 0, avoid = 0, ms = 0, wpm = 0;
	bool advisory = false, shareable = false;
	json_object *arr;
	size_t n;
	int ret;

	memset(c, 0, sizeof(*c));
	if (!json_object_is_type(o, json_type_object) ||
	    get_int(o, "cache_id", 0, INT32_MAX, &cid) != 1 ||
	    get_int(o, "avoid", INT64_MIN, INT64_MAX, &avoid) < 0 ||
	    get_int(o, "interval_ms", 0, 3600000, &ms) < 0 ||
	    get_int(o, "writes_per_minute", 0, RDTALLOC_CONTROL_WPM_MAX, &wpm) < 0 ||
	    get_bool(o, "advisory", &advisory) < 0 || get_bool(o, "shareable", &shareable) < 0 ||
	    !json_object_object_get_ex(o, "groups", &arr) ||
	    !json_object_is_type(arr, json_type_array) ||
	    (n = json_object_array_length(arr)) > RDT_CTL_MAX)
		return -EINVAL;
	c->cache_id = (int)cid;
	c->avoid = (uint64_t)avoid;
	c->interval_ms = (unsigned int)ms;
	c->writes_per_minute = (unsigned int)wpm;
	c->flags = (advisory ? RDTALLOC_CONTROL_ADVISORY : 0) |
		   (shareable ? RDTALLOC_CONTROL_SHAREABLE : 0);
	for (size_t i = 0; i < n; i++) {
		ret = load_group(st, &c->g[c->n], json_object_array_get_idx(arr, i));
		if (ret < 0)
			return ret;
		for (size_t j = 0; !ret && j < c->n; j++)
			if (c->g[j].seq == c->g[c->n].seq)
				return -EINVAL;
		if (!ret)
			c->n++;
	}
	return 0;
}

static int ctl_load(struct rdt_state *st, void *part, json_object *o, const char *path,
		    char *err, size_t len)
{
	struct rdt_control_state *c = part;
	json_object *arr;
	size_t n;

	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "domains", &arr) ||
	    !json_object_is_type(arr, json_type_array) ||
	    (n = json_object_array_length(arr)) > RDT_CTL_DOMS_MAX || !n)
		goto bad;
	c->d = calloc(n, sizeof(*c->d));
	if (!c->d) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		if (load_dom(st, &c->d[c->ndom], json_object_array_get_idx(arr, k)) ||
		    rdt_control_find(st, c->d[c->ndom].cache_id))
			goto bad;
		c->ndom++;
	}
	return 0;
bad:
	ctl_free(c);
	snprintf(err, len, "state file %s: \"control\" is malformed", path);
	return -EINVAL;
}

/* The state file's "control": a controller per domain, and the layout each keeps. */
const struct rdt_section rdt_control_section = {
	.name = "control",
	.size = sizeof(struct rdt_control_state),
	.copy = ctl_copy,
	.free = ctl_free,
	.save = ctl_save,
	.load = ctl_load,
};

/* ---- Keeping and reading a configuration --------------------------------------- */

uint64_t rdt_control_left_alone(rdtalloc_t *r, int dom, unsigned int flags, size_t n,
				const struct rdtalloc_control_group *g)
{
	const struct rdt_state *st = rdt_core_state(r);
	unsigned int slot = st->slot_of[RDT_L3][dom];
	uint64_t ways = 0;

	/*
	 * I/O (DDIO, io_alloc) fills the hardware's ways too: no block of a
	 * group's own there; other owners' exclusive ways are theirs
	 * (resctrl's bit_usage, lib/api/ways.c).
	 */
	ways |= rdt_ways_left_alone(r, RDT_L3, (unsigned int)dom,
				    flags & RDTALLOC_CONTROL_SHAREABLE);
	for (unsigned int k = 0; k < st->ngroups; k++) {
		bool ours = false;

		if (!st->groups[k].live || !st->groups[k].exclusive)
			continue;
		for (size_t i = 0; i < n && !ours; i++)
			ours = !strcmp(g[i].group, st->groups[k].name);
		if (!ours)
			ways |= st->groups[k].mask[slot * 2] | st->groups[k].mask[slot * 2 + 1];
	}
	return ways;
}

void rdt_control_schema_text(const struct rdt_state *st, unsigned int cache_id, uint64_t d,
			     uint64_t c, char *buf, size_t len)
{
	if (st->cdp[RDT_L3])
		snprintf(buf, len, "L3CODE:%u=%llx;L3DATA:%u=%llx", cache_id,
			 (unsigned long long)c, cache_id, (unsigned long long)d);
	else
		snprintf(buf, len, "L3:%u=%llx", cache_id, (unsigned long long)d);
}

bool rdt_control_same(const struct rdt_ctl_kept *a, const struct rdt_ctl_kept *b)
{
	if (a->n != b->n || a->cache_id != b->cache_id || a->avoid != b->avoid ||
	    a->interval_ms != b->interval_ms || a->writes_per_minute != b->writes_per_minute ||
	    a->flags != b->flags)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (a->g[i].seq != b->g[i].seq || a->g[i].bound_ratio != b->g[i].bound_ratio ||
		    a->g[i].bound_bps != b->g[i].bound_bps ||
		    a->g[i].exclusive != b->g[i].exclusive)
			return false;
	return true;
}

static const struct rdt_ctl_kept_group *kept_group(const struct rdt_ctl_kept *k, uint64_t seq)
{
	for (size_t i = 0; k && i < k->n; i++)
		if (k->g[i].seq == seq)
			return &k->g[i];
	return NULL;
}

/*
 * The masks of k's verified layout, by k's groups (masks[i] 0: the group
 * was removed, or the layout no longer fits the domain).
 */
static void kept_masks(rdtalloc_t *r, const struct rdt_ctl_kept *k, uint64_t *masks)
{
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct rdtalloc_control_group g[RDT_CTL_MAX];
	char names[RDT_CTL_MAX][RDT_CTL_NAME_LEN];
	struct rdtalloc_control_conf conf;
	uint64_t m[RDT_CTL_MAX];
	struct rdt_ctl_layout l;
	struct rdt_ctl ctl;
	int n, dom;

	memset(masks, 0, k->n * sizeof(*masks));
	n = rdt_control_conf_of(r, k, &conf, g, names, &l);
	if (n <= 0 || rdt_cache_geometry(r, k->cache_id, &geo, &dom))
		goto out;
	conf.avoid |= rdt_control_left_alone(r, dom, k->flags, (size_t)n, g);
	if (rdt_control_engine(r, &conf, (size_t)n, g, geo.ways, (uint64_t)geo.sets * RDT_LINE,
			       &ctl))
		goto out;
	if (rdt_ctl_adopt(&ctl, &l)) {
		rdt_ctl_masks(&ctl, &ctl.cur, m);
		for (size_t i = 0, j = 0; i < k->n; i++)
			if (rdt_group_by_seq(rdt_core_state(r), k->g[i].seq) >= 0)
				masks[i] = m[j++];
	}
	rdt_ctl_free(&ctl);
out:
	rdt_clear_err(r);
}

void rdt_control_owner(unsigned int cache_id, char *buf, size_t len)
{
	snprintf(buf, len, "control:%u", cache_id);
}

/* The state's slot of cache_id's L3 domain; -errno with errmsg set. */
static int slot_of(rdtalloc_t *r, int cache_id, unsigned int *slot)
{
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	int dom, ret = rdt_cache_geometry(r, cache_id, &geo, &dom);

	if (!ret)
		*slot = rdt_core_state(r)->slot_of[RDT_L3][dom];
	return ret;
}

/* Is group gi's mask in slot me's? Unknown (a state from before owners) counts as such. */
static bool ours(const struct rdt_state *st, int gi, unsigned int slot, const char *me)
{
	const char *o = rdt_group_mask_owner(st, gi, slot);

	return !o || !strcmp(o, me);
}

/* Group gi's mask in slot recorded as owner's ("": not known). */
static int stamp(rdtalloc_t *r, int gi, unsigned int slot, const char *owner)
{
	unsigned int o = 0;

	if (owner[0] && rdt_owner_intern(rdt_core_state(r), owner, &o))
		return rdt_fail(r, -ENOMEM, "out of memory");
	rdt_core_state(r)->groups[gi].mask_owner[slot] = o;
	rdt_core_mark_dirty(r);
	return 0;
}

/* Group gi's masks in slot put back as text, written by me, then owned as declared. */
static int put_back(rdtalloc_t *r, int gi, unsigned int slot, const char *text, const char *me,
		    const char *owner)
{
	int ret = rdt_core_set_writer(r, me, false), err;

	if (ret)
		return ret;
	err = rdt_core_set_schema(r, gi, text);
	rdt_core_set_writer(r, NULL, false);
	if (err) {
		rdt_core_warn(r, "control: group %s: %s cannot be put back (%s): left as it is",
			      rdt_core_state(r)->groups[gi].name, text, rdtalloc_errmsg(r));
		rdt_clear_err(r);
	}
	return stamp(r, gi, slot, owner);
}

/*
 * Inside a write call: the groups of k that are not in next (NULL: every
 * one; next advisory: every one, an advisory controller writes nothing)
 * leave the controller - their declared masks back as their declared
 * owner's, or with keep the masks of the layout last verified. A group
 * someone else took meanwhile (its mask no longer the controller's) is
 * theirs: nothing goes back. A mask that cannot go back (an exclusive
 * group took its ways since) is left as it is, with a warning. An
 * advisory controller wrote nothing: it has nothing to give back.
 */
static int hand_back(rdtalloc_t *r, const struct rdt_ctl_kept *k,
		     const struct rdt_ctl_kept *next, bool keep)
{
	char me[RDT_CTL_OWNER_LEN], text[96];
	uint64_t lay[RDT_CTL_MAX];
	unsigned int slot;
	int ret = 0;

	if (k->flags & RDTALLOC_CONTROL_ADVISORY)
		return 0;
	if (next && (next->flags & RDTALLOC_CONTROL_ADVISORY))
		next = NULL;
	ret = slot_of(r, k->cache_id, &slot);
	if (ret)
		return ret;
	rdt_control_owner((unsigned int)k->cache_id, me, sizeof(me));
	if (keep)
		kept_masks(r, k, lay);
	for (size_t i = 0; !ret && i < k->n; i++) {
		const struct rdt_ctl_kept_group *e = &k->g[i];
		int gi = rdt_group_by_seq(rdt_core_state(r), e->seq);

		if (gi < 0 || kept_group(next, e->seq) || !ours(rdt_core_state(r), gi, slot, me))
			continue;
		if (keep && lay[i])
			rdt_control_schema_text(rdt_core_state(r), (unsigned int)k->cache_id,
						lay[i], lay[i], text, sizeof(text));
		else if (e->declared)
			rdt_control_schema_text(rdt_core_state(r), (unsigned int)k->cache_id,
						e->decl[0], e->decl[1], text, sizeof(text));
		else
			continue;
		ret = put_back(r, gi, slot, text, me, e->decl_owner);
	}
	return ret;
}

/*
 * A "control" member this version could not load is kept aside by the
 * state (lib/state.c: in st->unknown, written back as read) so that the
 * rest of the state works; the control calls say so, and any change of
 * the configuration replaces it.
 */
static bool aside(const struct rdt_state *st)
{
	return st->unknown && json_object_object_get_ex(st->unknown, "control", NULL);
}

void rdt_control_warn_aside(rdtalloc_t *r)
{
	if (aside(rdt_core_state(r)) && !strstr(rdt_core_warnings(r), "\"control\" member"))
		rdt_core_warn(r, "the state's \"control\" member could not be read (damaged, or "
			      "a newer version's): it is kept aside as it was, and no controller "
			      "runs from it; rdtctl control set or clear replaces it");
}

/* Inside a write call: the member kept aside goes (st->unknown is shared with the undo image). */
static int drop_aside(rdtalloc_t *r)
{
	struct rdt_state *st = rdt_core_state(r);
	json_object *rest;
	json_object_iter it;

	if (!aside(st))
		return 0;
	rest = json_object_new_object();
	if (!rest)
		return rdt_fail(r, -ENOMEM, "out of memory");
	json_object_object_foreachC(st->unknown, it)
		if (strcmp(it.key, "control"))
			json_object_object_add(rest, it.key, json_object_get(it.val));
	json_object_put(st->unknown);
	st->unknown = rest;
	rdt_core_mark_dirty(r);
	return 0;
}

/* cache_id's controller replaced by next (next NULL: removed; -1 with NULL: every one). */
static int keep(rdtalloc_t *r, int cache_id, const struct rdt_ctl_kept *next, bool keep_layout)
{
	struct rdt_state *st = rdt_core_state(r);
	struct rdt_control_state *c = rdt_control(st);
	struct rdt_ctl_kept *k = cache_id < 0 ? NULL : rdt_control_find(st, cache_id), *d;
	int ret = drop_aside(r);

	if (ret)
		return ret;
	if (!next && cache_id < 0) {
		for (size_t i = 0; !ret && i < c->ndom; i++)
			ret = hand_back(r, &c->d[i], NULL, keep_layout);
		if (ret)
			return ret;
		ctl_free(c);
	} else if (!next) {
		if (!k)
			return 0;
		ret = hand_back(r, k, NULL, keep_layout);
		if (ret)
			return ret;
		memmove(k, k + 1, (size_t)(c->d + c->ndom - (k + 1)) * sizeof(*k));
		if (!--c->ndom)
			ctl_free(c);
	} else if (k) {
		ret = hand_back(r, k, next, keep_layout);
		if (ret)
			return ret;
		*k = *next;
	} else {
		if (c->ndom >= RDT_CTL_DOMS_MAX)
			return rdt_fail(r, -ENOSPC, "a controller per L3 domain: %d at most",
					RDT_CTL_DOMS_MAX);
		d = realloc(c->d, (c->ndom + 1) * sizeof(*d));
		if (!d)
			return rdt_fail(r, -ENOMEM, "out of memory");
		c->d = d;
		c->d[c->ndom++] = *next;
	}
	rdt_core_mark_dirty(r);
	return 0;
}

/*
 * What the state file can hold and the loader takes back: the API's
 * checks, not the CLI's (a value the section cannot load would lock every
 * later command out).
 */
static int check_kept(rdtalloc_t *r, const struct rdtalloc_control_conf *conf, size_t n,
		      const struct rdtalloc_control_group *g)
{
	const unsigned int known = RDTALLOC_CONTROL_ADVISORY | RDTALLOC_CONTROL_SHAREABLE |
				   RDTALLOC_CONTROL_KEEP;

	if (conf->flags & ~known)
		return rdt_fail(r, -EINVAL, "control flags %#x: a kept configuration takes "
				"RDTALLOC_CONTROL_ADVISORY, _SHAREABLE and _KEEP (the others are "
				"a simulated run's)", conf->flags);
	if (conf->interval_accesses || conf->intervals)
		return rdt_fail(r, -EINVAL, "a kept configuration has no accesses per interval "
				"or intervals: those are a simulated run's");
	if (conf->writes_per_minute > RDTALLOC_CONTROL_WPM_MAX)
		return rdt_fail(r, -EINVAL, "writes_per_minute %u: at most %u (0: no limit)",
				conf->writes_per_minute, RDTALLOC_CONTROL_WPM_MAX);
	if (conf->interval_ms && (conf->interval_ms < 10 || conf->interval_ms > 3600000))
		return rdt_fail(r, -EINVAL, "interval_ms %u: 10 to 3600000 (0: 1000)",
				conf->interval_ms);
	for (size_t i = 0; i < n; i++)
		if (g[i].bound_bytes_per_sec > INT64_MAX)
			return rdt_fail(r, -EINVAL, "group %s: bound_bytes_per_sec %llu: at most %lld",
					g[i].group, (unsigned long long)g[i].bound_bytes_per_sec,
					(long long)INT64_MAX);
	return 0;
}

/*
 * Inside a write call: next's groups become the controller's. A group
 * whose mask in the domain is already the controller's keeps what was
 * declared for it; any other is taken over - refused (-EBUSY, naming the
 * owner) where another owner holds it, unless the caller forces - its
 * masks and their owner recorded as declared first. An advisory
 * controller takes nothing: it writes nothing.
 */
static int take_over(rdtalloc_t *r, struct rdt_ctl_kept *next, const struct rdt_ctl_kept *old)
{
	bool advisory = next->flags & RDTALLOC_CONTROL_ADVISORY;
	char me[RDT_CTL_OWNER_LEN], what[RDT_CTL_NAME_LEN + 8];
	struct rdt_state *st = rdt_core_state(r);
	unsigned int slot;
	int ret = slot_of(r, next->cache_id, &slot);

	if (ret)
		return ret;
	if (old && (old->flags & RDTALLOC_CONTROL_ADVISORY))
		old = NULL;	/* it wrote nothing: what it recorded is not what to put back */
	rdt_control_owner((unsigned int)next->cache_id, me, sizeof(me));
	for (size_t i = 0; !ret && i < next->n; i++) {
		struct rdt_ctl_kept_group *e = &next->g[i];
		const struct rdt_ctl_kept_group *was = kept_group(old, e->seq);
		int gi = rdt_group_by_seq(st, e->seq);
		const char *o = rdt_group_mask_owner(st, gi, slot);

		if (was && was->declared && ours(st, gi, slot, me) && !advisory) {
			e->declared = true;
			memcpy(e->decl, was->decl, sizeof(e->decl));
			memcpy(e->decl_owner, was->decl_owner, sizeof(e->decl_owner));
			continue;
		}
		snprintf(what, sizeof(what), "group %s", st->groups[gi].name);
		if (!advisory && (!o || strcmp(o, me)) &&
		    rdt_owner_may(st, st->groups[gi].mask_owner[slot], what, "its mask is"))
			return rdt_core_engine_err(r, -EBUSY);
		e->declared = true;
		e->decl[0] = st->groups[gi].mask[slot * 2];
		e->decl[1] = st->groups[gi].mask[slot * 2 + 1];
		snprintf(e->decl_owner, sizeof(e->decl_owner), "%s", o && strcmp(o, me) ? o : "");
		if (!advisory)
			ret = stamp(r, gi, slot, me);
	}
	return ret;
}

static int make_kept(rdtalloc_t *r, const struct rdtalloc_control_conf *conf, size_t n,
		     const struct rdtalloc_control_group *groups, struct rdt_ctl_kept *next,
		     int *cache_id)
{
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct rdtalloc_control_conf c;
	struct rdt_ctl ctl;
	int ret, dom;

	memset(&c, 0, sizeof(c));
	memcpy(&c, conf, conf->sz < sizeof(c) ? conf->sz : sizeof(c));
	ret = check_kept(r, &c, n, groups);
	c.flags = 0;	/* the checks the simulated run shares know no kept flag */
	if (!ret)
		ret = rdt_control_check(r, &c, n, groups, false);
	c.flags = conf->flags & (RDTALLOC_CONTROL_ADVISORY | RDTALLOC_CONTROL_SHAREABLE);
	if (!ret)
		ret = rdt_cache_geometry(r, conf->cache_id, &geo, &dom);
	if (ret)
		return ret;
	*cache_id = (int)geo.cache_id;
	c.avoid |= rdt_control_left_alone(r, dom, c.flags, n, groups);
	ret = rdt_control_engine(r, &c, n, groups, geo.ways, (uint64_t)geo.sets * RDT_LINE, &ctl);
	if (ret)
		return ret;
	memset(next, 0, sizeof(*next));
	next->n = n;
	next->cache_id = (int)geo.cache_id;
	next->avoid = conf->avoid;
	next->interval_ms = conf->interval_ms;
	next->writes_per_minute = conf->writes_per_minute;
	next->flags = c.flags;
	for (size_t i = 0; !ret && i < n; i++) {
		int gi = rdt_core_find_group(r, groups[i].group);

		if (gi < 0) {
			ret = gi;
			break;
		}
		if (!gi)
			ret = rdt_fail(r, -EINVAL, "the default group is not the controller's to "
				       "change: give it the groups it may");
		next->g[i].seq = rdt_core_state(r)->groups[gi].seq;
		next->g[i].bound_ratio = groups[i].bound_miss_ratio;
		next->g[i].bound_bps = groups[i].bound_bytes_per_sec;
		next->g[i].exclusive = groups[i].exclusive;
		next->g[i].kind = ctl.cur.kind[i];
		next->g[i].w = ctl.cur.w[i];
	}
	rdt_ctl_free(&ctl);
	return ret;
}

int rdt_control_drop(rdtalloc_t *r, int cache_id, uint64_t seq)
{
	struct rdt_control_state *c = rdt_control(rdt_core_state(r));
	struct rdt_ctl_kept *k = rdt_control_find(rdt_core_state(r), cache_id);

	for (size_t i = 0; k && i < k->n; i++) {
		if (k->g[i].seq != seq)
			continue;
		memmove(&k->g[i], &k->g[i + 1], (k->n - i - 1) * sizeof(k->g[0]));
		rdt_core_mark_dirty(r);
		if (--k->n)
			return 0;
		/* its last group: the domain's controller goes */
		memmove(k, k + 1, (size_t)(c->d + c->ndom - (k + 1)) * sizeof(*k));
		if (!--c->ndom)
			ctl_free(c);
		return 0;
	}
	return 0;
}

RDTALLOC_API int rdtalloc_control_set(rdtalloc_t *r, const struct rdtalloc_control_conf *conf,
				      size_t n, const struct rdtalloc_control_group *groups)
{
	struct rdt_ctl_kept *next;
	int ret, cache_id = -1;
	bool keep_layout;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	if (!conf || conf->sz < offsetof(struct rdtalloc_control_conf, interval_accesses)) {
		ret = rdt_fail(r, -EINVAL, "the control configuration's sz is not set");
		return rdt_core_end(r, true, ret);
	}
	keep_layout = conf->flags & RDTALLOC_CONTROL_KEEP;
	if (!n) {
		struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
		int dom;

		if (conf->flags & ~RDTALLOC_CONTROL_KEEP)
			ret = rdt_fail(r, -EINVAL, "control flags %#x: clearing takes "
				       "RDTALLOC_CONTROL_KEEP alone", conf->flags);
		/* cache_id -1: every domain's controller goes */
		if (!ret && conf->cache_id >= 0 &&
		    !(ret = rdt_cache_geometry(r, conf->cache_id, &geo, &dom)))
			cache_id = (int)geo.cache_id;
		if (!ret)
			ret = keep(r, cache_id, NULL, keep_layout);
		return rdt_core_end(r, true, ret);
	}
	next = malloc(sizeof(*next));
	if (!next)
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	if (!ret)
		ret = make_kept(r, conf, n, groups, next, &cache_id);
	if (!ret)
		ret = take_over(r, next, rdt_control_find(rdt_core_state(r), cache_id));
	if (!ret)
		ret = keep(r, cache_id, next, keep_layout);
	free(next);
	return rdt_core_end(r, true, ret);
}


int rdt_control_conf_of(rdtalloc_t *r, const struct rdt_ctl_kept *c,
			struct rdtalloc_control_conf *conf, struct rdtalloc_control_group *g,
			char (*names)[RDT_CTL_NAME_LEN], struct rdt_ctl_layout *l)
{
	size_t k = 0;

	memset(conf, 0, sizeof(*conf));
	conf->sz = sizeof(*conf);
	conf->cache_id = c->cache_id;
	conf->avoid = c->avoid;
	conf->interval_ms = c->interval_ms;
	conf->writes_per_minute = c->writes_per_minute;
	conf->flags = c->flags;
	if (l)
		memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < c->n; i++) {
		int gi = rdt_group_by_seq(rdt_core_state(r), c->g[i].seq);

		if (gi < 0)
			continue;
		memset(&g[k], 0, sizeof(g[k]));
		g[k].sz = sizeof(g[k]);
		snprintf(names[k], RDT_CTL_NAME_LEN, "%s", rdt_core_state(r)->groups[gi].name);
		g[k].group = names[k];
		g[k].bound_miss_ratio = c->g[i].bound_ratio;
		g[k].bound_bytes_per_sec = c->g[i].bound_bps;
		g[k].exclusive = c->g[i].exclusive;
		if (l) {
			l->kind[k] = c->g[i].kind;
			l->w[k] = c->g[i].w;
		}
		k++;
	}
	return (int)k;
}

/* The names rdtalloc_control_get points to: the calling thread's, until its next call. */
static char (*name_buf(void))[RDT_CTL_NAME_LEN]
{
	static __thread char names[RDT_CTL_MAX][RDT_CTL_NAME_LEN];

	return names;
}

RDTALLOC_API int rdtalloc_control_get(rdtalloc_t *r, struct rdtalloc_control_conf *conf,
				      struct rdtalloc_control_group *groups, size_t max)
{
	struct rdtalloc_control_group g[RDT_CTL_MAX];
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct rdtalloc_control_conf cf;
	const struct rdt_ctl_kept *k = NULL;
	int ret, n = 0, dom;

	if (!r || !conf || (max && !groups))
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	if (conf->sz < offsetof(struct rdtalloc_control_conf, avoid) ||
	    (max && groups[0].sz < sizeof(size_t))) {
		ret = rdt_fail(r, -EINVAL, "rdtalloc_control_get: sz is not set");
		return rdt_core_end(r, false, ret);
	}
	/* conf->cache_id names the domain (-1: the first one configured) */
	if (conf->cache_id < 0 && rdt_control(rdt_core_state(r))->ndom)
		k = &rdt_control(rdt_core_state(r))->d[0];
	else if (conf->cache_id >= 0 && !(ret = rdt_cache_geometry(r, conf->cache_id, &geo, &dom)))
		k = rdt_control_find(rdt_core_state(r), (int)geo.cache_id);
	if (ret)
		return rdt_core_end(r, false, ret);
	memset(&cf, 0, sizeof(cf));
	cf.cache_id = conf->cache_id;
	if (k)
		n = rdt_control_conf_of(r, k, &cf, g, name_buf(), NULL);
	rdt_control_warn_aside(r);
	cf.sz = conf->sz < sizeof(cf) ? conf->sz : sizeof(cf);
	memcpy(conf, &cf, cf.sz);
	for (size_t i = 0; i < (size_t)n && i < max; i++) {
		size_t sz = groups[i].sz ? groups[i].sz : groups[0].sz;

		g[i].sz = sz < sizeof(g[i]) ? sz : sizeof(g[i]);
		memcpy(&groups[i], &g[i], g[i].sz);
	}
	return rdt_core_end(r, false, n);
}

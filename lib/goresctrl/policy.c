// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * policy: see policy.h. A part of the state (hw/section.h) of its own, so
 * that the engine and the state file know nothing of it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "goresctrl/policy.h"
#include "hw/section.h"

static struct rdt_policy_state *part_of(const struct rdt_state *st)
{
	return rdt_state_part(st, &rdt_policy_section);
}

static void policy_free(void *part)
{
	struct rdt_policy_state *ps = part;

	free(ps->v);
	ps->v = NULL;
	ps->n = 0;
}

static int policy_copy(void *to, const void *from)
{
	const struct rdt_policy_state *src = from;
	struct rdt_policy_state *dst = to;

	dst->v = NULL;
	dst->n = 0;
	if (!src->n)
		return 0;
	dst->v = malloc(src->n * sizeof(*dst->v));
	if (!dst->v)
		return -ENOMEM;
	memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
	dst->n = src->n;
	return 0;
}

/* The rules of live groups; NULL when there is none (a group removed takes its rule along). */
static json_object *policy_save(const struct rdt_state *st, const void *part)
{
	const struct rdt_policy_state *ps = part;
	json_object *arr = NULL;
	unsigned int i;

	for (i = 0; i < ps->n; i++) {
		json_object *o;

		if (rdt_group_by_seq(st, ps->v[i].seq) < 0)
			continue;
		if (!arr)
			arr = json_object_new_array();
		o = json_object_new_object();
		json_object_object_add(o, "group", json_object_new_int64((int64_t)ps->v[i].seq));
		json_object_object_add(o, "deny_pod_annotation", json_object_new_boolean(
			ps->v[i].deny & RDT_POLICY_DENY_POD));
		json_object_object_add(o, "deny_container_annotation", json_object_new_boolean(
			ps->v[i].deny & RDT_POLICY_DENY_CONTAINER));
		json_object_array_add(arr, o);
	}
	return arr;
}

static bool read_flag(json_object *o, const char *key, unsigned int bit, unsigned int *deny)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_boolean))
		return false;
	if (json_object_get_boolean(v))
		*deny |= bit;
	return true;
}

/* Read it back (o NULL: none, a state from before 0.8), every value checked. */
static int policy_load(struct rdt_state *st, void *part, json_object *o, const char *path,
		       char *err, size_t len)
{
	struct rdt_policy_state *ps = part;
	size_t i, j, n;
	json_object *e, *g;

	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_array) ||
	    (n = json_object_array_length(o)) > st->max_groups) {
		snprintf(err, len, "state file %s: \"class_policy\" is not a list of at most %u",
			 path, st->max_groups);
		return -EINVAL;
	}
	ps->v = n ? calloc(n, sizeof(*ps->v)) : NULL;
	if (n && !ps->v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct rdt_policy_rule *r = &ps->v[i];

		e = json_object_array_get_idx(o, i);
		if (!json_object_is_type(e, json_type_object) ||
		    !json_object_object_get_ex(e, "group", &g) ||
		    !json_object_is_type(g, json_type_int) || json_object_get_int64(g) < 0 ||
		    !read_flag(e, "deny_pod_annotation", RDT_POLICY_DENY_POD, &r->deny) ||
		    !read_flag(e, "deny_container_annotation", RDT_POLICY_DENY_CONTAINER,
			       &r->deny)) {
			snprintf(err, len, "state file %s: class_policy[%zu] is malformed", path,
				 i);
			policy_free(ps);
			return -EINVAL;
		}
		r->seq = (uint64_t)json_object_get_int64(g);
		for (j = 0; j < i; j++) {
			if (ps->v[j].seq == r->seq) {
				snprintf(err, len, "state file %s: class_policy: group %" PRIu64
					 " given twice", path, r->seq);
				policy_free(ps);
				return -EINVAL;
			}
		}
		ps->n = (unsigned int)i + 1;
	}
	return 0;
}

const struct rdt_section rdt_policy_section = {
	.name = "class_policy",
	.size = sizeof(struct rdt_policy_state),
	.copy = policy_copy,
	.free = policy_free,
	.save = policy_save,
	.load = policy_load,
};

unsigned int rdt_policy_of(const struct rdt_state *st, int g)
{
	const struct rdt_policy_state *ps = part_of(st);
	unsigned int i;

	if (g < 0 || (unsigned int)g >= st->ngroups || !st->groups[g].live)
		return 0;
	for (i = 0; i < ps->n; i++)
		if (ps->v[i].seq == st->groups[g].seq)
			return ps->v[i].deny;
	return 0;
}

int rdt_policy_replace(struct rdt_state *st, const char *const *names, const unsigned int *deny,
		       unsigned int n)
{
	struct rdt_policy_state *ps = part_of(st);
	struct rdt_policy_rule *v = n ? calloc(n, sizeof(*v)) : NULL;
	unsigned int i, k = 0;
	bool changed;
	int g;

	if (n && !v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		g = rdt_group_find(st, names[i]);
		if (g < 0 || !deny[i])
			continue;
		v[k].seq = st->groups[g].seq;
		v[k++].deny = deny[i];
	}
	changed = k != ps->n || (k && memcmp(v, ps->v, k * sizeof(*v)));
	free(ps->v);
	ps->v = v;
	ps->n = k;
	return changed;
}

RDTALLOC_API int rdtalloc_goresctrl_policy(rdtalloc_t *r, const char *group)
{
	int ret, g;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	g = rdt_core_find_group(r, group);
	ret = g >= 0 ? (int)rdt_policy_of(rdt_core_state(r), g) : g;
	return rdt_core_end(r, false, ret);
}

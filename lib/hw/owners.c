// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * owners: who made each group, mask and binding of a state (issue 40).
 * Objects hold a small index into the state's table of owner texts rather
 * than the text itself: a state may bind a million tasks, and copying it
 * (the undo image, a dry run) must not copy a string per binding. The table
 * only grows within a state's life in memory; when it is full the owners no
 * object names any more are dropped and the indexes renumbered.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* Past this many texts the unused ones go (a long-lived agent sees many containers). */
#define OWNERS_COMPACT 1024u

static const char *const kinds[] = { "user", "config", "oci", "control" };

int rdt_owner_check(const char *s, char *why, size_t len)
{
	const char *colon;
	size_t i, n;

	if (!s || !*s) {
		snprintf(why, len, "an owner is KIND:NAME (user, config, oci, control), not empty");
		return -EINVAL;
	}
	n = strnlen(s, RDT_OWNER_MAX + 1);
	if (n > RDT_OWNER_MAX) {
		snprintf(why, len, "owner '%.32s...' is longer than %d bytes", s, RDT_OWNER_MAX);
		return -EINVAL;
	}
	for (i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] > '~') {
			snprintf(why, len, "owner '%.*s' has a space or a character that is not "
				 "printable ASCII at byte %zu", (int)n, s, i);
			return -EINVAL;
		}
	colon = strchr(s, ':');
	for (i = 0; colon && colon[1] && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if ((size_t)(colon - s) == strlen(kinds[i]) && !strncmp(s, kinds[i], colon - s))
			return 0;
	snprintf(why, len, "owner '%s' is not KIND:NAME with KIND one of user, config, oci, "
		 "control and a NAME", s);
	return -EINVAL;
}

const char *rdt_owner_name(const struct rdt_state *st, unsigned int o)
{
	return o && o < st->nowners ? st->owners[o] : NULL;
}

/* Every index an object of st holds, marked in used[]. */
static void mark_used(const struct rdt_state *st, bool *used)
{
	unsigned int i, s;
	size_t t;

	for (i = 0; i < st->ngroups; i++) {
		if (!st->groups[i].live)
			continue;
		used[st->groups[i].owner] = true;
		for (s = 0; s < st->nslots && st->groups[i].mask_owner; s++)
			used[st->groups[i].mask_owner[s]] = true;
	}
	for (i = 0; i < st->m->ncpus; i++)
		used[st->cpu_owner[i]] = true;
	for (t = 0; t < st->tasks.cap; t++)
		if (st->tasks.slots[t].tid)
			used[st->tasks.slots[t].owner] = true;
	for (i = 0; i < st->ncgroups; i++)
		used[st->cgroups[i].owner] = true;
}

static void renumber(struct rdt_state *st, const unsigned int *to)
{
	unsigned int i, s;
	size_t t;

	for (i = 0; i < st->ngroups; i++) {
		if (!st->groups[i].live)
			continue;
		st->groups[i].owner = to[st->groups[i].owner];
		for (s = 0; s < st->nslots && st->groups[i].mask_owner; s++)
			st->groups[i].mask_owner[s] = to[st->groups[i].mask_owner[s]];
	}
	for (i = 0; i < st->m->ncpus; i++)
		st->cpu_owner[i] = to[st->cpu_owner[i]];
	/* in place: the owner is no part of the map's key, its generation stays */
	for (t = 0; t < st->tasks.cap; t++)
		if (st->tasks.slots[t].tid)
			st->tasks.slots[t].owner = to[st->tasks.slots[t].owner];
	for (i = 0; i < st->ncgroups; i++)
		st->cgroups[i].owner = to[st->cgroups[i].owner];
}

/* Drop the texts no object names; -ENOMEM leaves everything as it was. */
static int compact(struct rdt_state *st)
{
	bool *used = calloc(st->nowners, sizeof(*used));
	unsigned int *to = calloc(st->nowners, sizeof(*to));
	unsigned int i, n = 1;

	if (!used || !to) {
		free(used);
		free(to);
		return -ENOMEM;
	}
	mark_used(st, used);
	for (i = 1; i < st->nowners; i++) {
		if (!used[i]) {
			free(st->owners[i]);
			continue;
		}
		to[i] = n;
		st->owners[n++] = st->owners[i];
	}
	st->nowners = n;
	renumber(st, to);
	st->writer_idx = 0;
	free(used);
	free(to);
	return 0;
}

int rdt_owner_intern(struct rdt_state *st, const char *name, unsigned int *o)
{
	unsigned int i;
	char *dup;
	int err;

	for (i = 1; i < st->nowners; i++)
		if (!strcmp(st->owners[i], name)) {
			*o = i;
			return 0;
		}
	if (st->nowners >= OWNERS_COMPACT && st->nowners == st->cap_owners) {
		err = compact(st);
		if (err)
			return err;
	}
	if (st->nowners + 1 > st->cap_owners || !st->owners) {
		unsigned int cap = st->cap_owners ? st->cap_owners * 2 : 8;
		char **v = realloc(st->owners, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		if (!st->nowners)
			v[st->nowners++] = NULL;	/* 0: unknown */
		st->owners = v;
		st->cap_owners = cap;
	}
	dup = strdup(name);
	if (!dup)
		return -ENOMEM;
	st->owners[st->nowners] = dup;
	*o = st->nowners++;
	return 0;
}

int rdt_owner_writer(struct rdt_state *st, unsigned int *w)
{
	int err;

	*w = 0;
	if (!st->writer)
		return 0;
	if (!st->writer_idx || st->writer_idx >= st->nowners ||
	    strcmp(st->owners[st->writer_idx], st->writer)) {
		err = rdt_owner_intern(st, st->writer, &st->writer_idx);
		if (err)
			return err;
	}
	*w = st->writer_idx;
	return 0;
}

void rdt_owner_describe(const char *owner, char *buf, size_t len)
{
	const char *name = strchr(owner, ':');

	name = name ? name + 1 : owner;
	if (!strncmp(owner, "control:", 8))
		snprintf(buf, len, "the controller's (domain %s)", name);
	else if (!strncmp(owner, "config:", 7))
		snprintf(buf, len, "configuration %s's", name);
	else if (!strncmp(owner, "oci:", 4))
		snprintf(buf, len, "container %s's", name);
	else if (!strncmp(owner, "user:", 5))
		snprintf(buf, len, "user %s's", name);
	else
		snprintf(buf, len, "%s's", owner);
}

bool rdt_owner_admin(const char *owner)
{
	return owner && (!strncmp(owner, "user:", 5) || !strncmp(owner, "config:", 7));
}

int rdt_owner_may(struct rdt_state *st, unsigned int o, const char *what, const char *part)
{
	const char *name = rdt_owner_name(st, o);
	char who[RDT_OWNER_MAX + 40];

	if (!st->writer || !name || st->force || !strcmp(name, st->writer))
		return 0;
	/* persons and configurations administer alike: one takes over from another */
	if (rdt_owner_admin(name) && rdt_owner_admin(st->writer))
		return 0;
	rdt_owner_describe(name, who, sizeof(who));
	snprintf(st->err, sizeof(st->err), "%s: %s %s; --force takes it back", what, part, who);
	return -EBUSY;
}

int rdt_owners_copy(struct rdt_state *st, const struct rdt_state *src)
{
	unsigned int i;

	st->owners = NULL;
	st->nowners = st->cap_owners = 0;
	if (!src->nowners)
		return 0;
	st->owners = calloc(src->nowners, sizeof(*st->owners));
	if (!st->owners)
		return -ENOMEM;
	st->cap_owners = st->nowners = src->nowners;
	for (i = 1; i < src->nowners; i++)
		if (!(st->owners[i] = strdup(src->owners[i])))
			return -ENOMEM;
	return 0;
}

void rdt_owners_free(struct rdt_state *st)
{
	unsigned int i;

	for (i = 1; i < st->nowners; i++)
		free(st->owners[i]);
	free(st->owners);
	st->owners = NULL;
	st->nowners = st->cap_owners = 0;
}

const char *rdt_group_owner(const struct rdt_state *st, int g)
{
	if (g <= 0 || (unsigned int)g >= st->ngroups || !st->groups[g].live)
		return NULL;
	return rdt_owner_name(st, st->groups[g].owner);
}

const char *rdt_group_mask_owner(const struct rdt_state *st, int g, unsigned int s)
{
	if (g <= 0 || (unsigned int)g >= st->ngroups || !st->groups[g].live || s >= st->nslots)
		return NULL;
	return rdt_owner_name(st, st->groups[g].mask_owner[s]);
}

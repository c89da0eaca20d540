// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * maps: open-addressing hash tables keyed by group name and by task id.
 * The load factor is kept at or below 1/2, so probes stay short.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ULL;
	}
	return h ^ (h >> 29);
}

static uint64_t hash_tid(pid_t tid)
{
	uint64_t h = (uint64_t)(uint32_t)tid * 0x9e3779b97f4a7c15ULL;

	return h ^ (h >> 32);
}

static size_t name_slot(const struct rdt_name_map *m, const char *key)
{
	size_t mask = m->cap - 1, i = hash_str(key) & mask;

	while (m->keys[i] && strcmp(m->keys[i], key))
		i = (i + 1) & mask;
	return i;
}

static int name_grow(struct rdt_name_map *m)
{
	struct rdt_name_map n = { .cap = m->cap ? m->cap * 2 : 16 };
	size_t i;

	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		if (m->keys[i]) {
			size_t j = name_slot(&n, m->keys[i]);

			n.keys[j] = m->keys[i];
			n.vals[j] = m->vals[i];
			n.len++;
		}
	}
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

int rdt_name_map_put(struct rdt_name_map *m, const char *key, int val)
{
	size_t i;
	int err;

	if ((m->len + 1) * 2 > m->cap) {
		err = name_grow(m);
		if (err)
			return err;
	}
	i = name_slot(m, key);
	if (!m->keys[i])
		m->len++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

int rdt_name_map_get(const struct rdt_name_map *m, const char *key)
{
	size_t i;

	if (!m->cap)
		return -1;
	i = name_slot(m, key);
	return m->keys[i] ? m->vals[i] : -1;
}

void rdt_name_map_del(struct rdt_name_map *m, const char *key)
{
	size_t mask, i, j;

	if (!m->cap)
		return;
	mask = m->cap - 1;
	i = name_slot(m, key);
	if (!m->keys[i])
		return;
	m->keys[i] = NULL;
	m->len--;
	/* Backward shift: move later members of the run into the hole when
	 * their home slot is not between the hole and their position. */
	for (j = (i + 1) & mask; m->keys[j]; j = (j + 1) & mask) {
		size_t home = hash_str(m->keys[j]) & mask;

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			m->keys[j] = NULL;
			i = j;
		}
	}
}

void rdt_name_map_free(struct rdt_name_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

static size_t task_slot(const struct rdt_task_map *m, pid_t tid)
{
	size_t mask = m->cap - 1, i = hash_tid(tid) & mask;

	while (m->slots[i].tid && m->slots[i].tid != tid)
		i = (i + 1) & mask;
	return i;
}

static int task_grow(struct rdt_task_map *m)
{
	struct rdt_task_map n = { .cap = m->cap ? m->cap * 2 : 64 };
	size_t i;

	n.slots = calloc(n.cap, sizeof(*n.slots));
	if (!n.slots)
		return -ENOMEM;
	for (i = 0; i < m->cap; i++) {
		if (m->slots[i].tid) {
			n.slots[task_slot(&n, m->slots[i].tid)] = m->slots[i];
			n.len++;
		}
	}
	free(m->slots);
	*m = n;
	return 0;
}

/* A new generation, never given before (in this process). */
static uint64_t next_gen(void)
{
	static uint64_t gen;

	return __atomic_add_fetch(&gen, 1, __ATOMIC_RELAXED);
}

int rdt_task_map_put(struct rdt_task_map *m, const struct rdt_task *t)
{
	size_t i;
	int err;

	if ((m->len + 1) * 2 > m->cap) {
		err = task_grow(m);
		if (err)
			return err;
	}
	i = task_slot(m, t->tid);
	if (!m->slots[i].tid)
		m->len++;
	m->slots[i] = *t;
	m->gen = next_gen();
	return 0;
}

struct rdt_task *rdt_task_map_get(const struct rdt_task_map *m, pid_t tid)
{
	size_t i;

	if (!m->cap || tid <= 0)
		return NULL;
	i = task_slot(m, tid);
	return m->slots[i].tid ? &m->slots[i] : NULL;
}

void rdt_task_map_del(struct rdt_task_map *m, pid_t tid)
{
	size_t mask, i, j;

	if (!m->cap || tid <= 0)
		return;
	m->gen = next_gen();
	mask = m->cap - 1;
	i = task_slot(m, tid);
	if (!m->slots[i].tid)
		return;
	m->slots[i].tid = 0;
	m->len--;
	for (j = (i + 1) & mask; m->slots[j].tid; j = (j + 1) & mask) {
		size_t home = hash_tid(m->slots[j].tid) & mask;

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			m->slots[j].tid = 0;
			i = j;
		}
	}
}

void rdt_task_map_free(struct rdt_task_map *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
	m->gen = next_gen();
}

int rdt_task_map_copy(struct rdt_task_map *dst, const struct rdt_task_map *src)
{
	struct rdt_task_map n = { .cap = src->cap, .len = src->len, .gen = next_gen() };

	if (src->cap) {
		n.slots = malloc(src->cap * sizeof(*n.slots));
		if (!n.slots)
			return -ENOMEM;
		memcpy(n.slots, src->slots, src->cap * sizeof(*n.slots));
	}
	*dst = n;
	return 0;
}

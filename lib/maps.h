/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * maps: the two hash tables the engine needs on hot paths - group name to
 * group index, and task id to binding. Open addressing, linear probing,
 * backward-shift deletion (no tombstones), so lookups stay O(1) however many
 * groups and tasks come and go. Owns nothing but its own memory.
 */
#ifndef RDT_MAPS_H
#define RDT_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* name -> int; the names are owned by the caller and must outlive the entry. */
struct rdt_name_map {
	size_t cap;		/* power of two, 0 when empty */
	size_t len;
	const char **keys;
	int *vals;
};

int rdt_name_map_put(struct rdt_name_map *m, const char *key, int val);
/* Value, or -1 when absent. */
int rdt_name_map_get(const struct rdt_name_map *m, const char *key);
void rdt_name_map_del(struct rdt_name_map *m, const char *key);
void rdt_name_map_free(struct rdt_name_map *m);

struct rdt_task {
	pid_t tid;		/* > 0; 0 marks an empty slot */
	int group;		/* group index */
	unsigned int owner;	/* who bound it: index into the state's owners (0: unknown) */
	uint64_t start;		/* start time in clock ticks since boot (0 for virtual tasks) */
};

struct rdt_task_map {
	size_t cap;
	size_t len;
	struct rdt_task *slots;
	/*
	 * Changes with every change of the map, unique across maps: an index
	 * built from a map (the core's tasks by group) is current while its
	 * gen is the map's.
	 */
	uint64_t gen;
};

/* Insert or replace. Change entries only through it (or del): it keeps gen. */
int rdt_task_map_put(struct rdt_task_map *m, const struct rdt_task *t);
struct rdt_task *rdt_task_map_get(const struct rdt_task_map *m, pid_t tid);
void rdt_task_map_del(struct rdt_task_map *m, pid_t tid);
void rdt_task_map_free(struct rdt_task_map *m);
int rdt_task_map_copy(struct rdt_task_map *dst, const struct rdt_task_map *src);

#endif

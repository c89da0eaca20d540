/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * yaml: a YAML document read whole with libyaml into a small tree of
 * mappings, sequences and scalars (every scalar a string), bounded in size,
 * depth and node count, with the line of every node for messages. Anchors
 * and aliases, tags and more than one document are refused.
 */
#ifndef RDT_YAML_H
#define RDT_YAML_H

#include <stdbool.h>
#include <stddef.h>

enum rdt_ynode_kind { RDT_Y_SCALAR, RDT_Y_MAP, RDT_Y_SEQ };

struct rdt_ynode {
	enum rdt_ynode_kind kind;
	unsigned int line;		/* 1-based */
	char *s;			/* RDT_Y_SCALAR */
	bool plain;			/* a scalar written without quotes */
	size_t n;			/* entries of a map or a sequence */
	struct rdt_ynode **k;		/* RDT_Y_MAP: the keys (scalars) */
	struct rdt_ynode **v;		/* the values, or the items */
};

#define RDT_YAML_MAX (1u << 20)		/* bytes of a document */
#define RDT_YAML_DEPTH 32
#define RDT_YAML_NODES 100000u

/* The document's root (NULL for an empty one) or -errno with err set. */
int rdt_yaml_load(const char *text, size_t len, struct rdt_ynode **root, char *err,
		  size_t errlen);
void rdt_yaml_free(struct rdt_ynode *n);
/* The value of key in map m, matched without regard to case; NULL when absent. */
const struct rdt_ynode *rdt_yaml_get(const struct rdt_ynode *m, const char *key);

#endif

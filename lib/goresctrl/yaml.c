// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * yaml: see yaml.h. libyaml's event parser builds the tree; every limit
 * is checked as events arrive, so that no input grows memory past them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "goresctrl/yaml.h"

struct loader {
	yaml_parser_t p;
	const char *text;
	size_t len;
	unsigned int nodes;
	char *err;
	size_t errlen;
};

/*
 * The line libyaml's error is on: a reader error (bad UTF-8, a control
 * character) has only a byte offset, the others a mark.
 */
static unsigned int problem_line(const struct loader *l)
{
	unsigned int line = 1;
	size_t i;

	if (l->p.error != YAML_READER_ERROR)
		return (unsigned int)l->p.problem_mark.line + 1;
	for (i = 0; i < l->p.problem_offset && i < l->len; i++)
		line += l->text[i] == '\n';
	return line;
}

void rdt_yaml_free(struct rdt_ynode *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->n; i++) {
		if (n->k)
			rdt_yaml_free(n->k[i]);
		rdt_yaml_free(n->v[i]);
	}
	free(n->k);
	free(n->v);
	free(n->s);
	free(n);
}

static int yaml_fail(struct loader *l, unsigned int line, const char *what)
{
	snprintf(l->err, l->errlen, "line %u: %s", line, what);
	return -EINVAL;
}

static struct rdt_ynode *new_node(struct loader *l, enum rdt_ynode_kind kind, unsigned int line)
{
	struct rdt_ynode *n;

	if (++l->nodes > RDT_YAML_NODES)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (n) {
		n->kind = kind;
		n->line = line;
	}
	return n;
}

/* Entries grow by doubling: a map of n keys costs O(n), not O(n^2) copies. */
static int push(struct rdt_ynode *parent, struct rdt_ynode *key, struct rdt_ynode *val)
{
	size_t n = parent->n, cap = n < 4 ? 4 : n * 2;
	struct rdt_ynode **v, **k;

	if (n == 0 || (n >= 4 && !(n & (n - 1)))) {
		v = realloc(parent->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		parent->v = v;
		if (parent->kind == RDT_Y_MAP) {
			k = realloc(parent->k, cap * sizeof(*k));
			if (!k)
				return -ENOMEM;
			parent->k = k;
		}
	}
	if (parent->kind == RDT_Y_MAP)
		parent->k[n] = key;
	parent->v[parent->n++] = val;
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	const struct rdt_ynode *x = *(const struct rdt_ynode *const *)a;
	const struct rdt_ynode *y = *(const struct rdt_ynode *const *)b;
	int c = strcmp(x->s, y->s);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/*
 * A key given twice in one map is an error, as in Go's YAML readers
 * (goresctrl's): exactly the same text, so "Web" and "web" are two keys.
 * Sorted once the map is whole: O(n log n) for a map of n keys.
 */
static int unique_keys(struct loader *l, const struct rdt_ynode *n)
{
	struct rdt_ynode **s;
	size_t i;

	if (n->kind != RDT_Y_MAP || n->n < 2)
		return 0;
	s = malloc(n->n * sizeof(*s));
	if (!s)
		return yaml_fail(l, n->line, "out of memory");
	memcpy(s, n->k, n->n * sizeof(*s));
	qsort(s, n->n, sizeof(*s), cmp_key);
	for (i = 1; i < n->n; i++) {
		if (!strcmp(s[i - 1]->s, s[i]->s)) {
			snprintf(l->err, l->errlen, "line %u: key '%.64s' given twice (first on "
				 "line %u)", s[i]->line, s[i]->s, s[i - 1]->line);
			free(s);
			return -EINVAL;
		}
	}
	free(s);
	return 0;
}

static int node(struct loader *l, yaml_event_t *ev, unsigned int depth, struct rdt_ynode **out);

/* The entries of a mapping or a sequence, up to its end event. */
static int entries(struct loader *l, struct rdt_ynode *n, unsigned int depth)
{
	struct rdt_ynode *key = NULL, *val;
	yaml_event_t ev;
	int ret;

	for (;;) {
		if (!yaml_parser_parse(&l->p, &ev)) {
			rdt_yaml_free(key);
			return yaml_fail(l, problem_line(l), l->p.problem ? l->p.problem : "not YAML");
		}
		if (ev.type == YAML_MAPPING_END_EVENT || ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			rdt_yaml_free(key);	/* none: a map ends after a value */
			return unique_keys(l, n);
		}
		ret = node(l, &ev, depth + 1, &val);
		yaml_event_delete(&ev);
		if (ret) {
			rdt_yaml_free(key);
			return ret;
		}
		if (n->kind == RDT_Y_MAP && !key) {
			if (val->kind != RDT_Y_SCALAR) {
				ret = yaml_fail(l, val->line, "a key that is not a scalar");
				rdt_yaml_free(val);
				return ret;
			}
			key = val;
			continue;
		}
		ret = push(n, key, val);
		if (ret) {
			rdt_yaml_free(key);
			rdt_yaml_free(val);
			return yaml_fail(l, n->line, "out of memory");
		}
		key = NULL;
	}
}

static int node(struct loader *l, yaml_event_t *ev, unsigned int depth, struct rdt_ynode **out)
{
	unsigned int line = (unsigned int)ev->start_mark.line + 1;
	struct rdt_ynode *n;
	int ret;

	if (depth > RDT_YAML_DEPTH)
		return yaml_fail(l, line, "nested too deep");
	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		return yaml_fail(l, line, "anchors and aliases are not read");
	case YAML_SCALAR_EVENT:
		if (ev->data.scalar.anchor)
			return yaml_fail(l, line, "anchors and aliases are not read");
		n = new_node(l, RDT_Y_SCALAR, line);
		if (!n)
			return yaml_fail(l, line, "too many nodes");
		n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		n->s = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
		if (!n->s || strlen(n->s) != ev->data.scalar.length) {
			rdt_yaml_free(n);
			return yaml_fail(l, line, "a scalar holding a NUL byte");
		}
		*out = n;
		return 0;
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT:
		if ((ev->type == YAML_MAPPING_START_EVENT ? ev->data.mapping_start.anchor :
		     ev->data.sequence_start.anchor))
			return yaml_fail(l, line, "anchors and aliases are not read");
		n = new_node(l, ev->type == YAML_MAPPING_START_EVENT ? RDT_Y_MAP : RDT_Y_SEQ, line);
		if (!n)
			return yaml_fail(l, line, "too many nodes");
		ret = entries(l, n, depth);
		if (ret) {
			rdt_yaml_free(n);
			return ret;
		}
		*out = n;
		return 0;
	default:
		return yaml_fail(l, line, "not a YAML node");
	}
}

int rdt_yaml_load(const char *text, size_t len, struct rdt_ynode **root, char *err,
		  size_t errlen)
{
	struct loader l = { .text = text, .len = len, .err = err, .errlen = errlen };
	bool done = false;
	yaml_event_t ev;
	int ret = 0;

	*root = NULL;
	if (len > RDT_YAML_MAX) {
		snprintf(err, errlen, "%zu bytes: at most %u", len, RDT_YAML_MAX);
		return -E2BIG;
	}
	if (memchr(text, '\0', len)) {
		snprintf(err, errlen, "holds a NUL byte: not a text file");
		return -EINVAL;
	}
	if (!yaml_parser_initialize(&l.p)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&l.p, (const unsigned char *)text, len);
	while (!ret && !done) {
		if (!yaml_parser_parse(&l.p, &ev)) {
			ret = yaml_fail(&l, problem_line(&l), l.p.problem ? l.p.problem : "not YAML");
			break;
		}
		switch (ev.type) {
		case YAML_STREAM_START_EVENT:
		case YAML_DOCUMENT_END_EVENT:
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (*root)
				ret = yaml_fail(&l, (unsigned int)ev.start_mark.line + 1,
					   "more than one document");
			break;
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		default:
			if (*root)
				ret = yaml_fail(&l, (unsigned int)ev.start_mark.line + 1,
					   "more than one document");
			else
				ret = node(&l, &ev, 1, root);
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&l.p);
	if (ret) {
		rdt_yaml_free(*root);
		*root = NULL;
	}
	return ret;
}

const struct rdt_ynode *rdt_yaml_get(const struct rdt_ynode *m, const char *key)
{
	size_t i;

	if (!m || m->kind != RDT_Y_MAP)
		return NULL;
	for (i = 0; i < m->n; i++)
		if (!strcasecmp(m->k[i]->s, key))
			return m->v[i];
	return NULL;
}

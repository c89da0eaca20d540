// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * snapshot: library data read into plain arrays and strings for the
 * commands - group names, tasks, CPUs, domains, CLOSIDs, a group's masks,
 * schema and owners - each reported on failure; and `OBJECT show [GROUP]`,
 * which reads one group or every one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rdtctl.h"

struct name_list {
	char **names;
	int n, cap;
};

static int add_name(const char *name, void *arg)
{
	struct name_list *l = arg;

	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 16;
		char **p = realloc(l->names, (size_t)cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->names = p;
		l->cap = cap;
	}
	l->names[l->n] = strdup(name);
	if (!l->names[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

void free_names(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int list_groups(rdtalloc_t *r, char ***names)
{
	struct name_list l = { 0 };
	int ret = rdtalloc_group_foreach(r, add_name, &l);

	if (ret < 0) {
		free_names(l.names, l.n);
		*names = NULL;
		if (ret == -ENOMEM && !rdtalloc_errmsg(r)[0])
			fail_msg("out of memory");
		else
			fail_lib(r, ret);
		return ret;
	}
	*names = l.names;
	return l.n;
}

int group_mask(rdtalloc_t *r, const char *group, const char *res, unsigned int id,
	       struct rdtalloc_mask_info *m)
{
	int ret;

	*m = (struct rdtalloc_mask_info){ .sz = sizeof(*m) };
	ret = rdtalloc_group_mask(r, group, res, id, m);
	if (ret < 0)
		fail_lib(r, ret);
	return ret;
}

/*
 * The library's "fill up to max, return how many there are" calls, grown
 * until the whole list fits (it may change between two calls).
 */
#define SNAPSHOT(TYPE, CALL)							\
	({									\
		size_t cap = 64;						\
		TYPE *buf = NULL;						\
		int ret;							\
		for (;;) {							\
			TYPE *nb = realloc(buf, cap * sizeof(TYPE));		\
			if (!nb) {						\
				free(buf);					\
				fail_msg("out of memory");			\
				ret = -ENOMEM;					\
				buf = NULL;					\
				break;						\
			}							\
			buf = nb;						\
			ret = (CALL);						\
			if (ret < 0) {						\
				fail_lib(r, ret);				\
				free(buf);					\
				buf = NULL;					\
				break;						\
			}							\
			if ((size_t)ret <= cap)					\
				break;						\
			cap = (size_t)ret;					\
		}								\
		*out = buf;							\
		ret;								\
	})

int cli_group_tasks(rdtalloc_t *r, const char *group, pid_t **out)
{
	return SNAPSHOT(pid_t, rdtalloc_group_tasks(r, group, buf, cap));
}

int cli_group_cpus(rdtalloc_t *r, const char *group, int **out)
{
	return SNAPSHOT(int, rdtalloc_group_cpus(r, group, buf, cap));
}

int domain_ids(rdtalloc_t *r, const char *res, unsigned int **out)
{
	return SNAPSHOT(unsigned int, rdtalloc_domains(r, res, buf, cap));
}

int domain_cpus(rdtalloc_t *r, const char *res, unsigned int id, int **out)
{
	return SNAPSHOT(int, rdtalloc_domain_cpus(r, res, id, buf, cap));
}

int domain_closids(rdtalloc_t *r, const char *res, unsigned int id,
		   struct rdtalloc_closid_info **out)
{
	return SNAPSHOT(struct rdtalloc_closid_info, rdtalloc_closids(r, res, id, buf, cap));
}

int list_domains(rdtalloc_t *r, const char *res, struct domref **out)
{
	struct domref *list = NULL;
	int nres = rdtalloc_resource_count(r), n = 0;

	*out = NULL;
	if (nres < 0)
		return fail_lib(r, nres), nres;
	for (int i = 0; i < nres; i++) {
		struct rdtalloc_resource_info ri = { .sz = sizeof(ri) };
		unsigned int *ids;
		struct domref *nl;
		int ret = rdtalloc_get_resource_info(r, (unsigned int)i, &ri);

		if (ret < 0) {
			free(list);
			return fail_lib(r, ret), ret;
		}
		if (res && strcasecmp(res, ri.name) != 0)
			continue;
		ret = domain_ids(r, ri.name, &ids);
		if (ret < 0) {
			free(list);
			return ret;
		}
		nl = realloc(list, ((size_t)n + (size_t)ret + 1) * sizeof(*list));
		if (!nl) {
			free(ids);
			free(list);
			fail_msg("out of memory");
			return -ENOMEM;
		}
		list = nl;
		for (int k = 0; k < ret; k++) {
			snprintf(list[n].res, sizeof(list[n].res), "%s", ri.name);
			list[n].id = ids[k];
			list[n].cdp = ri.cdp_enabled;
			list[n].cbm_len = ri.cbm_len;
			list[n].cache_size = 0;
			if (ri.cbm_len) {
				unsigned int ways;

				if (rdtalloc_domain_cache(r, ri.name, ids[k], &list[n].cache_size,
							  &ways))
					list[n].cache_size = 0;	/* unknown: shown as "?" */
			}
			n++;
		}
		free(ids);
	}
	*out = list;
	return n;
}

char *group_schema(rdtalloc_t *r, const char *group)
{
	size_t len = 1024;
	char *buf = NULL;

	for (;;) {
		char *nb = realloc(buf, len);
		int ret;

		if (!nb) {
			free(buf);
			fail_msg("out of memory");
			return NULL;
		}
		buf = nb;
		ret = rdtalloc_get_schema(r, group, buf, len);
		if (ret >= 0 && (size_t)ret < len) {
			while (ret > 0 && buf[ret - 1] == '\n')
				buf[--ret] = '\0';
			return buf;
		}
		if (ret < 0 && ret != -ERANGE) {
			fail_lib(r, ret);
			free(buf);
			return NULL;
		}
		len = ret > 0 ? (size_t)ret + 1 : len * 4;
	}
}

char *cpulist_text(const int *cpus, size_t n)
{
	int len = rdtalloc_format_cpulist(cpus, n, NULL, 0);
	char *s;

	if (len < 0) {
		fail_lib(NULL, len);
		return NULL;
	}
	s = malloc((size_t)len + 1);
	if (!s) {
		fail_msg("out of memory");
		return NULL;
	}
	rdtalloc_format_cpulist(cpus, n, s, (size_t)len + 1);
	return s;
}

char *cli_owner(rdtalloc_t *r, int (*fn)(rdtalloc_t *, const char *, char *, size_t),
		const char *object)
{
	int n = fn(r, object, NULL, 0);
	char *buf;

	if (n < 0) {
		fail_lib(r, n);
		return NULL;
	}
	buf = malloc((size_t)n + 1);
	if (!buf) {
		fail_msg("out of memory");
		return NULL;
	}
	n = fn(r, object, buf, (size_t)n + 1);
	if (n < 0) {
		free(buf);
		fail_lib(r, n);
		return NULL;
	}
	return buf;
}

int show_groups(const char *verb, int argc, char **argv, const struct flag *flags,
		json_object *(*one)(rdtalloc_t *r, const char *group),
		void (*print_one)(json_object *doc), void (*print_all)(json_object *doc))
{
	char synopsis[64], **names;
	json_object *doc;
	rdtalloc_t *r;
	int n, ret;

	ret = parse_flags(verb, &argc, argv, flags);
	if (ret)
		return ret;
	snprintf(synopsis, sizeof(synopsis), "%s [GROUP]", verb);
	MAX_ARGS(1, synopsis);
	r = ctx_ro();
	if (!r)
		return EXIT_FAIL;
	if (argc == 1) {
		doc = one(r, argv[0]);
		return doc ? emit(doc, print_one) : EXIT_FAIL;
	}
	n = list_groups(r, &names);
	if (n < 0)
		return EXIT_FAIL;
	doc = jarr();
	for (int i = 0; i < n; i++) {
		json_object *o = one(r, names[i]);

		if (!o) {
			json_object_put(doc);
			free_names(names, n);
			return EXIT_FAIL;
		}
		jpush(doc, o);
	}
	free_names(names, n);
	return emit(doc, print_all);
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lease: see lease.h. The leases file is changed under its own lock and
 * written whole (a new file renamed into place); schemas change in the
 * state's own transactions. Putting a schema back commits the state first
 * and drops the lease after, so a crash between the two puts the same
 * schema back once more, never loses it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include <rdtalloc/rdtalloc.h>

#include "config.h"
#include "context.h"
#include "errors.h"
#include "hw/section.h"
#include "json.h"
#include "lease.h"
#include "state.h"
#include "store/atomic.h"
#include "tasks.h"

#define LEASES_FILE "leases.json"
#define LEASES_LOCK "leases.lock"
#define LEASES_SIZE_MAX (1u << 20)
#define SCHEMA_MAX 16384

struct lease {
	char group[RDTALLOC_NAME_MAX + 1];
	uint64_t seq;
	char *schema;
	pid_t pid;
	uint64_t start;
};

struct leases {
	int lock_fd;
	char *path;
	struct lease *v;
	unsigned int n;
};

static void leases_free(struct leases *l)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].schema);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int read_one(struct leases *l, json_object *o)
{
	json_object *g, *seq, *sc, *pid, *st;
	struct lease *nv, x = { 0 };

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "group", &g) || !json_object_is_type(g, json_type_string) ||
	    !rdt_name_valid(json_object_get_string(g)) ||
	    !json_object_object_get_ex(o, "seq", &seq) || !json_object_is_type(seq, json_type_int) ||
	    json_object_get_int64(seq) <= 0 ||
	    !json_object_object_get_ex(o, "schema", &sc) ||
	    !json_object_is_type(sc, json_type_string) ||
	    json_object_get_string_len(sc) > SCHEMA_MAX ||
	    !json_object_object_get_ex(o, "pid", &pid) || !json_object_is_type(pid, json_type_int) ||
	    json_object_get_int64(pid) <= 0 || json_object_get_int64(pid) > INT32_MAX ||
	    !json_object_object_get_ex(o, "start", &st) || !json_object_is_type(st, json_type_int) ||
	    json_object_get_int64(st) < 0)
		return -EINVAL;
	snprintf(x.group, sizeof(x.group), "%s", json_object_get_string(g));
	x.seq = (uint64_t)json_object_get_int64(seq);
	x.pid = (pid_t)json_object_get_int64(pid);
	x.start = (uint64_t)json_object_get_int64(st);
	x.schema = strdup(json_object_get_string(sc));
	nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
	if (!x.schema || !nv) {
		free(x.schema);
		if (nv)
			l->v = nv;
		return -ENOMEM;
	}
	l->v = nv;
	l->v[l->n++] = x;
	return 0;
}

/* The leases of the state (none when there is no file); -EINVAL when damaged. */
static int leases_read(rdtalloc_t *r, struct leases *l)
{
	int fd = open(l->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), ret = 0;
	json_object *o = NULL, *id, *arr;
	char *buf = NULL, why[128];
	struct stat sb;
	size_t i, at;

	if (fd < 0)
		return errno == ENOENT ? 0 : rdt_fail(r, -errno, "cannot read %s: %s", l->path,
						      strerror(errno));
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size > LEASES_SIZE_MAX ||
	    !(buf = malloc((size_t)sb.st_size + 1)) ||
	    read(fd, buf, (size_t)sb.st_size) != sb.st_size ||
	    rdt_json_parse(buf, (size_t)sb.st_size, 8, &o, why, sizeof(why), &at) ||
	    !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "id", &id) || !json_object_is_type(id, json_type_string) ||
	    !json_object_object_get_ex(o, "leases", &arr) ||
	    !json_object_is_type(arr, json_type_array) ||
	    json_object_array_length(arr) > RDT_LEASES_MAX)
		ret = -EINVAL;
	/* another state's leases (the state was made anew): none of ours */
	if (!ret && strcmp(json_object_get_string(id), rdtalloc_state_id(r)))
		arr = NULL;
	for (i = 0; !ret && arr && i < json_object_array_length(arr); i++)
		ret = read_one(l, json_object_array_get_idx(arr, i));
	json_object_put(o);
	free(buf);
	close(fd);
	if (ret) {
		leases_free(l);
		return ret == -ENOMEM ? rdt_fail(r, ret, "out of memory") :
		       rdt_fail(r, ret, "%s is damaged: remove it (the schemas it holds for "
				"profiles that were killed are then not put back)", l->path);
	}
	return 0;
}

static int leases_write(rdtalloc_t *r, const struct leases *l)
{
	json_object *o, *arr;
	char why[PATH_MAX + 128];
	struct iovec iov;
	const char *text;
	unsigned int i;
	int ret;

	if (!l->n) {
		if (unlink(l->path) && errno != ENOENT)
			return rdt_fail(r, -errno, "cannot remove %s: %s", l->path, strerror(errno));
		return 0;
	}
	o = json_object_new_object();
	arr = json_object_new_array();
	json_object_object_add(o, "id", json_object_new_string(rdtalloc_state_id(r)));
	for (i = 0; i < l->n; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "group", json_object_new_string(l->v[i].group));
		json_object_object_add(e, "seq", json_object_new_int64((int64_t)l->v[i].seq));
		json_object_object_add(e, "schema", json_object_new_string(l->v[i].schema));
		json_object_object_add(e, "pid", json_object_new_int64(l->v[i].pid));
		json_object_object_add(e, "start", json_object_new_int64((int64_t)l->v[i].start));
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, "leases", arr);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	iov.iov_base = (void *)text;
	iov.iov_len = strlen(text);
	ret = rdt_atomic_write(-1, l->path, &iov, 1, 0600, NULL, why, sizeof(why));
	if (ret)
		rdt_fail(r, ret, "%s", why);
	json_object_put(o);
	return ret;
}

/* Lock the leases of r's state and read them; l->lock_fd -1: no state file. */
static int leases_open(rdtalloc_t *r, struct leases *l)
{
	char *lock, why[PATH_MAX + 128];
	int ret;

	memset(l, 0, sizeof(*l));
	l->lock_fd = -1;
	if (!rdt_core_store(r))
		return 0;
	l->path = rdt_store_sibling(rdt_core_store(r), LEASES_FILE);
	lock = rdt_store_sibling(rdt_core_store(r), LEASES_LOCK);
	if (!l->path || !lock) {
		free(lock);
		free(l->path);
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	l->lock_fd = rdt_atomic_lock(lock, why, sizeof(why));
	if (l->lock_fd < 0) {
		ret = rdt_fail(r, l->lock_fd, "%s", why);
		l->lock_fd = -1;
		free(lock);
		free(l->path);
		return ret;
	}
	free(lock);
	ret = leases_read(r, l);
	if (ret) {
		rdt_atomic_unlock(l->lock_fd);
		free(l->path);
	}
	return ret;
}

static void leases_close(struct leases *l)
{
	leases_free(l);
	rdt_atomic_unlock(l->lock_fd);
	free(l->path);
}

static void drop(struct leases *l, unsigned int i)
{
	free(l->v[i].schema);
	memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(*l->v));
	l->n--;
}

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] == '\n')
		s[--n] = '\0';
}

/* A schema of several lines as one, for a message: lines joined by "; ". */
static const char *one_line(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; *s && o + 3 < len; s++) {
		if (*s == '\n') {
			buf[o++] = ';';
			buf[o++] = ' ';
		} else {
			buf[o++] = *s;
		}
	}
	buf[o] = '\0';
	return buf;
}

/* Put back lease i's schema in one write transaction; 0 when its group is gone too. */
static int put_back(rdtalloc_t *r, const struct lease *ls)
{
	bool changed = false;
	int ret, g;

	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	g = rdt_group_by_seq(rdt_core_state(r), ls->seq);
	if (g >= 0) {
		ret = rdt_core_apply_schema(r, rdt_core_state(r), g, ls->schema, &changed);
		if (!ret && changed) {
			rdt_core_mark_dirty(r);
			rdt_core_mark_groups_changed(r);
		}
	}
	return rdt_core_end(r, true, ret);
}

RDTALLOC_API int rdtalloc_schema_lease(rdtalloc_t *r, const char *group)
{
	struct leases l;
	struct lease x = { 0 };
	uint64_t start;
	char *text = NULL;
	unsigned int i;
	int ret, g, n;

	if (!r)
		return -EINVAL;
	if (!rdt_core_store(r))
		return rdt_fail(r, -EOPNOTSUPP, "a lease needs a state file: this context is "
				"ephemeral (RDTALLOC_F_EPHEMERAL), nothing outlives it");
	if (rdt_core_read_only(r) || rdt_core_peek(r))
		return rdt_fail(r, -EROFS, "this context cannot change anything: no lease");
	ret = rdt_task_info(getpid(), &start, NULL);
	if (ret)
		return rdt_fail(r, ret, "cannot read this process's start time: %s",
				strerror(-ret));
	ret = leases_open(r, &l);
	if (ret)
		return ret;
	ret = rdt_core_begin(r, false);
	if (ret)
		goto out;
	g = rdt_core_find_group(r, group);
	if (g == 0)
		ret = rdt_fail(r, -EINVAL, "the default group's schema cannot be leased");
	if (g > 0) {
		snprintf(x.group, sizeof(x.group), "%s", rdt_core_state(r)->groups[g].name);
		x.seq = rdt_core_state(r)->groups[g].seq;
		n = rdt_core_format_schema(rdt_core_state(r), g, NULL, 0);
		text = n >= 0 ? malloc((size_t)n + 1) : NULL;
		if (!text || rdt_core_format_schema(rdt_core_state(r), g, text, (size_t)n + 1) < 0)
			ret = rdt_fail(r, -ENOMEM, "out of memory");
		else	/* one line a resource: "L3:0=ff;1=ff\nMB:0=50" */
			trim(text);
	} else if (g < 0) {
		ret = g;
	}
	ret = rdt_core_end(r, false, ret);
	for (i = 0; !ret && i < l.n; i++) {
		if (l.v[i].seq != x.seq)
			continue;
		if (rdt_task_alive(l.v[i].pid, l.v[i].start))
			ret = rdt_fail(r, -EBUSY, "group %s's schema is leased by process %d "
				       "already (a profile of it running?)", x.group,
				       (int)l.v[i].pid);
		else
			ret = rdt_fail(r, -EBUSY, "group %s's schema is leased by process %d, "
				       "which is gone: reopen the state to put its schema back",
				       x.group, (int)l.v[i].pid);
	}
	if (!ret && l.n >= RDT_LEASES_MAX)
		ret = rdt_fail(r, -ENOSPC, "%u leases at once, the most a state holds",
			       RDT_LEASES_MAX);
	if (!ret) {
		struct lease *nv = realloc(l.v, (l.n + 1) * sizeof(*nv));

		if (!nv) {
			ret = rdt_fail(r, -ENOMEM, "out of memory");
		} else {
			x.schema = text;
			text = NULL;
			x.pid = getpid();
			x.start = start;
			l.v = nv;
			l.v[l.n++] = x;
			ret = leases_write(r, &l);
		}
	}
out:
	free(text);
	leases_close(&l);
	return ret;
}

RDTALLOC_API int rdtalloc_schema_restore(rdtalloc_t *r, const char *group)
{
	struct leases l;
	unsigned int i;
	int ret;

	if (!r)
		return -EINVAL;
	if (!group || !rdt_name_valid(group))
		return rdt_fail(r, -EINVAL, "invalid group name '%.80s'", group ? group : "(null)");
	/*
	 * After a failed change the state is read again at the next call: read
	 * it now, or the leases (which carry the state's id) look like another
	 * state's and the schema would not go back.
	 */
	ret = rdt_core_begin(r, false);
	ret = rdt_core_end(r, false, ret);
	if (ret < 0)
		return ret;
	ret = leases_open(r, &l);
	if (ret)
		return ret;
	for (i = 0; i < l.n; i++)
		if (!strcmp(l.v[i].group, group) && l.v[i].pid == getpid())
			break;
	if (i == l.n) {
		ret = rdt_fail(r, -ENOENT, "group %s's schema is not leased by this process",
			       group);
	} else {
		ret = put_back(r, &l.v[i]);
		if (!ret) {
			drop(&l, i);
			ret = leases_write(r, &l);
		}
	}
	leases_close(&l);
	return ret;
}

/* A line for the open's warning; kept aside while put_back's transactions clear it. */
static void note(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n && n + 1 < len)
		buf[n++] = '\n';
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

void rdt_lease_recover(rdtalloc_t *r)
{
	char said[RDT_CORE_WARNING_LEN] = "", line[256];
	struct leases l;
	unsigned int i = 0;
	bool changed = false;
	char *path;

	if (!rdt_core_store(r) || rdt_core_peek(r))
		return;
	/* the common case costs one failed access: no file, nothing to lock */
	path = rdt_store_sibling(rdt_core_store(r), LEASES_FILE);
	if (!path || access(path, F_OK)) {
		free(path);
		return;
	}
	if (rdt_core_read_only(r)) {
		/* a look changes nothing: it says what the next change will put back */
		memset(&l, 0, sizeof(l));
		l.lock_fd = -1;
		l.path = path;
		if (!leases_read(r, &l)) {
			for (i = 0; i < l.n; i++)
				if (!rdt_task_alive(l.v[i].pid, l.v[i].start))
					rdt_core_warn(r, "group %s: process %d, which had leased "
						      "its schema (a profile), is gone: the next "
						      "change puts its schema %s back",
						      l.v[i].group, (int)l.v[i].pid,
						      one_line(l.v[i].schema, line, sizeof(line)));
		}
		rdt_clear_err(r);
		leases_close(&l);
		return;
	}
	free(path);
	if (leases_open(r, &l)) {
		rdt_core_warn(r, "%s", rdtalloc_errmsg(r));
		rdt_clear_err(r);
		return;
	}
	while (i < l.n) {
		if (rdt_task_alive(l.v[i].pid, l.v[i].start)) {
			i++;
			continue;
		}
		if (put_back(r, &l.v[i])) {
			note(said, sizeof(said), "group %s: the schema a killed process %d had "
			     "leased could not be put back: %s", l.v[i].group, (int)l.v[i].pid,
			     rdtalloc_errmsg(r));
			rdt_clear_err(r);
			i++;
			continue;
		}
		note(said, sizeof(said), "group %s: process %d, which had leased its schema (a "
		     "profile), is gone: its schema %s is back", l.v[i].group, (int)l.v[i].pid,
		     one_line(l.v[i].schema, line, sizeof(line)));
		drop(&l, i);
		changed = true;
	}
	if (changed && leases_write(r, &l)) {
		note(said, sizeof(said), "%s", rdtalloc_errmsg(r));
		rdt_clear_err(r);
	}
	leases_close(&l);
	if (said[0])
		rdt_core_warn(r, "%s", said);
}

/* No member of the state file: leases keep their own file, and hook the open. */
const struct rdt_section rdt_lease_section = {
	.open = rdt_lease_recover,
};

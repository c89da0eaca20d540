// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * state: crash-safe, locked persistence of the engine state as JSON.
 *
 * The file records the machine description it was made for, the groups in
 * creation order (masks and CLOSIDs per domain), CPU and task bindings, and
 * the register image with its write counters (the simulator's registers, or
 * the shadow of real ones). Everything read back is checked: a state file
 * is input like any other.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "config.h"
#include "json.h"
#include "schema.h"
#include "state.h"
#include "store/atomic.h"

#define STATE_FILE "state.json"
#define LOCK_FILE "lock"
#define STATE_FORMAT 1	/* groups and tasks as packed tables */
#define STATE_MAX_SIZE (256u << 20)

struct rdt_store {
	char *dir;
	char *path;
	int dirfd;
	int lockfd;
	bool have_id;
	dev_t dev;
	ino_t ino;
	struct timespec mtim;
	off_t size;
	json_object *cached;	/* parsed by read_machine, for the read that follows */
	const struct rdt_section *const *sections;	/* of the states read */
};

static int errf(char *err, size_t len, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int errf(char *err, size_t len, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return code;
}

/* ---- Directory and file checks ------------------------------------------ */

int rdt_store_exists(const char *dir)
{
	char path[PATH_MAX];
	struct stat sb;

	if (snprintf(path, sizeof(path), "%s/%s", dir, STATE_FILE) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (!stat(path, &sb))
		return 1;
	return errno == ENOENT ? 0 : -errno;
}

int rdt_store_default_dir(const char *backend, char *buf, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR"), *home = getenv("HOME");
	int n;

	if (geteuid() == 0)
		n = snprintf(buf, len, "/run/rdtalloc/%s", backend);
	else if (xdg && *xdg == '/')
		n = snprintf(buf, len, "%s/rdtalloc/%s", xdg, backend);
	else if (home && *home == '/')
		n = snprintf(buf, len, "%s/.local/state/rdtalloc/%s", home, backend);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int check_owner_mode(const struct stat *sb, const char *what, const char *path,
			    char *err, size_t len)
{
	if (sb->st_uid != geteuid())
		return errf(err, len, -EPERM, "%s %s is owned by uid %u, not by the caller (uid %u)",
			    what, path, (unsigned int)sb->st_uid, (unsigned int)geteuid());
	if (sb->st_mode & (S_IWGRP | S_IWOTH))
		return errf(err, len, -EPERM, "%s %s is writable by group or others (mode %04o)",
			    what, path, (unsigned int)(sb->st_mode & 07777));
	return 0;
}

/* mkdir -p, each new component 0700. */
static int make_dirs(const char *dir, char *err, size_t len)
{
	char *p, *buf = strdup(dir);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (p = buf + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		{
			char c = *p;

			*p = '\0';
			if (mkdir(buf, 0700) && errno != EEXIST) {
				ret = errf(err, len, -errno, "cannot create state directory %s: %s",
					   buf, strerror(errno));
				break;
			}
			*p = c;
			if (c == '\0')
				break;
		}
	}
	free(buf);
	return ret;
}

static int check_dir(const char *dir, char *err, size_t len)
{
	struct stat sb;

	if (lstat(dir, &sb))
		return errf(err, len, -errno, "state directory %s: %s", dir, strerror(errno));
	if (S_ISLNK(sb.st_mode))
		return errf(err, len, -EPERM, "state directory %s is a symlink; refusing it", dir);
	if (!S_ISDIR(sb.st_mode))
		return errf(err, len, -ENOTDIR, "state directory %s is not a directory", dir);
	return check_owner_mode(&sb, "state directory", dir, err, len);
}

static char *join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 2);

	if (s) {
		memcpy(s, a, la);
		s[la] = '/';
		memcpy(s + la + 1, b, lb + 1);
	}
	return s;
}

/* Open a file of the state directory, refusing symlinks and foreign files. */
static int open_checked(struct rdt_store *s, const char *name, int flags, const char *what,
			char *err, size_t len)
{
	struct stat sb;
	int fd;

	fd = openat(s->dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		if (errno == ELOOP)
			return errf(err, len, -EPERM, "%s %s/%s is a symlink; refusing it", what,
				    s->dir, name);
		return -errno;
	}
	if (fstat(fd, &sb)) {
		close(fd);
		return -errno;
	}
	if (!S_ISREG(sb.st_mode)) {
		close(fd);
		return errf(err, len, -EPERM, "%s %s/%s is not a regular file", what, s->dir, name);
	}
	{
		char full[PATH_MAX];
		int ret;

		snprintf(full, sizeof(full), "%s/%s", s->dir, name);
		ret = check_owner_mode(&sb, what, full, err, len);
		if (ret) {
			close(fd);
			return ret;
		}
	}
	return fd;
}

int rdt_store_open(const char *dir, bool ro, const struct rdt_section *const *sections,
		   struct rdt_store **out, char *err, size_t len)
{
	struct rdt_store *s;
	int ret;

	*out = NULL;
	if (!dir || dir[0] != '/')
		return errf(err, len, -EINVAL, "state directory '%s' must be an absolute path",
			    dir ? dir : "");
	if (strlen(dir) > PATH_MAX - 32)
		return errf(err, len, -ENAMETOOLONG, "state directory path is too long");
	ret = ro ? 0 : make_dirs(dir, err, len);
	if (!ret)
		ret = check_dir(dir, err, len);
	if (ret)
		return ret;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->dirfd = s->lockfd = -1;
	s->sections = sections;
	s->dir = strdup(dir);
	s->path = join(dir, STATE_FILE);
	if (!s->dir || !s->path) {
		ret = -ENOMEM;
		goto fail;
	}
	s->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s->dirfd < 0) {
		ret = errf(err, len, -errno, "state directory %s: %s", dir, strerror(errno));
		goto fail;
	}
	/* read only: a shared flock needs no write access, and nothing is made */
	ret = open_checked(s, LOCK_FILE, ro ? O_RDONLY : O_RDWR | O_CREAT, "lock file", err, len);
	if (ret < 0) {
		if (!err[0])
			errf(err, len, ret, "lock file %s/%s: %s", dir, LOCK_FILE, strerror(-ret));
		goto fail;
	}
	s->lockfd = ret;
	*out = s;
	return 0;
fail:
	rdt_store_close(s);
	return ret;
}

void rdt_store_close(struct rdt_store *s)
{
	if (!s)
		return;
	json_object_put(s->cached);
	if (s->lockfd >= 0)
		close(s->lockfd);
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s->dir);
	free(s->path);
	free(s);
}

const char *rdt_store_path(const struct rdt_store *s)
{
	return s->path;
}

char *rdt_store_sibling(const struct rdt_store *s, const char *name)
{
	const char *slash = strrchr(s->path, '/');
	size_t n = slash ? (size_t)(slash - s->path) : 1;
	char *out = malloc(n + strlen(name) + 2);

	if (out)
		sprintf(out, "%.*s/%s", (int)n, slash ? s->path : ".", name);
	return out;
}

int rdt_store_lock(struct rdt_store *s, bool exclusive)
{
	return rdt_atomic_flock(s->lockfd, exclusive);
}

void rdt_store_unlock(struct rdt_store *s)
{
	flock(s->lockfd, LOCK_UN);
}

static bool same_id(const struct rdt_store *s, const struct stat *sb)
{
	return s->have_id && s->dev == sb->st_dev && s->ino == sb->st_ino &&
	       s->size == sb->st_size && s->mtim.tv_sec == sb->st_mtim.tv_sec &&
	       s->mtim.tv_nsec == sb->st_mtim.tv_nsec;
}

static void remember_id(struct rdt_store *s, const struct stat *sb)
{
	s->have_id = true;
	s->dev = sb->st_dev;
	s->ino = sb->st_ino;
	s->size = sb->st_size;
	s->mtim = sb->st_mtim;
}

int rdt_store_probe(struct rdt_store *s, bool *exists, bool *changed)
{
	struct stat sb;

	if (fstatat(s->dirfd, STATE_FILE, &sb, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT)
			return -errno;
		*exists = false;
		*changed = s->have_id;
		return 0;
	}
	*exists = true;
	*changed = !same_id(s, &sb);
	return 0;
}

/* ---- Reading ------------------------------------------------------------- */

static int read_json(struct rdt_store *s, json_object **out, char *err, size_t len)
{
	struct stat sb;
	char *buf = NULL, why[128];
	size_t got = 0, at;
	json_object *root;
	int fd, ret = 0;

	fd = open_checked(s, STATE_FILE, O_RDONLY, "state file", err, len);
	if (fd < 0)
		return err[0] ? fd : errf(err, len, fd, "state file %s: %s", s->path, strerror(-fd));
	if (fstat(fd, &sb)) {
		ret = -errno;
		goto out;
	}
	if ((uint64_t)sb.st_size > STATE_MAX_SIZE) {
		ret = errf(err, len, -EINVAL, "state file %s is larger than %u MiB", s->path,
			   STATE_MAX_SIZE >> 20);
		goto out;
	}
	buf = malloc((size_t)sb.st_size + 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	while (got < (size_t)sb.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)sb.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = errf(err, len, -EIO, "state file %s: short read", s->path);
			goto out;
		}
		got += (size_t)n;
	}
	buf[got] = '\0';
	ret = rdt_json_parse(buf, got, 0, &root, why, sizeof(why), &at);
	if (ret == -ENOMEM)
		goto out;
	if (!ret && !json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		ret = -EINVAL;
		at = 0;
		snprintf(why, sizeof(why), "not a JSON object");
	}
	if (ret) {
		size_t line = 1, i;

		for (i = 0; i < at && i < got; i++)
			line += buf[i] == '\n';
		/*
		 * json-c's own words ("unexpected character") say nothing to
		 * someone whose state file this is: say what is wrong with
		 * the file, where, and what to do.
		 */
		ret = errf(err, len, -EINVAL, "state file %s is damaged: %s at line %zu (byte %zu "
			   "of %zu); the library never writes such a file (a disk error, or an "
			   "edit?): restore it, or remove it to start afresh (its groups are lost)",
			   s->path, why, line, at, got);
		goto out;
	}
	remember_id(s, &sb);
	*out = root;
out:
	free(buf);
	close(fd);
	return ret;
}

static json_object *get(json_object *o, const char *key, json_type type)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

#define BAD(...) errf(err, len, -EINVAL, __VA_ARGS__)

static int parse_hex(json_object *v, uint64_t *out)
{
	const char *s;
	char *end;

	if (!v || !json_object_is_type(v, json_type_string))
		return -EINVAL;
	s = json_object_get_string(v);
	if (!*s || strlen(s) > 16)
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 16);
	return *end || errno ? -EINVAL : 0;
}

static int get_uint(json_object *v, uint64_t max, uint64_t *out)
{
	int64_t x;

	if (!v || !json_object_is_type(v, json_type_int))
		return -EINVAL;
	x = json_object_get_int64(v);
	if (x < 0 || (uint64_t)x > max)
		return -EINVAL;
	*out = (uint64_t)x;
	return 0;
}

static int check_version(json_object *root, const char *path, char *err, size_t len)
{
	json_object *f = get(root, "format", json_type_string);
	json_object *v = get(root, "version", json_type_int);

	if (!f || strcmp(json_object_get_string(f), "rdtalloc-state"))
		return BAD("state file %s is not an rdtalloc state file", path);
	if (!v || json_object_get_int(v) != STATE_FORMAT)
		return BAD("state file %s has format version %d; this library reads version %d",
			   path, v ? json_object_get_int(v) : -1, STATE_FORMAT);
	return 0;
}

int rdt_store_read_machine(struct rdt_store *s, char **desc, char *err, size_t len)
{
	json_object *root, *m;
	int ret;

	ret = read_json(s, &root, err, len);
	if (ret)
		return ret;
	ret = check_version(root, s->path, err, len);
	if (!ret) {
		m = get(root, "machine", json_type_string);
		if (!m)
			ret = BAD("state file %s: no machine description", s->path);
		else if (!(*desc = strdup(json_object_get_string(m))))
			ret = -ENOMEM;
	}
	/* rdt_store_read() comes next at open: keep the parse for it. */
	if (!ret)
		s->cached = root;
	else
		json_object_put(root);
	return ret;
}

/*
 * The id of the state rdt_store_read_machine() just read ("" when it has
 * none or a malformed one): a state replaced for another machine keeps it,
 * and with it what it owns outside its file.
 */
static int read_id(struct rdt_state *st, json_object *root, const char *path, char *err,
		   size_t len);

void rdt_store_cached_id(struct rdt_store *s, char *id, size_t len)
{
	json_object *v;
	char err[8];
	struct rdt_state tmp = { 0 };

	id[0] = '\0';
	if (!s->cached || !json_object_object_get_ex(s->cached, "id", &v))
		return;
	if (!read_id(&tmp, s->cached, s->path, err, sizeof(err)))
		snprintf(id, len, "%s", tmp.id);
}

/*
 * Groups and tasks are packed tables (one text line per row) inside the
 * JSON document: tens of thousands of rows as JSON objects cost a process
 * like rdtctl more to parse and free than everything else it does.
 */
struct cursor {
	const char *p;
	const char *end;
	unsigned int row;
};

/* Next space-separated field of the current row; false at the end of the row. */
static bool field(struct cursor *c, const char **f, size_t *n)
{
	while (c->p < c->end && *c->p == ' ')
		c->p++;
	if (c->p >= c->end || *c->p == '\n')
		return false;
	*f = c->p;
	while (c->p < c->end && *c->p != ' ' && *c->p != '\n')
		c->p++;
	*n = (size_t)(c->p - *f);
	return true;
}

static bool end_row(struct cursor *c)
{
	while (c->p < c->end && *c->p == ' ')
		c->p++;
	if (c->p < c->end && *c->p != '\n')
		return false;
	if (c->p < c->end)
		c->p++;
	c->row++;
	return true;
}

static bool field_num(struct cursor *c, int base, uint64_t max, uint64_t *v)
{
	const char *f;
	size_t n, i;
	uint64_t x = 0;

	if (!field(c, &f, &n) || n > 20)
		return false;
	for (i = 0; i < n; i++) {
		unsigned int d;

		if (f[i] >= '0' && f[i] <= '9')
			d = (unsigned int)(f[i] - '0');
		else if (base == 16 && f[i] >= 'a' && f[i] <= 'f')
			d = (unsigned int)(f[i] - 'a' + 10);
		else
			return false;
		if (x > (UINT64_MAX - d) / (unsigned int)base)
			return false;
		x = x * (unsigned int)base + d;
	}
	if (x > max)
		return false;
	*v = x;
	return true;
}

static void cursor_init(struct cursor *c, json_object *str)
{
	c->p = json_object_get_string(str);
	c->end = c->p + json_object_get_string_len(str);
	c->row = 0;
}

/* Row: name seq closid[nadom] (data code)[nslots] */
static int read_group_row(struct rdt_state *st, struct cursor *c, const char *path,
			  char *err, size_t len)
{
	char name[RDT_NAME_LEN], why[128];
	struct rdt_group *grp;
	const char *f;
	size_t n;
	uint64_t v;
	unsigned int ai, sl;
	int gi = 0, ret;

	if (!field(c, &f, &n) || n >= sizeof(name))
		return BAD("state file %s: group row %u is malformed", path, c->row);
	memcpy(name, f, n);
	name[n] = '\0';
	if (c->row == 0) {
		if (strcmp(name, "default"))
			return BAD("state file %s: the first group must be 'default'", path);
	} else {
		if (!rdt_name_valid(name))
			return BAD("state file %s: group row %u has an invalid name", path, c->row);
		ret = rdt_group_load(st, name, &gi);
		if (ret)
			return BAD("state file %s: group '%s': %s", path, name, st->err);
	}
	grp = &st->groups[gi];
	/* the default group is 0; every other a number of its own, below next_seq */
	if (!field_num(c, 10, RDT_SEQ_MAX, &grp->seq) || (gi == 0) != (grp->seq == 0))
		return BAD("state file %s: group '%s' has a bad sequence number", path, name);
	for (ai = 0; ai < st->nadom; ai++) {
		if (!field_num(c, 10, RDT_MAX_CLOSIDS, &v))
			return BAD("state file %s: group '%s' has a bad CLOSID", path, name);
		grp->closid[ai] = (unsigned int)v;
	}
	for (sl = 0; sl < st->nslots * 2; sl++) {
		const struct rdt_caps *caps = &st->m->caps[st->slot[sl / 2].res];

		if (!field_num(c, 16, UINT64_MAX, &grp->mask[sl]))
			return BAD("state file %s: group '%s' has a bad mask", path, name);
		if (st->slot[sl / 2].res == RDT_MB ?
		    grp->mask[sl] < caps->mb_min || grp->mask[sl] > caps->mb_max :
		    rdt_cbm_check(caps, grp->mask[sl], why, sizeof(why)) != 0)
			return BAD("state file %s: group '%s' has a bad %s", path, name,
				   st->slot[sl / 2].res == RDT_MB ? "bandwidth" : "mask");
	}
	if (!end_row(c))
		return BAD("state file %s: group '%s' has extra fields", path, name);
	return 0;
}

static int read_groups(struct rdt_state *st, json_object *table, const char *path,
		       char *err, size_t len)
{
	struct cursor c;
	int ret;

	cursor_init(&c, table);
	if (c.p == c.end)
		return BAD("state file %s: no groups", path);
	while (c.p < c.end) {
		ret = read_group_row(st, &c, path, err, len);
		if (ret)
			return ret;
	}
	return 0;
}

static int read_tasks(struct rdt_state *st, json_object *table, const char *path,
		      char *err, size_t len)
{
	struct cursor c;

	cursor_init(&c, table);
	while (c.p < c.end) {
		uint64_t tid, g, start;
		struct rdt_task task;

		if (!field_num(&c, 10, INT_MAX, &tid) || !tid ||
		    !field_num(&c, 10, st->ngroups - 1, &g) || !g ||
		    !field_num(&c, 10, RDT_COUNTER_MAX, &start) || !end_row(&c))
			return BAD("state file %s: task binding %u is malformed", path, c.row);
		if (st->tasks.len >= st->max_tasks)
			return BAD("state file %s: more than %u task bindings, the state's limit",
				   path, st->max_tasks);
		task.tid = (pid_t)tid;
		task.group = (int)g;
		task.start = start;
		if (rdt_task_map_get(&st->tasks, task.tid))
			return BAD("state file %s: task %d is bound twice", path, (int)task.tid);
		if (rdt_task_map_put(&st->tasks, &task))
			return -ENOMEM;
	}
	return 0;
}

static int read_bindings(struct rdt_state *st, json_object *root, const char *path,
			 char *err, size_t len)
{
	json_object *cpus = get(root, "cpus", json_type_array);
	json_object *tasks = get(root, "tasks", json_type_string);
	size_t i;

	if (!cpus || json_object_array_length(cpus) != st->m->ncpus || !tasks)
		return BAD("state file %s: CPU or task bindings are malformed", path);
	for (i = 0; i < st->m->ncpus; i++) {
		json_object *v = json_object_array_get_idx(cpus, i);

		if (!json_object_is_type(v, json_type_int))
			return BAD("state file %s: CPU %zu binding is malformed", path, i);
		st->cpu_group[i] = json_object_get_int(v);
		if (st->cpu_group[i] < -1 || st->cpu_group[i] >= (int)st->ngroups)
			return BAD("state file %s: CPU %zu is bound to no group", path, i);
	}
	return read_tasks(st, tasks, path, err, len);
}

/* Optional: states written before cgroups could be bound have none. */
static int read_cgroups(struct rdt_state *st, json_object *root, const char *path,
			char *err, size_t len)
{
	json_object *cg;
	size_t i, n;

	if (!json_object_object_get_ex(root, "cgroups", &cg))
		return 0;
	if (!json_object_is_type(cg, json_type_array) ||
	    (n = json_object_array_length(cg)) > RDT_CGROUPS_MAX)
		return BAD("state file %s: cgroup bindings are malformed", path);
	for (i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(cg, i);
		json_object *p = get(o, "path", json_type_string), *e;
		uint64_t id, g;
		const char *cp;

		if (!p || get_uint(get(o, "id", json_type_int), RDT_COUNTER_MAX, &id) ||
		    get_uint(get(o, "group", json_type_int), st->ngroups - 1, &g) || !g)
			return BAD("state file %s: cgroup binding %zu is malformed", path, i);
		cp = json_object_get_string(p);
		if (!cp[0] || cp[0] == '/' || strlen(cp) >= RDT_CGROUP_PATH_MAX ||
		    rdt_cgroup_find(st, cp))
			return BAD("state file %s: cgroup binding %zu: bad or repeated path", path,
				   i);
		if (rdt_bind_cgroup(st, (int)g, cp, id))
			return BAD("state file %s: cgroup binding %zu: %s", path, i, st->err);
		/* 0.8; a state written before has every binding yield, the default */
		if (json_object_object_get_ex(o, "enforce", &e)) {
			const struct rdt_cgroup *c = rdt_cgroup_find(st, cp);

			if (!json_object_is_type(e, json_type_boolean))
				return BAD("state file %s: cgroup binding %zu: enforce is not true "
					   "or false", path, i);
			st->cgroups[c - st->cgroups].enforce = json_object_get_boolean(e);
		}
	}
	return 0;
}

static int read_regs(struct rdt_state *st, json_object *regs, const char *path,
		     char *err, size_t len)
{
	json_object *mask = get(regs, "mask", json_type_array);
	json_object *cfg = get(regs, "cfg", json_type_array);
	json_object *pqr = get(regs, "pqr", json_type_array);
	json_object *cur = get(regs, "cur", json_type_array);
	json_object *w = get(regs, "writes", json_type_array);
	size_t i, nm = (size_t)st->nslots * st->regs.nregs;
	json_object *dig;
	uint64_t v;

	if (!mask || !cfg || !pqr || !cur || !w || json_object_array_length(mask) != nm ||
	    json_object_array_length(cfg) != st->nslots ||
	    json_object_array_length(pqr) != st->m->ncpus ||
	    json_object_array_length(cur) != st->m->ncpus || json_object_array_length(w) != 3)
		return BAD("state file %s: register image is malformed", path);
	for (i = 0; i < nm; i++)
		if (parse_hex(json_object_array_get_idx(mask, i), &st->regs.mask[i]))
			return BAD("state file %s: mask register %zu is malformed", path, i);
	for (i = 0; i < st->nslots; i++) {
		if (get_uint(json_object_array_get_idx(cfg, i), 1, &v))
			return BAD("state file %s: CDP register %zu is malformed", path, i);
		st->regs.cfg[i] = v;
	}
	for (i = 0; i < st->m->ncpus; i++) {
		if (get_uint(json_object_array_get_idx(pqr, i), RDT_MAX_CLOSIDS, &v))
			return BAD("state file %s: PQR_ASSOC of CPU %zu is malformed", path, i);
		st->regs.pqr[i] = (unsigned int)v;
		if (get_uint(json_object_array_get_idx(cur, i), INT_MAX, &v))
			return BAD("state file %s: task on CPU %zu is malformed", path, i);
		st->regs.cur[i] = (pid_t)v;
	}
	st->regs.digest = 0;
	if (json_object_object_get_ex(regs, "digest", &dig) &&
	    parse_hex(dig, &st->regs.digest))
		return BAD("state file %s: register digest is malformed", path);
	if (get_uint(json_object_array_get_idx(w, 0), RDT_COUNTER_MAX, &st->regs.mask_writes) ||
	    get_uint(json_object_array_get_idx(w, 1), RDT_COUNTER_MAX, &st->regs.pqr_writes) ||
	    get_uint(json_object_array_get_idx(w, 2), RDT_COUNTER_MAX, &st->regs.cfg_writes))
		return BAD("state file %s: write counters are malformed", path);
	return 0;
}

static int read_cdp(struct rdt_state *st, json_object *root, const char *path,
		    char *err, size_t len)
{
	json_object *cdp = get(root, "cdp", json_type_object);
	unsigned int r;

	if (!cdp)
		return BAD("state file %s: no CDP setting", path);
	for (r = 0; r < RDT_NRES; r++) {
		json_object *v = get(cdp, rdt_res_name(r), json_type_boolean);

		st->cdp[r] = v && json_object_get_boolean(v);
		if (st->cdp[r] && (!st->m->caps[r].present || !st->m->caps[r].cdp))
			return BAD("state file %s: CDP is on for %s, which lacks it", path,
				   rdt_res_name(r));
	}
	return 0;
}

/* Absent in states written before the limits were settings: the defaults. */
static int read_limits(struct rdt_state *st, json_object *root, const char *path,
		       char *err, size_t len)
{
	json_object *l;
	uint64_t g, t;

	if (!json_object_object_get_ex(root, "limits", &l))
		return 0;
	if (get_uint(get(l, "groups", json_type_int), RDT_GROUPS_LIMIT, &g) || !g ||
	    get_uint(get(l, "tasks", json_type_int), RDT_TASKS_LIMIT, &t) || !t)
		return BAD("state file %s: limits are malformed", path);
	st->max_groups = (unsigned int)g;
	st->max_tasks = (unsigned int)t;
	return 0;
}

/*
 * The sequence number the next group gets: above every group's, at most
 * RDT_SEQ_MAX; and no two groups with one number (the hook tells groups
 * apart by it). Absent in the oldest states: the first free one.
 */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}


/* ---- The modules' sections (hw/section.h) ------------------------------------ */

/* The members this file's own readers take; any other is a section's, or unknown. */
static bool core_member(const char *key)
{
	static const char *const keys[] = { "format", "version", "backend", "machine", "id",
					    "cdp", "precedence", "limits", "next_seq", "groups",
					    "exclusive", "cpus", "tasks", "cgroups", "regs",
					    "owners" };
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

static bool section_member(const struct rdt_state *st, const char *key)
{
	unsigned int i;

	for (i = 0; st->sections && st->sections[i]; i++)
		if (st->sections[i]->name && !strcmp(key, st->sections[i]->name))
			return true;
	return false;
}

size_t rdt_state_kept_aside(const struct rdt_state *st, char *buf, size_t len)
{
	json_object_iter it;
	size_t n = 0, off = 0;

	if (len)
		buf[0] = '\0';
	if (!st->unknown)
		return 0;
	json_object_object_foreachC(st->unknown, it) {
		if (!section_member(st, it.key))
			continue;
		if (len > off)
			off += (size_t)snprintf(buf + off, len - off, "%s\"%s\"", n ? ", " : "",
						it.key);
		n++;
	}
	return n;
}

static int keep_unknown(struct rdt_state *st, const char *key, json_object *val, char *err,
			size_t len)
{
	if (!st->unknown && !(st->unknown = json_object_new_object()))
		return errf(err, len, -ENOMEM, "out of memory");
	json_object_object_add(st->unknown, key, json_object_get(val));
	return 0;
}

/*
 * Each section loads its member (absent: a state from before it); members
 * no section of this version knows are kept, to be written back as read.
 * A member its section cannot load (damaged, or a newer version's) must not
 * lock anyone out of the rest of the state: it is kept aside as it was
 * read - written back so, until its section writes a member of its own -
 * and the section starts empty. The section says so where it is used (its
 * member is in st->unknown), and clearing it drops what was kept aside.
 */
static int read_sections(struct rdt_state *st, json_object *root, const char *path,
			 char *err, size_t len)
{
	json_object_iter it;
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && st->sections && st->sections[i]; i++) {
		const struct rdt_section *sec = st->sections[i];
		json_object *o = NULL;

		if (!sec->name || !sec->load)
			continue;
		json_object_object_get_ex(root, sec->name, &o);
		ret = sec->load(st, st->parts[i], o, path, err, len);
		if (!ret || ret == -ENOMEM || !o)
			continue;
		if (sec->free)
			sec->free(st->parts[i]);
		memset(st->parts[i], 0, sec->size);
		err[0] = '\0';
		ret = keep_unknown(st, sec->name, o, err, len);
	}
	json_object_object_foreachC(root, it) {
		if (ret || core_member(it.key) || section_member(st, it.key))
			continue;
		ret = keep_unknown(st, it.key, it.val, err, len);
	}
	return ret;
}

static void write_sections(const struct rdt_state *st, json_object *root)
{
	json_object_iter it;
	unsigned int i;

	for (i = 0; st->sections && st->sections[i]; i++) {
		json_object *o = st->sections[i]->save && st->sections[i]->name ?
				 st->sections[i]->save(st, st->parts[i]) : NULL;

		if (o)
			json_object_object_add(root, st->sections[i]->name, o);
	}
	/*
	 * a newer version's members, as they were read, and a section's kept
	 * aside - unless the section now writes its own
	 */
	if (st->unknown)
		json_object_object_foreachC(st->unknown, it)
			if (!section_member(st, it.key) || !json_object_object_get_ex(root, it.key, NULL))
				json_object_object_add(root, it.key, json_object_get(it.val));
}
static int read_next_seq(struct rdt_state *st, json_object *root, const char *path, char *err,
			 size_t len)
{
	uint64_t next = 0, top = 0, *seqs = malloc((st->ngroups + 1) * sizeof(*seqs));
	json_object *v;
	unsigned int g, n = 0;

	if (!seqs)
		return -ENOMEM;
	for (g = 1; g < st->ngroups; g++)
		if (st->groups[g].live)
			seqs[n++] = st->groups[g].seq;
	qsort(seqs, n, sizeof(*seqs), cmp_u64);
	for (g = 1; g < n && seqs[g] != seqs[g - 1]; g++)
		;
	top = n ? seqs[n - 1] : 0;
	free(seqs);
	if (g < n)
		return BAD("state file %s: two groups have one sequence number", path);
	if (!json_object_object_get_ex(root, "next_seq", &v)) {
		st->next_seq = top + 1;
		return 0;
	}
	if (get_uint(v, RDT_SEQ_MAX, &next) || next <= top)
		return BAD("state file %s: next_seq is malformed or not above every group's "
			   "sequence number", path);
	st->next_seq = next;
	return 0;
}

/* Absent in states written before ids: "" (their resctrl groups are rdtalloc-N). */
static int read_id(struct rdt_state *st, json_object *root, const char *path, char *err,
		   size_t len)
{
	json_object *v;
	const char *id;
	size_t i;

	if (!json_object_object_get_ex(root, "id", &v))
		return 0;
	id = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
	for (i = 0; i < RDT_STATE_ID_LEN && isxdigit((unsigned char)id[i]) &&
		    !isupper((unsigned char)id[i]); i++)
		;
	if (i != RDT_STATE_ID_LEN || id[i])
		return BAD("state file %s: id '%.16s' is not %d lowercase hex digits", path, id,
			   RDT_STATE_ID_LEN);
	memcpy(st->id, id, RDT_STATE_ID_LEN + 1);
	return 0;
}

/* Absent in states written before the rule was a setting: those used "cpu". */
static int read_precedence(struct rdt_state *st, json_object *root, const char *path,
			   char *err, size_t len)
{
	json_object *v;
	const char *p;

	if (!json_object_object_get_ex(root, "precedence", &v))
		return 0;
	p = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
	if (!strcmp(p, "cpu"))
		st->precedence = RDT_PREC_CPU;
	else if (!strcmp(p, "task"))
		st->precedence = RDT_PREC_TASK;
	else
		return BAD("state file %s: precedence '%.16s' is neither 'cpu' nor 'task'", path,
			   p);
	return 0;
}

/*
 * "exclusive": {"rt": false, ...} - the exclusive groups, each with whether
 * it was forced onto shareable ways. Absent in older files: none.
 */
static int read_modes(struct rdt_state *st, json_object *root, const char *path,
		      char *err, size_t len)
{
	json_object *modes;
	int g;

	if (!json_object_object_get_ex(root, "exclusive", &modes))
		return 0;
	if (!json_object_is_type(modes, json_type_object))
		return BAD("state file %s: 'exclusive' is not an object", path);
	json_object_object_foreach(modes, name, forced) {
		g = !strcmp(name, "default") ? 0 : rdt_group_find(st, name);
		if (g < 0 || !json_object_is_type(forced, json_type_boolean))
			return BAD("state file %s: exclusive group '%.64s' does not exist", path,
				   name);
		if (rdt_group_mark_exclusive(st, g, true, json_object_get_boolean(forced)))
			return -ENOMEM;
	}
	return 0;
}

/* ---- Owners ---------------------------------------------------------------- */

/*
 * "owners": who made what (hw/owners.c), beside the tables rather than in
 * their rows: a version before owners refuses a row with more fields, and
 * 0.7 keeps a member it does not know. Rows name their object by what
 * cannot come back as another one - a group by its sequence number, a task
 * by id and start time, a CPU by the group's sequence number - so a row an
 * older version left behind after changing the state names nothing and is
 * dropped: that object's owner is unknown. "-": unknown.
 *   groups:  "SEQ OWNER MASK_OWNER[nslots]\n"
 *   cpus:    "CPU SEQ OWNER\n"
 *   tasks:   "TID START OWNER\n"
 *   cgroups: {"PATH": "OWNER"}
 */
static int owner_field(struct rdt_state *st, struct cursor *c, unsigned int *o)
{
	char text[RDT_OWNER_MAX + 1], why[160];
	const char *f;
	size_t n;

	if (!field(c, &f, &n) || n > RDT_OWNER_MAX)
		return -EINVAL;
	*o = 0;
	if (n == 1 && f[0] == '-')
		return 0;
	memcpy(text, f, n);
	text[n] = '\0';
	if (rdt_owner_check(text, why, sizeof(why)))
		return -EINVAL;
	return rdt_owner_intern(st, text, o);
}

static int cmp_group_seq(const void *x, const void *y, void *arg)
{
	const struct rdt_state *st = arg;
	uint64_t a = st->groups[*(const int *)x].seq, b = st->groups[*(const int *)y].seq;

	return (a > b) - (a < b);
}

/* The live group of sequence number seq through order (live groups sorted by seq), or -1. */
static int group_of_seq(const struct rdt_state *st, const int *order, unsigned int n, uint64_t seq)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (st->groups[order[mid]].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && st->groups[order[lo]].seq == seq ? order[lo] : -1;
}

static int read_owner_groups(struct rdt_state *st, json_object *t, const int *order,
			     unsigned int n)
{
	unsigned int s, o, *mo = calloc(st->nslots + 1, sizeof(*mo));
	struct cursor c;
	uint64_t seq;
	int g, ret = 0;

	if (!mo)
		return -ENOMEM;
	cursor_init(&c, t);
	while (!ret && c.p < c.end) {
		if (!field_num(&c, 10, RDT_SEQ_MAX, &seq) || owner_field(st, &c, &o)) {
			ret = -EINVAL;
			break;
		}
		for (s = 0; !ret && s < st->nslots; s++)
			ret = owner_field(st, &c, &mo[s]) ? -EINVAL : 0;
		if (ret || !end_row(&c)) {
			ret = -EINVAL;
			break;
		}
		g = group_of_seq(st, order, n, seq);
		if (g <= 0)
			continue;
		st->groups[g].owner = o;
		memcpy(st->groups[g].mask_owner, mo, st->nslots * sizeof(*mo));
	}
	free(mo);
	return ret;
}

static int read_owner_cpus(struct rdt_state *st, json_object *t, const int *order, unsigned int n)
{
	uint64_t cpu, seq;
	struct cursor c;
	unsigned int o;

	cursor_init(&c, t);
	while (c.p < c.end) {
		if (!field_num(&c, 10, st->m->ncpus ? st->m->ncpus - 1 : 0, &cpu) ||
		    !field_num(&c, 10, RDT_SEQ_MAX, &seq) || owner_field(st, &c, &o) ||
		    !end_row(&c))
			return -EINVAL;
		if (st->cpu_group[cpu] > 0 && group_of_seq(st, order, n, seq) == st->cpu_group[cpu])
			st->cpu_owner[cpu] = o;
	}
	return 0;
}

static int read_owner_tasks(struct rdt_state *st, json_object *t)
{
	uint64_t tid, start;
	struct rdt_task *task;
	struct cursor c;
	unsigned int o;

	cursor_init(&c, t);
	while (c.p < c.end) {
		if (!field_num(&c, 10, INT_MAX, &tid) ||
		    !field_num(&c, 10, RDT_COUNTER_MAX, &start) || owner_field(st, &c, &o) ||
		    !end_row(&c))
			return -EINVAL;
		task = rdt_task_map_get(&st->tasks, (pid_t)tid);
		/* in place: the owner is no part of the map's key */
		if (task && task->start == start)
			task->owner = o;
	}
	return 0;
}

static int read_owner_cgroups(struct rdt_state *st, json_object *t)
{
	char why[160];
	unsigned int o;
	int ret;

	json_object_object_foreach(t, path, v) {
		const struct rdt_cgroup *cg = rdt_cgroup_find(st, path);
		const char *text = json_object_is_type(v, json_type_string) ?
				   json_object_get_string(v) : "";

		if (rdt_owner_check(text, why, sizeof(why)))
			return -EINVAL;
		if (!cg)
			continue;
		ret = rdt_owner_intern(st, text, &o);
		if (ret)
			return ret;
		st->cgroups[cg - st->cgroups].owner = o;
	}
	return 0;
}

/* Absent (a state of 0.7 or before): every owner unknown. */
static int read_owners(struct rdt_state *st, json_object *root, const char *path, char *err,
		       size_t len)
{
	json_object *ow, *t;
	unsigned int i, n = 0;
	int *order, ret = 0;

	if (!json_object_object_get_ex(root, "owners", &ow))
		return 0;
	if (!json_object_is_type(ow, json_type_object))
		return BAD("state file %s: 'owners' is not an object", path);
	order = malloc(st->ngroups * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 1; i < st->ngroups; i++)
		if (st->groups[i].live)
			order[n++] = (int)i;
	qsort_r(order, n, sizeof(*order), cmp_group_seq, st);
	if ((t = get(ow, "groups", json_type_string)))
		ret = read_owner_groups(st, t, order, n);
	if (!ret && (t = get(ow, "cpus", json_type_string)))
		ret = read_owner_cpus(st, t, order, n);
	if (!ret && (t = get(ow, "tasks", json_type_string)))
		ret = read_owner_tasks(st, t);
	if (!ret && (t = get(ow, "cgroups", json_type_object)))
		ret = read_owner_cgroups(st, t);
	free(order);
	if (ret == -EINVAL)
		return BAD("state file %s: 'owners' is malformed", path);
	return ret;
}

/* The parse kept by read_machine, if the file is still the one it read. */
static json_object *take_cached(struct rdt_store *s)
{
	json_object *root = s->cached;
	struct stat sb;

	s->cached = NULL;
	if (root && (fstatat(s->dirfd, STATE_FILE, &sb, AT_SYMLINK_NOFOLLOW) || !same_id(s, &sb))) {
		json_object_put(root);
		root = NULL;
	}
	return root;
}

int rdt_store_read(struct rdt_store *s, const struct rdt_machine *m, const char *backend,
		   struct rdt_state **out, char *err, size_t len)
{
	json_object *root, *v, *groups, *regs;
	struct rdt_state *st = NULL;
	int ret;

	*out = NULL;
	root = take_cached(s);
	if (!root) {
		ret = read_json(s, &root, err, len);
		if (ret)
			return ret;
	}
	ret = check_version(root, s->path, err, len);
	if (ret)
		goto out;
	v = get(root, "machine", json_type_string);
	if (!v || strcmp(json_object_get_string(v), m->desc)) {
		ret = BAD("state file %s was made for another machine", s->path);
		goto out;
	}
	v = get(root, "backend", json_type_string);
	if (!v || strcmp(json_object_get_string(v), backend)) {
		ret = BAD("state file %s belongs to backend '%s', not '%s'", s->path,
			  v ? json_object_get_string(v) : "?", backend);
		goto out;
	}
	groups = get(root, "groups", json_type_string);
	regs = get(root, "regs", json_type_object);
	if (!groups || !regs) {
		ret = BAD("state file %s: groups or registers missing", s->path);
		goto out;
	}
	ret = rdt_state_new(m, s->sections, &st);
	if (ret)
		goto out;
	ret = read_cdp(st, root, s->path, err, len);
	if (!ret)
		ret = read_id(st, root, s->path, err, len);
	if (!ret)
		ret = read_precedence(st, root, s->path, err, len);
	if (!ret)
		ret = read_limits(st, root, s->path, err, len);
	if (ret)
		goto out;
	/* The CLOSIDs recorded win; rdt_state_rebuild checks them. */
	ret = read_groups(st, groups, s->path, err, len);
	if (!ret)
		ret = read_modes(st, root, s->path, err, len);
	if (!ret)
		ret = read_bindings(st, root, s->path, err, len);
	if (!ret)
		ret = read_cgroups(st, root, s->path, err, len);
	if (!ret)
		ret = read_regs(st, regs, s->path, err, len);
	if (ret)
		goto out;
	ret = read_next_seq(st, root, s->path, err, len);
	if (!ret)
		ret = read_owners(st, root, s->path, err, len);
	if (!ret)
		ret = read_sections(st, root, s->path, err, len);
	if (ret)
		goto out;
	ret = rdt_state_rebuild(st);
	if (ret) {
		ret = BAD("state file %s is inconsistent: %s", s->path, st->err);
		goto out;
	}
	*out = st;
	st = NULL;
out:
	rdt_state_free(st);
	json_object_put(root);
	if (ret)
		s->have_id = false;
	return ret;
}

/* ---- Writing ------------------------------------------------------------- */

static json_object *hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIx64, v);
	return json_object_new_string(buf);
}

/* A growing text buffer for the packed tables. */
struct sbuf {
	char *s;
	size_t len;
	size_t cap;
	bool oom;
};

static bool sb_room(struct sbuf *b, size_t n)
{
	char *ns;
	size_t cap;

	if (b->oom)
		return false;
	if (b->cap - b->len > n)
		return true;
	cap = (b->cap + n + 1) * 2;
	ns = realloc(b->s, cap);
	if (!ns) {
		b->oom = true;
		return false;
	}
	b->s = ns;
	b->cap = cap;
	return true;
}

/* ' ' then v in base 10 or 16: the tables' fields, without printf's cost. */
static void sb_num(struct sbuf *b, uint64_t v, unsigned int base)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (!sb_room(b, (size_t)n + 1))
		return;
	b->s[b->len++] = ' ';
	while (n)
		b->s[b->len++] = tmp[--n];
}

static void sb_text(struct sbuf *b, const char *t)
{
	size_t n = strlen(t);

	if (!sb_room(b, n))
		return;
	memcpy(b->s + b->len, t, n);
	b->len += n;
}

static json_object *sb_json(struct sbuf *b)
{
	json_object *o;

	if (b->oom)
		return NULL;
	o = json_object_new_string_len(b->s ? b->s : "", (int)b->len);
	free(b->s);
	return o;
}

static int cmp_seq(const void *x, const void *y, void *arg)
{
	const struct rdt_state *st = arg;
	uint64_t a = st->groups[*(const int *)x].seq, b = st->groups[*(const int *)y].seq;

	return (a > b) - (a < b);
}

/* The groups table, default first then in creation order; order_of[g] = row. */
static json_object *groups_json(const struct rdt_state *st, int *order_of)
{
	struct sbuf b = { 0 };
	unsigned int i, k, n = 0;
	int *order = malloc(st->ngroups * sizeof(int));

	if (!order)
		return NULL;
	for (i = 0; i < st->ngroups; i++)
		if (st->groups[i].live)
			order[n++] = (int)i;
	if (n > 1)
		qsort_r(order + 1, n - 1, sizeof(int), cmp_seq, (void *)st);
	for (i = 0; i < n; i++) {
		const struct rdt_group *g = &st->groups[order[i]];

		order_of[order[i]] = (int)i;
		sb_text(&b, g->name);
		sb_num(&b, g->seq, 10);
		for (k = 0; k < st->nadom; k++)
			sb_num(&b, g->closid[k], 10);
		for (k = 0; k < st->nslots * 2; k++)
			sb_num(&b, g->mask[k], 16);
		sb_text(&b, "\n");
	}
	free(order);
	return sb_json(&b);
}

static json_object *tasks_json(const struct rdt_state *st, const int *order_of)
{
	struct sbuf b = { 0 };
	size_t i;

	for (i = 0; i < st->tasks.cap; i++) {
		const struct rdt_task *t = &st->tasks.slots[i];

		if (!t->tid)
			continue;
		sb_num(&b, (uint64_t)t->tid, 10);
		sb_num(&b, (uint64_t)order_of[t->group], 10);
		sb_num(&b, t->start, 10);
		sb_text(&b, "\n");
	}
	return sb_json(&b);
}

static void sb_owner(struct sbuf *b, const struct rdt_state *st, unsigned int o)
{
	const char *name = rdt_owner_name(st, o);

	sb_text(b, " ");
	sb_text(b, name ? name : "-");
}

static json_object *owner_groups_json(const struct rdt_state *st)
{
	struct sbuf b = { 0 };
	unsigned int i, s;

	for (i = 1; i < st->ngroups; i++) {
		const struct rdt_group *g = &st->groups[i];
		bool any = g->owner != 0;

		if (!g->live)
			continue;
		for (s = 0; s < st->nslots; s++)
			any |= g->mask_owner[s] != 0;
		if (!any)
			continue;
		sb_num(&b, g->seq, 10);
		sb_owner(&b, st, g->owner);
		for (s = 0; s < st->nslots; s++)
			sb_owner(&b, st, g->mask_owner[s]);
		sb_text(&b, "\n");
	}
	return sb_json(&b);
}

static json_object *owner_bindings_json(const struct rdt_state *st, bool tasks)
{
	struct sbuf b = { 0 };
	size_t i;

	for (i = 0; tasks && i < st->tasks.cap; i++) {
		const struct rdt_task *t = &st->tasks.slots[i];

		if (!t->tid || !t->owner)
			continue;
		sb_num(&b, (uint64_t)t->tid, 10);
		sb_num(&b, t->start, 10);
		sb_owner(&b, st, t->owner);
		sb_text(&b, "\n");
	}
	for (i = 0; !tasks && i < st->m->ncpus; i++) {
		if (st->cpu_group[i] <= 0 || !st->cpu_owner[i])
			continue;
		sb_num(&b, i, 10);
		sb_num(&b, st->groups[st->cpu_group[i]].seq, 10);
		sb_owner(&b, st, st->cpu_owner[i]);
		sb_text(&b, "\n");
	}
	return sb_json(&b);
}

/* The "owners" member (see read_owners); NULL when nothing has an owner. */
static json_object *owners_json(const struct rdt_state *st)
{
	json_object *o, *cg = NULL;
	unsigned int i;

	if (st->nowners <= 1)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "groups", owner_groups_json(st));
	json_object_object_add(o, "cpus", owner_bindings_json(st, false));
	json_object_object_add(o, "tasks", owner_bindings_json(st, true));
	for (i = 0; i < st->ncgroups; i++) {
		if (!st->cgroups[i].owner)
			continue;
		if (!cg)
			cg = json_object_new_object();
		json_object_object_add(cg, st->cgroups[i].path,
			json_object_new_string(rdt_owner_name(st, st->cgroups[i].owner)));
	}
	if (cg)
		json_object_object_add(o, "cgroups", cg);
	return o;
}

static json_object *regs_json(const struct rdt_state *st)
{
	json_object *o = json_object_new_object();
	json_object *mask = json_object_new_array(), *cfg = json_object_new_array();
	json_object *pqr = json_object_new_array(), *cur = json_object_new_array();
	json_object *w = json_object_new_array();
	size_t i, nm = (size_t)st->nslots * st->regs.nregs;

	for (i = 0; i < nm; i++)
		json_object_array_add(mask, hex(st->regs.mask[i]));
	for (i = 0; i < st->nslots; i++)
		json_object_array_add(cfg, json_object_new_int(st->regs.cfg[i]));
	for (i = 0; i < st->m->ncpus; i++) {
		json_object_array_add(pqr, json_object_new_int64(st->regs.pqr[i]));
		json_object_array_add(cur, json_object_new_int64(st->regs.cur[i]));
	}
	json_object_array_add(w, json_object_new_int64((int64_t)st->regs.mask_writes));
	json_object_array_add(w, json_object_new_int64((int64_t)st->regs.pqr_writes));
	json_object_array_add(w, json_object_new_int64((int64_t)st->regs.cfg_writes));
	json_object_object_add(o, "mask", mask);
	json_object_object_add(o, "cfg", cfg);
	json_object_object_add(o, "pqr", pqr);
	json_object_object_add(o, "cur", cur);
	json_object_object_add(o, "writes", w);
	if (st->regs.digest)
		json_object_object_add(o, "digest", hex(st->regs.digest));
	return o;
}

static json_object *state_json(const struct rdt_state *st, const char *backend)
{
	json_object *root = json_object_new_object(), *cdp = json_object_new_object();
	json_object *cpus = json_object_new_array(), *tasks;
	json_object *groups, *modes = NULL;
	int *order_of = malloc(st->ngroups * sizeof(int));
	unsigned int r, i;

	if (!order_of)
		return NULL;
	groups = groups_json(st, order_of);
	if (!groups) {
		free(order_of);
		return NULL;
	}
	json_object_object_add(root, "format", json_object_new_string("rdtalloc-state"));
	json_object_object_add(root, "version", json_object_new_int(STATE_FORMAT));
	json_object_object_add(root, "backend", json_object_new_string(backend));
	json_object_object_add(root, "machine", json_object_new_string(st->m->desc));
	if (st->id[0])
		json_object_object_add(root, "id", json_object_new_string(st->id));
	for (r = 0; r < RDT_NRES; r++)
		json_object_object_add(cdp, rdt_res_name(r), json_object_new_boolean(st->cdp[r]));
	json_object_object_add(root, "cdp", cdp);
	json_object_object_add(root, "precedence", json_object_new_string(
		st->precedence == RDT_PREC_TASK ? "task" : "cpu"));
	{
		json_object *l = json_object_new_object();

		json_object_object_add(l, "groups", json_object_new_int64(st->max_groups));
		json_object_object_add(l, "tasks", json_object_new_int64(st->max_tasks));
		json_object_object_add(root, "limits", l);
	}
	json_object_object_add(root, "next_seq", json_object_new_int64((int64_t)st->next_seq));
	json_object_object_add(root, "groups", groups);
	for (i = 0; i < st->ngroups; i++) {
		if (!st->groups[i].live || !st->groups[i].exclusive)
			continue;
		if (!modes)
			modes = json_object_new_object();
		json_object_object_add(modes, st->groups[i].name,
				       json_object_new_boolean(st->groups[i].forced));
	}
	if (modes)
		json_object_object_add(root, "exclusive", modes);
	for (i = 0; i < st->m->ncpus; i++) {
		int g = st->cpu_group[i];

		json_object_array_add(cpus, json_object_new_int(g < 0 ? -1 : order_of[g]));
	}
	json_object_object_add(root, "cpus", cpus);
	write_sections(st, root);
	tasks = tasks_json(st, order_of);
	json_object_object_add(root, "tasks", tasks);
	if (st->ncgroups) {
		json_object *cg = json_object_new_array();

		for (i = 0; i < st->ncgroups; i++) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "path",
					       json_object_new_string(st->cgroups[i].path));
			json_object_object_add(o, "id",
					       json_object_new_int64((int64_t)st->cgroups[i].id));
			json_object_object_add(o, "group",
					       json_object_new_int(order_of[st->cgroups[i].group]));
			if (st->cgroups[i].enforce)
				json_object_object_add(o, "enforce", json_object_new_boolean(1));
			json_object_array_add(cg, o);
		}
		json_object_object_add(root, "cgroups", cg);
	}
	json_object_object_add(root, "regs", regs_json(st));
	{
		json_object *ow = owners_json(st);

		if (ow)
			json_object_object_add(root, "owners", ow);
	}
	free(order_of);
	return root;
}

int rdt_store_write(struct rdt_store *s, const struct rdt_state *st, const char *backend,
		    char *err, size_t len)
{
	json_object *root = state_json(st, backend);
	struct iovec iov[2] = { [1] = { .iov_base = "\n", .iov_len = 1 } };
	const char *text;
	struct stat sb;
	int ret;

	if (!root)
		return -ENOMEM;
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	iov[0] = (struct iovec){ .iov_base = (void *)text, .iov_len = strlen(text) };
	ret = rdt_atomic_write(s->dirfd, s->path, iov, 2, 0600, &sb, err, len);
	if (ret)
		goto out;
	remember_id(s, &sb);
out:
	json_object_put(root);
	return ret;
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * resctrl backend, files, the undo log, the keys of our classes, the cooperating lock, and the view of the kernel's directories against the state's classes.
 * backends/resctrl_int.h says what the parts share.
 */
#include "backends/resctrl_int.h"

/* ---- Files ------------------------------------------------------------------ */

/* root/dir/file; the root is bounded (settings) and names are short, so it fits. */
void rc_rel_path(const struct rc_ctx *c, const char *dir, const char *file, char *buf,
		     size_t len)
{
	if (snprintf(buf, len, "%s%s%s%s%s", c->root, *dir ? "/" : "", dir, *file ? "/" : "",
		     file) >= (int)len)
		buf[0] = '\0';
}

/* A whole file, bounded; *out is NUL-terminated and malloc'ed. */
int rc_read_all(const char *path, size_t max, char **out, size_t *outlen)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap + 1), *p;
	ssize_t got;
	int fd, ret = 0;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (;;) {
		if (len == cap) {
			if (cap >= max) {
				ret = -EFBIG;
				break;
			}
			cap = cap * 2 > max ? max : cap * 2;
			p = realloc(buf, cap + 1);
			if (!p) {
				ret = -ENOMEM;
				break;
			}
			buf = p;
		}
		got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			ret = -errno;
			break;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[len] = '\0';
	*out = buf;
	if (outlen)
		*outlen = len;
	return 0;
}

void rc_trim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

/* info/last_cmd_status, one line; "" when it cannot be read. */
void rc_last_status(const struct rc_ctx *c, char *buf, size_t len)
{
	char path[PATH_MAX], *text = NULL, *nl;

	buf[0] = '\0';
	rc_rel_path(c, "info", "last_cmd_status", path, sizeof(path));
	if (rc_read_all(path, RC_SMALL_MAX, &text, NULL))
		return;
	nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	snprintf(buf, len, "%s", text);
	free(text);
}

int rc_read_small(struct rdtalloc *r, const char *dir, const char *file, char **out)
{
	char path[PATH_MAX];
	int ret;

	rc_rel_path(ctx_of(r), dir, file, path, sizeof(path));
	ret = rc_read_all(path, RC_SMALL_MAX, out, NULL);
	if (ret)
		return rdt_fail(r, ret, "resctrl: cannot read %s: %s", path, strerror(-ret));
	return 0;
}

/*
 * One write(2) of text to a control group's file, as the kernel wants it;
 * its refusal is reported with what info/last_cmd_status says.
 */
int rc_write_once(const char *path, const char *text, bool *opened)
{
	size_t n = strlen(text);
	ssize_t w;
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	*opened = fd >= 0;
	if (fd < 0)
		return -errno;
	w = write(fd, text, n);
	if (w < 0)
		ret = -errno;
	else if ((size_t)w != n)
		ret = -EIO;
	close(fd);
	return ret;
}

int rc_write_file(struct rdtalloc *r, const char *dir, const char *file, const char *text)
{
	struct rc_ctx *c = ctx_of(r);
	char path[PATH_MAX], status[256], shown[96];
	bool opened;
	int ret;

	rc_rel_path(c, dir, file, path, sizeof(path));
	ret = rc_write_once(path, text, &opened);
	if (!opened)
		return rdt_fail(r, ret, "resctrl: cannot open %s: %s", path, strerror(-ret));
	if (!ret)
		return 0;
	rc_last_status(c, status, sizeof(status));
	snprintf(shown, sizeof(shown), "%s", text);
	rc_trim(shown);
	for (char *p = shown; *p; p++)
		if (*p == '\n')
			*p = ' ';
	if (ret == -ESRCH && !strcmp(file, "tasks"))
		return ret;	/* the caller decides: the task exited */
	return rdt_fail(r, ret, "resctrl: %s%s%s: '%s': %s", dir, *dir ? "/" : "", file, shown,
			status[0] && strcmp(status, "ok") ? status : strerror(-ret));
}

bool rc_mon_fresh(struct rdtalloc *r, int g)
{
	return ctx_of(r)->mon_fresh && ctx_of(r)->mon_fresh[g];
}

bool rc_any_fresh(struct rdtalloc *r)
{
	unsigned int g;

	for (g = 0; ctx_of(r)->mon_fresh && g < rc_st(r)->ngroups; g++)
		if (ctx_of(r)->mon_fresh[g])
			return true;
	return false;
}

/* ---- Undo log ---------------------------------------------------------------- */

int rc_undo_push(struct rc_ctx *c, const struct rc_undo *u)
{
	if (c->nundo == c->cap_undo) {
		size_t cap = c->cap_undo ? c->cap_undo * 2 : 16;
		struct rc_undo *v = realloc(c->undo, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->undo = v;
		c->cap_undo = cap;
	}
	c->undo[c->nundo++] = *u;
	return 0;
}

void rc_undo_free(struct rc_ctx *c)
{
	while (c->nundo) {
		struct rc_undo *u = &c->undo[--c->nundo];

		free(u->text);
		free(u->text2);
	}
}

static void undo_write(struct rdtalloc *r, const char *dir, const char *file, const char *text)
{
	if (text)
		rc_write_file(r, dir, file, text);
}

/*
 * What the undo log says was done - made, rewritten, removed, tasks placed
 * - as one line for the agent's log and rdtctl sync ("" when nothing).
 */
void rc_describe_done(const struct rc_ctx *c, char *buf, size_t len)
{
	static const char *const verb[] = { [UNDO_RMDIR] = "made", [UNDO_WRITE] = "rewrote",
					    [UNDO_MKDIR] = "removed" };
	unsigned int tasks = 0, shown = 0;
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < c->nundo && n + 1 < len; i++) {
		const struct rc_undo *u = &c->undo[i];

		if (u->op == UNDO_TASK) {
			tasks++;
			continue;
		}
		if (++shown > 6)
			continue;	/* the count below says the rest */
		n += (size_t)snprintf(buf + n, len - n, "%s%s %s%s%s", n ? ", " : "", verb[u->op],
				      u->dir[0] ? u->dir : "the root",
				      u->op == UNDO_WRITE ? "/" : "", u->op == UNDO_WRITE ? u->file : "");
	}
	if (shown > 6 && n + 1 < len)
		n += (size_t)snprintf(buf + n, len - n, " and %u more", shown - 6);
	if (tasks && n + 1 < len)
		snprintf(buf + n, len - n, "%s%u task%s placed", n ? "; " : "", tasks,
			 tasks == 1 ? "" : "s");
}

/* Put the kernel back as it was, newest step first; best effort. */
void rc_undo_replay(struct rdtalloc *r)
{
	struct rc_ctx *c = ctx_of(r);
	char path[PATH_MAX], tid[24], saved[RDT_ERRMSG_MAX];

	snprintf(saved, sizeof(saved), "%s", rdtalloc_errmsg(r));
	while (c->nundo) {
		struct rc_undo *u = &c->undo[--c->nundo];

		switch (u->op) {
		case UNDO_RMDIR:
			rc_rel_path(c, u->dir, "", path, sizeof(path));
			rmdir(path);
			break;
		case UNDO_WRITE:
			undo_write(r, u->dir, u->file, u->text);
			break;
		case UNDO_TASK:
			snprintf(tid, sizeof(tid), "%d\n", (int)u->tid);
			rc_write_file(r, u->dir, "tasks", tid);
			if (u->mon[0]) {
				char md[RC_MON_DIR_MAX];

				mon_dir(u->dir, u->mon, md, sizeof(md));
				rc_write_file(r, md, "tasks", tid);
			}
			break;
		case UNDO_MKDIR:
			rc_rel_path(c, u->dir, "", path, sizeof(path));
			if (!mkdir(path, 0755)) {
				undo_write(r, u->dir, "schemata", u->text);
				undo_write(r, u->dir, "cpus_list", u->text2);
			}
			break;
		}
		free(u->text);
		free(u->text2);
	}
	if (saved[0])
		rdt_fail(r, -EIO, "%s", saved);	/* the first failure is the one to report */
}

/* ---- Keys: a group's masks in every domain, as the kernel sees them ---------- */

size_t rc_key_len(const struct rdt_state *st)
{
	return (size_t)st->nslots * 2;
}

/* The masks of group g; the code half only where CDP is on. */
void rc_group_key(const struct rdt_state *st, int g, uint64_t *key)
{
	unsigned int s;

	for (s = 0; s < st->nslots; s++) {
		key[s * 2] = st->groups[g].mask[s * 2];
		key[s * 2 + 1] = st->cdp[st->slot[s].res] ? st->groups[g].mask[s * 2 + 1] : 0;
	}
}

static int parse_res(const char *name, enum rdt_res *res, int *half)
{
	static const struct {
		const char *name;
		enum rdt_res res;
		int half;	/* 0 data (or both), 1 code, 2 both halves of a CDP-off line */
	} names[] = {
		{ "L3", RDT_L3, 2 }, { "L3DATA", RDT_L3, 0 }, { "L3CODE", RDT_L3, 1 },
		{ "L2", RDT_L2, 2 }, { "L2DATA", RDT_L2, 0 }, { "L2CODE", RDT_L2, 1 },
		{ "MB", RDT_MB, 2 },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].name, name)) {
			*res = names[i].res;
			*half = names[i].half;
			return 0;
		}
	return -ENOENT;
}

/*
 * One line of a schemata file ("    L3:0=7ff;1=7ff"): its resource and half
 * (parse_res), and the "id=mask;..." part; NULL for a line of a resource
 * the machine does not allocate (MB) or no resource line at all.
 */
char *rc_schemata_line(char *line, const struct rdt_machine *m, enum rdt_res *res,
			   int *half)
{
	char *colon;

	while (isspace((unsigned char)*line))
		line++;
	colon = strchr(line, ':');
	if (!colon)
		return NULL;
	*colon = '\0';
	if (parse_res(line, res, half) || !m->caps[*res].present)
		return NULL;
	return colon + 1;
}

/*
 * A schemata file as the kernel prints it ("    L3:0=7ff;1=7ff") into our
 * key layout. Lines of resources we do not allocate (MB) are skipped.
 */
int rc_parse_schemata_seen(const struct rdt_state *st, char *text, uint64_t *key,
			       bool *slot_seen)
{
	char *line, *save = NULL;
	unsigned int seen = 0;

	memset(key, 0, rc_key_len(st) * sizeof(*key));
	if (slot_seen)
		memset(slot_seen, 0, st->nslots * sizeof(*slot_seen));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *items, *item, *isave = NULL;
		enum rdt_res res;
		int half;

		items = rc_schemata_line(line, st->m, &res, &half);
		if (!items)
			continue;
		for (item = strtok_r(items, ";", &isave); item;
		     item = strtok_r(NULL, ";", &isave)) {
			char *end;
			unsigned long id = strtoul(item, &end, 10);
			uint64_t mask;
			int d;

			if (*end != '=')
				return -EINVAL;
			/* bandwidths are decimal, masks hex */
			mask = strtoull(end + 1, &end, res == RDT_MB ? 10 : 16);
			d = rdt_machine_domain(st->m, res, (unsigned int)id);
			if (d < 0)
				return -EINVAL;
			if (half == 1 && st->cdp[res])
				key[st->slot_of[res][d] * 2 + 1] = mask;
			else if (half != 1)
				key[st->slot_of[res][d] * 2] = mask;
			if (slot_seen)
				slot_seen[st->slot_of[res][d]] = true;
			seen++;
		}
	}
	return seen ? 0 : -EINVAL;
}

int rc_parse_schemata(const struct rdt_state *st, char *text, uint64_t *key)
{
	return rc_parse_schemata_seen(st, text, key, NULL);
}

/* Our key as schemata lines, every domain of every resource. */
char *rc_format_schemata(const struct rdt_state *st, const uint64_t *key)
{
	size_t cap = 64 + (size_t)st->nslots * 2 * 32, off = 0;
	char *buf = malloc(cap);
	unsigned int res, half, d;

	if (!buf)
		return NULL;
	buf[0] = '\0';
	for (res = 0; res < RDT_NALL; res++) {
		if (!st->m->caps[res].present)
			continue;
		for (half = 0; half < (st->cdp[res] ? 2u : 1u); half++) {
			off += (size_t)snprintf(buf + off, cap - off, "%s%s:", rdt_res_name(res),
						!st->cdp[res] ? "" : half ? "CODE" : "DATA");
			for (d = 0; d < st->m->ndom[res]; d++)
				off += (size_t)snprintf(buf + off, cap - off,
							res == RDT_MB ? "%s%u=%llu" : "%s%u=%llx",
							d ? ";" : "",
							st->m->dom[res][d].cache_id,
							(unsigned long long)key[st->slot_of[res][d] * 2 + half]);
			off += (size_t)snprintf(buf + off, cap - off, "\n");
		}
	}
	return buf;
}

/* ---- The lock cooperating tools take (resctrl.rst, "Lock") ------------------ */

#define RC_LOCK_WAIT_MS 10000	/* a holder this slow is stuck, not busy */

/*
 * flock(LOCK_EX) on the resctrl root for a whole change: another tool that
 * takes it (pqos, a runtime, a script following the kernel's advice) never
 * sees half of it, nor changes the directories under us. Nested: the
 * outermost call locks. Waits at most RC_LOCK_WAIT_MS.
 */
int rc_lock(struct rdtalloc *r)
{
	struct rc_ctx *c = ctx_of(r);
	int fd, waited = 0;

	if (c->lock_depth++)
		return 0;
	fd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		c->lock_depth = 0;
		return rdt_fail(r, -errno, "resctrl: cannot open %s to lock it: %s", c->root,
				strerror(errno));
	}
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno;

		if (err == EINTR)
			continue;
		if (err != EWOULDBLOCK || waited >= RC_LOCK_WAIT_MS) {
			close(fd);
			c->lock_depth = 0;
			if (err == EWOULDBLOCK)
				return rdt_fail(r, -EBUSY, "resctrl: another tool has held the lock "
						"on %s (flock) for %d s; nothing was changed",
						c->root, RC_LOCK_WAIT_MS / 1000);
			return rdt_fail(r, -err, "resctrl: cannot lock %s: %s", c->root,
					strerror(err));
		}
		usleep(10000);
		waited += 10;
	}
	c->lock_fd = fd;
	return 0;
}

void rc_unlock(struct rdtalloc *r)
{
	struct rc_ctx *c = ctx_of(r);

	if (!c->lock_depth || --c->lock_depth)
		return;
	close(c->lock_fd);	/* drops the lock */
	c->lock_fd = -1;
}

/* ---- The view: the kernel's directories and the state's classes ------------ */

/*
 * Ours by name: our prefix, then a group's name as rc_dir_name_for() makes
 * it ([A-Za-z0-9_.-], "+N" on a collision) - which covers the numbers an
 * earlier version gave (rdtalloc-ID-<n>), adopted as they are. A state made
 * before ids owns only rdtalloc-<n>: under the bare prefix anything else
 * may be a state's with an id (rdtalloc-ID-...).
 */
static bool is_ours(const struct rc_ctx *c, const char *name)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789_.-+";
	size_t plen = strlen(c->prefix);
	const char *p = name + plen;
	char *end;
	long v;

	if (!plen || strncmp(name, c->prefix, plen) || !*p)
		return false;
	if (!c->numbered)
		return p[strspn(p, chars)] == '\0';
	if (!isdigit((unsigned char)*p) || (*p == '0' && p[1]))
		return false;
	v = strtol(p, &end, 10);
	return !*end && v >= 1 && v <= RC_DIR_MAX;
}

/* The control group called name in v; -1 when none. */
int rc_dir_named(const struct rc_view *v, const char *name)
{
	unsigned int i;

	for (i = 0; i < v->ndirs; i++)
		if (!strcmp(v->dirs[i].name, name))
			return (int)i;
	return -1;
}

/*
 * The name of a new control group for class k of st: our prefix and the
 * class's oldest group's name (cut to fit 63 bytes), so that a person can
 * tell whose it is and a remount, which removes them all, makes the same
 * names again from the same state (classes are made oldest first, so a
 * collision goes the same way too). Taken already (a control group that
 * kept the name of a group that left it, or two long names alike): "+2",
 * "+3"... - '+' is no group name's, so no other group's name is taken. A
 * state made before ids keeps rdtalloc-<n>, the smallest n free.
 */
int rc_dir_name_for(const struct rc_ctx *c, const struct rdt_state *st, const struct rc_view *v,
		    int k, char *name, size_t len)
{
	unsigned int n;

	for (n = 1; n <= RC_DIR_MAX + 1; n++) {
		rc_dir_name_try(c, st, v, k, n, name, len);
		if (rc_dir_named(v, name) < 0)
			return 0;
	}
	return -E2BIG;
}

/* The n-th name rc_dir_name_for() tries for class k (1: the one a remount gives). */
void rc_dir_name_try(const struct rc_ctx *c, const struct rdt_state *st, const struct rc_view *v,
		     int k, unsigned int n, char *name, size_t len)
{
	const char *g = st->groups[v->cls[k].groups[0]].name;
	size_t plen = strlen(c->prefix);
	char sfx[16] = "";

	if (c->numbered) {
		snprintf(name, len, "%s%u", c->prefix, n);
		return;
	}
	if (n > 1)
		snprintf(sfx, sizeof(sfx), "+%u", n);
	snprintf(name, len, "%s%.*s%s", c->prefix, (int)(len - 1 - plen - strlen(sfx)), g, sfx);
}

/* A top-level directory but info/ and the monitoring ones is a control group. */
static bool is_control_group(const struct rc_ctx *c, const struct dirent *e)
{
	char path[PATH_MAX];
	struct stat sb;

	if (e->d_name[0] == '.' || !strcmp(e->d_name, "info") ||
	    !strcmp(e->d_name, "mon_groups") || !strcmp(e->d_name, "mon_data") ||
	    strlen(e->d_name) >= sizeof(((struct rc_dir *)0)->name))
		return false;
	if (e->d_type == DT_DIR)
		return true;
	if (e->d_type != DT_UNKNOWN)
		return false;
	rc_rel_path(c, e->d_name, "", path, sizeof(path));
	return !stat(path, &sb) && S_ISDIR(sb.st_mode);
}

void rc_view_free(struct rc_view *v)
{
	unsigned int i;

	for (i = 0; i < v->ndirs; i++)
		free(v->dirs[i].key);
	for (i = 0; i < v->ncls; i++)
		free(v->cls[i].groups);
	free(v->dirs);
	free(v->cls);
	free(v->cls_of);
	free(v->keys);
	memset(v, 0, sizeof(*v));
}

/* Every top-level control group, ours with their schemata parsed. */
int rc_list_dirs(struct rdtalloc *r, const struct rdt_state *st, struct rc_view *v)
{
	struct rc_ctx *c = ctx_of(r);
	struct dirent *e;
	DIR *dir;
	int ret = 0;

	dir = opendir(c->root);
	if (!dir)
		return rdt_fail(r, -errno, "resctrl: cannot list %s: %s", c->root, strerror(errno));
	v->dirs = calloc(RC_DIR_MAX, sizeof(*v->dirs));
	if (!v->dirs)
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	while (!ret && (e = readdir(dir))) {
		struct rc_dir *d;
		char *text;

		if (!is_control_group(c, e))
			continue;
		if (v->ndirs == RC_DIR_MAX) {
			ret = rdt_fail(r, -E2BIG, "resctrl: more than %d control groups in %s",
				       RC_DIR_MAX, c->root);
			break;
		}
		d = &v->dirs[v->ndirs++];
		memcpy(d->name, e->d_name, strlen(e->d_name) + 1);	/* length checked */
		d->cls = d->was = -1;
		d->ours = is_ours(c, d->name);
		if (!d->ours) {
			v->nforeign++;
			continue;
		}
		v->nours++;
		d->key = calloc(rc_key_len(st), sizeof(*d->key));
		if (!d->key) {
			ret = rdt_fail(r, -ENOMEM, "out of memory");
			break;
		}
		ret = rc_read_small(r, d->name, "schemata", &text);
		if (ret)
			break;
		d->key_ok = rc_parse_schemata(st, text, d->key) == 0;
		free(text);
	}
	closedir(dir);
	return ret;
}

static const struct rdt_state *cmp_st;
static size_t cmp_nkey;
static const uint64_t *cmp_keys;

/* Classes by their oldest group (rc_make_classes), so made and numbered in that order. */
static int cmp_class_age(const void *a, const void *b)
{
	uint64_t x = cmp_st->groups[((const struct rc_class *)a)->groups[0]].seq;
	uint64_t y = cmp_st->groups[((const struct rc_class *)b)->groups[0]].seq;

	return (x > y) - (x < y);
}

static int cmp_group_key(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	int k = memcmp(cmp_keys + (size_t)x * cmp_nkey, cmp_keys + (size_t)y * cmp_nkey,
		       cmp_nkey * sizeof(uint64_t));

	if (k)
		return k;
	return (cmp_st->groups[x].seq > cmp_st->groups[y].seq) -
	       (cmp_st->groups[x].seq < cmp_st->groups[y].seq);
}

/* The classes of st: live non-default groups by identical key, oldest group first. */
int rc_make_classes(struct rdtalloc *r, const struct rdt_state *st, struct rc_view *v)
{
	unsigned int g, n = 0, i, j;
	int *order;

	v->nkey = rc_key_len(st);
	v->keys = malloc(((size_t)st->ngroups * v->nkey + 1) * sizeof(uint64_t));
	v->cls_of = malloc(((size_t)st->ngroups + 1) * sizeof(int));
	order = malloc(((size_t)st->ngroups + 1) * sizeof(int));
	v->cls = calloc((size_t)st->ngroups + 1, sizeof(*v->cls));
	if (!v->keys || !v->cls_of || !order || !v->cls) {
		free(order);
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	for (g = 0; g < st->ngroups; g++) {
		v->cls_of[g] = -1;
		if (!st->groups[g].live)
			continue;
		rc_group_key(st, (int)g, v->keys + (size_t)g * v->nkey);
		if (g)
			order[n++] = (int)g;
	}
	/* qsort has no argument: the calls are under the context's lock, one at a time */
	cmp_st = st;
	cmp_nkey = v->nkey;
	cmp_keys = v->keys;
	qsort(order, n, sizeof(int), cmp_group_key);
	for (i = 0; i < n; i = j) {
		struct rc_class *k = &v->cls[v->ncls];

		for (j = i + 1; j < n && !memcmp(v->keys + (size_t)order[i] * v->nkey,
						 v->keys + (size_t)order[j] * v->nkey,
						 v->nkey * sizeof(uint64_t)); j++)
			;
		k->key = v->keys + (size_t)order[i] * v->nkey;
		k->groups = malloc((j - i) * sizeof(int));
		if (!k->groups) {
			free(order);
			return rdt_fail(r, -ENOMEM, "out of memory");
		}
		memcpy(k->groups, order + i, (j - i) * sizeof(int));
		/* by creation order, so groups[0] is the oldest */
		cmp_keys = NULL;
		k->ngroups = j - i;
		for (unsigned int a = 1; a < k->ngroups; a++)
			for (unsigned int b = a; b > 0 && st->groups[k->groups[b]].seq <
						       st->groups[k->groups[b - 1]].seq; b--) {
				int t = k->groups[b];

				k->groups[b] = k->groups[b - 1];
				k->groups[b - 1] = t;
			}
		cmp_keys = v->keys;
		k->dir = -1;
		v->ncls++;
	}
	free(order);
	qsort(v->cls, v->ncls, sizeof(*v->cls), cmp_class_age);
	for (i = 0; i < v->ncls; i++)
		for (j = 0; j < v->cls[i].ngroups; j++)
			v->cls_of[v->cls[i].groups[j]] = (int)i;
	return 0;
}

/* Our directory holding exactly this key, not yet claimed; -1 when none. */
int rc_dir_with_key(const struct rc_view *v, const uint64_t *key)
{
	unsigned int i;

	for (i = 0; i < v->ndirs; i++)
		if (v->dirs[i].ours && v->dirs[i].key_ok && v->dirs[i].cls < 0 &&
		    !memcmp(v->dirs[i].key, key, v->nkey * sizeof(uint64_t)))
			return (int)i;
	return -1;
}

/* Our directory that no class holds and whose schemata no class has; -1 when none. */
static int dir_drifted(const struct rc_view *v)
{
	unsigned int i, k;

	for (i = 0; i < v->ndirs; i++) {
		if (!v->dirs[i].ours || v->dirs[i].cls >= 0)
			continue;
		for (k = 0; v->dirs[i].key_ok && k < v->ncls; k++)
			if (!memcmp(v->dirs[i].key, v->cls[k].key, v->nkey * sizeof(uint64_t)))
				break;
		if (!v->dirs[i].key_ok || k == v->ncls)
			return (int)i;
	}
	return -1;
}

/*
 * The view of r->st as the kernel holds it now: every class with its
 * directory. The kernel may have changed behind our back: a class whose
 * schemata were rewritten is answered from the directory of ours they were
 * rewritten in (the next change puts them back there); a class with no
 * directory at all keeps dir -1, and looks answer around it.
 */
int rc_view_current(struct rdtalloc *r, struct rc_view *v)
{
	unsigned int k;
	int ret;

	memset(v, 0, sizeof(*v));
	ret = rc_list_dirs(r, rc_st(r), v);
	if (!ret)
		ret = rc_make_classes(r, rc_st(r), v);
	for (k = 0; !ret && k < v->ncls; k++) {
		int d = rc_dir_with_key(v, v->cls[k].key);

		v->cls[k].dir = d;
		if (d >= 0)
			v->dirs[d].cls = (int)k;
	}
	/*
	 * A class whose control group is missing (removed, a remount) keeps
	 * dir -1: looks answer from what exists and mark the rest as drift
	 * (rdtalloc_drift); a class whose directory holds other schemata is
	 * the drifted directory of ours, as a read-only open shows it.
	 */
	for (k = 0; !ret && k < v->ncls; k++) {
		int d = v->cls[k].dir;

		if (d < 0 && (d = dir_drifted(v)) >= 0) {
			v->cls[k].dir = d;
			v->dirs[d].cls = (int)k;
		}
	}
	if (ret)
		rc_view_free(v);
	return ret;
}

/*
 * The class number the API reports for group g: 0 for the root, else its
 * class's place among the classes by their oldest group (1 the oldest), a
 * number the state alone decides, as the names; -ESTALE (said) when its
 * control group is missing: drift.
 */
int rc_class_number(struct rdtalloc *r, const struct rc_view *v, int g, unsigned int *n)
{
	int k = v->cls_of[g];

	if (k >= 0 && v->cls[k].dir < 0)
		return rdt_fail(r, -ESTALE, "group %s: its control group is missing in %s (drift: "
				"the next change, or the agent, makes it again)",
				rc_st(r)->groups[g].name, ctx_of(r)->root);
	*n = k < 0 ? 0 : (unsigned int)k + 1;
	return 0;
}


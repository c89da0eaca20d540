// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hook load: loading the BPF object through its skeleton, filling the maps
 * before the programs attach, and pinning maps, programs and links under
 * /sys/fs/bpf/rdtalloc (0700) so that the hook outlives the process that
 * loaded it; and taking all of it down again. Everything is pinned into a
 * private directory first and renamed into place, so other processes see
 * no hook or a whole one, and two loaders cannot both win.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "hook/hook.h"
#include "services.h"
#include "state.h"
#include "tasks.h"

#if RDTALLOC_HAVE_BPF

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/magic.h>

#include "switch_hook.h"
#include "switch_hook.skel.h"

#define BPFFS "/sys/fs/bpf"
/* bpffs refuses names with a '.': "rdtalloc-new-PID" (a load), "rdtalloc-old-PID" (an unload) */
#define NEW_PREFIX "rdtalloc-new-"
#define OLD_PREFIX "rdtalloc-old-"

/* The BPF file system, mounted (0700) when it is not, as bpftool does. */
static int ensure_bpffs(char *err, size_t len)
{
	struct statfs sf;

	if (statfs(BPFFS, &sf) == 0 && sf.f_type == BPF_FS_MAGIC)
		return 0;
	if (mkdir(BPFFS, 0700) && errno != EEXIST) {
		snprintf(err, len, "cannot create %s: %s", BPFFS, strerror(errno));
		return -errno;
	}
	if (mount("bpf", BPFFS, "bpf", 0, "mode=0700")) {
		int ret = -errno;

		snprintf(err, len, "the BPF file system is not mounted on %s and mounting it "
			 "failed: %s (as root: mount -t bpf bpf %s)", BPFFS, strerror(errno),
			 BPFFS);
		return ret;
	}
	return 0;
}

/* Remove a pin directory and what is pinned in it (no subdirectories). */
static int remove_pins(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) && errno != ENOENT)
			ret = -errno;
	}
	closedir(d);
	if (rmdir(dir) && !ret)
		ret = -errno;
	return ret;
}

/*
 * Private directories left by a loader or unloader that died half-way: the
 * links pinned there would keep the programs running for nobody.
 */
static void remove_stale(void)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(BPFFS);

	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *p = de->d_name;
		long pid;
		char *end;

		if (!strncmp(p, NEW_PREFIX, strlen(NEW_PREFIX)))
			p += strlen(NEW_PREFIX);
		else if (!strncmp(p, OLD_PREFIX, strlen(OLD_PREFIX)))
			p += strlen(OLD_PREFIX);
		else
			continue;
		pid = strtol(p, &end, 10);
		if (pid <= 0 || *end || pid == getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", BPFFS, de->d_name);
		remove_pins(path);
	}
	closedir(d);
}

static int pin_error(const char *what, const char *dir, int ret, char *err, size_t len)
{
	snprintf(err, len, "switch hook: pinning %s under %s failed: %s", what, dir,
		 strerror(-ret));
	return ret;
}

static int pin_all(struct switch_hook *skel, const char *dir, char *err, size_t len)
{
	struct {
		const char *name;
		struct bpf_map *map;
		struct bpf_program *prog;
	} pins[] = {
		{ "task_group", skel->maps.task_group, NULL },
		{ "group_closid", skel->maps.group_closid, NULL },
		{ "cgroup_group", skel->maps.cgroup_group, NULL },
		{ "cpu_group", skel->maps.cpu_group, NULL },
		{ "cpu_domain", skel->maps.cpu_domain, NULL },
		{ "cpu_state", skel->maps.cpu_state, NULL },
		{ "control", skel->maps.control, NULL },
		{ "events", skel->maps.events, NULL },
		{ "prog_tasks", NULL, skel->progs.rdt_tasks },
		{ "prog_kick", NULL, skel->progs.rdt_kick },
		{ "prog_switch", NULL, skel->progs.rdt_switch },
		{ "prog_fork", NULL, skel->progs.rdt_fork },
		{ "prog_attach", NULL, skel->progs.rdt_attach },
	};
	char path[PATH_MAX];
	size_t i;
	int ret;

	for (i = 0; i < sizeof(pins) / sizeof(pins[0]); i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, pins[i].name) >=
		    sizeof(path))
			return pin_error(pins[i].name, dir, -ENAMETOOLONG, err, len);
		ret = pins[i].map ? bpf_map__pin(pins[i].map, path)
				  : bpf_program__pin(pins[i].prog, path);
		if (ret)
			return pin_error(pins[i].name, dir, ret, err, len);
	}
	return 0;
}

/* Size the per-CPU maps and the ring buffer for this machine. */
static int size_maps(struct switch_hook *skel, char *err, size_t len)
{
	int ncpus = libbpf_num_possible_cpus();
	size_t rb = 16384;

	if (ncpus <= 0) {
		snprintf(err, len, "cannot count the possible CPUs: %s", strerror(-ncpus));
		return ncpus < 0 ? ncpus : -EINVAL;
	}
	/* one event in flight per CPU, and kicks: room for 8 times that */
	while (rb < (size_t)ncpus * 8 * (sizeof(struct rdt_hook_event) + 8))
		rb *= 2;
	if (bpf_map__set_max_entries(skel->maps.cpu_group, (__u32)ncpus) ||
	    bpf_map__set_max_entries(skel->maps.cpu_domain, (__u32)ncpus) ||
	    bpf_map__set_max_entries(skel->maps.cpu_state, (__u32)ncpus) ||
	    bpf_map__set_max_entries(skel->maps.events, (__u32)rb)) {
		snprintf(err, len, "switch hook: cannot size its maps");
		return -EINVAL;
	}
	return 0;
}

static int load_error(int ret, char *err, size_t len)
{
	if (ret == -EPERM || ret == -EACCES)
		snprintf(err, len, "loading the switch hook was refused (%s): it needs root "
			 "(CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN)", strerror(-ret));
	else
		snprintf(err, len, "loading the switch hook failed: %s (the kernel needs BTF, "
			 "BPF task storage, tp_btf programs and BPF atomics: Linux 5.12 or later)",
			 strerror(-ret));
	return ret;
}

/* The tasks the state binds (bound before the hook ran, on the simulator) go in too. */
static int fill_tasks(struct rdt_hook *h, const struct rdt_state *st)
{
	size_t i;
	int ret;

	for (i = 0; i < st->tasks.cap; i++) {
		const struct rdt_task *t = &st->tasks.slots[i];

		if (!t->tid || !rdt_task_alive(t->tid, t->start))
			continue;
		ret = rdt_hook_bind_task(h, t->tid, t->start, st->groups[t->group].seq);
		/* gone, or a thread we cannot name before Linux 6.9: not bound */
		if (ret && ret != -ESRCH && ret != -EOPNOTSUPP)
			return ret;
	}
	return 0;
}

/* Fill the maps of the hook pinned in dir from st, for r, before anything attaches. */
static int fill(const char *dir, struct rdtalloc *r, const struct rdt_state *st, char *err,
		size_t len)
{
	struct rdt_hook *h;
	int ret;

	ret = rdt_hook_open_at(dir, &h, err, len);
	if (ret)
		return ret;
	rdt_hook_ctl(h)->ncpus = rdt_hook_ncpus(h);
	ret = rdt_hook_set_served(h, r);
	if (!ret)
		ret = rdt_hook_sync(h, st, NULL);
	if (!ret)
		ret = fill_tasks(h, st);
	if (ret)
		snprintf(err, len, "%s", rdt_hook_errmsg(h));
	rdt_hook_close(h);
	return ret;
}

static int attach_pin(struct bpf_program *prog, const char *dir, const char *name,
		      struct bpf_link **link, char *err, size_t len)
{
	char path[PATH_MAX];
	int ret;

	*link = bpf_program__attach(prog);
	if (!*link) {
		ret = -errno;
		snprintf(err, len, "switch hook: attaching %s failed: %s", bpf_program__name(prog),
			 strerror(errno));
		return ret;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return pin_error(name, dir, -ENAMETOOLONG, err, len);
	ret = bpf_link__pin(*link, path);
	return ret ? pin_error(name, dir, ret, err, len) : 0;
}

int rdt_hook_load(struct rdtalloc *r, const struct rdt_state *st, char *err, size_t len)
{
	struct bpf_link *sw = NULL, *fork = NULL, *att = NULL;
	struct switch_hook *skel = NULL;
	char tmp[PATH_MAX];
	struct stat sb;
	int ret;

	ret = ensure_bpffs(err, len);
	if (ret)
		return ret;
	remove_stale();
	if (stat(RDT_HOOK_DIR, &sb) == 0) {
		snprintf(err, len, "the switch hook is already loaded (%s)", RDT_HOOK_DIR);
		return -EEXIST;
	}
	skel = switch_hook__open();
	if (!skel)
		return load_error(-errno, err, len);
	ret = size_maps(skel, err, len);
	if (ret)
		goto out;
	ret = switch_hook__load(skel);
	if (ret) {
		load_error(ret, err, len);
		goto out;
	}
	snprintf(tmp, sizeof(tmp), "%s/%s%d", BPFFS, NEW_PREFIX, (int)getpid());
	if (mkdir(tmp, 0700)) {
		ret = -errno;
		snprintf(err, len, "cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	ret = pin_all(skel, tmp, err, len);
	if (!ret)
		ret = fill(tmp, r, st, err, len);
	if (!ret)
		ret = attach_pin(skel->progs.rdt_fork, tmp, "link_fork", &fork, err, len);
	if (!ret)
		ret = attach_pin(skel->progs.rdt_attach, tmp, "link_attach", &att, err, len);
	if (!ret)
		ret = attach_pin(skel->progs.rdt_switch, tmp, "link_switch", &sw, err, len);
	if (!ret && rename(tmp, RDT_HOOK_DIR)) {
		ret = errno == ENOTEMPTY || errno == EEXIST ? -EEXIST : -errno;
		snprintf(err, len, ret == -EEXIST ? "the switch hook is already loaded (%s)" :
			 "cannot publish the switch hook as %s: %s", RDT_HOOK_DIR, strerror(errno));
	}
	if (ret)
		remove_pins(tmp);
out:
	bpf_link__destroy(sw);		/* closes our descriptor; the pin keeps the link */
	bpf_link__destroy(fork);
	bpf_link__destroy(att);
	switch_hook__destroy(skel);
	return ret;
}

int rdt_hook_unload(char *err, size_t len)
{
	char dead[PATH_MAX];
	int ret;

	/* out of sight first: nobody opens a hook that is half taken down */
	snprintf(dead, sizeof(dead), "%s/%s%d", BPFFS, OLD_PREFIX, (int)getpid());
	if (rename(RDT_HOOK_DIR, dead)) {
		ret = -errno;
		snprintf(err, len, ret == -ENOENT ? "the switch hook is not loaded (nothing is "
			 "pinned under %s)" : "cannot take down %s: %s", RDT_HOOK_DIR,
			 strerror(errno));
		return ret;
	}
	ret = remove_pins(dead);
	if (ret)
		snprintf(err, len, "cannot remove the pins of the switch hook in %s: %s", dead,
			 strerror(-ret));
	return ret;
}

#else /* !RDTALLOC_HAVE_BPF */

int rdt_hook_unload(char *err, size_t len)
{
	snprintf(err, len, "this librdtalloc was built without the switch hook (RDTALLOC_BPF=OFF)");
	return -EOPNOTSUPP;
}

#endif /* RDTALLOC_HAVE_BPF */

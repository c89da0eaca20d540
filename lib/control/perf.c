// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perf: a group's LLC references and misses, as perf counts them per
 * cgroup (perf_event_open with PERF_FLAG_PID_CGROUP): two events on every
 * CPU online (sysfs) for every cgroup bound to the group (rdtctl cgroup bind), read
 * and summed each interval. What a miss-ratio bound needs on a production
 * host, where no trace is recorded. A group with no bound cgroup is not
 * counted; where the CPU has no such events (a VM without a PMU) opening
 * fails and says so.
 *
 * RDTALLOC_CONTROL_PERF=software counts task-clock nanoseconds as
 * references and context switches as misses instead: the same cgroups,
 * CPUs, reads and sums, on machines without a PMU (the tests).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rdtalloc/rdtalloc.h>

#include "config.h"
#include "control/control.h"
#include "context.h"
#include "errors.h"

#define PERF_FDS_MAX 65536	/* events open at once: groups x cgroups x CPUs x 2 */
#define NO_PMU " (this CPU has no such events: a VM without a PMU?)"

struct perf_group {
	int *fd;			/* [n]: references, misses, references, ... */
	size_t n;
	uint64_t last[2];		/* the sums at the last read */
};

struct rdt_ctl_perf {
	size_t ngroups;
	struct perf_group g[RDT_CTL_MAX];
};

static int open_event(bool software, bool miss, int cgfd, int cpu)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	if (software) {
		a.type = PERF_TYPE_SOFTWARE;
		a.config = miss ? PERF_COUNT_SW_CONTEXT_SWITCHES : PERF_COUNT_SW_TASK_CLOCK;
	} else {
		a.type = PERF_TYPE_HARDWARE;
		a.config = miss ? PERF_COUNT_HW_CACHE_MISSES : PERF_COUNT_HW_CACHE_REFERENCES;
	}
	return (int)syscall(SYS_perf_event_open, &a, cgfd, cpu, -1,
			    PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC);
}

void rdt_ctl_perf_close(struct rdt_ctl_perf *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->ngroups; i++) {
		for (size_t k = 0; k < p->g[i].n; k++)
			close(p->g[i].fd[k]);
		free(p->g[i].fd);
	}
	free(p);
}

/*
 * The CPUs online, from sysfs: perf_event_open on an offline one (nosmt, a
 * CPU taken down) fails with ENODEV. Where sysfs does not say, every CPU
 * configured.
 */
static int online_cpus(rdtalloc_t *r, int **cpus, unsigned int *n)
{
	char buf[4096], err[128];
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	long conf;

	if (f && fgets(buf, sizeof(buf), f)) {
		fclose(f);
		buf[strcspn(buf, "\n")] = '\0';
		if (!rdt_cpulist_parse(buf, cpus, n, err, sizeof(err)) && *n)
			return 0;
	} else if (f) {
		fclose(f);
	}
	conf = sysconf(_SC_NPROCESSORS_CONF);
	if (conf < 1)
		return rdt_fail(r, -EINVAL, "perf events: the CPUs online are not known");
	*cpus = malloc((size_t)conf * sizeof(**cpus));
	if (!*cpus)
		return rdt_fail(r, -ENOMEM, "out of memory");
	for (long c = 0; c < conf; c++)
		(*cpus)[c] = (int)c;
	*n = (unsigned int)conf;
	return 0;
}

static int add_cgroup(rdtalloc_t *r, struct perf_group *pg, const char *root,
		      const struct rdt_cgroup *cg, bool software, const int *cpus,
		      unsigned int ncpus)
{
	char path[4096 + 256];
	int cgfd, *fd;

	snprintf(path, sizeof(path), "%s/%s", root, cg->path);
	cgfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cgfd < 0)
		return rdt_fail(r, -errno, "perf events: cgroup %s: %s", cg->path, strerror(errno));
	if (pg->n + 2 * (size_t)ncpus > PERF_FDS_MAX) {
		close(cgfd);
		return rdt_fail(r, -EMFILE, "perf events: more than %d to open", PERF_FDS_MAX);
	}
	fd = realloc(pg->fd, (pg->n + 2 * (size_t)ncpus) * sizeof(*fd));
	if (!fd) {
		close(cgfd);
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	pg->fd = fd;
	for (unsigned int c = 0; c < ncpus; c++) {
		int cpu = cpus[c];

		for (int miss = 0; miss < 2; miss++) {
			int e = open_event(software, miss, cgfd, cpu);

			if (e < 0) {
				int err = errno;

				close(cgfd);
				return rdt_fail(r, -err, "perf events: the LLC %s of cgroup %s on "
						"CPU %d: %s%s", miss ? "misses" : "references",
						cg->path, cpu, strerror(err),
						err == ENOENT || err == EOPNOTSUPP ? NO_PMU : "");
			}
			pg->fd[pg->n++] = e;
		}
	}
	close(cgfd);
	return 0;
}

/*
 * Inside a read call: events for the cgroups bound to each group (groups by
 * index into r->st, gi[i]); a group without one is not counted (counted[i]
 * false). -errno with errmsg set.
 */
int rdt_ctl_perf_open(rdtalloc_t *r, size_t n, const int *gi, bool *counted,
		      struct rdt_ctl_perf **out)
{
	const char *mode = getenv("RDTALLOC_CONTROL_PERF");
	bool software = mode && !strcmp(mode, "software");
	const struct rdt_state *st = rdt_core_state(r);
	struct rdt_ctl_perf *p;
	const char *root = NULL;
	unsigned int ncpus;
	int ret, *cpus;

	*out = NULL;
	ret = online_cpus(r, &cpus, &ncpus);
	if (ret)
		return ret;
	p = calloc(1, sizeof(*p));
	if (!p) {
		free(cpus);
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	p->ngroups = n;
	for (size_t i = 0; !ret && i < n; i++) {
		counted[i] = false;
		for (unsigned int k = 0; !ret && k < st->ncgroups; k++) {
			if (st->cgroups[k].group != gi[i])
				continue;
			if (!root && !(root = rdt_core_cgroup_root(r))) {
				ret = -ENOENT;
				break;
			}
			ret = add_cgroup(r, &p->g[i], root, &st->cgroups[k], software, cpus,
					 ncpus);
			counted[i] = !ret;
		}
	}
	free(cpus);
	if (ret) {
		rdt_ctl_perf_close(p);
		return ret;
	}
	/* the first read is the base of the first interval */
	rdt_ctl_perf_read(p, NULL, NULL);
	*out = p;
	return 0;
}

/* Every group's references and misses since the last read (refs, misses may be NULL). */
void rdt_ctl_perf_read(struct rdt_ctl_perf *p, uint64_t *refs, uint64_t *misses)
{
	for (size_t i = 0; i < p->ngroups; i++) {
		uint64_t sum[2] = { 0, 0 };

		for (size_t k = 0; k < p->g[i].n; k++) {
			uint64_t v;

			if (read(p->g[i].fd[k], &v, sizeof(v)) == sizeof(v))
				sum[k & 1] += v;
		}
		if (refs)
			refs[i] = sum[0] - p->g[i].last[0];
		if (misses)
			misses[i] = sum[1] - p->g[i].last[1];
		p->g[i].last[0] = sum[0];
		p->g[i].last[1] = sum[1];
	}
}

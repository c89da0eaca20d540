// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * resctrl backend, the kernel's capabilities (info/) as a machine, and opening a mount;
 * the ways info/ says are not ours to give (bit_usage) and L3 I/O allocation
 * (io_alloc, io_alloc_cbm; Linux 6.19, AMD SDCIAE), texts as the kernel's
 * fs/resctrl/rdtgroup.c rdt_bit_usage_show and ctrlmondata.c.
 * backends/resctrl_int.h says what the parts share.
 */
#include "backends/resctrl_int.h"
#include "ways.h"

/* ---- The kernel's capabilities ------------------------------------------------------ */

/* Where resctrl is: the setting, else the mount table. */
static int find_root(const struct rdt_backend_env *env, char *root, size_t len, char *reason,
		     size_t rlen)
{
	const char *mounts = env && env->mounts && *env->mounts ? env->mounts
								 : "/proc/self/mounts";
	char path[PATH_MAX];
	struct stat sb;
	int ret;

	if (env && env->resctrl_root && *env->resctrl_root) {
		snprintf(root, len, "%s", env->resctrl_root);
		snprintf(path, sizeof(path), "%s/info/last_cmd_status", root);
		if (stat(path, &sb)) {
			snprintf(reason, rlen, "no resctrl at %s (no %s: %s); check --resctrl-root "
				 "or RDTALLOC_RESCTRL_ROOT", root, path, strerror(errno));
			return -ENOENT;
		}
		return 0;
	}
	ret = rdt_resctrl_mounted(mounts, root, len);
	if (ret < 0) {
		snprintf(reason, rlen, "cannot read the mount table %s: %s", mounts,
			 strerror(-ret));
		return ret;
	}
	if (ret == 0) {
		snprintf(reason, rlen, "resctrl is not mounted: mount -t resctrl resctrl "
			 "/sys/fs/resctrl");
		return -ENOENT;
	}
	return 0;
}

int rc_usable(const struct rdt_backend_env *env, char *reason, size_t len)
{
	char root[PATH_MAX];

	return find_root(env, root, sizeof(root), reason, len);
}

struct rc_res_info {
	bool present, cdp;
	unsigned int closids, cbm_len, min_bits;
	uint64_t shareable;
	bool sparse;
};

static int info_num(const char *root, const char *dir, const char *file, int base,
		    uint64_t *val, bool *present)
{
	char path[PATH_MAX], *text, *end;
	int ret;

	snprintf(path, sizeof(path), "%s/info/%s/%s", root, dir, file);
	ret = rc_read_all(path, RC_SMALL_MAX, &text, NULL);
	if (ret == -ENOENT && present) {
		*present = false;
		return 0;
	}
	if (ret)
		return ret;
	errno = 0;
	*val = strtoull(text, &end, base);
	ret = errno || end == text ? -EINVAL : 0;
	free(text);
	if (present)
		*present = !ret;
	return ret;
}

/* info/<L3|L3DATA>/... of one resource. */
static int read_res_info(const char *root, enum rdt_res res, struct rc_res_info *ri,
			 char *err, size_t len)
{
	static const char *const files[] = { "cbm_mask", "min_cbm_bits", "num_closids",
					     "shareable_bits" };
	char dir[16], path[PATH_MAX];
	uint64_t v[4] = { 0 }, sparse = 0;
	struct stat sb;
	bool have;
	unsigned int i;
	int ret;

	memset(ri, 0, sizeof(*ri));
	snprintf(dir, sizeof(dir), "%s", rdt_res_name(res));
	if (snprintf(path, sizeof(path), "%s/info/%s", root, dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (stat(path, &sb)) {
		snprintf(dir, sizeof(dir), "%sDATA", rdt_res_name(res));
		if (snprintf(path, sizeof(path), "%s/info/%s", root, dir) >= (int)sizeof(path) ||
		    stat(path, &sb))
			return 0;
		ri->cdp = true;
	}
	for (i = 0; i < 4; i++) {
		ret = info_num(root, dir, files[i], i == 0 || i == 3 ? 16 : 10, &v[i], NULL);
		if (ret) {
			snprintf(err, len, "cannot read %s/info/%s/%s: %s", root, dir, files[i],
				 strerror(-ret));
			return ret;
		}
	}
	ret = info_num(root, dir, "sparse_masks", 10, &sparse, &have);
	if (ret)
		sparse = 0;
	if (!v[0] || (v[0] & (v[0] + 1)) || v[2] < 1 || v[2] > 4096) {
		snprintf(err, len, "%s/info/%s: cbm_mask %llx or num_closids %llu out of range",
			 root, dir, (unsigned long long)v[0], (unsigned long long)v[2]);
		return -EINVAL;
	}
	ri->present = true;
	ri->cbm_len = (unsigned int)__builtin_popcountll(v[0]);
	/* Linux allows 0 on AMD; our masks are never empty (docs/machine.md) */
	ri->min_bits = v[1] < 1 ? 1 : v[1] > ri->cbm_len ? ri->cbm_len : (unsigned int)v[1];
	ri->closids = (unsigned int)v[2] * (ri->cdp ? 2 : 1);
	ri->shareable = v[3] & v[0];
	ri->sparse = sparse == 1;
	return 0;
}

/*
 * info/MB as mb.* items (docs/resctrl.md): num_closids, min_bandwidth,
 * bandwidth_gran, whatever the CPU the machine description names.
 * min_bandwidth 0 is AMD's scale (1/8 GB/s; the kernel gives Intel's
 * linear or non-linear delay a minimum of 100 less the largest delay,
 * never 0). AMD's maximum (1 << bw_len of CPUID 0x80000020) is not in
 * info/: the machine description's when it has one, else 2048, every Zen
 * part's. Mounted with mba_MBps the values are MBps whatever info/MB says:
 * the kernel takes any u32 (bw_validate() under is_mba_sc()), U32_MAX for
 * unthrottled (MBA_MAX_MBPS). Returns the length written.
 */
static size_t describe_mb(const char *root, unsigned int amd_max, bool mbps, char *out,
			  size_t len)
{
	uint64_t closids, min, gran;
	bool have = false;

	if (info_num(root, "MB", "num_closids", 10, &closids, &have) || !have ||
	    info_num(root, "MB", "min_bandwidth", 10, &min, NULL) ||
	    info_num(root, "MB", "bandwidth_gran", 10, &gran, NULL) || !closids)
		return 0;
	if (mbps)
		return (size_t)snprintf(out, len, "mb.closids=%llu;mb.units=mbps;mb.min=0;"
					"mb.gran=1;mb.max=%u;", (unsigned long long)closids,
					UINT32_MAX);
	if (!min)
		return (size_t)snprintf(out, len, "mb.closids=%llu;mb.units=amd;mb.min=0;"
					"mb.gran=%llu;mb.max=%u;", (unsigned long long)closids,
					(unsigned long long)(gran ? gran : 1),
					amd_max ? amd_max : 2048);
	return (size_t)snprintf(out, len, "mb.closids=%llu;mb.units=percent;mb.min=%llu;"
				"mb.gran=%llu;", (unsigned long long)closids,
				(unsigned long long)min, (unsigned long long)gran);
}

/*
 * SNC nodes per L3 domain: the mon_sub_L3_NN directories under the root's
 * first mon_data/mon_L3_XX (every L3 domain has as many); 1 without SNC.
 */
unsigned int rc_snc_nodes(const char *root)
{
	char path[PATH_MAX], first[NAME_MAX + 1] = "";
	unsigned int n = 0, id;
	struct dirent *e;
	char end;
	DIR *dp;

	snprintf(path, sizeof(path), "%s/mon_data", root);
	dp = opendir(path);
	if (!dp)
		return 1;
	while ((e = readdir(dp)))
		if (sscanf(e->d_name, "mon_L3_%u%c", &id, &end) == 1 &&
		    (!first[0] || strcmp(e->d_name, first) < 0))
			snprintf(first, sizeof(first), "%s", e->d_name);
	closedir(dp);
	if (!first[0] || snprintf(path, sizeof(path), "%s/mon_data/%s", root, first) >=
	    (int)sizeof(path) || !(dp = opendir(path)))
		return 1;
	while ((e = readdir(dp)))
		n += sscanf(e->d_name, "mon_sub_L3_%u%c", &id, &end) == 1;
	closedir(dp);
	return n > 1 ? (n > RDT_MAX_SNC ? RDT_MAX_SNC : n) : 1;
}

/*
 * "pkg.events=GROUPS;pkg.rmids=N;" from info/PERF_PKG_MON (after the first
 * mount, as the kernel enumerates AET then): a group of events is there
 * when its first event is in mon_features; "" without PERF_PKG.
 */
size_t rc_describe_pkg(const char *root, char *out, size_t len)
{
	char path[PATH_MAX + 32], *text = NULL, *end;
	unsigned long long rmids;
	bool energy, perf, ok;
	size_t off;

	snprintf(path, sizeof(path), "%s/info/PERF_PKG_MON/num_rmids", root);
	if (rc_read_all(path, RC_SMALL_MAX, &text, NULL))
		return 0;
	errno = 0;
	rmids = strtoull(text, &end, 10);
	ok = !errno && rmids && *end == '\n';
	free(text);
	if (!ok)
		return 0;
	snprintf(path, sizeof(path), "%s/info/PERF_PKG_MON/mon_features", root);
	if (rc_read_all(path, RC_SMALL_MAX, &text, NULL))
		return 0;
	energy = !strncmp(text, "core_energy\n", 12) || strstr(text, "\ncore_energy\n");
	perf = !strncmp(text, "stalls_llc_hit\n", 15) || strstr(text, "\nstalls_llc_hit\n");
	free(text);
	if (!energy && !perf)
		return 0;
	off = (size_t)snprintf(out, len, "pkg.events=%s%s%s;pkg.rmids=%llu;",
			       energy ? "energy" : "", energy && perf ? "," : "", perf ? "perf" : "",
			       rmids > RDT_MAX_RMIDS ? RDT_MAX_RMIDS : rmids);
	return off < len ? off : len - 1;
}

/*
 * Is given a description this backend wrote (its monitoring is always
 * "mon.scale=1;mon.width=62", the kernel's byte counts) without key - a
 * state recorded before SNC (mon.snc) and PERF_PKG (pkg.*) were read? Such
 * a machine is described as it was, so that its state opens as before
 * (made afresh, it gets them).
 */
bool rc_recorded_before(const char *given, const char *key)
{
	return given && strstr(given, ";mon.scale=1;mon.width=62;") && !strstr(given, key);
}

/*
 * L3 monitoring from info/L3_MON: num_rmids, mon_features (one event name a
 * line; names we do not know are left out) and max_threshold_occupancy.
 * The kernel's files give bytes, its wraps already folded in: a scale of 1
 * and the widest counter. "mon.rmids=0;" without L3_MON.
 */
static size_t describe_mon(const char *root, bool snc_ok, char *out, size_t len)
{
	static const char *const names[] = { "llc_occupancy", "mbm_total_bytes",
					     "mbm_local_bytes" };
	char path[PATH_MAX + 32], *text = NULL;
	uint64_t rmids, threshold = 0;
	bool have = false, thr = false;
	size_t off;
	unsigned int i, n = 0, snc;

	if (info_num(root, "L3_MON", "num_rmids", 10, &rmids, &have) || !have || !rmids)
		return (size_t)snprintf(out, len, "mon.rmids=0;");
	if (info_num(root, "L3_MON", "max_threshold_occupancy", 10, &threshold, &thr))
		thr = false;
	snprintf(path, sizeof(path), "%s/info/L3_MON/mon_features", root);
	if (rc_read_all(path, RC_SMALL_MAX, &text, NULL))
		text = NULL;
	/*
	 * PQR_ASSOC's field is 10 bits: more is a kernel's number we do not
	 * bookkeep. Under SNC num_rmids is the hardware's divided by the nodes:
	 * the machine is told the product (mon.snc), and divides it again.
	 */
	snc = snc_ok ? rc_snc_nodes(root) : 1;
	rmids *= snc;
	off = (size_t)snprintf(out, len, "mon.rmids=%llu;mon.scale=1;mon.width=62;mon.events=",
			       (unsigned long long)(rmids > RDT_MAX_RMIDS ? RDT_MAX_RMIDS : rmids));
	for (i = 0; i < 3 && off < len; i++) {
		const char *p = text ? strstr(text, names[i]) : NULL;
		size_t k = strlen(names[i]);

		/* a whole line: llc_occupancy, not llc_occupancy_foo */
		if (p && (p == text || p[-1] == '\n') && (p[k] == '\n' || !p[k]))
			off += (size_t)snprintf(out + off, len - off, "%s%s", n++ ? "," : "",
						names[i]);
	}
	if (off < len)
		off += (size_t)snprintf(out + off, len - off, "%s;", n ? "" : "none");
	if (thr && off < len)
		off += (size_t)snprintf(out + off, len - off, "mon.threshold=%llu;",
					(unsigned long long)threshold);
	if (snc > 1 && off < len)
		off += (size_t)snprintf(out + off, len - off, "mon.snc=%u;", snc);
	free(text);
	return off;
}

/* The given description without its resource keys; then the kernel's. */
int rc_machine_desc(const struct rdt_backend_env *env, const char *given, char **desc,
			   char *err, size_t len)
{
	char root[PATH_MAX], *canon = NULL, *out = NULL, *item, *save = NULL;
	struct rdt_machine *m = NULL;
	struct rc_res_info ri[RDT_NRES];
	size_t cap, off = 0;
	unsigned int res, amd_max;
	int ret;

	ret = find_root(env, root, sizeof(root), err, len);
	for (res = 0; !ret && res < RDT_NRES; res++)
		ret = read_res_info(root, res, &ri[res], err, len);
	if (ret)
		return ret;
	if (!ri[RDT_L3].present && !ri[RDT_L2].present) {
		snprintf(err, len, "resctrl at %s has no cache allocation (no info/L3, info/L2)",
			 root);
		return -ENODEV;
	}
	ret = rdt_machine_build(given ? given : "", &m, err, len);
	if (ret)
		return ret;
	if (m->virtual_tasks) {
		rdt_machine_free(m);
		snprintf(err, len, "resctrl binds real tasks: tasks=virtual is for the simulator");
		return -EINVAL;
	}
	amd_max = m->caps[RDT_MB].present && m->caps[RDT_MB].mb_amd ? m->caps[RDT_MB].mb_max : 0;
	canon = strdup(m->desc);
	rdt_machine_free(m);
	cap = (canon ? strlen(canon) : 0) + 512;
	out = malloc(cap);
	if (!canon || !out) {
		free(canon);
		free(out);
		return -ENOMEM;
	}
	out[0] = '\0';
	for (item = strtok_r(canon, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
		while (*item == ' ')
			item++;
		if (!*item || !strncmp(item, "l3.", 3) || !strncmp(item, "l2.", 3) ||
		    !strncmp(item, "mb.", 3) || !strncmp(item, "mon.", 4) ||
		    !strncmp(item, "pkg.", 4) ||
		    !strncmp(item, "tasks=", 6))
			continue;
		off += (size_t)snprintf(out + off, cap - off, "%s;", item);
	}
	free(canon);
	for (res = 0; res < RDT_NRES; res++) {
		const char *p = res == RDT_L3 ? "l3" : "l2";

		if (!ri[res].present) {
			if (res == RDT_L3)
				off += (size_t)snprintf(out + off, cap - off, "l3.closids=0;");
			continue;
		}
		off += (size_t)snprintf(out + off, cap - off, "%s.closids=%u;%s.cbm_len=%u;"
					"%s.min_cbm_bits=%u;%s.shareable_bits=%llx;%s.cdp=%d;"
					"%s.sparse=%d;", p, ri[res].closids, p, ri[res].cbm_len,
					p, ri[res].min_bits, p,
					(unsigned long long)ri[res].shareable, p, ri[res].cdp, p,
					ri[res].sparse);
	}
	/*
	 * With mba_MBps the MB values are MBps that the kernel's software
	 * controller aims at: the machine's units follow the mount (a state
	 * made on the other units is refused at open, by name).
	 */
	off += describe_mb(root, amd_max,
			   rdt_mount_has_option(env && env->mounts && *env->mounts ? env->mounts :
						"/proc/self/mounts", root, "mba_MBps") == 1,
			   out + off, cap - off);
	if (ri[RDT_L3].present)
		off += describe_mon(root, !rc_recorded_before(given, "mon.snc="), out + off,
				    cap - off);
	if (!rc_recorded_before(given, "pkg."))
		off += rc_describe_pkg(root, out + off, cap - off);
	snprintf(out + off, cap - off, "tasks=real");
	*desc = out;
	return 0;
}

/*
 * What to give --machine when resctrl's domains are not the machine's: the
 * host's topology for the kernel's resctrl (it comes from the host's caches);
 * for the emulator (a FUSE mount), the machine it serves, which only its
 * --machine says: a real mount has no file that names the CPUs of a domain.
 */
static const char *machine_hint(const struct rc_ctx *c)
{
	struct statfs sf;

	if (!statfs(c->root, &sf) && sf.f_type == FUSE_MAGIC)
		return "give rdtctl the --machine the resctrl emulator there was started with "
		       "(rdtalloc-resctrlfs --machine DESC: it serves that machine's domains, "
		       "docs/resctrlfs.md)";
	return "give --machine the host's topology";
}

/* The kernel's domain ids (root schemata) must be the machine's cache ids. */
static int check_domains(struct rc_ctx *c, const struct rdt_machine *m, char *err, size_t len)
{
	char path[PATH_MAX], *text, *line, *save = NULL;
	int ret;

	rc_rel_path(c, "", "schemata", path, sizeof(path));
	ret = rc_read_all(path, RC_SMALL_MAX, &text, NULL);
	if (ret) {
		snprintf(err, len, "cannot read %s: %s", path, strerror(-ret));
		return ret;
	}
	for (line = strtok_r(text, "\n", &save); !ret && line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *items, *item, *isave = NULL;
		unsigned int nd = 0;
		enum rdt_res res;
		int half;

		items = rc_schemata_line(line, m, &res, &half);
		if (!items)
			continue;
		for (item = strtok_r(items, ";", &isave); item;
		     item = strtok_r(NULL, ";", &isave), nd++) {
			unsigned int id = (unsigned int)strtoul(item, NULL, 10);

			if (rdt_machine_domain(m, res, id) < 0) {
				snprintf(err, len, "resctrl has %s domain %u, which the machine's "
					 "topology has no cache id for: %s", rdt_res_name(res), id,
					 machine_hint(c));
				ret = -EINVAL;
			}
		}
		if (!ret && nd != m->ndom[res]) {
			snprintf(err, len, "resctrl has %u %s domains, the machine %u: %s", nd,
				 rdt_res_name(res), m->ndom[res], machine_hint(c));
			ret = -EINVAL;
		}
	}
	free(text);
	return ret;
}

int rc_open(void **ctx, const struct rdt_machine *m, const struct rdt_backend_env *env,
		   char *err, size_t len)
{
	struct rc_ctx *c;
	unsigned int res;
	int ret;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->m = m;
	c->lock_fd = -1;
	c->mon = m->mon.rmids > 0;
	ret = find_root(env, c->root, sizeof(c->root), err, len);
	/*
	 * m was built from info/ (rc_machine_desc): CDP as mounted, CLOSIDs
	 * doubled then. The kernel offers the fewest of every resource's,
	 * MB's included.
	 */
	for (res = 0; !ret && res < RDT_NALL; res++) {
		unsigned int n;

		if (!m->caps[res].present)
			continue;
		c->cdp[res] = res != RDT_MB && m->caps[res].cdp;
		n = m->caps[res].closids / (c->cdp[res] ? 2 : 1);
		if (!c->num_closids || n < c->num_closids)
			c->num_closids = n;
	}
	if (!ret)
		ret = check_domains(c, m, err, len);
	if (!ret)
		c->mba_mbps = rdt_mount_has_option(env && env->mounts && *env->mounts ? env->mounts :
						   "/proc/self/mounts", c->root, "mba_MBps") == 1;
	if (ret) {
		free(c);
		return ret;
	}
	*ctx = c;
	return 0;
}

/* ---- The ways not ours to give, io_alloc ---------------------------------------------- */

/* info/<res> or, with CDP, info/<res>DATA (both list the same ways). */
static void info_dir(const struct rc_ctx *c, enum rdt_res res, char *buf, size_t len)
{
	snprintf(buf, len, "info/%s%s", rdt_res_name(res), c->cdp[res] ? "DATA" : "");
}

/* A file of info/<res>; -ENOENT quietly (an older kernel), else errmsg set. */
static int read_info(struct rdtalloc *r, const char *dir, const char *file, char **out)
{
	char path[PATH_MAX];
	int ret;

	rc_rel_path(ctx_of(r), dir, file, path, sizeof(path));
	ret = rc_read_all(path, RC_SMALL_MAX, out, NULL);
	if (ret && ret != -ENOENT)
		return rdt_fail(r, ret, "resctrl: cannot read %s: %s", path, strerror(-ret));
	return ret;
}

/* The item of cache_id in "ID=VAL;ID=VAL"; NULL when absent. Cuts text. */
static char *domain_item(char *text, unsigned int cache_id)
{
	char *item, *save = NULL;

	rc_trim(text);
	for (item = strtok_r(text, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
		char *end;
		unsigned long id = strtoul(item, &end, 10);

		if (end != item && *end == '=' && id == cache_id)
			return end + 1;
	}
	return NULL;
}

/* Our exclusive groups' ways in slot s: bit_usage's E there are ours. */
static uint64_t our_exclusive(const struct rdt_state *st, unsigned int s)
{
	uint64_t e = 0;
	unsigned int k;

	for (k = 0; k < st->ngroups; k++)
		if (st->groups[k].live && st->groups[k].exclusive)
			e |= st->groups[k].mask[s * 2] | st->groups[k].mask[s * 2 + 1];
	return e;
}

/*
 * bit_usage, most significant way first: 0 unused, H the hardware's only,
 * X the hardware's and a group's, S groups' (shareable), E a group's
 * exclusively, P pseudo-locked.
 */
static int bit_usage(struct rdtalloc *r, const char *dir, enum rdt_res res, unsigned int dom,
		     struct rdtalloc_ways_info *w)
{
	const struct rdt_machine *m = rc_m(r);
	unsigned int id = m->dom[res][dom].cache_id, len = m->caps[res].cbm_len, i;
	uint64_t hw = 0, excl = 0;
	char *text = NULL, *v;
	int ret;

	ret = read_info(r, dir, "bit_usage", &text);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	v = domain_item(text, id);
	if (!v || strlen(v) != len) {
		ret = rdt_fail(r, -EINVAL, "resctrl: %s/bit_usage has no %u ways for domain %u",
			       dir, len, id);
		goto out;
	}
	for (i = 0; i < len; i++) {
		uint64_t bit = 1ull << (len - 1 - i);

		if (v[i] == 'H' || v[i] == 'X')
			hw |= bit;
		else if (v[i] == 'E' || v[i] == 'P')
			excl |= bit;
	}
	/* MPAM: shareable_bits is every way, so every way used reads X; none is I/O */
	w->io_ways = m->mpam ? 0 : hw;
	w->foreign_ways = excl & ~our_exclusive(rc_st(r), rc_st(r)->slot_of[res][dom]);
	w->from_bit_usage = 1;
out:
	free(text);
	return ret;
}

static int io_alloc_state(struct rdtalloc *r, const char *dir, unsigned int dom,
			  struct rdtalloc_ways_info *w)
{
	char *text = NULL, *v;
	int ret;

	ret = read_info(r, dir, "io_alloc", &text);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	rc_trim(text);
	w->io_alloc_supported = strcmp(text, "not supported") != 0;
	w->io_alloc_enabled = !strcmp(text, "enabled");
	free(text);
	/* resctrl_io_alloc_closid(): the highest of L3's, halved under CDP */
	if (w->io_alloc_supported)
		w->io_alloc_closid = ctx_of(r)->m->caps[RDT_L3].closids /
				     (ctx_of(r)->cdp[RDT_L3] ? 2 : 1) - 1;
	text = NULL;
	if (!w->io_alloc_enabled)
		return 0;
	ret = read_info(r, dir, "io_alloc_cbm", &text);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	v = domain_item(text, rc_m(r)->dom[RDT_L3][dom].cache_id);
	w->io_alloc_mask = v ? strtoull(v, NULL, 16) : 0;
	free(text);
	return 0;
}

int rc_ways(struct rdtalloc *r, enum rdt_res res, unsigned int dom, struct rdtalloc_ways_info *w)
{
	char dir[32];
	int ret;

	info_dir(ctx_of(r), res, dir, sizeof(dir));
	ret = bit_usage(r, dir, res, dom, w);
	if (!ret && res == RDT_L3)
		ret = io_alloc_state(r, dir, dom, w);
	return ret;
}

/* The kernel's io_alloc_cbm text of the L3 domains given: "ID=MASK;...\n". */
static char *io_cbm_text(const struct rdt_machine *m, const uint64_t *mask, const bool *have)
{
	size_t len = (size_t)m->ndom[RDT_L3] * 24 + 2, off = 0;
	char *text = malloc(len);
	unsigned int d;

	if (!text)
		return NULL;
	text[0] = '\0';
	for (d = 0; d < m->ndom[RDT_L3]; d++)
		if (have[d])
			off += (size_t)snprintf(text + off, len - off, "%s%u=%llx", off ? ";" : "",
						m->dom[RDT_L3][d].cache_id,
						(unsigned long long)mask[d]);
	snprintf(text + off, len - off, "\n");
	return text;
}

int rc_io_alloc(struct rdtalloc *r, int on, const uint64_t *mask, const bool *have)
{
	char dir[32], *text = NULL;
	int ret;

	info_dir(ctx_of(r), RDT_L3, dir, sizeof(dir));
	if (mask && !(text = io_cbm_text(rc_m(r), mask, have)))
		return rdt_fail(r, -ENOMEM, "out of memory");
	ret = rc_lock(r);
	if (ret)
		goto out;
	if (on >= 0)
		ret = rc_write_file(r, dir, "io_alloc", on ? "1\n" : "0\n");
	if (!ret && text)
		ret = rc_write_file(r, dir, "io_alloc_cbm", text);
	rc_unlock(r);
out:
	free(text);
	return ret;
}

bool rc_io_alloc_on(const struct rc_ctx *c)
{
	char path[PATH_MAX], dir[32], *text = NULL;
	bool on;

	if (!c->m->caps[RDT_L3].present)
		return false;
	info_dir(c, RDT_L3, dir, sizeof(dir));
	rc_rel_path(c, dir, "io_alloc", path, sizeof(path));
	if (!path[0] || rc_read_all(path, RC_SMALL_MAX, &text, NULL))
		return false;
	on = !strncmp(text, "enabled", 7);
	free(text);
	return on;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfs: the model behind rdtalloc-resctrlfs, an emulation of the CAT part of
 * the Linux resctrl filesystem. It owns the schemas (one per schemata line),
 * the control groups and their CLOSIDs, the per-CLOSID mask "registers",
 * modes, CPU sets, task records and info/last_cmd_status. It knows nothing of
 * FUSE (fs.c), of /proc (tasks.c reads it) or of the state file (state.c).
 *
 * Semantics follow the kernel's fs/resctrl/rdtgroup.c and ctrlmondata.c and
 * Documentation/arch/x86/resctrl.rst, read for behaviour only; see
 * docs/resctrlfs.md for what is and is not emulated.
 */
#ifndef RFS_H
#define RFS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "machine.h"

#define RFS_MAX_SCHEMAS 8
#define RFS_NAME_MAX 255		/* longest group name (NAME_MAX) */
#define RFS_STATUS_LEN 512		/* the kernel's last_cmd_status buffer */
#define RFS_WRITE_MAX 4096		/* kernfs atomic_write_len = PAGE_SIZE */
#define RFS_RES_MB RDT_MB		/* resource id of the MB schema */
#define RFS_MB_MAX_INTEL 100		/* MAX_MBA_BW: percent, unthrottled */
#define RFS_MB_MAX_AMD 2048		/* 1 << bw_len of the AMD parts we know */
#define RFS_MBA_MAX_MBPS 4294967295ULL	/* MBA_MAX_MBPS (U32_MAX): mba_MBps default */

enum rfs_conf { RFS_CONF_NONE, RFS_CONF_CODE, RFS_CONF_DATA };
enum rfs_fmt { RFS_FMT_BITMAP, RFS_FMT_RANGE };
enum rfs_mode { RFS_MODE_SHAREABLE, RFS_MODE_EXCLUSIVE };

/* One line of the schemata file and one directory under info/. */
struct rfs_schema {
	char name[16];			/* "L3", "L3CODE", "MB" */
	int res;			/* enum rdt_res, or RFS_RES_MB */
	enum rfs_fmt fmt;
	enum rfs_conf conf;
	int peer;			/* CDP sibling schema index, or -1 */
	unsigned int num_closid;	/* info/X/num_closids */
	/* RFS_FMT_BITMAP */
	unsigned int cbm_len;
	uint64_t cbm_mask;		/* also the default control value */
	uint64_t shareable;
	unsigned int min_cbm_bits;
	bool sparse;
	/* RFS_FMT_RANGE (MB): percent (Intel), 1/8 GB/s (AMD) or MBps (mba_MBps) */
	unsigned int min_bw, bw_gran, max_bw;
	bool delay_linear;
	bool throttle_max;		/* info/MB/thread_throttle_mode exists ("max") */
	bool mbps;			/* mba_MBps: no range check, no rounding */
	uint64_t dflt;			/* control value at mount and of a new group */
	/* domains, ascending id, and their control values per CLOSID */
	unsigned int ndom;
	const struct rdt_domain *dom;
	uint64_t *ctrl;			/* [dom * nclosid + closid] */
};

struct rfs_group {
	bool used;
	char name[RFS_NAME_MAX + 1];	/* "" for the root group */
	enum rfs_mode mode;
	uint8_t *cpus;			/* [ncpus]: 1 when the CPU is ours */
	uid_t uid;			/* owner of the directory and its files */
	gid_t gid;
	unsigned int rmid;		/* its own RMID, where the machine monitors */
	unsigned int mbps_event;	/* mba_MBps_event: 1 total, 2 local; 0 the default */
};

/* mon.c: monitoring groups, RMIDs and their counters (mon_data). */
#define RFS_MON_EVENTS 3		/* llc_occupancy, mbm_total_bytes, mbm_local_bytes */
#define RFS_NO_MON (-1)			/* a task in its control group's own RMID */

enum rfs_cnt_state {
	RFS_CNT_FRESH,			/* never planted: "Unavailable", as a new RMID reads */
	RFS_CNT_VALUE,
	RFS_CNT_UNAVAILABLE,
	RFS_CNT_ERROR,
	RFS_CNT_UNASSIGNED,		/* mbm_assign_mode: no hardware counter for it */
};

struct rfs_counter {
	enum rfs_cnt_state state;
	uint64_t value;			/* bytes, RFS_CNT_VALUE */
};

/* A MON group: <control group>/mon_groups/<name>. */
struct rfs_mon {
	bool used;
	char name[RFS_NAME_MAX + 1];
	unsigned int parent;		/* CLOSID of its control group */
	unsigned int rmid;
	uint8_t *cpus;			/* [ncpus], a subset of the parent's */
	uid_t uid;
	gid_t gid;
};

/*
 * A task placed by a write to a tasks file (or pinned by the fork
 * approximation, tasks.c). start: field 22 of /proc/TID/stat, to tell a
 * reused tid from the task we placed. since: when it was placed, in the
 * same clock ticks, so that only tasks started later inherit from it.
 */
struct rfs_task {
	pid_t tid;
	unsigned long long start;
	unsigned long long since;
	unsigned int closid;
	int mon;			/* index in rfs_model.mon, or RFS_NO_MON */
};

struct rfs_model {
	struct rdt_machine *m;
	bool cdp[RDT_NRES];		/* --cdp, --cdpl2 */
	bool mba_mbps;			/* --mba-mbps: mount -o mba_MBps */
	struct rfs_schema sch[RFS_MAX_SCHEMAS];
	unsigned int nsch;
	int name_width;			/* schemata names are right-aligned to it */
	unsigned int nclosid;		/* usable CLOSIDs: least num_closid */
	struct rfs_group *grp;		/* [nclosid], indexed by CLOSID; 0 is root */
	unsigned int ncpus;		/* nr_cpu_ids of the machine */
	struct rfs_task *tasks;
	size_t ntasks, tasks_cap;
	char status[RFS_STATUS_LEN];
	size_t status_len;
	bool dirty;			/* changed since the last save */
	/* monitoring (mon.c); nrmid 0: the machine does not monitor */
	unsigned int nrmid;
	uint8_t *rmid_used;		/* [nrmid] */
	struct rfs_mon *mon;		/* [nrmid]: at most one MON group per RMID */
	unsigned int nmondom;		/* the L3 domains */
	const struct rdt_domain *mondom;
	struct rfs_counter *cnt;	/* [(rmid * nmondom + dom) * RFS_MON_EVENTS + event] */
	/*
	 * SNC (mon.snc > 1): the monitoring domains above are the nodes, ids
	 * the node ids, snc of them per L3 domain (mondom[d] is in L3 domain
	 * d / snc); mon_L3_XX sums its nodes. Without SNC they are the L3s.
	 */
	unsigned int snc;
	struct rdt_domain *snc_dom;	/* owned: the nodes, when snc > 1 */
	/* abmc.c: counter assignment (mbm_event mode) */
	bool assign;			/* info/L3_MON/mbm_assign_mode is [mbm_event] */
	bool assign_on_mkdir;
	uint32_t filter[2];		/* event_filter of mbm_total_bytes, mbm_local_bytes */
	uint8_t *assigned;		/* [(rmid * nmondom + dom) * 2 + event - 1] */
	unsigned int *cntr_used;	/* [nmondom] */
	/* ioalloc.c: the L3 io_alloc CLOSID while enabled, else -1 */
	int io_closid;
	/* pkg.c: PERF_PKG counters [(rmid * npkg + pkg) * RDT_PKG_NEVENTS + event] */
	struct rfs_counter *pkgcnt;
};



/* A growing output buffer; on allocation failure it keeps err set. */
struct rfs_buf {
	char *s;
	size_t len, cap;
	int err;
};

void rfs_buf_printf(struct rfs_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rfs_buf_putc(struct rfs_buf *b, char c);
void rfs_buf_free(struct rfs_buf *b);

int rfs_model_init(struct rfs_model *md, struct rdt_machine *m, bool cdpl3, bool cdpl2,
		   bool mba_mbps, char *err, size_t errlen);
/*
 * --mb CLOSIDS:MIN:GRAN[:amd|percent[:MAX]]: set the machine's MB
 * capabilities, whatever its description says. rfs_mb_describe() writes
 * the canonical form of m's MB capabilities ("" without MB), for the state
 * file to tell another MB from this one.
 */
int rfs_mb_parse(const char *arg, struct rdt_caps *c, char *err, size_t errlen);
void rfs_mb_describe(const struct rdt_machine *m, char *buf, size_t len);
void rfs_model_free(struct rfs_model *md);

void rfs_status_clear(struct rfs_model *md);
int rfs_cmd_begin(struct rfs_model *md, char *buf, size_t len);
void rfs_status_printf(struct rfs_model *md, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rfs_status_show(const struct rfs_model *md, struct rfs_buf *b);

/* CLOSID of the group called name, or -1. */
int rfs_group_find(const struct rfs_model *md, const char *name);
int rfs_mkdir(struct rfs_model *md, const char *name, uid_t uid, gid_t gid);
int rfs_rmdir(struct rfs_model *md, unsigned int closid);

void rfs_schemata_show(const struct rfs_model *md, unsigned int closid, struct rfs_buf *b);
int rfs_schemata_write(struct rfs_model *md, unsigned int closid, char *buf, size_t len);
void rfs_size_show(const struct rfs_model *md, unsigned int closid, struct rfs_buf *b);
void rfs_mode_show(const struct rfs_model *md, unsigned int closid, struct rfs_buf *b);
int rfs_mode_write(struct rfs_model *md, unsigned int closid, char *buf, size_t len);
void rfs_cpus_show(const struct rfs_model *md, unsigned int closid, bool list,
		   struct rfs_buf *b);
int rfs_cpus_write(struct rfs_model *md, unsigned int closid, bool list, char *buf);
void rfs_bit_usage_show(const struct rfs_model *md, unsigned int s, struct rfs_buf *b);
/* mba_MBps_event of a control group (6.14), mounted with mba_MBps */
void rfs_mbps_event_show(const struct rfs_model *md, unsigned int closid, struct rfs_buf *b);
int rfs_mbps_event_write(struct rfs_model *md, unsigned int closid, char *buf, size_t len);

/* cpumask.c: the kernel's bitmap text forms, over nbits bits in bits[]. */
int rfs_bitmap_parse(const char *buf, uint8_t *bits, unsigned int nbits);
int rfs_bitmap_parselist(const char *buf, uint8_t *bits, unsigned int nbits);
void rfs_bitmap_print(const uint8_t *bits, unsigned int nbits, struct rfs_buf *b);
void rfs_bitmap_print_list(const uint8_t *bits, unsigned int nbits, struct rfs_buf *b);
/* kstrtoul()/kstrtoint() rules: whole string, optional trailing '\n'. */
int rfs_kstrtoull(const char *s, unsigned int base, unsigned long long *res);
int rfs_kstrtoint(const char *s, unsigned int base, int *res);
int rfs_kstrtobool(const char *s, bool *out);
bool rfs_isspace(char c);
char *rfs_strim(char *s);

/* tasks.c; mon: a MON group of closid's, or RFS_NO_MON for the control group */
void rfs_tasks_show(struct rfs_model *md, unsigned int closid, int mon, struct rfs_buf *b);
int rfs_tasks_write(struct rfs_model *md, unsigned int closid, int mon, char *buf,
		    pid_t caller, uid_t caller_uid);
/* Every record of closid goes to the root group (rmdir). */
void rfs_tasks_release(struct rfs_model *md, unsigned int closid);
/* Every record of MON group mon goes to its control group's own RMID. */
void rfs_tasks_release_mon(struct rfs_model *md, int mon);
int rfs_task_set(struct rfs_model *md, pid_t tid, unsigned long long start,
		 unsigned long long since, unsigned int closid, int mon);

/* mon.c */
int rfs_mon_init(struct rfs_model *md);
void rfs_mon_free(struct rfs_model *md);
/* A free RMID taken (0 and "Out of RMIDs" when none), or given back. */
int rfs_rmid_alloc(struct rfs_model *md, unsigned int *rmid);
void rfs_rmid_free(struct rfs_model *md, unsigned int rmid);
int rfs_mon_find(const struct rfs_model *md, unsigned int parent, const char *name);
int rfs_mon_mkdir(struct rfs_model *md, unsigned int parent, const char *name, uid_t uid,
		  gid_t gid);
int rfs_mon_rmdir(struct rfs_model *md, int mon);
/* Every MON group of closid goes (its control group is removed). */
void rfs_mon_release(struct rfs_model *md, unsigned int closid);
/* CPUs a control group lost leave its MON groups too. */
void rfs_mon_cpus_trim(struct rfs_model *md, unsigned int closid);
void rfs_mon_cpus_show(const struct rfs_model *md, int mon, bool list, struct rfs_buf *b);
int rfs_mon_cpus_write(struct rfs_model *md, int mon, bool list, char *buf);
/* mon_data/mon_L3_XX/<event> of a control group (mon < 0) or a MON group. */
void rfs_mon_data_show(const struct rfs_model *md, unsigned int closid, int mon,
		       unsigned int dom, unsigned int event, struct rfs_buf *b);
/* With SNC: mon_L3_XX/<event>, the sum over the nodes of L3 domain l3. */
void rfs_mon_data_show_l3(const struct rfs_model *md, unsigned int closid, int mon,
			  unsigned int l3, unsigned int event, struct rfs_buf *b);
const char *rfs_mon_event_name(unsigned int event);
struct rfs_counter *rfs_mon_counter(const struct rfs_model *md, unsigned int rmid,
				    unsigned int dom, unsigned int event);
int rfs_mon_event_find(const char *name);
const char *rfs_cnt_state_name(enum rfs_cnt_state s);

/* abmc.c: ABMC counter assignment (Linux 6.18) */
#define RFS_CNTR_NOT_ENABLED "mbm_event counter assignment mode is not enabled\n"
int rfs_abmc_init(struct rfs_model *md);
void rfs_abmc_free(struct rfs_model *md);
bool rfs_abmc_is_assigned(const struct rfs_model *md, unsigned int rmid, unsigned int dom,
			  unsigned int event);
/* Counters for a new group (mbm_assign_on_mkdir); failures only in last_cmd_status. */
void rfs_abmc_mkdir(struct rfs_model *md, unsigned int rmid);
void rfs_abmc_release(struct rfs_model *md, unsigned int rmid);
int rfs_abmc_set(struct rfs_model *md, unsigned int rmid, unsigned int dom, unsigned int event,
		 bool on);
void rfs_abmc_mode_show(const struct rfs_model *md, struct rfs_buf *b);
int rfs_abmc_mode_write(struct rfs_model *md, char *buf, size_t len);
void rfs_abmc_cntrs_show(struct rfs_model *md, bool available, struct rfs_buf *b);
void rfs_abmc_on_mkdir_show(struct rfs_model *md, struct rfs_buf *b);
int rfs_abmc_on_mkdir_write(struct rfs_model *md, char *buf);
void rfs_abmc_filter_show(struct rfs_model *md, unsigned int event, struct rfs_buf *b);
bool rfs_abmc_filter_configurable(const struct rfs_model *md);
int rfs_abmc_filter_write(struct rfs_model *md, unsigned int event, char *buf, size_t len);
void rfs_abmc_assignments_show(struct rfs_model *md, unsigned int rmid, struct rfs_buf *b);
int rfs_abmc_assignments_write(struct rfs_model *md, unsigned int rmid, char *buf, size_t len);

/* ioalloc.c: L3 io_alloc (Linux 6.19; '*' and "Invalid domain" 7.1) */
void rfs_io_alloc_show(const struct rfs_model *md, unsigned int si, struct rfs_buf *b);
int rfs_io_alloc_write(struct rfs_model *md, unsigned int si, char *buf);
void rfs_io_alloc_cbm_show(struct rfs_model *md, unsigned int si, struct rfs_buf *b);
int rfs_io_alloc_cbm_write(struct rfs_model *md, unsigned int si, char *buf, size_t len);
/* model.c, shared with ioalloc.c */
int rfs_init_alloc(struct rfs_model *md, unsigned int closid);
int rfs_cbm_validate(struct rfs_model *md, const struct rfs_schema *s, const char *buf,
		     uint64_t *out);
bool rfs_cbm_overlaps(const struct rfs_model *md, const struct rfs_schema *s, unsigned int d,
		      uint64_t cbm, unsigned int closid, bool exclusive);
uint64_t *rfs_ctrl_at(const struct rfs_model *md, const struct rfs_schema *s, unsigned int d,
		      unsigned int closid);

/* pkg.c: the PERF_PKG resource of Intel AET (Linux 7.0) */
int rfs_pkg_init(struct rfs_model *md);
void rfs_pkg_reset(struct rfs_model *md, unsigned int rmid, enum rfs_cnt_state s);
struct rfs_counter *rfs_pkg_counter(const struct rfs_model *md, unsigned int rmid,
				    unsigned int pkg, unsigned int event);
void rfs_pkg_data_show(const struct rfs_model *md, unsigned int closid, int mon,
		       unsigned int pkg, unsigned int event, struct rfs_buf *b);
int rfs_pkg_event_find(const struct rfs_model *md, const char *name);

/* state.c */
int rfs_state_load(struct rfs_model *md, const char *path, char *err, size_t errlen);
int rfs_state_save(struct rfs_model *md, const char *path, char *err, size_t errlen);

#endif

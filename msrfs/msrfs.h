/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * msrfs: the register model behind rdtalloc-msrfs, an emulation of the
 * Linux msr driver (/dev/cpu/N/msr) for a machine description. Owns the
 * values of the RDT registers, their scope (a CPU, an L3 or an L2 domain),
 * the rules by which the CPU refuses a write (#GP, which the driver turns
 * into EIO) and the state file that keeps the registers across a restart
 * of the daemon. fs.c is its FUSE face; it knows nothing of FUSE.
 */
#ifndef MSRFS_H
#define MSRFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine.h"

/* Where a register lives: one per CPU, or one per cache domain. */
enum mfs_scope { MFS_CPU, MFS_L3, MFS_L2, MFS_NSCOPE };

/* The values of one scope instance: a small map of address -> value. */
struct mfs_regs {
	uint32_t *addr;
	uint64_t *val;
	unsigned int n, cap;
};

struct mfs_model {
	const struct rdt_machine *m;	/* not owned */
	bool amd;			/* AuthenticAMD: empty and sparse masks, AMD MB */
	struct mfs_regs *regs[MFS_NSCOPE];	/* [ncpus], [ndom L3], [ndom L2] */
	unsigned int nregs[MFS_NSCOPE];
	/*
	 * The monitoring counters: [L3 domain][event 1..3][RMID], the value
	 * IA32_QM_CTR gives (flag bits included) when QM_EVTSEL names them.
	 * Nothing in the model moves them: tests plant them through the
	 * state file ("qm CACHE_ID 0xEVENT_RMID 0xVALUE", EVENT_RMID =
	 * event << 16 | RMID).
	 */
	uint64_t *ctr;
	uint64_t writes, refused;	/* counters, for the log and the tests */
	char why[160];			/* why the last refused access was refused */
};

int mfs_model_init(struct mfs_model *md, const struct rdt_machine *m, char *err, size_t len);
void mfs_model_free(struct mfs_model *md);

/*
 * One 8-byte access on cpu to MSR addr, as rdmsr/wrmsr would make it:
 * 0, -EIO where the CPU raises #GP (md->why says which rule), -ENXIO for a
 * CPU the machine does not have, -ENOMEM. A write changes nothing when it
 * is refused. *changed is set when a write changed a value.
 */
int mfs_read(struct mfs_model *md, unsigned int cpu, uint32_t addr, uint64_t *val);
int mfs_write(struct mfs_model *md, unsigned int cpu, uint32_t addr, uint64_t val,
	      bool *changed);

/*
 * The state file: the header names the machine, every register that is not
 * at its reset value is one line. Load refuses a file of another machine
 * or any malformed line (naming it), and then changes nothing; a file that
 * does not exist is a fresh machine (returns 0, nothing loaded).
 */
int mfs_state_load(struct mfs_model *md, const char *path, char *err, size_t len);
int mfs_state_save(const struct mfs_model *md, const char *path, char *err, size_t len);

#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rdtctl: what the command files share - the global options, the verb
 * table and its dispatcher (bpftool style), argument helpers, the one
 * context, error reporting with the documented exit codes, and output that
 * is either JSON (json-c) or a human rendering of the same document.
 * rdtctl uses the public API only; every decision is the library's.
 * They live in dispatch.c (options, verbs, flags, errors and exit codes),
 * context.c (the context), output.c (JSON or text, drift marks, warnings)
 * and snapshot.c (library data read into arrays); each command in its file.
 */
#ifndef RDTCTL_H
#define RDTCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include <rdtalloc/rdtalloc.h>

/* Exit codes (docs/rdtctl.1). */
#define EXIT_OK 0
#define EXIT_FAIL 1	/* the operation failed: the library's message on stderr */
#define EXIT_USAGE 2	/* unknown command or flag, missing or malformed argument */

struct rdtctl_opts {
	const char *backend;	/* --backend, NULL: the library decides */
	const char *state_dir;	/* --state-dir or $RDTALLOC_STATE_DIR */
	const char *state_from;	/* which of them ("--state-dir", "$RDTALLOC_STATE_DIR"); NULL: neither */
	const char *machine;	/* --machine or $RDTALLOC_MACHINE */
	const char *msr_root;	/* --msr-root; NULL: the library reads $RDTALLOC_MSR_ROOT */
	const char *resctrl_root;	/* --resctrl-root; NULL: $RDTALLOC_RESCTRL_ROOT */
	unsigned int precedence;	/* --precedence; 0: the backend's default */
	unsigned int max_groups, max_tasks;	/* --max-groups, --max-tasks; 0: defaults */
	bool json;		/* -j */
	bool pretty;		/* -p (implies -j) */
	bool quiet;		/* -q: mutating commands print nothing on success */
	const char *owner;	/* --owner: who the changes are by; NULL: user:admin */
	bool force;		/* --force: take over what another owner made */
};

extern struct rdtctl_opts g_opts;
/* The run's context (cli/context.c; NULL: none open) and whether it is a look (read only). */
extern rdtalloc_t *g_ctx;
extern bool g_look;
/* Each line of a warning on stderr once per run, unless -q (cli/output.c). */
void print_warning_lines(const char *w);
/* part / all, 0 when all is 0. */
double ratio(uint64_t part, uint64_t all);

/* s as a string member, null when s is "" (an owner not known). */
void jset_str_or_null(json_object *o, const char *key, const char *s);
/* An owner lookup (rdtalloc_group_owner, ...) of object, malloc'd ("": unknown); NULL reported. */
char *cli_owner(rdtalloc_t *r, int (*fn)(rdtalloc_t *, const char *, char *, size_t),
		const char *object);

/* "cpu" / "task" for RDTALLOC_PRECEDENCE_*, and what the rule means. */
const char *precedence_name(int prec);
const char *precedence_text(const char *name);

/* One verb of an object: fn gets the arguments after the verb. */
struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
};

/*
 * Run the verb argv[0] of cmds, matched exactly or by a unique prefix. An
 * empty argv, an unknown or ambiguous word, is a usage error that lists the
 * verbs of object (the word shown in messages, "group").
 */
int cmd_select(const struct cmd *cmds, const char *object, int argc, char **argv);
/*
 * COMMAND --help (cmd_select) and a --help among a verb's flags
 * (parse_flags): the entries of rdtctl --help's command list for object
 * that name verb ("control", "run"; verb NULL: all of object's), else all
 * of object's, else the whole help. EXIT_OK.
 */
int cmd_help(const char *object, const char *verb);

/* Consume one argument (bpftool's NEXT_ARG). */
#define NEXT_ARG() ({ argc--; argv++; })
/*
 * Positional arguments: at least / at most n, else a usage error that shows
 * the verb's synopsis ("group create NAME [--schema S]").
 */
#define REQ_ARGS(n, synopsis)						\
	({								\
		if (argc < (n))						\
			return usage_error("missing argument: usage: rdtctl %s", synopsis); \
	})
#define MAX_ARGS(n, synopsis)						\
	({								\
		if (argc > (n))						\
			return usage_error("unexpected argument '%s': usage: rdtctl %s", \
					   argv[n], synopsis);		\
	})

/*
 * Flags of a verb. A flag with value != NULL takes an argument
 * ("--schema S" or "--schema=S"), else it sets *set. parse_flags removes the
 * flags it knows (and the global -j/-p/-q, accepted after the command too)
 * from argv, keeps the other arguments in order, and stops at "--". An
 * unknown word starting with '-' (but "-" itself) is a usage error.
 * Returns 0 or EXIT_USAGE (message printed).
 */
struct flag {
	const char *name;	/* "--schema" */
	bool *set;
	const char **value;
};
int parse_flags(const char *verb, int *argc, char **argv, const struct flag *flags);

/* Print "rdtctl: <msg>" and the --help hint on stderr; return EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "rdtctl: <msg>" on stderr; return EXIT_FAIL. */
int fail_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * cli/files.c: a file the user names. open_input: "-" is standard input;
 * anything but a regular file is refused at once (a FIFO would block).
 * create_output: a regular file of the caller's, never through a symlink.
 * NULL: the message is printed. what names it in messages ("configuration").
 */
FILE *open_input(const char *path, const char *what);
/* The whole of such a file (or stdin), at most max bytes, no NUL: malloc'd; NULL said why. */
char *read_input(const char *path, const char *what, size_t max);
FILE *create_output(const char *path, const char *what);
/* Report a failed library call on r (NULL: open): its errmsg, else strerror. */
int fail_lib(rdtalloc_t *r, int err);
/* An error with its errno (positive), the code named by -j ("errno"). */
int fail_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The context of this command, opened on first use from the global
 * options. NULL when the open failed (already reported: return EXIT_FAIL).
 */
rdtalloc_t *ctx(void);
/* For commands that only look: a state that does not exist yet is not created. */
rdtalloc_t *ctx_ro(void);
/* For reset: a state made for another machine than --machine is replaced. */
rdtalloc_t *ctx_replace(void);
/* profile --trace, plan: with --machine, that machine (its state if any; none made). */
rdtalloc_t *ctx_whatif(void);
/* For monitor: nothing created, the counters' running totals kept. */
rdtalloc_t *ctx_monitor(void);
/*
 * monitor's counter turns (monitor_turns.c): `monitor pin|unpin|turns`
 * (1 and *rc when argv[0] is one of them), and the counters' JSON and text
 * for info and monitor (NULL: none assignable; *err a library error).
 */
int mon_subcommand(int argc, char **argv, int *rc);
const char *mon_assign_mode_name(int mode);
json_object *mon_counters_json(rdtalloc_t *r, int *err);
void mon_counters_print(json_object *o);
void ctx_close(void);
/* The options a context is opened with, from the global options (oci-hook opens its own). */
void ctx_opts(struct rdtalloc_opts *o, unsigned int flags);

/*
 * Print doc as JSON (with -j) or through human(doc), then free it. For
 * mutating commands use emit_change: nothing at all with -q. Both return
 * EXIT_OK (or EXIT_FAIL when doc is NULL: out of memory, reported).
 */
int emit(json_object *doc, void (*human)(json_object *doc));
int emit_change(json_object *doc, void (*human)(json_object *doc));
/*
 * n documents made by item(i) and printed one by one as they come (one
 * JSON array with -j; human() for each otherwise), so that a long list is
 * never held whole. item returns NULL (after saying why) to stop.
 */
int emit_list(int n, json_object *(*item)(int i, void *arg), void *arg,
	      void (*human)(json_object *o));
/*
 * A command of several library calls: keep the warning of the call just
 * made, which the next call would replace; emit_change prints them all.
 */
void keep_warning(void);

/* json-c helpers that abort cleanly on out of memory (rare; reported). */
json_object *jobj(void);
json_object *jarr(void);
void jset(json_object *o, const char *key, json_object *v);
/* o[key] = null (jset takes NULL for out of memory). */
void jset_null(json_object *o, const char *key);
void jpush(json_object *a, json_object *v);
json_object *jstr(const char *s);
json_object *jint(long long v);
json_object *jbool(bool v);
json_object *jhex(unsigned long long v);	/* "0x3ff" */
/* Read back: "" / 0 / NULL when absent. */
const char *jget_str(json_object *o, const char *key);
long long jget_int(json_object *o, const char *key);
bool jget_bool(json_object *o, const char *key);
json_object *jget(json_object *o, const char *key);

/* Groups on the command line: "default" is the default group. */
#define DEFAULT_GROUP "default"

/*
 * Snapshots taken through the API. Arrays are malloc'd (free them); the
 * count is returned, or a negative errno (reported: return EXIT_FAIL).
 */
int list_groups(rdtalloc_t *r, char ***names);
void free_names(char **names, int n);
int cli_group_tasks(rdtalloc_t *r, const char *group, pid_t **tids);
int cli_group_cpus(rdtalloc_t *r, const char *group, int **cpus);
int domain_ids(rdtalloc_t *r, const char *res, unsigned int **ids);
int domain_cpus(rdtalloc_t *r, const char *res, unsigned int id, int **cpus);
/* The CLOSIDs in use in a domain. */
int domain_closids(rdtalloc_t *r, const char *res, unsigned int id,
		   struct rdtalloc_closid_info **out);
/* Every domain of every resource (or of one: res != NULL), in order. */
struct domref {
	char res[8];
	unsigned int id;
	bool cdp;		/* CDP is on for the resource */
	unsigned int cbm_len;	/* 0: MB */
	uint64_t cache_size;	/* bytes; 0: unknown or MB */
};
int list_domains(rdtalloc_t *r, const char *res, struct domref **out);
/* The schema text of a group (malloc'd), without the trailing newline. */
char *group_schema(rdtalloc_t *r, const char *group);
/* A group's masks in one domain (rdtalloc_group_mask): 0, or -errno with the message printed. */
int group_mask(rdtalloc_t *r, const char *group, const char *res, unsigned int id,
	       struct rdtalloc_mask_info *m);
/* "0-3,8" (malloc'd) */
char *cpulist_text(const int *cpus, size_t n);
/* JSON arrays of numbers */
json_object *jcpus(const int *cpus, int n);
json_object *jtids(const pid_t *tids, int n);

/* Parse a task id argument: decimal, 1 .. INT_MAX. false: not one. */
bool parse_tid(const char *s, pid_t *tid);

/* The objects: cli/<object>.c */
int do_info(int argc, char **argv);
int do_group(int argc, char **argv);
int do_schema(int argc, char **argv);
int do_task(int argc, char **argv);
int do_exec(int argc, char **argv);
int do_cgroup(int argc, char **argv);
int do_cpu(int argc, char **argv);
int do_closids(int argc, char **argv);
int do_cdp(int argc, char **argv);
int do_save(int argc, char **argv);
int do_apply(int argc, char **argv);
int do_reset(int argc, char **argv);
int do_hook(int argc, char **argv);
int do_demo(int argc, char **argv);
int do_map(int argc, char **argv);
int do_monitor(int argc, char **argv);
int do_sim(int argc, char **argv);
int do_control(int argc, char **argv);
int do_oci_hook(int argc, char **argv);
int do_profile(int argc, char **argv);
int do_trace(int argc, char **argv);
int do_plan(int argc, char **argv);
/*
 * A look's marks where the backend does not hold the state (rdtalloc_drift):
 * a "drift" member on the document's group items (or the whole list on
 * other objects), and text lines after what was printed. emit() does both
 * for looks (ctx_ro, ctx_monitor); commands that print by themselves call them.
 */
void drift_mark(json_object *doc);
void drift_print(void);
void drift_fprint(FILE *f, const char *lead);
void drift_forget(void);
int do_sync(int argc, char **argv);
int do_io_alloc(int argc, char **argv);
/* cli/ioalloc.c: io_alloc and each L3 domain's ways not ours (info, map); NULL: said why. */
json_object *io_alloc_doc(rdtalloc_t *r);
int do_agent(int argc, char **argv);
/* cli/replay.c: rdtctl sim replay */
int sim_replay(int argc, char **argv);
/* --domain ID: an L3 cache id (NULL: -1, the first); a usage error otherwise. */
int parse_domain(const char *text, int *id);
/* "40M", "1.5GiB", "500MB/s" (rate: "/s" allowed): bytes, at most 2^50 (cli/sim.c). */
int parse_size(const char *text, bool rate, uint64_t *out);
/*
 * A flag that may repeat ("--bound X" or "--bound=X") at argv[*i]: its value
 * ("" when missing), *i moved past it; NULL when argv[*i] is another word
 * (cli/dispatch.c).
 */
const char *flag_repeated(const char *name, int argc, char **argv, int *i);
/* The way map of every cache domain (rdtctl map -j), and its text, indented (for demo). */
json_object *map_document(rdtalloc_t *r);
void map_print(json_object *doc, const char *indent);

/* The CLOSID table of one domain as JSON, with the groups using each CLOSID. */
json_object *closid_table(rdtalloc_t *r, const char *res, unsigned int id,
			  char **groups, int ngroups, bool cdp);
/* Print such a table for humans, indented. */
void print_closid_table(json_object *dom, const char *indent);

/*
 * `OBJECT show [GROUP]`: one(r, group) for the group given, else for every
 * group (an array), printed by print_one / print_all or as JSON. flags: the
 * command's own (NULL: none).
 */
int show_groups(const char *verb, int argc, char **argv, const struct flag *flags,
		json_object *(*one)(rdtalloc_t *r, const char *group),
		void (*print_one)(json_object *doc), void (*print_all)(json_object *doc));

/*
 * A group's tasks in text: at most TASKS_SHOWN, then how many there are in
 * all (the default group holds every thread of the host that is in no
 * other); --all lists them. JSON always has them all, and "ntasks".
 */
#define TASKS_SHOWN 32
extern bool g_all_tasks;

#endif

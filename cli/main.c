// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rdtctl main: global options (and their environment stand-ins), --help,
 * --version, and the table of objects. Each object lives in its own file.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

static const char usage_text[] =
"Usage: rdtctl [OPTIONS] COMMAND [ARGS]\n"
"\n"
"Partition the shared cache (Intel RDT CAT / AMD L3 allocation) between groups\n"
"of tasks and CPUs.\n"
"\n"
"Options:\n"
"  --backend NAME     sim, msr, resctrl or auto (default: $RDTALLOC_BACKEND, else the best available)\n"
"  --state-dir DIR    state directory (default: $RDTALLOC_STATE_DIR, else the backend's)\n"
"  --machine DESC     machine description, e.g. 'topology=package:2 l3:1 core:2 pu:1'\n"
"                     (default: $RDTALLOC_MACHINE, else the one recorded in the state)\n"
"  --msr-root DIR     msr backend: CPU N's device is DIR/N/msr\n"
"                     (default: $RDTALLOC_MSR_ROOT, else /dev/cpu)\n"
"  --resctrl-root DIR resctrl backend: where resctrl is mounted\n"
"                     (default: $RDTALLOC_RESCTRL_ROOT, else from the mount table)\n"
"  --precedence RULE  cpu or task: which group wins on a CPU bound to a group while a\n"
"                     task of another runs there; chosen when the state is created\n"
"                     (default: cpu on sim and msr; resctrl has only task)\n"
"  --max-groups N, --max-tasks N  what a new state may hold (16384 groups,\n"
"                     1048576 bound tasks by default); fixed when it is created\n"
"  --owner NAME       who the changes are by: KIND:NAME (user, config, oci, control)\n"
"                     or NAME for user:NAME (default: user:admin)\n"
"  --force            take over what another owner made instead of being refused\n"
"  -j, --json         print one JSON document\n"
"  -p, --pretty       print pretty JSON (implies -j)\n"
"  -q, --quiet        print nothing when a change succeeds\n"
"  -h, --help         show this help\n"
"      --version      show the version\n"
"\n"
"Commands:\n"
"  info [--cpuid FILE | --presets]   resources, domains, CLOSIDs, backend in use\n"
"  group create NAME [--schema S] [--exclusive]  create a group (optionally with a schema)\n"
"  group mode NAME exclusive|shareable [--force]  no other group on its ways, or again\n"
"  group remove NAME                  remove a group; its tasks and CPUs go to default\n"
"  group list                         the names of the groups\n"
"  group show [NAME] [--all]          schema, CPUs, tasks and CLOSIDs of groups\n"
"  schema set GROUP SCHEMA            e.g. schema set p1 'L3:0=f8000;1=fffff'\n"
"  schema show [GROUP]\n"
"  task bind GROUP TID... [--process] move tasks into GROUP (--process: every thread)\n"
"  task show [GROUP] [--all]\n"
"  exec GROUP [--] CMD [ARGS...]       run CMD in GROUP from its first instruction\n"
"  cgroup bind GROUP PATH | unbind PATH | show [PATH]\n"
"                                     a cgroup v2 (a systemd unit, a container) and\n"
"                                     every task below it, now and later, in GROUP\n"
"  cpu bind GROUP CPULIST             move CPUs into GROUP, e.g. cpu bind p1 0-3,8\n"
"  cpu show [GROUP]\n"
"  cpu assoc [CPULIST]                per CPU: its group, the CLOSID in IA32_PQR_ASSOC\n"
"  closids [RESOURCE]                 per domain: CLOSID, mask, refcount, groups\n"
"  map [RESOURCE] [--domain N] [--color=auto|always|never] [--svg FILE]\n"
"                                     per domain: each group's ways, the shareable and unused ones\n"
"  cdp RESOURCE on|off                code/data prioritization (only default may exist)\n"
"  save [--tasks] [--format rdtalloc|goresctrl]\n"
"                                     print the state as a configuration (--tasks: with task ids;\n"
"                                     goresctrl: as containerd's and CRI-O's RDT classes)\n"
"  apply FILE|- [--prune] [--dry-run] [--missing-tasks=fail|skip] [--force-machine]\n"
"        [--format rdtalloc|goresctrl]\n"
"                                     make the state match a configuration, print each change\n"
"  reset [--machine DESC]             remove every group, all masks back to all-ones\n"
"                                     (with --machine: the state is made anew for DESC)\n"
"  hook start|stop|status|run         the eBPF switch hook: per-task CLOSIDs on every\n"
"                                     context switch (msr backend; sim for testing;\n"
"                                     resctrl needs none)\n"
"  monitor [GROUP...] [--interval S] [--count N] [--domain ID] [--sort occupancy|total|local]\n"
"          [--format table|csv|prometheus [--output FILE]]\n"
"                                     per group and L3 domain: cache occupancy and memory\n"
"                                     bandwidth (total, local, remote); -j: a JSON line a sample\n"
"  monitor pin GROUP | unpin GROUP | turns [--period S] [--counters N]\n"
"                                     where groups outnumber the counters (mbm_event mode,\n"
"                                     AMD ABMC): they take turns; a pinned group keeps its own\n"
"  sim load GROUP --footprint SIZE --rate SIZE/s [--local PCT] [--domain ID]\n"
"          [--fault unavailable|error] | sim unload GROUP [--domain ID]\n"
"                                     the simulator's workload of a group, which its\n"
"                                     monitoring counters show\n"
"  sim replay [--domain ID] [--instr] [--no-count] [--cut | --loop] GROUP=TRACE...\n"
"                                     memory traces (valgrind lackey, or converted) through\n"
"                                     a model of the L3 with the groups' masks (the\n"
"                                     sim's monitoring counters take the result)\n"
"  profile --trace FILE [--domain ID] [--instr] [--sample N]\n"
"                                     a trace's miss ratio alone at 1..N ways (one pass)\n"
"  profile GROUP [--domain ID] [--interval S]\n"
"                                     a running group's occupancy and bandwidth at 1..N ways\n"
"  trace convert IN OUT [--instr]     a lackey trace into the compact binary form\n"
"  plan [--domain ID] [--goal misses|bound] [--bound GROUP=RATIO] [--exclusive GROUP]...\n"
"       [--apart] [--spare GROUP] [--mb GROUP=VALUE]... [--all-domains]\n"
"       (--curve GROUP=FILE... | --trace GROUP=FILE... [--instr] [--cut | --loop])\n"
"                                     ways for each group (the fewest misses), as a\n"
"                                     configuration to apply; traces: plans replayed\n"
"  plan --check CONFIG GROUP=CURVE... what a configuration would do\n"
"  control sim-run --interval-accesses K [--intervals N] [--bound GROUP=RATIO|GROUP=BYTES/s]...\n"
"          [--exclusive GROUP]... [--avoid MASK] [--writes-per-minute N]\n"
"          [--no-control | --static GROUP=MASK...] GROUP=TRACE[,TRACE...]...\n"
"                                     the closed-loop controller on the cache model, in\n"
"                                     time: one record an interval (-j: JSON Lines)\n"
"  control set GROUP... [--domain ID] [--bound G=X]... [--exclusive G]... | show\n"
"          | clear [--domain ID] | run [--count N]\n"
"                                     a controller per L3 domain kept in the state, run live\n"
"  oci-hook createRuntime|prestart|poststop\n"
"                                     the OCI runtime hook: a container annotated\n"
"                                     rdtalloc.group=G (state JSON on stdin) goes into G\n"
"  sync [--full]                      what the agent does, once: drift repaired, bound\n"
"                                     cgroups' newcomers placed, dead containers released\n"
"  io-alloc show|enable|disable|set L3:ID=MASK[;ID=MASK...]\n"
"                                     L3 I/O allocation (resctrl's io_alloc, Linux 6.19):\n"
"                                     the ways I/O fills and the CLOSID it holds\n"
"  agent [--listen ADDR:PORT] [--scan S] [--no-bpf] | agent status\n"
"                                     keep the state true between commands (one per state)\n"
"  demo                               the 2016 resctrl patch set's example, simulated\n"
"\n"
"The default group is called 'default'. Commands and verbs may be abbreviated.\n"
"Exit status: 0 success, 1 the operation failed, 2 usage error.\n"
"See rdtctl(1).\n";

static int do_help(int argc, char **argv)
{
	fputs(usage_text, stdout);
	return EXIT_OK;
}

/* Is word a word of the synopsis text s[0..n), between spaces, '|' or its ends? */
static bool has_word(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word), i;

	for (i = 0; w && i + w <= n; i++)
		if (!strncmp(s + i, word, w) && (!i || strchr(" |", s[i - 1])) &&
		    (i + w == n || strchr(" |\n", s[i + w])))
			return true;
	return false;
}

/*
 * Print the entries of the command list whose first word is object and
 * whose synopsis names verb (NULL: all of object's); 1 when some were.
 * An entry is a line with two spaces before its command and the lines
 * indented further under it; its synopsis ends at the description column.
 */
static int print_entries(const char *object, const char *verb)
{
	const char *p = strstr(usage_text, "Commands:\n") + 10, *end, *e, *nl;
	size_t olen = strlen(object);
	int found = 0;

	for (end = strstr(p, "\n\n"); p < end; p = e) {
		const char *syn_end;

		for (e = strchr(p, '\n') + 1; e < end && e[2] == ' '; e = strchr(e, '\n') + 1)
			;
		if (strncmp(p + 2, object, olen) || p[2 + olen] != ' ')
			continue;
		/* the synopsis: up to the description, continuation lines too */
		syn_end = strstr(p + 2, "  ");
		if (!syn_end || syn_end > strchr(p, '\n'))
			syn_end = strchr(p, '\n');
		for (nl = strchr(p, '\n') + 1; nl < e && strspn(nl, " ") < 30;
		     nl = strchr(nl, '\n') + 1)
			syn_end = strchr(nl, '\n');
		if (verb && !has_word(p + 2 + olen, (size_t)(syn_end - p) - 2 - olen, verb))
			continue;
		if (!found++)
			printf("Usage (global options before the command: rdtctl --help):\n");
		fwrite(p, 1, (size_t)(e - p), stdout);
	}
	return found;
}

int cmd_help(const char *object, const char *verb)
{
	if (!print_entries(object, verb) && !print_entries(object, NULL))
		return do_help(0, NULL);
	printf("See rdtctl(1).\n");
	return EXIT_OK;
}

static const struct cmd objects[] = {
	{ "info", do_info },
	{ "group", do_group },
	{ "schema", do_schema },
	{ "task", do_task },
	{ "exec", do_exec },
	{ "cgroup", do_cgroup },
	{ "cpu", do_cpu },
	{ "closids", do_closids },
	{ "cdp", do_cdp },
	{ "save", do_save },
	{ "apply", do_apply },
	{ "reset", do_reset },
	{ "hook", do_hook },
	{ "demo", do_demo },
	{ "map", do_map },
	{ "monitor", do_monitor },
	{ "sim", do_sim },
	{ "oci-hook", do_oci_hook },
	{ "profile", do_profile },
	{ "trace", do_trace },
	{ "plan", do_plan },
	{ "control", do_control },
	{ "sync", do_sync },
	{ "io-alloc", do_io_alloc },
	{ "agent", do_agent },
	{ "help", do_help },
	{ NULL, NULL },
};

enum { OPT_BACKEND = 256, OPT_STATE_DIR, OPT_MACHINE, OPT_MSR_ROOT, OPT_RESCTRL_ROOT,
       OPT_PRECEDENCE, OPT_MAX_GROUPS, OPT_MAX_TASKS, OPT_VERSION, OPT_OWNER, OPT_FORCE };

static const struct option long_opts[] = {
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
	{ "machine", required_argument, NULL, OPT_MACHINE },
	{ "msr-root", required_argument, NULL, OPT_MSR_ROOT },
	{ "resctrl-root", required_argument, NULL, OPT_RESCTRL_ROOT },
	{ "precedence", required_argument, NULL, OPT_PRECEDENCE },
	{ "max-groups", required_argument, NULL, OPT_MAX_GROUPS },
	{ "max-tasks", required_argument, NULL, OPT_MAX_TASKS },
	{ "owner", required_argument, NULL, OPT_OWNER },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "json", no_argument, NULL, 'j' },
	{ "pretty", no_argument, NULL, 'p' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* An environment variable standing in for a flag; empty counts as unset. */
static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && v[0] ? v : NULL;
}

/* Returns -1 to go on, else the exit code. */
static int parse_globals(int argc, char **argv)
{
	int c;

	opterr = 0;
	/* '+': options stop at the command; verbs parse their own */
	while ((c = getopt_long(argc, argv, "+:jpqh", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_BACKEND:
			g_opts.backend = optarg;
			break;
		case OPT_STATE_DIR:
			g_opts.state_dir = optarg;
			g_opts.state_from = "--state-dir";
			break;
		case OPT_MACHINE:
			g_opts.machine = optarg;
			break;
		case OPT_MSR_ROOT:
			g_opts.msr_root = optarg;
			break;
		case OPT_RESCTRL_ROOT:
			g_opts.resctrl_root = optarg;
			break;
		case OPT_PRECEDENCE:
			if (!strcmp(optarg, "cpu"))
				g_opts.precedence = RDTALLOC_PRECEDENCE_CPU;
			else if (!strcmp(optarg, "task"))
				g_opts.precedence = RDTALLOC_PRECEDENCE_TASK;
			else
				return usage_error("--precedence '%s': use cpu or task", optarg);
			break;
		case OPT_MAX_GROUPS:
		case OPT_MAX_TASKS: {
			unsigned int *v = c == OPT_MAX_GROUPS ? &g_opts.max_groups
							      : &g_opts.max_tasks;
			char *end;
			unsigned long n;

			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (!optarg[0] || *end || errno || n == 0 || n > UINT_MAX ||
			    optarg[0] == '-' || optarg[0] == '+')
				return usage_error("--%s '%s': a number above 0",
						   c == OPT_MAX_GROUPS ? "max-groups" : "max-tasks",
						   optarg);
			*v = (unsigned int)n;
			break;
		}
		case OPT_OWNER:
			g_opts.owner = optarg;
			break;
		case OPT_FORCE:
			g_opts.force = true;
			break;
		case 'j':
			g_opts.json = true;
			break;
		case 'p':
			g_opts.json = g_opts.pretty = true;
			break;
		case 'q':
			g_opts.quiet = true;
			break;
		case 'h':
			return do_help(0, NULL);
		case OPT_VERSION:
			/* the library may be newer than the rdtctl built against it */
			printf("rdtctl %s (librdtalloc %s)\n", RDTALLOC_VERSION_STRING,
			       rdtalloc_version_string());
			return EXIT_OK;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			if (optopt)
				return usage_error("unknown option '-%c'", optopt);
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!g_opts.state_dir && (g_opts.state_dir = env("RDTALLOC_STATE_DIR")))
		g_opts.state_from = "$RDTALLOC_STATE_DIR";
	if (!g_opts.machine)
		g_opts.machine = env("RDTALLOC_MACHINE");
	return -1;
}

int main(int argc, char **argv)
{
	int ret = parse_globals(argc, argv);

	if (ret < 0) {
		if (optind >= argc)
			ret = usage_error("no command given");
		else
			ret = cmd_select(objects, "", argc - optind, argv + optind);
	}
	ctx_close();
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "rdtctl: cannot write the output\n");
		return EXIT_FAIL;
	}
	return ret;
}

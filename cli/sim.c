// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sim: what only the simulator has - a group's workload, which the model
 * behind its monitoring counters turns into occupancy and bandwidth
 * (docs/monitoring.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

/*
 * "40M", "1.5G", "512KiB", "2GB", "100": bytes. K, M, G, T and KiB ... TiB
 * are powers of 1024, KB ... TB powers of 1000. rate: a trailing "/s" is
 * allowed. At most 2^50.
 */
int parse_size(const char *text, bool rate, uint64_t *out)
{
	static const char units[] = "KMGT";
	const char *u;
	char *end;
	double v, mul = 1;
	size_t n;

	errno = 0;
	if (!text[0] || !(text[0] >= '0' && text[0] <= '9'))
		return -EINVAL;
	v = strtod(text, &end);
	if (errno || end == text)
		return -EINVAL;
	n = strlen(end);
	if (rate && n >= 2 && !strcmp(end + n - 2, "/s"))
		n -= 2;
	if (n) {
		u = strchr(units, end[0] & ~0x20);
		if (!u || !end[0])
			return -EINVAL;
		if (n == 1 || (n == 3 && !strncmp(end + 1, "iB", 2)))
			mul = pow(1024, (double)(u - units + 1));
		else if (n == 2 && end[1] == 'B')
			mul = pow(1000, (double)(u - units + 1));
		else
			return -EINVAL;
	}
	v *= mul;
	if (!(v >= 0) || v > (double)(UINT64_C(1) << 50))
		return -ERANGE;
	*out = (uint64_t)v;
	return 0;
}

int parse_domain(const char *text, int *id)
{
	char *end;
	long v;

	if (!text) {
		*id = -1;
		return 0;
	}
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < 0 || v > 1 << 20)
		return usage_error("--domain %s: give an L3 cache id (rdtctl info)", text);
	*id = (int)v;
	return 0;
}

static int sim_load(int argc, char **argv)
{
	const char *fp = NULL, *rate = NULL, *local = NULL, *dom = NULL, *fault = NULL;
	struct flag flags[] = {
		{ "--footprint", NULL, &fp }, { "--rate", NULL, &rate },
		{ "--local", NULL, &local }, { "--domain", NULL, &dom },
		{ "--fault", NULL, &fault }, { NULL },
	};
	struct rdtalloc_sim_load ld = { .sz = sizeof(ld), .local_pct = 100 };
	const char *syn = "sim load GROUP --footprint SIZE --rate SIZE/s [--local PCT] "
			  "[--domain ID] [--fault unavailable|error]";
	rdtalloc_t *r;
	int ret, id;

	ret = parse_flags("sim load", &argc, argv, flags);
	if (ret)
		return ret;
	REQ_ARGS(1, syn);
	MAX_ARGS(1, syn);
	if (!fp || !rate)
		return usage_error("sim load needs --footprint and --rate: usage: rdtctl %s", syn);
	if (parse_size(fp, false, &ld.footprint))
		return usage_error("--footprint %s: give bytes, e.g. 40M or 1.5GiB (at most "
				   "1 PiB)", fp);
	if (parse_size(rate, true, &ld.rate))
		return usage_error("--rate %s: give bytes per second, e.g. 2G or 500MB/s (at "
				   "most 1 PB/s)", rate);
	if (local) {
		char *end;
		long v;

		errno = 0;
		v = strtol(local, &end, 10);
		if (errno || end == local || *end || v < 0 || v > 100)
			return usage_error("--local %s: a percentage, 0 to 100", local);
		ld.local_pct = (unsigned int)v;
	}
	if (fault) {
		if (!strcmp(fault, "unavailable"))
			ld.fault = RDTALLOC_MON_UNAVAILABLE;
		else if (!strcmp(fault, "error"))
			ld.fault = RDTALLOC_MON_ERROR;
		else
			return usage_error("--fault %s: 'unavailable' or 'error'", fault);
	}
	ret = parse_domain(dom, &id);
	if (ret)
		return ret;
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_sim_set_load(r, argv[0], id, &ld);
	if (ret)
		return fail_lib(r, ret);
	if (!g_opts.quiet && !g_opts.json)
		printf("group %s: footprint %" PRIu64 " bytes, %" PRIu64 " bytes/s, %u%% local, "
		       "%s\n", argv[0], ld.footprint, ld.rate, ld.local_pct,
		       id < 0 ? "every L3 domain" : "one L3 domain");
	return EXIT_OK;
}

static int sim_unload(int argc, char **argv)
{
	const char *dom = NULL;
	struct flag flags[] = { { "--domain", NULL, &dom }, { NULL } };
	struct rdtalloc_sim_load ld = { .sz = sizeof(ld) };
	rdtalloc_t *r;
	int ret, id;

	ret = parse_flags("sim unload", &argc, argv, flags);
	if (ret)
		return ret;
	REQ_ARGS(1, "sim unload GROUP [--domain ID]");
	MAX_ARGS(1, "sim unload GROUP [--domain ID]");
	ret = parse_domain(dom, &id);
	if (ret)
		return ret;
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_sim_set_load(r, argv[0], id, &ld);
	if (ret)
		return fail_lib(r, ret);
	if (!g_opts.quiet && !g_opts.json)
		printf("group %s: no workload\n", argv[0]);
	return EXIT_OK;
}

int do_sim(int argc, char **argv)
{
	static const struct cmd cmds[] = {
		{ "load", sim_load },
		{ "unload", sim_unload },
		{ "replay", sim_replay },
		{ NULL, NULL },
	};

	return cmd_select(cmds, "sim", argc, argv);
}

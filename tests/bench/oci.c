// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_oci: what the OCI hook adds to `runc run` of a busybox container
 * that exits at once (/bin/true; runc run creates, starts, waits, deletes:
 * both the createRuntime and the poststop hook run). Three bundles in
 * interleaved rounds: no hook; the hook with the container annotated for
 * a group that exists (sim backend); the hook on a container without the
 * annotation. Prints medians and the ratios to the run without the hook
 * (targets: at most 1.2 annotated, indistinguishable without the
 * annotation). Needs root, runc and /bin/busybox; asserts nothing.
 *
 * Usage: bench_oci [ROUNDS]
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static char tmp[] = "/tmp/rdtctl-bench-oci.XXXXXX";

static int remove_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(p);
}

static void sh(const char *cmd)
{
	if (system(cmd)) {
		fprintf(stderr, "bench_oci: '%s' failed\n", cmd);
		exit(1);
	}
}

/* A bundle in tmp/name whose container runs /bin/true; hook and annotated as asked. */
static void bundle(const char *name, int hook, int annotated)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd),
		 "set -e; b=%s/%s; mkdir -p $b/rootfs/bin; cp /bin/busybox $b/rootfs/bin/; "
		 "ln -s busybox $b/rootfs/bin/true; cd $b && runc spec && "
		 "python3 - config.json %d %d '%s' '%s/state' <<'EOF'\n"
		 "import json, sys\n"
		 "path, hook, ann, rdtctl, state = sys.argv[1:]\n"
		 "c = json.load(open(path))\n"
		 "c['process']['terminal'] = False\n"
		 "c['process']['args'] = ['/bin/true']\n"
		 "c['annotations'] = {'rdtalloc.group': 'bench'} if ann == '1' else {}\n"
		 "if hook == '1':\n"
		 "    c['hooks'] = {s: [{'path': rdtctl, 'args': ['rdtctl', '--backend', 'sim',\n"
		 "        '--state-dir', state, 'oci-hook', s]}] for s in ('createRuntime', 'poststop')}\n"
		 "json.dump(c, open(path, 'w'))\n"
		 "EOF\n", tmp, name, hook, annotated, RDTCTL_PATH, tmp);
	sh(cmd);
}

static double run_once(const char *name, int i)
{
	char b[256], id[64], root[256];
	char *argv[] = { "/usr/sbin/runc", "--root", root, "run", "--bundle", b, id, NULL };

	snprintf(b, sizeof(b), "%s/%s", tmp, name);
	snprintf(root, sizeof(root), "%s/runc", tmp);
	snprintf(id, sizeof(id), "%s-%d", name, i);
	return bench_spawn(argv, "/dev/null");
}

int main(int argc, char **argv)
{
	static const char *const names[3] = { "plain", "annotated", "unannotated" };
	int rounds = argc > 1 ? atoi(argv[1]) : 21;
	double *t[3], med[3];
	char cmd[512];

	if (geteuid() != 0 || access("/usr/sbin/runc", X_OK) || access("/bin/busybox", X_OK)) {
		fprintf(stderr, "bench_oci: needs root, /usr/sbin/runc and /bin/busybox "
			"(scripts/deps.sh installs runc and busybox-static)\n");
		return 77;
	}
	if (rounds < 3)
		rounds = 3;
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	bundle("plain", 0, 0);
	bundle("annotated", 1, 1);
	bundle("unannotated", 1, 0);
	snprintf(cmd, sizeof(cmd), "'%s' --backend sim --state-dir %s/state -q group create bench",
		 RDTCTL_PATH, tmp);
	sh(cmd);
	for (int k = 0; k < 3; k++) {
		t[k] = calloc((size_t)rounds, sizeof(double));
		if (!t[k])
			return 1;
		run_once(names[k], -1);	/* warm the caches */
	}
	for (int i = 0; i < rounds; i++)
		for (int k = 0; k < 3; k++)
			t[k][i] = run_once(names[k], i);
	for (int k = 0; k < 3; k++) {
		qsort(t[k], (size_t)rounds, sizeof(double), bench_cmp_double);
		med[k] = t[k][rounds / 2];
	}
	printf("runc run of a busybox container that exits at once, median of %d interleaved "
	       "runs\n", rounds);
	printf("  without the hook:                 %7.2f ms\n", med[0] * 1e3);
	printf("  the hook, annotated (sim, group): %7.2f ms  ratio %.3f (target <= 1.2)\n",
	       med[1] * 1e3, med[1] / med[0]);
	printf("  the hook, not annotated:          %7.2f ms  ratio %.3f (target: indistinguishable)\n",
	       med[2] * 1e3, med[2] / med[0]);
	printf("  spread without the hook (p25-p75): %.2f-%.2f ms\n", t[0][rounds / 4] * 1e3,
	       t[0][rounds * 3 / 4] * 1e3);
	nftw(tmp, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}

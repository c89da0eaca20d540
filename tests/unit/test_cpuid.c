// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_cpuid: the `cpuid -r` reader and the CPUID decode. Every dump in
 * tests/data/cpuid decodes to exact capabilities; the reader's errors name
 * the line; missing leaves and leaves beyond the maximum read as zeros; the
 * public calls respect caps->sz and leave caps alone on failure; the live
 * read agrees with itself and rdt_detect_host() says what it found.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <rdtalloc/rdtalloc.h>

#include "detect/detect.h"

struct want_res {
	const char *name;
	unsigned int closids, cbm_len;
	uint64_t shareable;
	int cdp, sparse;
};

struct want {
	const char *file, *vendor, *brand;
	unsigned int family, model, stepping;
	int rdt_alloc, mba, probe;
	unsigned int nres;
	struct want_res res[2];
	const char *summary;
};

static const struct want dumps[] = {
	{ "amd-zen4-vm.txt", "AuthenticAMD", "AMD EPYC", 0x19, 0x01, 1, 0, 0, 0, 0, { { 0 } },
	  "AMD EPYC: no RDT cache allocation enumerated" },
	{ "intel-i7-6900k-broadwell-e.txt", "GenuineIntel",
	  "Intel(R) Core(TM) i7-6900K CPU @ 3.20GHz", 6, 0x4f, 1, 1, 0, 0, 1,
	  { { "L3", 16, 20, 0xc0000, 1, 0 } },
	  "Intel(R) Core(TM) i7-6900K CPU @ 3.20GHz: L3 CAT 16 CLOSIDs, 20-bit CBM, CDP" },
	{ "intel-xeon-e5-2676v3-aws-t2.txt", "GenuineIntel",
	  "Intel(R) Xeon(R) CPU E5-2676 v3 @ 2.40GHz", 6, 0x3f, 2, 0, 0, 1, 0, { { 0 } },
	  "Intel(R) Xeon(R) CPU E5-2676 v3 @ 2.40GHz: possibly CAT-capable Haswell server, "
	  "probe needed" },
	{ "intel-haswell-ep-es.txt", "GenuineIntel", "Genuine Intel(R) CPU @ 2.70GHz", 6, 0x3f, 2,
	  0, 0, 1, 0, { { 0 } },
	  "Genuine Intel(R) CPU @ 2.70GHz: possibly CAT-capable Haswell server, probe needed" },
	{ "intel-xeon-8160-skylake-sp.txt", "GenuineIntel",
	  "Intel(R) Xeon(R) Platinum 8160 CPU @ 2.10GHz", 6, 0x55, 4, 1, 1, 0, 1,
	  { { "L3", 16, 11, 0x600, 1, 0 } },
	  "Intel(R) Xeon(R) Platinum 8160 CPU @ 2.10GHz: L3 CAT 16 CLOSIDs, 11-bit CBM, CDP; MBA" },
	{ "intel-atom-c3958-denverton.txt", "GenuineIntel", "Intel(R) Atom(TM) CPU C3958 @ 2.00GHz",
	  6, 0x5f, 1, 1, 0, 0, 1, { { "L2", 4, 8, 0, 0, 0 } },
	  "Intel(R) Atom(TM) CPU C3958 @ 2.00GHz: L2 CAT 4 CLOSIDs, 8-bit CBM" },
	{ "amd-ryzen-5800x-zen3.txt", "AuthenticAMD", "AMD Ryzen 7 5800X 8-Core Processor", 0x19,
	  0x21, 2, 1, 1, 0, 1, { { "L3", 16, 16, 0, 1, 1 } },
	  "AMD Ryzen 7 5800X 8-Core Processor: L3 CAT 16 CLOSIDs, 16-bit CBM, CDP, non-contiguous "
	  "masks; MBA 16 CLOSIDs, 11-bit bandwidth" },
	{ "amd-threadripper-7995wx-zen4.txt", "AuthenticAMD",
	  "AMD Ryzen Threadripper PRO 7995WX 96-Cores", 0x19, 0x18, 1, 1, 1, 0, 1,
	  { { "L3", 16, 16, 0, 1, 1 } },
	  "AMD Ryzen Threadripper PRO 7995WX 96-Cores: L3 CAT 16 CLOSIDs, 16-bit CBM, CDP, "
	  "non-contiguous masks; MBA 16 CLOSIDs, 11-bit bandwidth" },
	{ "constructed-intel-xeon-8280-cascadelake.txt", "GenuineIntel",
	  "Intel(R) Xeon(R) Platinum 8280 CPU @ 2.70GHz", 6, 0x55, 7, 1, 1, 0, 1,
	  { { "L3", 16, 11, 0x600, 1, 0 } },
	  "Intel(R) Xeon(R) Platinum 8280 CPU @ 2.70GHz: L3 CAT 16 CLOSIDs, 11-bit CBM, CDP; MBA 8 "
	  "CLOSIDs, max throttle 90%, linear" },
	{ "constructed-intel-xeon-8380-icelake-sp.txt", "GenuineIntel",
	  "Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz", 6, 0x6a, 6, 1, 1, 0, 1,
	  { { "L3", 16, 12, 0, 1, 0 } },
	  "Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz: L3 CAT 16 CLOSIDs, 12-bit CBM, CDP; MBA" },
	{ "constructed-intel-xeon-8480-sapphirerapids.txt", "GenuineIntel",
	  "Intel(R) Xeon(R) Platinum 8480+", 6, 0x8f, 8, 1, 1, 0, 2,
	  { { "L3", 15, 15, 0x6000, 1, 0 }, { "L2", 8, 16, 0, 0, 0 } },
	  "Intel(R) Xeon(R) Platinum 8480+: L3 CAT 15 CLOSIDs, 15-bit CBM, CDP; L2 CAT 8 CLOSIDs, "
	  "16-bit CBM; MBA" },
	{ "constructed-amd-epyc-7763-milan.txt", "AuthenticAMD", "AMD EPYC 7763 64-Core Processor",
	  0x19, 0x01, 1, 1, 1, 0, 1, { { "L3", 16, 16, 0, 1, 1 } },
	  "AMD EPYC 7763 64-Core Processor: L3 CAT 16 CLOSIDs, 16-bit CBM, CDP, non-contiguous "
	  "masks; MBA 16 CLOSIDs, 11-bit bandwidth" },
	{ "constructed-amd-epyc-9654-genoa.txt", "AuthenticAMD", "AMD EPYC 9654 96-Core Processor",
	  0x19, 0x11, 1, 1, 1, 0, 1, { { "L3", 16, 16, 0, 1, 1 } },
	  "AMD EPYC 9654 96-Core Processor: L3 CAT 16 CLOSIDs, 16-bit CBM, CDP, non-contiguous "
	  "masks; MBA 16 CLOSIDs, 11-bit bandwidth" },
};

/* What each dump says of MBA: CLOSIDs, Intel's max throttle and linearity, AMD's width. */
static const struct want_mba {
	const char *file;
	unsigned int closids, max_throttle;
	int linear;
	unsigned int bw_len;
} mba_dumps[] = {
	/* Intel with 0x10.3 recorded (constructed, tests/data/cpuid/SOURCES.md) */
	{ "constructed-intel-xeon-8280-cascadelake.txt", 8, 90, 1, 0 },
	/* MBA enumerated, 0x10.3 not in the recording: not known */
	{ "intel-xeon-8160-skylake-sp.txt", 0, 0, 0, 0 },
	{ "constructed-intel-xeon-8480-sapphirerapids.txt", 0, 0, 0, 0 },
	/* AMD 0x80000020.1: EAX 11 (bits of bandwidth), EDX 15 (highest COS) */
	{ "amd-ryzen-5800x-zen3.txt", 16, 0, 0, 11 },
	{ "amd-threadripper-7995wx-zen4.txt", 16, 0, 0, 11 },
	{ "constructed-amd-epyc-7763-milan.txt", 16, 0, 0, 11 },
	{ "constructed-amd-epyc-9654-genoa.txt", 16, 0, 0, 11 },
	/* no MBA */
	{ "intel-i7-6900k-broadwell-e.txt", 0, 0, 0, 0 },
	{ "amd-zen4-vm.txt", 0, 0, 0, 0 },
};

static void data_path(char *buf, size_t len, const char *file)
{
	snprintf(buf, len, "%s/cpuid/%s", RDT_TEST_DATA, file);
}

static void check_caps(const struct rdtalloc_cpu_caps *c, const struct want *w)
{
	unsigned int i;

	assert_int_equal(c->sz, sizeof(*c));
	assert_string_equal(c->vendor, w->vendor);
	assert_string_equal(c->brand, w->brand);
	assert_int_equal(c->family, w->family);
	assert_int_equal(c->model, w->model);
	assert_int_equal(c->stepping, w->stepping);
	assert_int_equal(c->rdt_alloc, w->rdt_alloc);
	assert_int_equal(c->mba, w->mba);
	assert_int_equal(c->probe_needed, w->probe);
	assert_int_equal(c->nres, w->nres);
	for (i = 0; i < w->nres; i++) {
		assert_string_equal(c->res[i].name, w->res[i].name);
		assert_int_equal(c->res[i].closids, w->res[i].closids);
		assert_int_equal(c->res[i].cbm_len, w->res[i].cbm_len);
		assert_int_equal(c->res[i].shareable_bits, w->res[i].shareable);
		assert_int_equal(c->res[i].cdp, w->res[i].cdp);
		assert_int_equal(c->res[i].sparse, w->res[i].sparse);
	}
	assert_string_equal(c->summary, w->summary);
}

static void test_mba_fields(void **state)
{
	char path[512];
	unsigned int i;

	for (i = 0; i < sizeof(mba_dumps) / sizeof(mba_dumps[0]); i++) {
		const struct want_mba *w = &mba_dumps[i];
		struct rdtalloc_cpu_caps c;

		memset(&c, 0x5a, sizeof(c));
		c.sz = sizeof(c);
		data_path(path, sizeof(path), w->file);
		if (rdtalloc_cpuid_decode_file(path, &c))
			fail_msg("%s: %s", w->file, rdtalloc_errmsg(NULL));
		if (c.mba_closids != w->closids || c.mba_max_throttle != w->max_throttle ||
		    c.mba_linear != w->linear || c.mba_bw_len != w->bw_len)
			fail_msg("%s: MBA %u CLOSIDs, throttle %u, linear %d, width %u", w->file,
				 c.mba_closids, c.mba_max_throttle, c.mba_linear, c.mba_bw_len);
	}
}

static void test_every_dump(void **state)
{
	char path[512];
	unsigned int i;

	for (i = 0; i < sizeof(dumps) / sizeof(dumps[0]); i++) {
		struct rdtalloc_cpu_caps c;

		memset(&c, 0x5a, sizeof(c));
		c.sz = sizeof(c);
		data_path(path, sizeof(path), dumps[i].file);
		if (rdtalloc_cpuid_decode_file(path, &c))
			fail_msg("%s: %s", dumps[i].file, rdtalloc_errmsg(NULL));
		assert_string_equal(rdtalloc_errmsg(NULL), "");
		check_caps(&c, &dumps[i]);
	}
}

/* Recorded leaves come through unchanged (spot checks against the files). */
static void test_reader_values(void **state)
{
	struct rdt_cpuid_dump *d = malloc(sizeof(*d));
	char path[512], err[512];
	uint32_t r[4];

	assert_non_null(d);
	data_path(path, sizeof(path), "intel-xeon-8160-skylake-sp.txt");
	assert_int_equal(rdt_cpuid_read_file(path, d, err, sizeof(err)), 0);
	assert_int_equal(d->n, 49);
	rdt_cpuid_get(d, 0x10, 1, r);
	assert_int_equal(r[0], 0xa);
	assert_int_equal(r[1], 0x600);
	assert_int_equal(r[2], 0x4);
	assert_int_equal(r[3], 0xf);
	rdt_cpuid_get(d, 0xd, 9, r);
	assert_int_equal(r[0], 0x8);
	assert_int_equal(r[1], 0xa80);
	/* a subleaf the tool did not list reads as zeros */
	rdt_cpuid_get(d, 0x10, 2, r);
	assert_int_equal(r[0] | r[1] | r[2] | r[3], 0);

	/* the host's own dump: "CPU:" header of `cpuid -r -1` */
	data_path(path, sizeof(path), "amd-zen4-vm.txt");
	assert_int_equal(rdt_cpuid_read_file(path, d, err, sizeof(err)), 0);
	assert_int_equal(d->n, 68);
	rdt_cpuid_get(d, 0x8000001d, 3, r);
	assert_int_equal(r[0], 0x4163);
	assert_int_equal(r[2], 0x7fff);
	free(d);
}

static int read_text(const char *text, struct rdt_cpuid_dump *d, char *err)
{
	return rdt_cpuid_read_text(text, "t", d, err, 512);
}

static void expect_text_err(const char *text, const char *msg)
{
	struct rdt_cpuid_dump *d = malloc(sizeof(*d));
	char err[512] = "";

	assert_non_null(d);
	assert_int_equal(read_text(text, d, err), -EINVAL);
	assert_string_equal(err, msg);
	free(d);
}

static void test_reader_lenient(void **state)
{
	struct rdt_cpuid_dump *d = malloc(sizeof(*d));
	char err[512];
	uint32_t r[4];

	assert_non_null(d);
	/* comments, blanks, CRLF, tabs, upper-case hex, no header, later CPUs ignored */
	assert_int_equal(read_text("# a note\n"
				   "\n"
				   "Disclaimer: cpuid may not support decoding of all cpuid registers.\n"
				   "0x00000000 0x00: eax=0x0000000D ebx=0x756E6547 ecx=0x6C65746E "
				   "edx=0x49656E69\r\n"
				   "\t  0x00000007 0x0: eax=0x0\tebx=0x8000 ecx=0x0 edx=0x0   \n"
				   "   # indented note\n"
				   "CPU 1:\n"
				   "   0x00000007 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n"
				   "CPU 2:\n"
				   "   0x00000008 0x00: eax=0x1 ebx=0x0 ecx=0x0 edx=0x0", d, err), 0);
	assert_string_equal(err, "");
	assert_int_equal(d->n, 2);
	rdt_cpuid_get(d, 7, 0, r);
	assert_int_equal(r[1], 0x8000);
	rdt_cpuid_get(d, 8, 0, r);
	assert_int_equal(r[0], 0);
	free(d);
}

static void test_reader_errors(void **state)
{
	const char *h = "CPU 0:\n   0x00000000 0x00: eax=0x1 ebx=0x0 ecx=0x0 edx=0x0\n";
	char text[512];

	snprintf(text, sizeof(text), "%s   0x00000001 0x00: eax=0x1 ebx=0x0 ecx=0x0\n", h);
	expect_text_err(text, "cpuid dump t line 3: cannot parse '0x00000001 0x00: eax=0x1 "
			"ebx=0x0 ecx=0x0' (expected '0xLEAF 0xSUB: eax=0x... ebx=0x... ecx=0x... "
			"edx=0x...')");
	snprintf(text, sizeof(text), "%s   0x00000001 0x00: eax=0x123456789 ebx=0x0 ecx=0x0 "
		 "edx=0x0\n", h);
	expect_text_err(text, "cpuid dump t line 3: cannot parse '0x00000001 0x00: "
			"eax=0x123456789 ebx=0x0 ecx=0x0...' (expected '0xLEAF 0xSUB: eax=0x... "
			"ebx=0x... ecx=0x... edx=0x...')");
	expect_text_err("CPU 0:\nhello\n", "cpuid dump t line 2: cannot parse 'hello' (expected "
			"'0xLEAF 0xSUB: eax=0x... ebx=0x... ecx=0x... edx=0x...')");
	expect_text_err("CPU 0:\n0x0 0x0: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0 extra\n",
			"cpuid dump t line 2: cannot parse '0x0 0x0: eax=0x0 ebx=0x0 ecx=0x0 "
			"edx=0x0 extra' (expected '0xLEAF 0xSUB: eax=0x... ebx=0x... ecx=0x... "
			"edx=0x...')");
	expect_text_err("CPU 0:\n0x0 0x0: eax=0x0ebx=0x0 ecx=0x0 edx=0x0\n",
			"cpuid dump t line 2: cannot parse '0x0 0x0: eax=0x0ebx=0x0 ecx=0x0 "
			"edx=0x0' (expected '0xLEAF 0xSUB: eax=0x... ebx=0x... ecx=0x... "
			"edx=0x...')");
	expect_text_err("CPU x:\n", "cpuid dump t line 1: cannot parse 'CPU x:' (expected '0xLEAF "
			"0xSUB: eax=0x... ebx=0x... ecx=0x... edx=0x...')");
	/* a malformed line is an error even in a CPU whose leaves are not kept */
	snprintf(text, sizeof(text), "%sCPU 1:\n   garbage\n", h);
	expect_text_err(text, "cpuid dump t line 4: cannot parse 'garbage' (expected '0xLEAF "
			"0xSUB: eax=0x... ebx=0x... ecx=0x... edx=0x...')");
	snprintf(text, sizeof(text), "%s   0x00000000 0x00: eax=0x2 ebx=0x0 ecx=0x0 edx=0x0\n", h);
	expect_text_err(text, "cpuid dump t line 3: leaf 0x00000000 subleaf 0x00 given twice");
	expect_text_err("", "cpuid dump t: no CPUID leaves in it (is it the output of "
			"`cpuid -r`?)");
	expect_text_err("# only\nCPU 0:\n\n", "cpuid dump t: no CPUID leaves in it (is it the "
			"output of `cpuid -r`?)");
}

static void test_reader_too_many(void **state)
{
	size_t len = (RDT_CPUID_MAX_LEAVES + 1) * 80 + 16;
	char *text = malloc(len), *p = text;
	unsigned int i;

	assert_non_null(text);
	p += sprintf(p, "CPU 0:\n");
	for (i = 0; i <= RDT_CPUID_MAX_LEAVES; i++)
		p += sprintf(p, "   0x0000000d 0x%02x: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n", i);
	expect_text_err(text, "cpuid dump t line 514: more than 512 leaves for one CPU");
	free(text);
}

static char *write_tmp(const char *content, size_t len)
{
	char *path = strdup("/tmp/rdt-test-cpuid-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, len), (ssize_t)len);
	close(fd);
	return path;
}

/* The public call: errors through rdtalloc_errmsg(NULL), and caps untouched. */
static void test_decode_file_errors(void **state)
{
	struct rdtalloc_cpu_caps c, before;
	char *empty = write_tmp("", 0);
	char *bad = write_tmp("CPU 0:\n   0x00000000 0x00: eax=0x1\n", 35);
	char *nul = write_tmp("CPU 0:\n\0   0x0 0x0: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n", 51);
	char msg[600];

	memset(&c, 0x5a, sizeof(c));
	c.sz = sizeof(c);
	before = c;
	assert_int_equal(rdtalloc_cpuid_decode_file("/nonexistent/dump.txt", &c), -ENOENT);
	assert_string_equal(rdtalloc_errmsg(NULL),
			    "cpuid dump /nonexistent/dump.txt: No such file or directory");
	assert_memory_equal(&c, &before, sizeof(c));

	assert_int_equal(rdtalloc_cpuid_decode_file(empty, &c), -EINVAL);
	snprintf(msg, sizeof(msg), "cpuid dump %s: no CPUID leaves in it (is it the output of "
		 "`cpuid -r`?)", empty);
	assert_string_equal(rdtalloc_errmsg(NULL), msg);
	assert_memory_equal(&c, &before, sizeof(c));

	assert_int_equal(rdtalloc_cpuid_decode_file(bad, &c), -EINVAL);
	snprintf(msg, sizeof(msg), "cpuid dump %s line 2: cannot parse '0x00000000 0x00: eax=0x1' "
		 "(expected '0xLEAF 0xSUB: eax=0x... ebx=0x... ecx=0x... edx=0x...')", bad);
	assert_string_equal(rdtalloc_errmsg(NULL), msg);
	assert_memory_equal(&c, &before, sizeof(c));

	assert_int_equal(rdtalloc_cpuid_decode_file(nul, &c), -EINVAL);
	snprintf(msg, sizeof(msg), "cpuid dump %s line 2: byte 0x00 at offset 7 is not text "
		 "(give the output of `cpuid -r`)", nul);
	assert_string_equal(rdtalloc_errmsg(NULL), msg);

	assert_int_equal(rdtalloc_cpuid_decode_file("/tmp", &c), -EISDIR);
	assert_string_equal(rdtalloc_errmsg(NULL), "cpuid dump /tmp is a directory, not a regular "
			    "file");
	assert_int_equal(rdtalloc_cpuid_decode_file(NULL, &c), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(NULL), "rdtalloc_cpuid_decode_file: path is NULL");
	assert_int_equal(rdtalloc_cpuid_decode_file(empty, NULL), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(NULL), "rdtalloc_cpuid_decode_file: caps is NULL");
	c.sz = 0;
	assert_int_equal(rdtalloc_cpuid_decode_file(empty, &c), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(NULL), "rdtalloc_cpuid_decode_file: caps->sz is 0: "
			    "set it to sizeof(struct rdtalloc_cpu_caps)");
	unlink(empty);
	unlink(bad);
	unlink(nul);
	free(empty);
	free(bad);
	free(nul);
}

#define DUMP_MAX (64u << 20)	/* DUMP_MAX_BYTES in lib/detect/dump.c */
#define LEAF0 "   0x00000000 0x00: eax=0x0000000d ebx=0x756e6547 ecx=0x6c65746e edx=0x49656e69\n"

/* Read a dump from path; the error must be ret and exactly msg, caps untouched. */
static void expect_file_err(const char *path, int ret, const char *msg)
{
	struct rdtalloc_cpu_caps c, before;

	memset(&c, 0x5a, sizeof(c));
	c.sz = sizeof(c);
	before = c;
	assert_int_equal(rdtalloc_cpuid_decode_file(path, &c), ret);
	assert_string_equal(rdtalloc_errmsg(NULL), msg);
	assert_memory_equal(&c, &before, sizeof(c));
}

/*
 * A child writing head, then unit forever (never closing the pipe); the
 * read end's path is "/dev/fd/N". The reader must stop on its own: were it
 * to wait for the end, alarm() would end the test.
 */
static pid_t stream(const char *head, const char *unit, char *path, size_t len, int *rfd)
{
	int fds[2];
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		size_t hl = strlen(head), ul = strlen(unit);
		char buf[65536];
		size_t n = 0;

		close(fds[0]);
		signal(SIGPIPE, SIG_DFL);
		if (write(fds[1], head, hl) != (ssize_t)hl)
			_exit(1);
		if (!ul)
			pause();
		for (; n + ul <= sizeof(buf); n += ul)
			memcpy(buf + n, unit, ul);
		for (;;)
			if (write(fds[1], buf, n) < 0)
				_exit(0);
	}
	close(fds[1]);
	*rfd = fds[0];
	snprintf(path, len, "/dev/fd/%d", fds[0]);
	return pid;
}

static void end_stream(pid_t pid, int rfd)
{
	close(rfd);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The bounds: 64 MiB a dump, 4096 bytes a line, no byte that is not text. */
static void test_dump_bounds(void **state)
{
	char path[64], msg[600], *big, *longline;
	pid_t pid;
	int fd;

	alarm(60);
	/* a regular file one byte over: refused on its size, unread (sparse, all NULs) */
	big = write_tmp("", 0);
	fd = open(big, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, DUMP_MAX + 1), 0);
	close(fd);
	snprintf(msg, sizeof(msg), "cpuid dump %s is larger than 64 MiB, the most a dump may be "
		 "(`cpuid -r` is about 7 KiB a CPU): give the dump of one machine", big);
	expect_file_err(big, -E2BIG, msg);
	/* at the bound it is read, and its first byte refused */
	assert_int_equal(truncate(big, DUMP_MAX), 0);
	snprintf(msg, sizeof(msg), "cpuid dump %s line 1: byte 0x00 at offset 0 is not text "
		 "(give the output of `cpuid -r`)", big);
	expect_file_err(big, -EINVAL, msg);
	unlink(big);
	free(big);

	/* devices and FIFOs are refused before a byte is read: they might never end */
	expect_file_err("/dev/zero", -EINVAL, "cpuid dump /dev/zero is a device, not a regular "
			"file");
	pid = stream("CPU 0:\n" LEAF0, "# more\n", path, sizeof(path), &fd);
	snprintf(msg, sizeof(msg), "cpuid dump %s is a FIFO (named pipe), not a regular file",
		 path);
	expect_file_err(path, -EINVAL, msg);
	end_stream(pid, fd);
	{
		char fifo[64];

		/* and a FIFO without a writer, which open(2) would wait on for ever */
		snprintf(fifo, sizeof(fifo), "/tmp/rdt-cpuid-fifo-%d", (int)getpid());
		assert_int_equal(mkfifo(fifo, 0600), 0);
		snprintf(msg, sizeof(msg), "cpuid dump %s is a FIFO (named pipe), not a regular "
			 "file", fifo);
		expect_file_err(fifo, -EINVAL, msg);
		unlink(fifo);
	}

	/* a bad byte after good lines is refused, the line named */
	big = write_tmp("CPU 0:\n" LEAF0 "   0x00000001\x1b[2J\n",
			strlen("CPU 0:\n" LEAF0 "   0x00000001\x1b[2J\n"));
	snprintf(msg, sizeof(msg), "cpuid dump %s line 3: byte 0x1b at offset %zu is not text "
		 "(give the output of `cpuid -r`)", big, strlen("CPU 0:\n" LEAF0) + 13);
	expect_file_err(big, -EINVAL, msg);
	unlink(big);
	free(big);

	/* a file line of 4096 bytes is read, one of 4097 is not */
	longline = malloc(4097 + 200);
	assert_non_null(longline);
	memset(longline, ' ', 4097);
	snprintf(longline + 4096 - 80, 200, "%-80s", "# a comment padded to 4096 bytes");
	longline[4096] = '\n';
	strcpy(longline + 4097, LEAF0);
	big = write_tmp(longline, strlen(longline));
	{
		struct rdtalloc_cpu_caps c;

		c.sz = sizeof(c);
		assert_int_equal(rdtalloc_cpuid_decode_file(big, &c), 0);
		assert_string_equal(c.vendor, "GenuineIntel");
	}
	unlink(big);
	free(big);
	memmove(longline + 1, longline, strlen(longline) + 1);
	big = write_tmp(longline, strlen(longline));
	snprintf(msg, sizeof(msg), "cpuid dump %s line 1 is longer than 4096 bytes, the most a "
		 "line may be: it is no line of `cpuid -r`", big);
	expect_file_err(big, -EINVAL, msg);
	unlink(big);
	free(big);
	free(longline);

	/* the text reader: the same bytes refused, with the offset */
	expect_text_err("CPU 0:\n" LEAF0 "# fine\n\x7f\n", "cpuid dump t line 4: byte 0x7f at "
			"offset 94 is not text (give the output of `cpuid -r`)");
	alarm(0);
}

/* An older, smaller caller struct gets only its own bytes. */
static void test_caps_sz(void **state)
{
	unsigned char buf[sizeof(struct rdtalloc_cpu_caps) + 32];
	struct rdtalloc_cpu_caps *c = (void *)buf;
	size_t small = offsetof(struct rdtalloc_cpu_caps, brand);
	char path[512];
	unsigned int i;

	data_path(path, sizeof(path), "intel-xeon-8160-skylake-sp.txt");
	memset(buf, 0xa5, sizeof(buf));
	c->sz = small;
	assert_int_equal(rdtalloc_cpuid_decode_file(path, c), 0);
	assert_int_equal(c->sz, small);
	assert_string_equal(c->vendor, "GenuineIntel");
	for (i = small; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xa5);

	/* a newer, bigger one: the bytes we do not know are zeroed */
	memset(buf, 0xa5, sizeof(buf));
	c->sz = sizeof(buf);
	assert_int_equal(rdtalloc_cpuid_decode_file(path, c), 0);
	assert_int_equal(c->sz, sizeof(buf));
	assert_int_equal(c->res[0].cbm_len, 11);
	for (i = sizeof(*c); i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0);
}

static void add(struct rdt_cpuid_dump *d, uint32_t leaf, uint32_t sub, uint32_t a, uint32_t b,
		uint32_t c, uint32_t e)
{
	const uint32_t r[4] = { a, b, c, e };

	assert_int_equal(rdt_cpuid_add(d, leaf, sub, r), 0);
}

/* GenuineIntel, max basic leaf `max`, RDT-A set, L3 CAT enumerated in leaf 0x10. */
static void intel_base(struct rdt_cpuid_dump *d, uint32_t max)
{
	d->n = 0;
	add(d, 0, 0, max, 0x756e6547, 0x6c65746e, 0x49656e69);
	add(d, 1, 0, 0x000606a6, 0, 0, 0);
	add(d, 7, 0, 0, 1u << 15, 0, 0);
	add(d, 0x10, 0, 0, 0x2, 0, 0);
}

static void test_decode_rules(void **state)
{
	struct rdt_cpuid_dump *d = malloc(sizeof(*d));
	struct rdtalloc_cpu_caps c;
	uint32_t r[4];

	assert_non_null(d);
	/* ECX bit 3: non-contiguous masks; EBX trimmed to the CBM; 64K CLOSIDs */
	intel_base(d, 0x1b);
	add(d, 0x10, 1, 0x7, 0xfffffff0, 0x8, 0xffff);
	rdt_cpuid_decode(d, &c);
	assert_int_equal(c.nres, 1);
	assert_int_equal(c.res[0].cbm_len, 8);
	assert_int_equal(c.res[0].shareable_bits, 0xf0);
	assert_int_equal(c.res[0].sparse, 1);
	assert_int_equal(c.res[0].cdp, 0);
	assert_int_equal(c.res[0].closids, 65536);
	assert_int_equal(c.mba, 0);
	assert_string_equal(c.brand, "");
	assert_string_equal(c.summary, "GenuineIntel family 0x6 model 0x6a: L3 CAT 65536 CLOSIDs, "
			    "8-bit CBM, non-contiguous masks");
	assert_int_equal(rdt_cpuid_add(d, 0x10, 1, r), -EEXIST);

	/* leaf 0x10 beyond the maximum basic leaf is not believed */
	intel_base(d, 0xf);
	add(d, 0x10, 1, 0xa, 0x600, 0x4, 0xf);
	rdt_cpuid_get(d, 0x10, 1, r);
	assert_int_equal(r[0] | r[1] | r[2] | r[3], 0);
	rdt_cpuid_decode(d, &c);
	assert_int_equal(c.rdt_alloc, 0);
	assert_int_equal(c.nres, 0);

	/* RDT-A without leaf 0x10 enumeration: nothing to allocate */
	d->n = 0;
	add(d, 0, 0, 0x16, 0x756e6547, 0x6c65746e, 0x49656e69);
	add(d, 7, 0, 0, 1u << 15, 0, 0);
	rdt_cpuid_decode(d, &c);
	assert_int_equal(c.rdt_alloc, 0);
	assert_int_equal(c.probe_needed, 0);
	assert_string_equal(c.summary,
			    "GenuineIntel family 0x0 model 0x0: no RDT cache allocation enumerated");

	/* leaf 0x10 without the RDT-A bit: ignored */
	intel_base(d, 0x1b);
	d->leaf[2].regs[1] = 0;
	add(d, 0x10, 1, 0xa, 0x600, 0x4, 0xf);
	rdt_cpuid_decode(d, &c);
	assert_int_equal(c.rdt_alloc, 0);

	/* family 0xf adds the extended family; AMD family 0x17 model 0x31 */
	d->n = 0;
	add(d, 0, 0, 0x10, 0x68747541, 0x444d4163, 0x69746e65);
	add(d, 1, 0, 0x00830f10, 0, 0, 0);
	rdt_cpuid_decode(d, &c);
	assert_string_equal(c.vendor, "AuthenticAMD");
	assert_int_equal(c.family, 0x17);
	assert_int_equal(c.model, 0x31);
	assert_int_equal(c.stepping, 0);

	/* extended leaves beyond 0x80000000's maximum read as zeros */
	add(d, 0x80000000, 0, 0x80000004, 0, 0, 0);
	add(d, 0x80000008, 0, 1, 2, 3, 4);
	rdt_cpuid_get(d, 0x80000008, 0, r);
	assert_int_equal(r[0] | r[1] | r[2] | r[3], 0);
	rdt_cpuid_get(d, 0x80000000, 0, r);
	assert_int_equal(r[0], 0x80000004);

	/* an empty dump decodes to an unknown CPU */
	d->n = 0;
	rdt_cpuid_decode(d, &c);
	assert_string_equal(c.vendor, "");
	assert_string_equal(c.summary, "unknown CPU: no RDT cache allocation enumerated");
	free(d);
}

/* The live read: consistent with itself, and rdt_detect_host() says what it found. */
static void test_host(void **state)
{
	struct rdtalloc_cpu_caps pub = { .sz = sizeof(pub) }, mine, det;
	struct rdt_cpuid_dump *d = malloc(sizeof(*d));
	char reason[200], want[200];

	assert_non_null(d);
	assert_int_equal(rdt_cpuid_read_host(d), 0);
	rdt_cpuid_decode(d, &mine);
	assert_int_equal(rdtalloc_cpuid_host(&pub), 0);
	assert_memory_equal(&pub, &mine, sizeof(pub));
	assert_true(mine.vendor[0] != '\0');
	assert_int_equal(rdt_detect_host(&det, reason, sizeof(reason)), 0);
	assert_memory_equal(&det, &mine, sizeof(det));
	if (det.rdt_alloc)
		snprintf(want, sizeof(want), "CPUID: RDT allocation on this CPU (%s)",
			 strchr(det.summary, ':') + 2);
	else if (det.probe_needed)
		snprintf(want, sizeof(want),
			 "CPUID: possibly CAT-capable Haswell server, probe needed");
	else
		snprintf(want, sizeof(want),
			 "CPUID: no RDT allocation on this CPU; using the simulator");
	assert_string_equal(reason, want);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_dump),
		cmocka_unit_test(test_mba_fields),
		cmocka_unit_test(test_reader_values),
		cmocka_unit_test(test_reader_lenient),
		cmocka_unit_test(test_reader_errors),
		cmocka_unit_test(test_reader_too_many),
		cmocka_unit_test(test_decode_file_errors),
		cmocka_unit_test(test_dump_bounds),
		cmocka_unit_test(test_caps_sz),
		cmocka_unit_test(test_decode_rules),
		cmocka_unit_test(test_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

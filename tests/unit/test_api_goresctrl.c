// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_goresctrl: goresctrl configurations resolved by
 * rdtalloc_goresctrl_config, each result worked out by hand from
 * goresctrl's rules (pkg/rdt/config.go), on a machine of two L3 domains
 * (cache ids 0 and 1) with a 20-bit CBM and MB in percent (minimum 10).
 * The example of goresctrl's documentation (partitions by percentage,
 * classes relative to them, MB); absolute partitions with bit lists and a
 * percentage range; per cache id values; the root class; CDP; the minimum
 * bandwidth; options.*.optional; and the refusals, each naming the
 * partition or class and the value. Then the result applied as one
 * configuration.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_api_util.h"

#define MG M2V ";mb.closids=8;mb.min=10;mb.gran=10"
#define HEAD "# from a goresctrl configuration: a group per class\n"

static char *conv(rdtalloc_t *r, const char *yaml)
{
	static char buf[8192];
	int n = rdtalloc_goresctrl_config(r, yaml, strlen(yaml), buf, sizeof(buf));

	assert_ok(r, n);
	assert_int_equal(n, strlen(buf));
	return buf;
}

static void refused(rdtalloc_t *r, const char *yaml, int err, const char *msg)
{
	char buf[64] = "untouched";

	assert_int_equal(rdtalloc_goresctrl_config(r, yaml, strlen(yaml), buf, sizeof(buf)), err);
	assert_string_equal(rdtalloc_errmsg(r), msg);
	assert_string_equal(buf, "untouched");
}

/* goresctrl's doc/rdt.md example: 60% and 40% partitions, classes inside. */
static const char *const doc_example =
	"options:\n"
	"  l2:\n    optional: true\n"
	"  l3:\n    optional: true\n"
	"  mb:\n    optional: true\n"
	"partitions:\n"
	"  exclusive:\n"
	"    l3Allocation: \"60%\"\n"
	"    mbAllocation: [\"100%\"]\n"
	"    classes:\n"
	"      Guaranteed:\n"
	"        l3Allocation: \"100%\"\n"
	"  shared:\n"
	"    l3Allocation: \"40%\"\n"
	"    mbAllocation: [\"50%\"]\n"
	"    classes:\n"
	"      Burstable:\n"
	"        l3Allocation: \"100%\"\n"
	"        mbAllocation: [\"100%\"]\n"
	"      BestEffort:\n"
	"        l3Allocation: \"50%\"\n"
	"        mbAllocation: [\"50%\"]\n";

static void documentation_example(void **state)
{
	rdtalloc_t *r = tu_eph(MG);

	/*
	 * 20 bits: the smaller request first, shared 40% of 20 = 8 bits, the
	 * last (exclusive) the remaining 12; laid out in name order from bit
	 * 0: exclusive 0xfff, shared 0xff000. BestEffort's 50% of shared's 8
	 * bits: bits 0 .. (50-1)*8/100 = 3 of it. MB: 50% of 50% = 25.
	 */
	assert_string_equal(conv(r, doc_example), HEAD
		"\ngroup Guaranteed\t# partition exclusive\n"
		"\tschema L3:0=fff;1=fff\n\tschema MB:0=100;1=100\n"
		"\ngroup Burstable\t# partition shared\n"
		"\tschema L3:0=ff000;1=ff000\n\tschema MB:0=50;1=50\n"
		"\ngroup BestEffort\t# partition shared\n"
		"\tschema L3:0=f000;1=f000\n\tschema MB:0=25;1=25\n");
	/* applied as one configuration: MB rounds up to the granularity (10) */
	assert_ok(r, rdtalloc_apply_config(r, conv(r, doc_example), 0));
	assert_schema(r, "BestEffort", "L3:0=0f000;1=0f000\nMB:0=30;1=30\n");
	assert_schema(r, "Guaranteed", "L3:0=00fff;1=00fff\nMB:0=100;1=100\n");
	rdtalloc_close(r);
}

static void absolute_and_ranges(void **state)
{
	rdtalloc_t *r = tu_eph(MG);

	/*
	 * a: 0xff00, b: 0xff (absolute, apart). c1's bits 0-3 of a: 0xf00;
	 * c2's 0xf0 of a: 0xf000; c3's 25-75% of b's 8 bits: bits
	 * (25-1)*8/100 = 1 .. (75-1)*8/100 = 5, 0x3e. No MB asked: 100.
	 */
	assert_string_equal(conv(r,
		"partitions:\n"
		"  b:\n    l3Allocation: \"0xff\"\n    classes:\n"
		"      c3:\n        l3Allocation: \"25-75%\"\n"
		"  a:\n    l3Allocation: \"0xff00\"\n    classes:\n"
		"      c1:\n        l3Allocation: \"0-3\"\n"
		"      c2:\n        l3Allocation: \"0xf0\"\n"), HEAD
		"\ngroup c1\t# partition a\n\tschema L3:0=f00;1=f00\n\tschema MB:0=100;1=100\n"
		"\ngroup c2\t# partition a\n\tschema L3:0=f000;1=f000\n\tschema MB:0=100;1=100\n"
		"\ngroup c3\t# partition b\n\tschema L3:0=3e;1=3e\n\tschema MB:0=100;1=100\n");
	rdtalloc_close(r);
}

static void per_cache_id(void **state)
{
	rdtalloc_t *r = tu_eph(MG);

	/*
	 * p: 50% of id 0 (10 bits, 0x3ff), 100% of id 1. x: 50% of p's 10
	 * bits in id 0 (bits 0..4, 0x1f), all of id 1. The root class is the
	 * default group. MB 5% is under the minimum: 10.
	 */
	assert_string_equal(conv(r,
		"partitions:\n"
		"  p:\n"
		"    l3Allocation:\n      all: \"100%\"\n      \"0\": \"50%\"\n"
		"    mbAllocation: [\"5%\", \"100MBps\"]\n"
		"    classes:\n"
		"      x:\n        l3Allocation:\n          all: \"100%\"\n          0: 50%\n"
		"      system/default:\n        l3Allocation: \"100%\"\n"), HEAD
		"\ngroup x\t# partition p\n\tschema L3:0=1f;1=fffff\n\tschema MB:0=10;1=10\n"
		"\ngroup default\t# partition p\n\tschema L3:0=3ff;1=fffff\n\tschema MB:0=10;1=10\n");
	rdtalloc_close(r);
}

static void cdp_code_and_data(void **state)
{
	rdtalloc_t *r = tu_eph(M2CDP);

	assert_ok(r, rdtalloc_set_cdp(r, "L3", 1));
	/* p: all of it; x: code 0-3 (bits), data 50% (bits 0..9) */
	assert_string_equal(conv(r,
		"partitions:\n  p:\n    l3Allocation: \"100%\"\n    classes:\n"
		"      x:\n        l3Allocation:\n          all:\n            unified: \"100%\"\n"
		"            code: \"0-3\"\n            data: \"50%\"\n"), HEAD
		"\ngroup x\t# partition p\n\tschema L3CODE:0=f;1=f\n\tschema L3DATA:0=3ff;1=3ff\n");
	assert_ok(r, rdtalloc_apply_config(r, conv(r,
		"partitions:\n  p:\n    l3Allocation: \"100%\"\n    classes:\n"
		"      x:\n        l3Allocation:\n          all:\n            unified: \"100%\"\n"
		"            code: \"0-3\"\n            data: \"50%\"\n"), 0));
	rdtalloc_close(r);
}

static void optional_resources(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);	/* L3 only: no L2, no MB */
	const char *l2 = "partitions:\n  p:\n    l2Allocation: \"100%\"\n    classes:\n"
			 "      x:\n        l2Allocation: \"50%\"\n";
	const char *l2opt = "options:\n  l2:\n    optional: true\n"
			    "partitions:\n  p:\n    l2Allocation: \"100%\"\n    classes:\n"
			    "      x:\n        l2Allocation: \"50%\"\n";

	refused(r, l2, -EOPNOTSUPP, "goresctrl configuration: L2 cache allocation for x "
		"specified in the configuration but this machine has none (options.l2.optional: "
		"true allows that)");
	assert_string_equal(conv(r, l2opt), HEAD "\ngroup x\t# partition p\n"
			    "\tschema L3:0=fffff;1=fffff\n");
	rdtalloc_close(r);
}

/*
 * A class's kubernetes options: read as Go's YAML reader reads a bool,
 * recorded for its group by rdtalloc_goresctrl_apply (not by a dry run,
 * nor by rdtalloc_goresctrl_config), read back by rdtalloc_goresctrl_policy,
 * replaced by the next file's. DEFAULT is a class of its own.
 */
static void kubernetes_options(void **state)
{
	static const char yaml[] =
		"partitions:\n  p:\n    l3Allocation: \"100%\"\n    classes:\n"
		"      gold:\n        kubernetes:\n          denyPodAnnotation: true\n"
		"          denyContainerAnnotation: On\n"
		"      DEFAULT:\n        kubernetes: {denyContainerAnnotation: yes}\n"
		"      silver:\n        kubernetes:\n"
		"      system/default:\n        kubernetes: {denyPodAnnotation: y}\n";
	rdtalloc_t *r = tu_eph(MG);

	assert_non_null(strstr(conv(r, yaml), "group DEFAULT\t# partition p\n"));
	assert_int_equal(rdtalloc_goresctrl_apply(r, yaml, strlen(yaml), NULL, RDTALLOC_APPLY_DRY_RUN,
						  NULL, 0, NULL), 3);
	assert_int_equal(rdtalloc_goresctrl_policy(r, "default"), 0);
	assert_int_equal(rdtalloc_goresctrl_apply(r, yaml, strlen(yaml), NULL, 0, NULL, 0, NULL), 3);
	assert_int_equal(rdtalloc_goresctrl_policy(r, "gold"),
			 RDTALLOC_GORESCTRL_DENY_POD | RDTALLOC_GORESCTRL_DENY_CONTAINER);
	assert_int_equal(rdtalloc_goresctrl_policy(r, "DEFAULT"),
			 RDTALLOC_GORESCTRL_DENY_CONTAINER);
	assert_int_equal(rdtalloc_goresctrl_policy(r, "silver"), 0);
	assert_int_equal(rdtalloc_goresctrl_policy(r, "default"), RDTALLOC_GORESCTRL_DENY_POD);
	assert_int_equal(rdtalloc_goresctrl_policy(r, "nosuch"), -ENOENT);
	/* the next file's options replace these */
	assert_int_equal(rdtalloc_goresctrl_apply(r, "partitions:\n  p:\n    classes:\n"
						  "      gold:\n", 42, NULL, 0, NULL, 0, NULL), 0);
	assert_int_equal(rdtalloc_goresctrl_policy(r, "gold"), 0);
	assert_int_equal(rdtalloc_goresctrl_policy(r, "default"), 0);
	/* what Go's decoder refuses; a refused file changes nothing */
	refused(r, "partitions:\n  p:\n    classes:\n      gold:\n        kubernetes: [1]\n",
		-EINVAL, "goresctrl configuration: class gold, kubernetes: not a map (line 5)");
	refused(r, "partitions:\n  p:\n    classes:\n      gold:\n        kubernetes:\n"
		"          denyContainerAnnotation: 1\n", -EINVAL, "goresctrl configuration: class "
		"gold, kubernetes.denyContainerAnnotation: not a boolean (line 6): true or false");
	rdtalloc_close(r);
}

static void refusals(void **state)
{
	rdtalloc_t *r = tu_eph(MG);

	refused(r, "partitions:\n  a:\n    l3Allocation: \"60%\"\n  b:\n    l3Allocation: \"50%\"\n",
		-EINVAL, "goresctrl configuration: accumulated L3 \"unified\" partition allocation "
		"requests for cache id 0 exceed 100% (110%)");
	refused(r, "partitions:\n  a:\n    l3Allocation: \"0xff\"\n  b:\n    l3Allocation: \"0xf0\"\n",
		-EINVAL, "goresctrl configuration: partition b: L3 allocation 0xf0 for cache id 0 "
		"overlaps another partition's");
	refused(r, "partitions:\n  a:\n    l3Allocation: \"0xff\"\n  b:\n    l3Allocation: \"50%\"\n",
		-EINVAL, "goresctrl configuration: L3 cache id 0: partitions mix absolute and "
		"relative allocations");
	refused(r, "partitions:\n  a:\n    l3Allocation: \"50%\"\n  b:\n    mbAllocation: [\"50%\"]\n",
		-EINVAL, "goresctrl configuration: some partitions (b) miss the L3 \"unified\" "
		"allocation for cache id 0");
	refused(r, "partitions:\n  a:\n    l3Allocation: \"101%\"\n", -EINVAL,
		"goresctrl configuration: partition a, l3Allocation: invalid percentage value \"101%\"");
	refused(r, "partitions:\n  a:\n    l3Allocation: \"0xf0f\"\n", -EINVAL,
		"goresctrl configuration: partition a, l3Allocation: invalid cache bitmask \"0xf0f\": "
		"more than one continuous block of ones");
	refused(r, "partitions:\n  a:\n    mbAllocation: [\"50%\"]\n    classes:\n      x:\n"
		"        l3Allocation: \"50%\"\n", -EINVAL,
		"goresctrl configuration: L3 allocation missing from partition a but class x "
		"specifies one");
	refused(r, "partitions:\n  a:\n    l3Allocation: \"100%\"\n    classes:\n      x:\n"
		"        l3Allocation: {all: {code: \"50%\"}}\n", -EINVAL,
		"goresctrl configuration: class x, l3Allocation, cache ids all: 'unified' not "
		"specified in cache schema");
	/* the keys of an allocation are cache ids */
	refused(r, "partitions:\n  a:\n    l3Allocation: \"100%\"\n    classes:\n      x:\n"
		"        l3Allocation: {code: \"50%\"}\n", -EINVAL,
		"goresctrl configuration: class x, l3Allocation, cache ids code: invalid cache id "
		"list \"code\"");
	refused(r, "partitions:\n  a:\n    l3Allocation: \"100%\"\n    classes:\n      \"a b\": {}\n",
		-EINVAL, "goresctrl configuration: class \"a b\" (partition a): not a group name here "
		"(1 to 63 of A-Z a-z 0-9 _ . -, not starting with '.'; \"system/default\" is the "
		"default group)");
	refused(r, "partitions:\n  a:\n    classes:\n      x: {}\n  b:\n    classes:\n      x: {}\n",
		-EINVAL, "goresctrl configuration: class names must be unique: \"x\" is given twice");
	refused(r, "partitions:\n  a:\n    l3Allocation: \"100%\"\n    classes:\n      x:\n"
		"        l3Allocation: \"0xfffff0\"\n", -EINVAL,
		"goresctrl configuration: class x, L3 cache id 0: bitmask 0xfffff0 does not fit the "
		"partition's mask 0xfffff");
	refused(r, "partitions:\n  a:\n    mbAllocation: [\"100MBps\"]\n", -EINVAL,
		"goresctrl configuration: partition a, mbAllocation: missing '%' value; required "
		"because percentage-based MBA allocation is what this machine has");
	refused(r, "partitions:\n  a: [1\n", -EINVAL,
		"goresctrl configuration: line 3: did not find expected ',' or ']'");
	refused(r, "a: &x 1\nb: *x\n", -EINVAL,
		"goresctrl configuration: line 1: anchors and aliases are not read");
	/* found by fuzz_goresctrl: a partition's mask past the CBM, a class without its own */
	refused(r, "partitions:\n  b:\n    l3Allocation: \"0xffff00\"\n    classes:\n      c1:\n"
		"        l3Adlocation: \"0-3\"\n", -EINVAL, "goresctrl configuration: partition b: "
		"L3 allocation 0xffff00 for cache id 0 has bits beyond the 20-bit cache mask");
	/* a plain 50 or 0xff is a YAML number: goresctrl's string fields refuse it */
	refused(r, "partitions:\n  a:\n    l3Allocation: 50\n    classes:\n      x: {}\n",
		-EINVAL, "goresctrl configuration: partition a, l3Allocation: the allocation is "
		"the YAML number 50 (line 3), which goresctrl refuses where it reads a string: "
		"quote it (\"50\")");
	refused(r, "partitions:\n  a:\n    l3Allocation:\n      all:\n        unified: 0xff\n",
		-EINVAL, "goresctrl configuration: partition a, l3Allocation, cache ids all: "
		"unified is the YAML number 0xff (line 5), which goresctrl refuses where it reads "
		"a string: quote it (\"0xff\")");
	refused(r, "partitions:\n  a: {}\n  a: {}\n", -EINVAL,
		"goresctrl configuration: line 3: key 'a' given twice (first on line 2)");
	refused(r, "partitions:\n  b: {}\n  a: {}\n  c: {}\n  a: {}\n", -EINVAL,
		"goresctrl configuration: line 5: key 'a' given twice (first on line 3)");
	/* libyaml's reader errors carry an offset, not a mark: the line is counted */
	refused(r, "partitions:\n  a: {}\n  b: \"\xff\"\n", -EINVAL,
		"goresctrl configuration: line 3: invalid leading UTF-8 octet");
	/* the state is as it was */
	assert_int_equal(rdtalloc_group_count(r), 1);
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(documentation_example),
		cmocka_unit_test(absolute_and_ranges),
		cmocka_unit_test(per_cache_id),
		cmocka_unit_test(cdp_code_and_data),
		cmocka_unit_test(optional_resources),
		cmocka_unit_test(refusals),
		cmocka_unit_test(kubernetes_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * machine: builds struct rdt_machine from a machine description (DESIGN §5,
 * docs/machine.md) or from the host, through hwloc. Owns the description
 * grammar, its defaults and checks, the preset expansion, the canonical form
 * and the domain tables; knows nothing of groups, state or registers.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <hwloc.h>

#include "machine.h"
#include "presets.h"

#define PFX "machine description: "

/* Keys of a description; the per-resource ones repeat for l3 and l2. */
enum { K_TOPOLOGY, K_PRESET, K_TASKS, K_RES0 };
enum { RK_CLOSIDS, RK_CBM_LEN, RK_MIN_BITS, RK_SHAREABLE, RK_CDP, RK_SPARSE, RES_KEYS };
#define K_MB0 (K_RES0 + RDT_NRES * RES_KEYS)
/* Memory bandwidth: its own keys, after the caches'. */
enum { MBK_CLOSIDS, MBK_UNITS, MBK_MIN, MBK_GRAN, MBK_MAX, MB_KEYS };
/* L3 monitoring: after MB. */
#define K_MON0 (K_MB0 + MB_KEYS)
enum { MONK_RMIDS, MONK_SCALE, MONK_WIDTH, MONK_EVENTS, MONK_THRESHOLD, MONK_BW, MONK_MBM_CF,
       MONK_CNTRS, MONK_ASSIGN, MONK_ASSIGN_ON_MKDIR, MONK_SNC, MONK_ABMC, MON_KEYS };
/* Keys of the 6.14-7.2 features that are not per resource: after monitoring. */
#define K_X0 (K_MON0 + MON_KEYS)
enum { XK_IO_ALLOC, XK_PKG_EVENTS, XK_PKG_RMIDS, XK_ARCH, X_KEYS };
#define NKEYS (K_X0 + X_KEYS)
#define XKEY(xk) (K_X0 + (xk))
#define MONKEY(mk) (K_MON0 + (mk))
#define RKEY(res, rk) (K_RES0 + (res) * RES_KEYS + (rk))
#define MBKEY(mk) (K_MB0 + (mk))

static const char *const mb_key_names[MB_KEYS] = { "closids", "units", "min", "gran", "max" };
static const char *const mon_key_names[MON_KEYS] = { "rmids", "scale", "width", "events",
						     "threshold", "bw", "mbm_cf", "cntrs",
						     "assign", "assign_on_mkdir", "snc", "abmc" };
static const char *const x_key_names[X_KEYS] = { "l3.io_alloc", "pkg.events", "pkg.rmids",
						 "arch" };
/* intel_aet.c's events, in its order, and the group each belongs to */
static const char *const pkg_event_names[RDT_PKG_NEVENTS] = {
	"core_energy", "activity", "stalls_llc_hit", "c1_res", "unhalted_core_cycles",
	"stalls_llc_miss", "c6_res", "unhalted_ref_cycles", "uops_retired",
};
const char *const rdt_abmc_kernel_names[RDT_ABMC_NKERNELS] = { "6.18", "7.2", "7.2-ro" };
static const char *const mon_event_names[] = { "llc_occupancy", "mbm_total_bytes",
					       "mbm_local_bytes" };

/* Defaults: Intel's percentages with a 10% step (Skylake-SP); AMD's 11-bit field. */
#define RDT_MB_PCT_MAX 100
#define RDT_MB_PCT_DEFAULT_STEP 10
#define RDT_MB_AMD_DEFAULT_MAX 2048
#define RDT_MB_AMD_MAX (1u << 20)
#define RDT_MB_MBPS_MAX UINT32_MAX	/* the kernel's MBA_MAX_MBPS: unthrottled */

static const char *const res_key_names[RES_KEYS] = {
	"closids", "cbm_len", "min_cbm_bits", "shareable_bits", "cdp", "sparse",
};
static const char *const res_prefix[RDT_NRES] = { "l3", "l2" };

struct setting {
	bool set;
	bool explicit;		/* written by the caller, not by the preset */
	uint64_t num;
	char *text;		/* the value as written (topology: spaces normalised) */
};

struct spec {
	struct setting s[NKEYS];
	bool any;		/* at least one item was given */
};

struct errbuf {
	char *buf;
	size_t len;
};

static int machine_fail(struct errbuf *e, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int machine_fail(struct errbuf *e, int ret, const char *fmt, ...)
{
	va_list ap;

	if (e->len) {
		va_start(ap, fmt);
		vsnprintf(e->buf, e->len, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static int machine_oom(struct errbuf *e)
{
	return machine_fail(e, -ENOMEM, "machine: out of memory");
}

static void key_name(unsigned int k, char *buf, size_t len)
{
	static const char *const plain[K_RES0] = { "topology", "preset", "tasks" };

	if (k < K_RES0)
		snprintf(buf, len, "%s", plain[k]);
	else if (k >= K_X0)
		snprintf(buf, len, "%s", x_key_names[k - K_X0]);
	else if (k >= K_MON0)
		snprintf(buf, len, "mon.%s", mon_key_names[k - K_MON0]);
	else if (k >= K_MB0)
		snprintf(buf, len, "mb.%s", mb_key_names[k - K_MB0]);
	else
		snprintf(buf, len, "%s.%s", res_prefix[(k - K_RES0) / RES_KEYS],
			 res_key_names[(k - K_RES0) % RES_KEYS]);
}

static int key_lookup(const char *key)
{
	char name[32];
	unsigned int k;

	for (k = 0; k < NKEYS; k++) {
		key_name(k, name, sizeof(name));
		if (!strcasecmp(name, key))
			return (int)k;
	}
	return -1;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A copy of s[0..n) without leading/trailing blanks and with inner runs of blanks as one space. */
static char *squeeze(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;
	bool gap = false;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i < n; i++) {
		if (is_space(s[i])) {
			gap = o != out;
			continue;
		}
		if (gap)
			*o++ = ' ';
		gap = false;
		*o++ = s[i];
	}
	*o = '\0';
	return out;
}

static bool parse_dec(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

static bool parse_hex(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s; s++, n++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return false;
		if (n == 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (!n)
		return false;
	*out = v;
	return true;
}

/* hwloc's object types under the one name the canonical form uses for each. */
static const char *type_name(hwloc_obj_type_t t)
{
	switch (t) {
	case HWLOC_OBJ_MACHINE: return "machine";
	case HWLOC_OBJ_PACKAGE: return "package";
	case HWLOC_OBJ_DIE: return "die";
	case HWLOC_OBJ_NUMANODE: return "numa";
	case HWLOC_OBJ_GROUP: return "group";
	case HWLOC_OBJ_L5CACHE: return "l5";
	case HWLOC_OBJ_L4CACHE: return "l4";
	case HWLOC_OBJ_L3CACHE: return "l3";
	case HWLOC_OBJ_L2CACHE: return "l2";
	case HWLOC_OBJ_L1CACHE: return "l1";
	case HWLOC_OBJ_L3ICACHE: return "l3i";
	case HWLOC_OBJ_L2ICACHE: return "l2i";
	case HWLOC_OBJ_L1ICACHE: return "l1i";
	case HWLOC_OBJ_CORE: return "core";
	case HWLOC_OBJ_PU: return "pu";
	default: return NULL;
	}
}

/*
 * The topology with every level's type spelled one way ("pack:2",
 * "Package:2" and "socket:2" are all "package:2"), so that descriptions of
 * one machine give one canonical string. Levels hwloc does not name, and
 * anything after a level's count, are kept as written.
 */
static int normalise_topology(struct errbuf *e, struct setting *st)
{
	size_t len = strlen(st->text), cap = len * 3 + 16, o = 0;
	char *out = malloc(cap), *p = st->text;

	if (!out)
		return machine_oom(e);
	out[0] = '\0';
	while (*p) {
		char *end = strchr(p, ' '), *colon, type[32];
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *name = NULL;
		hwloc_obj_type_t t;

		colon = memchr(p, ':', n);
		if (colon && (size_t)(colon - p) < sizeof(type) && *p != '[') {
			memcpy(type, p, (size_t)(colon - p));
			type[colon - p] = '\0';
			if (hwloc_type_sscanf(type, &t, NULL, 0) == 0)
				name = type_name(t);
		}
		if (name)
			o += (size_t)snprintf(out + o, cap - o, "%s%s%.*s", o ? " " : "", name,
					      (int)(n - (size_t)(colon - p)), colon);
		else
			o += (size_t)snprintf(out + o, cap - o, "%s%.*s", o ? " " : "", (int)n, p);
		p += n;
		if (*p == ' ')
			p++;
	}
	free(st->text);
	st->text = out;
	return 0;
}

/*
 * Bounds on a topology before hwloc sees it. hwloc's synthetic parser
 * trusts its input further than a library can trust a caller's:
 *
 * TOPO_MAX_LEVELS: hwloc 2.x keeps the levels in a fixed array of
 * HWLOC_SYNTHETIC_MAX_DEPTH (128) entries, the implicit root included, and
 * refuses a 127th level. But when the string has no NUMA level and no
 * attached [numa], hwloc_backend_synthetic_init() inserts one by moving
 * `count` entries up by one: with exactly 126 levels that writes one entry
 * past the array (glibc's fortified memmove aborts the whole process). Real
 * machines need about ten levels (package die numa group l3 l2 l1d l1i
 * core pu); 32 leaves room for nested groups and stays far from 126. The
 * count is hwloc's only because each level is a token of its own
 * (check_topo_level()).
 *
 * Letters, digits, blanks and ':()[]=,*' only, and a type name of letters
 * and digits up to its ':' (or, in [numa], up to '(' or ']'):
 * hwloc_type_sscanf() reads a type up to the first other character and
 * ignores the rest, so hwloc takes 'l3<0xdf><0xdf>pAckage:1' and 'l3*x:1'
 * for 'l3:1' and normalise_topology() would quietly drop the junk; the
 * fuzzer built its 126 levels out of such tokens. No level, attribute or
 * index list of the grammar needs another character.
 *
 * TOPO_MAX_NAME: the type names hwloc knows have at most 8 characters
 * ("NUMANode", "L1iCache"). hwloc refuses longer ones itself; this says
 * which level is wrong, and keeps the name within normalise_topology()'s
 * buffer.
 *
 * TOPO_MAX_LEN: hwloc has no limit of its own on the string, which it walks
 * once per level (strchr, strtoul) and copies into the topology. An explicit
 * indexes= list of all RDT_MAX_CPUS PUs is under 20000 characters.
 */
#define TOPO_MAX_LEVELS 32
#define TOPO_MAX_NAME 16
#define TOPO_MAX_LEN 32768
#define TOPO_CHARS "letters, digits, spaces and ':()[]=,*'"

/* The start of a long topology for a message: '%.*s%s' takes these three. */
#define TOPO_QUOTE 40
#define QUOTE(s, n) (int)((n) > TOPO_QUOTE ? TOPO_QUOTE : (n)), (s), (n) > TOPO_QUOTE ? "..." : ""

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool topo_char_ok(char c)
{
	return is_alnum(c) || (c && strchr(" :()[]=,*", c));
}

static int check_topo_chars(struct errbuf *e, const char *topo)
{
	size_t i;

	for (i = 0; topo[i]; i++) {
		unsigned char c = (unsigned char)topo[i];

		if (topo_char_ok(topo[i]))
			continue;
		if (c > ' ' && c < 0x7f)
			return machine_fail(e, -EINVAL, PFX "topology: character '%c' at offset %zu is not "
				    "allowed (only %s)", c, i, TOPO_CHARS);
		return machine_fail(e, -EINVAL, PFX "topology: byte 0x%02x at offset %zu is not allowed "
			    "(only %s)", c, i, TOPO_CHARS);
	}
	return 0;
}

/* The type name at tok[0..n): 1..TOPO_MAX_NAME letters and digits. */
static int check_topo_name(struct errbuf *e, const char *tok, size_t n)
{
	size_t i;

	if (n > TOPO_MAX_NAME)
		return machine_fail(e, -EINVAL, PFX "topology: level type '%.*s...' is longer than %u "
			    "characters", TOPO_MAX_NAME, tok, TOPO_MAX_NAME);
	for (i = 0; i < n && is_alnum(tok[i]); i++)
		;
	if (!n || i < n)
		return machine_fail(e, -EINVAL, PFX "topology: level type '%.*s' is not a name (letters "
			    "and digits only)", (int)n, tok);
	return 0;
}

static size_t span_digits(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && *q >= '0' && *q <= '9')
		q++;
	return (size_t)(q - p);
}

/*
 * One level tok[0..n) is [TYPE:]COUNT[(ATTRIBUTES)], or memory attached to
 * the level before it, [TYPE[(ATTRIBUTES)]], and nothing follows: hwloc
 * reads on after a ')' or a count, so 'l2:1(size=1MiB)l2:1(size=1MiB)...'
 * would be any number of levels to hwloc in what we count as one. For the
 * same reason ATTRIBUTES hold no brackets: hwloc ends [numa at the first
 * ']', wherever it is, and would read what follows it as levels that
 * neither this count nor synthetic_pus() sees. 1: malformed.
 */
static int check_topo_level(struct errbuf *e, const char *tok, size_t n)
{
	bool attached = tok[0] == '[';
	const char *p = tok + attached, *end = tok + n, *stop, *colon;
	size_t digits;
	int ret;

	stop = memchr(p, '(', (size_t)(end - p));
	if (attached && !stop)
		stop = memchr(p, ']', (size_t)(end - p));
	colon = memchr(p, ':', (size_t)((stop ? stop : end) - p));
	if (attached || colon) {
		const char *name_end = attached ? (stop ? stop : end) : colon;

		ret = check_topo_name(e, p, (size_t)(name_end - p));
		if (ret)
			return ret;
		p = attached ? name_end : colon + 1;
	}
	if (!attached) {
		digits = span_digits(p, end);
		if (!digits)
			return 1;
		p += digits;
	}
	if (p < end && *p == '(') {
		for (p++; p < end && (is_alnum(*p) || strchr("=,*:", *p)); p++)
			;
		if (p == end || *p != ')')
			return 1;
		p++;
	}
	if (attached && p < end && *p == ']')
		p++;
	else if (attached)
		return 1;
	return p == end ? 0 : 1;
}

/* Length, characters, type names and levels of a topology (blanks squeezed). */
static int check_topology(struct errbuf *e, const char *topo)
{
	size_t len = strlen(topo);
	unsigned int levels = 0;
	const char *p = topo;
	int ret;

	if (len > TOPO_MAX_LEN)
		return machine_fail(e, -EINVAL, PFX "topology '%.*s%s': %zu characters, at most %u",
			    QUOTE(topo, len), len, TOPO_MAX_LEN);
	ret = check_topo_chars(e, topo);
	if (ret)
		return ret;
	while (*p) {
		size_t n = strcspn(p, " ");

		ret = check_topo_level(e, p, n);
		if (ret < 0)
			return ret;
		if (ret)
			return machine_fail(e, -EINVAL, PFX "topology '%.*s%s': each level must be "
				    "TYPE:COUNT (e.g. 'package:2 l3:1 core:4 pu:2')",
				    QUOTE(topo, len));
		levels += *p != '[';	/* [numa]: memory, not a level */
		p += n;
		if (*p == ' ')
			p++;
	}
	if (levels > TOPO_MAX_LEVELS)
		return machine_fail(e, -EINVAL, PFX "topology '%.*s%s': %u levels, at most %u",
			    QUOTE(topo, len), levels, TOPO_MAX_LEVELS);
	return 0;
}

/* Checks that need no other key: the number itself and its fixed range. */
/* mb.units is a word; the others are decimal numbers, bounded here, related in resolve_mb. */
static int check_mb_value(struct errbuf *e, unsigned int mk, const char *name, struct setting *st)
{
	const char *v = st->text;

	if (mk == MBK_UNITS) {
		if (strcmp(v, "percent") && strcmp(v, "amd") && strcmp(v, "mbps"))
			return machine_fail(e, -EINVAL, PFX "%s=%s: must be 'percent' (Intel), 'amd' "
				    "(AMD, 1/8 GB/s) or 'mbps' (resctrl's mba_MBps)", name, v);
		st->num = !strcmp(v, "amd") ? 1 : !strcmp(v, "mbps") ? 2 : 0;
		return 0;
	}
	if (!parse_dec(v, &st->num))
		return machine_fail(e, -EINVAL, PFX "%s=%s: not a number", name, v);
	if (mk == MBK_CLOSIDS && st->num > RDT_MAX_CLOSIDS)
		return machine_fail(e, -EINVAL, PFX "%s=%s: must be 0..%u", name, v, RDT_MAX_CLOSIDS);
	/* mb.min may be 0: AMD's info/MB/min_bandwidth is; mb.max up to mba_MBps's 2^32 - 1 */
	if (mk != MBK_CLOSIDS && (st->num < (mk == MBK_MIN ? 0u : 1u) || st->num > RDT_MB_MBPS_MAX))
		return machine_fail(e, -EINVAL, PFX "%s=%s: must be %u..%u", name, v,
			    mk == MBK_MIN ? 0u : 1u, RDT_MB_MBPS_MAX);
	return 0;
}

const char *rdt_machine_mon_event_name(unsigned int bit)
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		if (bit == 1u << i)
			return mon_event_names[i];
	return NULL;
}

unsigned int rdt_machine_mon_event_parse(const char *name)
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		if (!strcmp(name, mon_event_names[i]))
			return 1u << i;
	return 0;
}

/* mon.events: resctrl's event names, comma-separated, or "none". */
static int parse_mon_events(struct errbuf *e, const char *name, struct setting *st)
{
	const char *p = st->text;

	st->num = 0;
	if (!strcmp(p, "none"))
		return 0;
	while (*p) {
		size_t n = strcspn(p, ",");
		char ev[32];
		unsigned int bit;

		snprintf(ev, sizeof(ev), "%.*s", (int)(n < sizeof(ev) ? n : sizeof(ev) - 1), p);
		bit = n < sizeof(ev) ? rdt_machine_mon_event_parse(ev) : 0;
		if (!bit)
			return machine_fail(e, -EINVAL, PFX "%s=%s: unknown event '%.*s' (known: "
				    "llc_occupancy, mbm_total_bytes, mbm_local_bytes, or none)",
				    name, st->text, (int)(n > 40 ? 40 : n), p);
		if (st->num & bit)
			return machine_fail(e, -EINVAL, PFX "%s=%s: event '%s' given twice", name,
				    st->text, ev);
		st->num |= bit;
		p += n;
		if (*p == ',' && !*++p)
			return machine_fail(e, -EINVAL, PFX "%s=%s: empty event name", name, st->text);
	}
	if (!st->num)
		return machine_fail(e, -EINVAL, PFX "%s=%s: empty event name", name, st->text);
	return 0;
}

/* The monitoring keys' own ranges; related in resolve_mon. */
static int check_mon_value(struct errbuf *e, unsigned int mk, const char *name,
			   struct setting *st)
{
	static const uint64_t lo[MON_KEYS] = { 0, 1, 24, 0, 0, 1, 0, 0, 0, 0, 1, 0 };
	static const uint64_t hi[MON_KEYS] = { RDT_MAX_RMIDS, UINT32_MAX, 62, 0,
					       UINT64_C(1) << 50, UINT64_C(1) << 50, 1,
					       RDT_MAX_CNTRS, 0, 1, RDT_MAX_SNC, 0 };
	const char *v = st->text;

	if (mk == MONK_EVENTS)
		return parse_mon_events(e, name, st);
	if (mk == MONK_ABMC) {
		for (st->num = 0; st->num < RDT_ABMC_NKERNELS &&
		     strcmp(v, rdt_abmc_kernel_names[st->num]); st->num++)
			;
		if (st->num == RDT_ABMC_NKERNELS)
			return machine_fail(e, -EINVAL, PFX "%s=%s: must be '6.18', '7.2' or "
				    "'7.2-ro'", name, v);
		return 0;
	}
	if (mk == MONK_ASSIGN) {
		if (strcmp(v, "mbm_event") && strcmp(v, "default"))
			return machine_fail(e, -EINVAL, PFX "%s=%s: must be 'mbm_event' or 'default'",
				    name, v);
		st->num = !strcmp(v, "mbm_event");
		return 0;
	}
	if (!parse_dec(v, &st->num))
		return machine_fail(e, -EINVAL, PFX "%s=%s: not a number", name, v);
	if (st->num < lo[mk] || st->num > hi[mk])
		return machine_fail(e, -EINVAL, PFX "%s=%s: must be %llu..%llu", name, v,
			    (unsigned long long)lo[mk], (unsigned long long)hi[mk]);
	return 0;
}

const char *rdt_machine_pkg_event_name(unsigned int i)
{
	return i < RDT_PKG_NEVENTS ? pkg_event_names[i] : NULL;
}

unsigned int rdt_machine_pkg_event_group(unsigned int i)
{
	return i >= RDT_PKG_NEVENTS ? 0 : i < 2 ? RDT_PKG_ENERGY : RDT_PKG_PERF;
}

bool rdt_machine_pkg_event_fixed(unsigned int i)
{
	return rdt_machine_pkg_event_group(i) == RDT_PKG_ENERGY;
}

/* pkg.events: the kernel's group names (its rdt= boot option's), or "none". */
static int parse_pkg_events(struct errbuf *e, struct setting *st)
{
	char *copy = strdup(st->text), *p = copy, *tok;
	unsigned int bit;
	int ret = 0;

	if (!copy)
		return machine_oom(e);
	st->num = 0;
	while (!ret && strcmp(st->text, "none") && (tok = strsep(&p, ",")) != NULL) {
		bit = !strcmp(tok, "energy") ? RDT_PKG_ENERGY : !strcmp(tok, "perf") ? RDT_PKG_PERF : 0;
		if (!bit)
			ret = machine_fail(e, -EINVAL, PFX "pkg.events=%s: unknown group '%.40s' "
				   "(known: energy, perf, or none)", st->text, tok);
		else if (st->num & bit)
			ret = machine_fail(e, -EINVAL, PFX "pkg.events=%s: group '%s' given twice",
				   st->text, tok);
		st->num |= bit;
	}
	free(copy);
	return ret;
}

static int check_x_value(struct errbuf *e, unsigned int xk, const char *name, struct setting *st)
{
	const char *v = st->text;

	switch (xk) {
	case XK_PKG_EVENTS:
		return parse_pkg_events(e, st);
	case XK_ARCH:
		if (strcmp(v, "x86") && strcmp(v, "mpam"))
			return machine_fail(e, -EINVAL, PFX "arch=%s: must be 'x86' or 'mpam'", v);
		st->num = !strcmp(v, "mpam");
		return 0;
	default:
		break;
	}
	if (!parse_dec(v, &st->num))
		return machine_fail(e, -EINVAL, PFX "%s=%s: not a number", name, v);
	if (xk == XK_IO_ALLOC && st->num > 1)
		return machine_fail(e, -EINVAL, PFX "%s=%s: must be 0 or 1", name, v);
	if (xk == XK_PKG_RMIDS && (st->num < 1 || st->num > RDT_MAX_RMIDS))
		return machine_fail(e, -EINVAL, PFX "%s=%s: must be 1..%u", name, v, RDT_MAX_RMIDS);
	return 0;
}

static int check_value(struct errbuf *e, unsigned int k, const char *name, struct setting *st)
{
	const char *v = st->text;
	unsigned int rk = (k - K_RES0) % RES_KEYS;

	if (k == K_TOPOLOGY) {
		int ret = check_topology(e, v);

		return ret ? ret : normalise_topology(e, st);
	}
	if (k == K_PRESET)
		return 0;
	if (k == K_TASKS) {
		if (strcmp(v, "real") && strcmp(v, "virtual"))
			return machine_fail(e, -EINVAL, PFX "tasks=%s: must be 'real' or 'virtual'", v);
		st->num = !strcmp(v, "virtual");
		return 0;
	}
	if (k >= K_X0)
		return check_x_value(e, k - K_X0, name, st);
	if (k >= K_MON0)
		return check_mon_value(e, k - K_MON0, name, st);
	if (k >= K_MB0)
		return check_mb_value(e, k - K_MB0, name, st);
	if (!(rk == RK_SHAREABLE ? parse_hex(v, &st->num) : parse_dec(v, &st->num)))
		return machine_fail(e, -EINVAL, PFX "%s=%s: not a %snumber", name, v,
			    rk == RK_SHAREABLE ? "hex " : "");
	switch (rk) {
	case RK_CLOSIDS:
		if (st->num > RDT_MAX_CLOSIDS)
			return machine_fail(e, -EINVAL, PFX "%s=%s: must be 0..%u", name, v,
				    RDT_MAX_CLOSIDS);
		break;
	case RK_CBM_LEN:
		if (st->num < 1 || st->num > RDT_MAX_CBM_LEN)
			return machine_fail(e, -EINVAL, PFX "%s=%s: must be 1..%u", name, v,
				    RDT_MAX_CBM_LEN);
		break;
	case RK_CDP:
	case RK_SPARSE:
		if (st->num > 1)
			return machine_fail(e, -EINVAL, PFX "%s=%s: must be 0 or 1", name, v);
		break;
	}
	return 0;
}

/* One `key=value` item (already trimmed, not empty) into the spec. */
static int parse_item(struct errbuf *e, const char *item, size_t n, bool explicit,
		      bool seen[NKEYS], struct spec *sp)
{
	const char *eq = memchr(item, '=', n);
	char *key, *val, name[32];
	struct setting *st;
	int k, ret;

	if (!eq)
		return machine_fail(e, -EINVAL, PFX "item '%.*s' is not key=value", (int)n, item);
	key = squeeze(item, (size_t)(eq - item));
	if (!key)
		return machine_oom(e);
	k = key_lookup(key);
	if (k < 0) {
		ret = machine_fail(e, -EINVAL, PFX "unknown key '%s'", key);
		free(key);
		return ret;
	}
	free(key);
	key_name((unsigned int)k, name, sizeof(name));
	if (seen[k])
		return machine_fail(e, -EINVAL, PFX "key '%s' given twice", name);
	seen[k] = true;
	st = &sp->s[k];
	if (st->set)		/* the caller's value overrides the preset's */
		return 0;
	val = squeeze(eq + 1, n - (size_t)(eq + 1 - item));
	if (!val)
		return machine_oom(e);
	st->text = val;
	st->set = true;
	st->explicit = explicit;
	return check_value(e, (unsigned int)k, name, st);
}

/* All items of a description text into sp; explicit: the caller's own text. */
static int parse_text(struct errbuf *e, const char *text, bool explicit, struct spec *sp)
{
	bool seen[NKEYS] = { false };
	const char *p = text;

	while (*p) {
		const char *end = strchr(p, ';');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *a = p, *b = p + n;
		int ret;

		while (a < b && is_space(*a))
			a++;
		while (b > a && is_space(b[-1]))
			b--;
		if (b > a) {
			sp->any = true;
			ret = parse_item(e, a, (size_t)(b - a), explicit, seen, sp);
			if (ret)
				return ret;
		}
		p += n;
		if (*p == ';')
			p++;
	}
	return 0;
}

static int parse_spec(struct errbuf *e, const char *desc, struct spec *sp)
{
	const struct rdt_preset *pr;
	char names[256];
	int ret;

	ret = parse_text(e, desc, true, sp);
	if (ret || !sp->s[K_PRESET].set)
		return ret;
	pr = rdt_preset_find(sp->s[K_PRESET].text);
	if (!pr) {
		rdt_preset_names(names, sizeof(names));
		return machine_fail(e, -EINVAL, PFX "unknown preset '%s' (known: %s)",
			    sp->s[K_PRESET].text, names);
	}
	return parse_text(e, pr->desc, false, sp);
}

static void spec_free(struct spec *sp)
{
	unsigned int k;

	for (k = 0; k < NKEYS; k++)
		free(sp->s[k].text);
}

/*
 * The number of PUs a synthetic string asks for, when it can be read off the
 * counts ("package:2 l3:1 core:4 pu:2" -> 16), so that a huge topology is
 * refused before hwloc builds it. 0: not readable as TYPE:COUNT levels -
 * refused too, since hwloc accepts strings whose size cannot be bounded
 * here (the fuzzer found one that makes it allocate gigabytes).
 */
static uint64_t synthetic_pus(const char *topo)
{
	uint64_t total = 1;
	const char *p = topo;

	while (*p) {
		const char *end = strchr(p, ' ');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *colon = memchr(p, ':', n), *num, *stop;
		uint64_t v = 0;

		if (*p != '[') {	/* memory children ([numa]) add no PUs */
			num = colon ? colon + 1 : p;
			stop = memchr(num, '(', n - (size_t)(num - p));
			if (!stop)
				stop = p + n;
			if (num == stop)
				return 0;
			for (; num < stop; num++) {
				if (*num < '0' || *num > '9')
					return 0;
				v = v * 10 + (uint64_t)(*num - '0');
				if (v > RDT_MAX_CPUS)
					return RDT_MAX_CPUS + 1;
			}
			total *= v;
			if (total > RDT_MAX_CPUS)
				return RDT_MAX_CPUS + 1;
		}
		p += n;
		if (*p == ' ')
			p++;
	}
	return total;
}

/*
 * Whether hwloc would refuse topo (normalised) after it has allocated its
 * attached [numa] objects: hwloc_backend_synthetic_init() checks the levels
 * it read (the last one is a PU, one level at most of package, die, core and
 * PU, no NUMA level next to attached NUMA, all levels typed or none) and
 * returns without freeing them, a leak per call that the fuzzer reports.
 */
static bool synthetic_leaks(const char *topo)
{
	enum { T_PACKAGE, T_DIE, T_NUMA, T_CORE, T_PU, T_N };
	static const char *const once[T_N] = { "package", "die", "numa", "core", "pu" };
	unsigned int seen[T_N] = { 0 }, levels = 0, untyped = 0, t;
	bool attached = false, last_typed = false;
	const char *p = topo, *last = NULL;

	for (; *p; p += *p == ' ') {
		size_t n = strcspn(p, " "), name = strcspn(p, ":(");

		if (name > n)	/* the word's own type, not the next word's */
			name = n;

		if (*p == '[') {
			attached = true;
		} else {
			levels++;
			last_typed = p[name] == ':';
			untyped += !last_typed;
			last = p;
			for (t = 0; last_typed && t < T_N; t++)
				seen[t] += strlen(once[t]) == name && !strncmp(p, once[t], name);
		}
		p += n;
	}
	if (!attached)
		return false;
	if (!levels || (last_typed && strncmp(last, "pu:", 3)))
		return true;
	if (seen[T_PU] + !last_typed != 1 || seen[T_PACKAGE] > 1 || seen[T_DIE] > 1 ||
	    seen[T_CORE] > 1 || seen[T_NUMA])
		return true;
	untyped -= !last_typed;
	return untyped && untyped != levels - 1;
}

static int load_topology(struct errbuf *e, const char *topo, hwloc_topology_t *out)
{
	hwloc_topology_t t;

	if (hwloc_topology_init(&t))
		return machine_oom(e);
	if (topo) {
		uint64_t pus = synthetic_pus(topo);

		if (pus == 0) {
			hwloc_topology_destroy(t);
			return machine_fail(e, -EINVAL, PFX "topology '%s': each level must be TYPE:COUNT "
				    "(e.g. 'package:2 l3:1 core:4 pu:2')", topo);
		}
		if (pus > RDT_MAX_CPUS) {
			hwloc_topology_destroy(t);
			return machine_fail(e, -EINVAL, PFX "topology '%s' has more than %u PUs", topo,
				    RDT_MAX_CPUS);
		}
		if (!*topo || synthetic_leaks(topo) || hwloc_topology_set_synthetic(t, topo) ||
		    hwloc_topology_load(t)) {
			hwloc_topology_destroy(t);
			return machine_fail(e, -EINVAL, PFX "topology '%s': hwloc rejects it", topo);
		}
	} else {
		/* Disallowed CPUs stay in the topology: they exist, we mark them unusable. */
		hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
		if (hwloc_topology_load(t)) {
			hwloc_topology_destroy(t);
			return machine_fail(e, -ENODEV, "machine: cannot read the host topology (hwloc: %s)",
				    strerror(errno));
		}
	}
	*out = t;
	return 0;
}

/* CPU slots and which of them exist, are online and are in our allowed cpuset. */
static int build_cpus(struct errbuf *e, hwloc_topology_t t, const char *topo,
		      struct rdt_machine *m)
{
	hwloc_const_cpuset_t complete = hwloc_topology_get_complete_cpuset(t);
	hwloc_const_cpuset_t online = hwloc_topology_get_topology_cpuset(t);
	hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(t);
	int last = hwloc_bitmap_last(complete);
	unsigned int i;

	if (hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU) > RDT_MAX_CPUS)
		return machine_fail(e, -EINVAL, PFX "topology '%s' has more than %u PUs",
			    topo ? topo : "(host)", RDT_MAX_CPUS);
	if (last < 0)
		return machine_fail(e, -ENODEV, "machine: the topology has no CPU");
	if (last >= RDT_MAX_CPUS)
		return machine_fail(e, -EINVAL, PFX "topology '%s': CPU number %d is beyond %u",
			    topo ? topo : "(host)", last, RDT_MAX_CPUS - 1);
	m->ncpus = (unsigned int)last + 1;
	m->cpu_present = calloc(m->ncpus, sizeof(bool));
	if (!m->cpu_present)
		return machine_oom(e);
	for (i = 0; i < m->ncpus; i++)
		m->cpu_present[i] = hwloc_bitmap_isset(online, i) &&
				    hwloc_bitmap_isset(allowed, i);
	return 0;
}

static int cmp_domain(const void *a, const void *b)
{
	const struct rdt_domain *x = a, *y = b;

	return x->cache_id < y->cache_id ? -1 : x->cache_id > y->cache_id;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

static bool ids_unique(const struct rdt_domain *d, unsigned int n, unsigned int *tmp)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		tmp[i] = d[i].cache_id;
	qsort(tmp, n, sizeof(*tmp), cmp_uint);
	for (i = 1; i < n; i++)
		if (tmp[i] == tmp[i - 1])
			return false;
	return true;
}

static void free_domains(struct rdt_domain *d, unsigned int n)
{
	unsigned int i;

	if (!d)
		return;
	for (i = 0; i < n; i++)
		free(d[i].cpus);
	free(d);
}

/* The present CPUs of one cache object, ascending. */
static int domain_cpus(hwloc_obj_t o, const struct rdt_machine *m, struct rdt_domain *d)
{
	unsigned int n = 0;
	int c;

	hwloc_bitmap_foreach_begin(c, o->cpuset) {
		if ((unsigned int)c < m->ncpus && m->cpu_present[c])
			n++;
	} hwloc_bitmap_foreach_end();
	d->cpus = n ? malloc(n * sizeof(int)) : NULL;
	if (n && !d->cpus)
		return -ENOMEM;
	hwloc_bitmap_foreach_begin(c, o->cpuset) {
		if ((unsigned int)c < m->ncpus && m->cpu_present[c])
			d->cpus[d->ncpus++] = c;
	} hwloc_bitmap_foreach_end();
	return 0;
}

/*
 * Every cache object of a level with at least one present CPU is a domain.
 * Its id is the OS index (sysfs cache id), or the logical index where hwloc
 * has none (synthetic topologies) - and for the whole level if OS indexes
 * would repeat.
 */
static int collect_objs(struct errbuf *e, hwloc_topology_t t, hwloc_obj_type_t type,
			const struct rdt_machine *m, struct rdt_domain **out, unsigned int *nout)
{
	int nobj = hwloc_get_nbobjs_by_type(t, type), i;
	unsigned int n = 0, *logical, *tmp;
	struct rdt_domain *d;

	if (nobj <= 0)
		return 0;
	d = calloc((size_t)nobj, sizeof(*d));
	logical = calloc((size_t)nobj, sizeof(*logical));
	tmp = calloc((size_t)nobj, sizeof(*tmp));
	if (!d || !logical || !tmp)
		goto nomem;
	for (i = 0; i < nobj; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(t, type, (unsigned int)i);

		if (domain_cpus(o, m, &d[n]))
			goto nomem;
		if (!d[n].ncpus)
			continue;
		d[n].cache_id = o->os_index != HWLOC_UNKNOWN_INDEX ? o->os_index
								   : o->logical_index;
		if (hwloc_obj_type_is_cache(type)) {
			d[n].cache_size = o->attr->cache.size;
			d[n].ways = o->attr->cache.associativity > 0 ?
				    (unsigned int)o->attr->cache.associativity : 0;
		}
		logical[n++] = o->logical_index;
	}
	if (!ids_unique(d, n, tmp))
		for (i = 0; i < (int)n; i++)
			d[i].cache_id = logical[i];
	qsort(d, n, sizeof(*d), cmp_domain);
	free(logical);
	free(tmp);
	*out = d;
	*nout = n;
	return 0;
nomem:
	free_domains(d, d ? n + 1 : 0);
	free(logical);
	free(tmp);
	return machine_oom(e);
}

static int collect_domains(struct errbuf *e, hwloc_topology_t t, hwloc_obj_type_t type,
			   struct rdt_machine *m, enum rdt_res res)
{
	return collect_objs(e, t, type, m, &m->dom[res], &m->ndom[res]);
}

static int build_cpu_tables(struct errbuf *e, struct rdt_machine *m)
{
	unsigned int r, i, c;

	for (r = 0; r < RDT_NALL; r++) {
		if (!m->caps[r].present)
			continue;
		m->cpu_dom[r] = malloc(m->ncpus * sizeof(int));
		if (!m->cpu_dom[r])
			return machine_oom(e);
		for (c = 0; c < m->ncpus; c++)
			m->cpu_dom[r][c] = -1;
		for (i = 0; i < m->ndom[r]; i++)
			for (c = 0; c < m->dom[r][i].ncpus; c++)
				m->cpu_dom[r][m->dom[r][i].cpus[c]] = (int)i;
	}
	return 0;
}

/* Our CLOSID model needs each L2 domain inside one L3 domain when both exist. */
static int check_l2_in_l3(struct errbuf *e, const struct rdt_machine *m)
{
	unsigned int i, c;

	if (!m->caps[RDT_L3].present || !m->caps[RDT_L2].present)
		return 0;
	for (i = 0; i < m->ndom[RDT_L2]; i++) {
		const struct rdt_domain *d = &m->dom[RDT_L2][i];
		int first = m->cpu_dom[RDT_L3][d->cpus[0]];

		for (c = 0; c < d->ncpus; c++) {
			int l3 = m->cpu_dom[RDT_L3][d->cpus[c]];

			if (l3 < 0 || first < 0)
				return machine_fail(e, -EINVAL, PFX "L2 cache id %u: CPU %d is in no L3 "
					    "domain", d->cache_id, d->cpus[c]);
			if (l3 != first)
				return machine_fail(e, -EINVAL, PFX "L2 cache id %u spans L3 cache ids "
					    "%u and %u (an L2 domain must lie inside one L3 domain)",
					    d->cache_id, m->dom[RDT_L3][first].cache_id,
					    m->dom[RDT_L3][l3].cache_id);
		}
	}
	return 0;
}

static uint64_t get(const struct spec *sp, enum rdt_res r, unsigned int rk, uint64_t def)
{
	const struct setting *st = &sp->s[RKEY(r, rk)];

	return st->set ? st->num : def;
}

/* The first key of resource r the caller wrote (other than closids=0), or -1. */
static int explicit_key(const struct spec *sp, enum rdt_res r)
{
	unsigned int rk;

	for (rk = 0; rk < RES_KEYS; rk++) {
		const struct setting *st = &sp->s[RKEY(r, rk)];

		if (st->explicit && !(rk == RK_CLOSIDS && st->num == 0))
			return (int)RKEY(r, rk);
	}
	return -1;
}

/* Capabilities of one resource from the spec; has_cache: the topology has that level. */
static int resolve_caps(struct errbuf *e, const struct spec *sp, enum rdt_res r, bool has_cache,
			struct rdt_caps *c)
{
	const char *lvl = r == RDT_L3 ? "L3" : "L2", *p = res_prefix[r];
	const struct setting *cl = &sp->s[RKEY(r, RK_CLOSIDS)];
	uint64_t closids = get(sp, r, RK_CLOSIDS, r == RDT_L3 ? RDT_SIM_CLOSIDS : 0);
	int k = explicit_key(sp, r);
	char name[32];
	uint64_t mask;

	memset(c, 0, sizeof(*c));
	if (k >= 0)
		key_name((unsigned int)k, name, sizeof(name));
	if (closids == 0) {
		if (k < 0)
			return 0;
		if (!has_cache)
			return machine_fail(e, -EINVAL, PFX "%s=%s: the topology has no %s cache", name,
				    sp->s[k].text, lvl);
		if (cl->set)
			return machine_fail(e, -EINVAL, PFX "%s=%s: %s allocation is off (%s.closids=0)",
				    name, sp->s[k].text, lvl, p);
		return machine_fail(e, -EINVAL, PFX "%s=%s: %s allocation needs %s.closids", name,
			    sp->s[k].text, lvl, p);
	}
	if (!has_cache) {
		if (k < 0)	/* the L3 default on a topology without L3: simply absent */
			return 0;
		return machine_fail(e, -EINVAL, PFX "%s=%s: the topology has no %s cache", name,
			    sp->s[k].text, lvl);
	}
	c->present = true;
	c->closids = (unsigned int)closids;
	c->cbm_len = (unsigned int)get(sp, r, RK_CBM_LEN, RDT_SIM_CBM_LEN);
	c->min_cbm_bits = (unsigned int)get(sp, r, RK_MIN_BITS, RDT_SIM_MIN_BITS);
	c->shareable_bits = get(sp, r, RK_SHAREABLE, 0);
	c->cdp = get(sp, r, RK_CDP, 1);
	c->sparse = get(sp, r, RK_SPARSE, 0);
	mask = c->cbm_len == 64 ? UINT64_MAX : (UINT64_C(1) << c->cbm_len) - 1;
	/* 0 where the kernel allows an empty mask (AMD: rdt_init_res_defs_amd) */
	if (c->min_cbm_bits > c->cbm_len)
		return machine_fail(e, -EINVAL, PFX "%s.min_cbm_bits=%u: must be 0..%u", p,
			    c->min_cbm_bits, c->cbm_len);
	if (c->shareable_bits & ~mask)
		return machine_fail(e, -EINVAL, PFX "%s.shareable_bits=0x%llx: bits beyond the %u-bit CBM",
			    p, (unsigned long long)c->shareable_bits, c->cbm_len);
	if (c->cdp && (c->closids < 2 || c->closids % 2))
		return machine_fail(e, -EINVAL, PFX "%s.closids=%u: must be even and at least 2 with "
			    "%s.cdp=1 (CDP halves them)", p, c->closids, p);
	return 0;
}

static uint64_t mb_get(const struct spec *sp, unsigned int mk, uint64_t def)
{
	const struct setting *st = &sp->s[MBKEY(mk)];

	return st->set ? st->num : def;
}

/*
 * Memory bandwidth from the mb.* keys. Its domains are the L3 domains, so
 * it needs L3 allocation; with percentages the maximum is 100 (Intel's
 * register holds 100 minus the value), with AMD units it is the value
 * meaning unthrottled (1 << the field width).
 */
static int resolve_mb(struct errbuf *e, const struct spec *sp, struct rdt_machine *m)
{
	struct rdt_caps *c = &m->caps[RDT_MB];
	uint64_t closids = mb_get(sp, MBK_CLOSIDS, 0);
	unsigned int mk;
	char name[32];

	memset(c, 0, sizeof(*c));
	if (closids == 0) {
		for (mk = MBK_UNITS; mk < MB_KEYS; mk++)
			if (sp->s[MBKEY(mk)].explicit) {
				key_name(MBKEY(mk), name, sizeof(name));
				return machine_fail(e, -EINVAL, PFX "%s=%s: memory bandwidth allocation "
					    "needs mb.closids", name, sp->s[MBKEY(mk)].text);
			}
		return 0;
	}
	if (!m->caps[RDT_L3].present)
		return machine_fail(e, -EINVAL, PFX "mb.closids=%llu: MB domains are the L3 domains, and "
			    "there is no L3 allocation", (unsigned long long)closids);
	if (closids > m->caps[RDT_L3].closids)
		return machine_fail(e, -EINVAL, PFX "mb.closids=%llu: more than the L3's %u CLOSIDs",
			    (unsigned long long)closids, m->caps[RDT_L3].closids);
	c->present = true;
	c->closids = (unsigned int)closids;
	c->mb_amd = mb_get(sp, MBK_UNITS, 0) == 1;
	c->mb_mbps = mb_get(sp, MBK_UNITS, 0) == 2;
	if (c->mb_mbps) {
		/* mba_MBps: any MBps the kernel's controller aims at, 2^32 - 1 for none */
		c->mb_max = (unsigned int)mb_get(sp, MBK_MAX, RDT_MB_MBPS_MAX);
		c->mb_min = (unsigned int)mb_get(sp, MBK_MIN, 0);
		c->mb_gran = (unsigned int)mb_get(sp, MBK_GRAN, 1);
	} else if (c->mb_amd) {
		c->mb_max = (unsigned int)mb_get(sp, MBK_MAX, RDT_MB_AMD_DEFAULT_MAX);
		if (c->mb_max > RDT_MB_AMD_MAX)
			return machine_fail(e, -EINVAL, PFX "mb.max=%u: with mb.units=amd at most %u",
				    c->mb_max, RDT_MB_AMD_MAX);
		/* the kernel's AMD MB setup: min_bw 0 (a group may be given no bandwidth) */
		c->mb_min = (unsigned int)mb_get(sp, MBK_MIN, 0);
		c->mb_gran = (unsigned int)mb_get(sp, MBK_GRAN, 1);
	} else {
		c->mb_max = (unsigned int)mb_get(sp, MBK_MAX, RDT_MB_PCT_MAX);
		c->mb_min = (unsigned int)mb_get(sp, MBK_MIN, RDT_MB_PCT_DEFAULT_STEP);
		c->mb_gran = (unsigned int)mb_get(sp, MBK_GRAN, RDT_MB_PCT_DEFAULT_STEP);
		if (c->mb_max != RDT_MB_PCT_MAX)
			return machine_fail(e, -EINVAL, PFX "mb.max=%u: with mb.units=percent the maximum "
				    "is 100", c->mb_max);
	}
	if (c->mb_min > c->mb_max)
		return machine_fail(e, -EINVAL, PFX "mb.min=%u: above mb.max=%u", c->mb_min, c->mb_max);
	if (c->mb_gran > c->mb_max)
		return machine_fail(e, -EINVAL, PFX "mb.gran=%u: above mb.max=%u", c->mb_gran, c->mb_max);
	return 0;
}

static uint64_t mon_get(const struct spec *sp, unsigned int mk, uint64_t def)
{
	const struct setting *st = &sp->s[MONKEY(mk)];

	return st->set ? st->num : def;
}

/*
 * mon.snc: the L3 monitoring scope is a NUMA node, snc of them per L3
 * domain. As the kernel (snc_get_config()), num_rmids and the occupancy
 * scale are the hardware's divided by snc; a domain's CPUs split into its
 * nodes as rdt_machine_snc_node() says, each node at least one.
 */
static int resolve_snc(struct errbuf *e, const struct spec *sp, struct rdt_machine *m)
{
	struct rdt_mon *mon = &m->mon;
	unsigned int d;

	mon->hw_rmids = mon->rmids;
	mon->hw_scale = mon->scale;
	mon->snc = (unsigned int)mon_get(sp, MONK_SNC, 1);
	if (mon->snc == 1)
		return 0;
	for (d = 0; d < m->ndom[RDT_L3]; d++)
		if (m->dom[RDT_L3][d].ncpus < mon->snc)
			return machine_fail(e, -EINVAL, PFX "mon.snc=%u: L3 cache id %u has %u CPUs, "
				    "fewer than its nodes", mon->snc, m->dom[RDT_L3][d].cache_id,
				    m->dom[RDT_L3][d].ncpus);
	if (mon->rmids < mon->snc)
		return machine_fail(e, -EINVAL, PFX "mon.snc=%u: fewer RMIDs (mon.rmids=%u) than "
			    "nodes", mon->snc, mon->rmids);
	mon->rmids /= mon->snc;
	mon->scale = mon->scale / mon->snc ? mon->scale / mon->snc : 1;
	return 0;
}

/* mon.cntrs, mon.assign, mon.assign_on_mkdir: ABMC's counters (6.18). */
static int resolve_cntrs(struct errbuf *e, const struct spec *sp, struct rdt_machine *m)
{
	const struct setting *as = &sp->s[MONKEY(MONK_ASSIGN)];
	const struct setting *om = &sp->s[MONKEY(MONK_ASSIGN_ON_MKDIR)];
	const struct setting *ak = &sp->s[MONKEY(MONK_ABMC)];
	struct rdt_mon *mon = &m->mon;

	mon->cntrs = (unsigned int)mon_get(sp, MONK_CNTRS, 0);
	if (!mon->cntrs) {
		if (as->set && as->num)
			return machine_fail(e, -EINVAL, PFX "mon.assign=mbm_event: needs assignable "
				    "counters (mon.cntrs)");
		if (om->explicit)
			return machine_fail(e, -EINVAL, PFX "mon.assign_on_mkdir=%s: needs assignable "
				    "counters (mon.cntrs)", om->text);
		if (ak->explicit)
			return machine_fail(e, -EINVAL, PFX "mon.abmc=%s: needs assignable counters "
				    "(mon.cntrs)", ak->text);
		return 0;
	}
	mon->abmc = (unsigned int)mon_get(sp, MONK_ABMC, RDT_ABMC_6_18);
	/* f52abe65: 7.2 refuses the software controller where counters are assignable */
	if (mon->abmc != RDT_ABMC_6_18 && m->caps[RDT_MB].mb_mbps)
		return machine_fail(e, -EINVAL, PFX "mb.units=mbps: Linux 7.2 (mon.abmc=%s) "
			    "refuses mba_MBps where MBM counters are assignable (mon.cntrs=%u)",
			    rdt_abmc_kernel_names[mon->abmc], mon->cntrs);
	if (!(mon->events & (RDT_MON_EVENTS_ALL & ~1u)))
		return machine_fail(e, -EINVAL, PFX "mon.cntrs=%u: counters are assigned to MBM "
			    "events and mon.events has none", mon->cntrs);
	if (mon->snc > 1)
		return machine_fail(e, -EINVAL, PFX "mon.cntrs=%u: assignable counters and SNC "
			    "(mon.snc=%u) do not coexist (the kernel cannot sum them)", mon->cntrs,
			    mon->snc);
	mon->assign = mon_get(sp, MONK_ASSIGN, 1) != 0;
	mon->assign_on_mkdir = mon_get(sp, MONK_ASSIGN_ON_MKDIR, 1) != 0;
	return 0;
}

/*
 * L3 monitoring from the mon.* keys: present, with the simulation's
 * defaults, wherever there are L3 domains, unless mon.rmids=0. The
 * threshold a freed RMID must fall under before it is reused is, as in
 * Linux, the L3's size over the RMIDs, a multiple of the scale.
 */
static int resolve_mon(struct errbuf *e, const struct spec *sp, struct rdt_machine *m)
{
	struct rdt_mon *mon = &m->mon;
	uint64_t size = m->ndom[RDT_L3] ? m->dom[RDT_L3][0].cache_size : 0;
	unsigned int mk;
	char name[32];
	int ret;

	memset(mon, 0, sizeof(*mon));
	mon->rmids = (unsigned int)mon_get(sp, MONK_RMIDS, RDT_SIM_RMIDS);
	if (!m->ndom[RDT_L3] || !mon->rmids) {
		for (mk = 0; mk < MON_KEYS; mk++) {
			const struct setting *st = &sp->s[MONKEY(mk)];

			if (!st->explicit || (mk == MONK_RMIDS && !st->num))
				continue;
			key_name(MONKEY(mk), name, sizeof(name));
			return machine_fail(e, -EINVAL, PFX "%s=%s: %s", name, st->text,
				    mon->rmids ? "L3 monitoring needs L3 allocation domains"
					       : "L3 monitoring is off (mon.rmids=0)");
		}
		mon->rmids = 0;
		return 0;
	}
	mon->scale = (unsigned int)mon_get(sp, MONK_SCALE, RDT_SIM_MON_SCALE);
	mon->width = (unsigned int)mon_get(sp, MONK_WIDTH, RDT_SIM_MON_WIDTH);
	mon->events = (unsigned int)mon_get(sp, MONK_EVENTS, RDT_MON_EVENTS_ALL);
	mon->bw = mon_get(sp, MONK_BW, RDT_SIM_MON_BW);
	ret = resolve_snc(e, sp, m);
	if (ret)
		return ret;
	mon->threshold = size / mon->rmids / mon->scale * mon->scale;
	mon->threshold = mon_get(sp, MONK_THRESHOLD, mon->threshold);
	mon->mbm_cf = mon_get(sp, MONK_MBM_CF, 0) != 0;
	return resolve_cntrs(e, sp, m);
}

static uint64_t x_get(const struct spec *sp, unsigned int xk, uint64_t def)
{
	const struct setting *st = &sp->s[XKEY(xk)];

	return st->set ? st->num : def;
}

/* pkg.*: AET's PERF_PKG resource (7.0), one domain per package of the topology. */
static int resolve_pkg(struct errbuf *e, hwloc_topology_t t, const struct spec *sp,
		       struct rdt_machine *m)
{
	const struct setting *rm = &sp->s[XKEY(XK_PKG_RMIDS)];

	m->pkg.groups = (unsigned int)x_get(sp, XK_PKG_EVENTS, 0);
	if (!m->pkg.groups) {
		if (rm->explicit)
			return machine_fail(e, -EINVAL, PFX "pkg.rmids=%s: needs pkg.events", rm->text);
		return 0;
	}
	m->pkg.rmids = (unsigned int)x_get(sp, XK_PKG_RMIDS, RDT_PKG_RMIDS);
	if (collect_objs(e, t, HWLOC_OBJ_PACKAGE, m, &m->pkgdom, &m->npkg))
		return -ENOMEM;
	if (!m->npkg)
		return machine_fail(e, -EINVAL, PFX "pkg.events=%s: the topology has no package",
			    sp->s[XKEY(XK_PKG_EVENTS)].text);
	return 0;
}

/*
 * arch=mpam: what 7.1's mpam_resctrl.c gives resctrl, checked rather than
 * implied so that a description says what it models: caches with any
 * mask (sparse) that all agents share (shareable_bits the whole mask, so
 * no group can be exclusive), no CDP, MB in percent, llc_occupancy the
 * only event, none of the x86 extensions.
 */
static int check_mpam(struct errbuf *e, const struct rdt_machine *m)
{
	const struct rdt_mon *mon = &m->mon;
	unsigned int r;

	for (r = 0; r < RDT_NRES; r++) {
		const struct rdt_caps *c = &m->caps[r];
		uint64_t all = c->cbm_len >= 64 ? UINT64_MAX : (UINT64_C(1) << c->cbm_len) - 1;

		if (!c->present)
			continue;
		if (c->cdp)
			return machine_fail(e, -EINVAL, PFX "arch=mpam: %s.cdp=1: MPAM's resctrl has "
				    "no CDP", res_prefix[r]);
		if (!c->sparse)
			return machine_fail(e, -EINVAL, PFX "arch=mpam: %s.sparse=0: MPAM's portion "
				    "bitmaps take any mask", res_prefix[r]);
		if (c->shareable_bits != all)
			return machine_fail(e, -EINVAL, PFX "arch=mpam: %s.shareable_bits=0x%llx: MPAM "
				    "shows the whole mask (0x%llx) as shareable", res_prefix[r],
				    (unsigned long long)c->shareable_bits, (unsigned long long)all);
	}
	if (m->caps[RDT_MB].present && (m->caps[RDT_MB].mb_amd || m->caps[RDT_MB].mb_mbps))
		return machine_fail(e, -EINVAL, PFX "arch=mpam: MB is in percent (mb.units=percent)");
	if (mon->rmids && (mon->events & ~1u))
		return machine_fail(e, -EINVAL, PFX "arch=mpam: mon.events: 7.1's MPAM counts "
			    "llc_occupancy only");
	if (mon->cntrs || mon->snc > 1 || m->caps[RDT_L3].io_alloc || m->pkg.groups)
		return machine_fail(e, -EINVAL, PFX "arch=mpam: %s is x86 only",
			    mon->cntrs ? "mon.cntrs" : mon->snc > 1 ? "mon.snc" :
			    m->caps[RDT_L3].io_alloc ? "l3.io_alloc" : "pkg.events");
	return 0;
}

/* l3.io_alloc, pkg.*, arch: after everything else, which they depend on. */
static int resolve_x(struct errbuf *e, hwloc_topology_t t, const struct spec *sp,
		     struct rdt_machine *m)
{
	const struct setting *io = &sp->s[XKEY(XK_IO_ALLOC)];
	int ret;

	if (io->set && io->num && !m->caps[RDT_L3].present)
		return machine_fail(e, -EINVAL, PFX "l3.io_alloc=1: needs L3 allocation");
	m->caps[RDT_L3].io_alloc = io->set && io->num;
	ret = resolve_pkg(e, t, sp, m);
	if (ret)
		return ret;
	m->mpam = x_get(sp, XK_ARCH, 0) != 0;
	return m->mpam ? check_mpam(e, m) : 0;
}

static bool is_default_mon(const struct rdt_machine *m)
{
	const struct rdt_mon *mon = &m->mon;
	uint64_t size = m->ndom[RDT_L3] ? m->dom[RDT_L3][0].cache_size : 0;

	if (!m->ndom[RDT_L3])
		return !mon->rmids;
	return mon->rmids == RDT_SIM_RMIDS && mon->scale == RDT_SIM_MON_SCALE && !mon->mbm_cf &&
	       mon->snc <= 1 && !mon->cntrs &&
	       mon->width == RDT_SIM_MON_WIDTH && mon->events == RDT_MON_EVENTS_ALL &&
	       mon->bw == RDT_SIM_MON_BW &&
	       mon->threshold == size / mon->rmids / mon->scale * mon->scale;
}

/* MB's domains are the L3 domains: the same ids and CPUs, owned separately. */
static int mirror_mb_domains(struct errbuf *e, struct rdt_machine *m)
{
	unsigned int n = m->ndom[RDT_L3], i;
	struct rdt_domain *d;

	if (!m->caps[RDT_MB].present)
		return 0;
	d = calloc(n ? n : 1, sizeof(*d));
	if (!d)
		return machine_oom(e);
	m->dom[RDT_MB] = d;
	m->ndom[RDT_MB] = n;
	for (i = 0; i < n; i++) {
		d[i] = m->dom[RDT_L3][i];
		d[i].cpus = malloc((d[i].ncpus ? d[i].ncpus : 1) * sizeof(int));
		if (!d[i].cpus)
			return machine_oom(e);
		memcpy(d[i].cpus, m->dom[RDT_L3][i].cpus, d[i].ncpus * sizeof(int));
	}
	return 0;
}

struct sbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || b->len + (size_t)n + 1 > b->cap) {
		size_t cap = (b->len + (size_t)(n < 0 ? 0 : n) + 1) * 2;
		char *q = n < 0 ? NULL : realloc(b->p, cap);

		if (!q) {
			b->oom = true;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static void sb_caps(struct sbuf *b, enum rdt_res r, const struct rdt_caps *c)
{
	const char *p = res_prefix[r];

	sb_printf(b, "%s.closids=%u;%s.cbm_len=%u;%s.min_cbm_bits=%u;", p, c->closids, p,
		  c->cbm_len, p, c->min_cbm_bits);
	if (c->shareable_bits)
		sb_printf(b, "%s.shareable_bits=0x%llx;", p, (unsigned long long)c->shareable_bits);
	else
		sb_printf(b, "%s.shareable_bits=0;", p);
	sb_printf(b, "%s.cdp=%d;%s.sparse=%d;", p, c->cdp, p, c->sparse);
}

static void sb_mon(struct sbuf *b, const struct rdt_mon *mon)
{
	unsigned int i, n = 0;

	if (!mon->rmids) {
		sb_printf(b, "mon.rmids=0;");
		return;
	}
	sb_printf(b, "mon.rmids=%u;mon.scale=%u;mon.width=%u;mon.events=", mon->hw_rmids,
		  mon->hw_scale, mon->width);
	for (i = 0; i < 3; i++)
		if (mon->events & (1u << i))
			sb_printf(b, "%s%s", n++ ? "," : "", mon_event_names[i]);
	sb_printf(b, "%s;mon.threshold=%llu;mon.bw=%llu;", n ? "" : "none",
		  (unsigned long long)mon->threshold, (unsigned long long)mon->bw);
	/* only when set: the descriptions states recorded before it stay the same */
	if (mon->mbm_cf)
		sb_printf(b, "mon.mbm_cf=1;");
	if (mon->cntrs)
		sb_printf(b, "mon.cntrs=%u;mon.assign=%s;mon.assign_on_mkdir=%d;", mon->cntrs,
			  mon->assign ? "mbm_event" : "default", mon->assign_on_mkdir);
	if (mon->cntrs && mon->abmc != RDT_ABMC_6_18)
		sb_printf(b, "mon.abmc=%s;", rdt_abmc_kernel_names[mon->abmc]);
	if (mon->snc > 1)
		sb_printf(b, "mon.snc=%u;", mon->snc);
}

/* The 6.14-7.2 keys, each only when it is not the default. */
static void sb_x(struct sbuf *b, const struct rdt_machine *m)
{
	if (m->caps[RDT_L3].io_alloc)
		sb_printf(b, "l3.io_alloc=1;");
	if (m->pkg.groups)
		sb_printf(b, "pkg.events=%s%s%s;pkg.rmids=%u;",
			  m->pkg.groups & RDT_PKG_ENERGY ? "energy" : "",
			  m->pkg.groups == (RDT_PKG_ENERGY | RDT_PKG_PERF) ? "," : "",
			  m->pkg.groups & RDT_PKG_PERF ? "perf" : "", m->pkg.rmids);
	if (m->mpam)
		sb_printf(b, "arch=mpam;");
}

static bool is_default_l3(const struct rdt_caps *c)
{
	return c->present && c->closids == RDT_SIM_CLOSIDS && c->cbm_len == RDT_SIM_CBM_LEN &&
	       c->min_cbm_bits == RDT_SIM_MIN_BITS && !c->shareable_bits && c->cdp && !c->sparse;
}

/*
 * Every key explicit, fixed order, preset expanded. The host with nothing
 * but defaults is "", the host with overrides has no topology item.
 */
static int canonical(struct errbuf *e, const char *topo, struct rdt_machine *m)
{
	struct sbuf b = { 0 };
	unsigned int r;

	if (!topo && is_default_l3(&m->caps[RDT_L3]) && !m->caps[RDT_L2].present &&
	    !m->caps[RDT_MB].present && !m->virtual_tasks && is_default_mon(m) &&
	    !m->caps[RDT_L3].io_alloc && !m->pkg.groups && !m->mpam) {
		m->desc = strdup("");
		return m->desc ? 0 : machine_oom(e);
	}
	if (topo)
		sb_printf(&b, "topology=%s;", topo);
	for (r = 0; r < RDT_NRES; r++) {
		if (m->caps[r].present)
			sb_caps(&b, r, &m->caps[r]);
		else if (r == RDT_L3)
			sb_printf(&b, "l3.closids=0;");
	}
	/* absent MB adds nothing: descriptions made before MB keep their form */
	if (m->caps[RDT_MB].present)
		sb_printf(&b, "mb.closids=%u;mb.units=%s;mb.min=%u;mb.gran=%u;mb.max=%u;",
			  m->caps[RDT_MB].closids, m->caps[RDT_MB].mb_amd ? "amd" :
			  m->caps[RDT_MB].mb_mbps ? "mbps" : "percent",
			  m->caps[RDT_MB].mb_min, m->caps[RDT_MB].mb_gran, m->caps[RDT_MB].mb_max);
	/* the default monitoring adds nothing: descriptions made before it keep their form */
	if (!is_default_mon(m))
		sb_mon(&b, &m->mon);
	sb_x(&b, m);
	sb_printf(&b, "tasks=%s", m->virtual_tasks ? "virtual" : "real");
	if (b.oom) {
		free(b.p);
		return machine_oom(e);
	}
	m->desc = b.p;
	return 0;
}

static void set_identity(hwloc_topology_t t, const struct spec *sp, struct rdt_machine *m)
{
	const struct rdt_preset *pr = sp->s[K_PRESET].set ? rdt_preset_find(sp->s[K_PRESET].text)
							  : NULL;
	hwloc_obj_t pkg;
	const char *v = NULL, *model = NULL;

	if (sp->s[K_TOPOLOGY].set) {
		snprintf(m->vendor, sizeof(m->vendor), "%s", pr ? pr->vendor : "sim");
		snprintf(m->model, sizeof(m->model), "%s", pr ? pr->name : "synthetic");
		return;
	}
	pkg = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, 0);
	if (pkg) {
		v = hwloc_obj_get_info_by_name(pkg, "CPUVendor");
		model = hwloc_obj_get_info_by_name(pkg, "CPUModel");
	}
	snprintf(m->vendor, sizeof(m->vendor), "%s", v ? v : "sim");
	snprintf(m->model, sizeof(m->model), "%s", model ? model : "host");
	snprintf(m->note, sizeof(m->note),
		 "host topology from hwloc; cache allocation capabilities are %s",
		 sp->any ? "as described" : "simulated defaults");
}

/* From the loaded topology and the spec to the finished machine. */
static int assemble(struct errbuf *e, hwloc_topology_t t, const struct spec *sp,
		    struct rdt_machine *m)
{
	const char *topo = sp->s[K_TOPOLOGY].set ? sp->s[K_TOPOLOGY].text : NULL;
	bool has[RDT_NRES];
	int ret;

	has[RDT_L3] = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_L3CACHE) > 0;
	has[RDT_L2] = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_L2CACHE) > 0;
	ret = build_cpus(e, t, topo, m);
	if (!ret)
		ret = resolve_caps(e, sp, RDT_L3, has[RDT_L3], &m->caps[RDT_L3]);
	if (!ret)
		ret = resolve_caps(e, sp, RDT_L2, has[RDT_L2], &m->caps[RDT_L2]);
	if (ret)
		return ret;
	if (!m->caps[RDT_L3].present && !m->caps[RDT_L2].present) {
		if (!sp->any)
			return machine_fail(e, -ENODEV, "machine: the host has no L3 cache to simulate "
				    "allocation on; give a topology or l2.closids");
		return machine_fail(e, -EINVAL, PFX "no allocation resource: %s and no l2.closids given",
			    has[RDT_L3] ? "l3.closids=0" : "the topology has no L3 cache");
	}
	m->virtual_tasks = sp->s[K_TASKS].set && sp->s[K_TASKS].num;
	if (m->caps[RDT_L3].present)
		ret = collect_domains(e, t, HWLOC_OBJ_L3CACHE, m, RDT_L3);
	if (!ret && m->caps[RDT_L2].present)
		ret = collect_domains(e, t, HWLOC_OBJ_L2CACHE, m, RDT_L2);
	if (!ret)
		ret = resolve_mb(e, sp, m);
	if (!ret)
		ret = mirror_mb_domains(e, m);
	if (!ret)
		ret = resolve_mon(e, sp, m);
	if (!ret)
		ret = resolve_x(e, t, sp, m);
	if (!ret)
		ret = build_cpu_tables(e, m);
	if (!ret)
		ret = check_l2_in_l3(e, m);
	if (!ret)
		ret = canonical(e, topo, m);
	if (!ret)
		set_identity(t, sp, m);
	return ret;
}

int rdt_machine_build(const char *desc, struct rdt_machine **out, char *err, size_t errlen)
{
	struct errbuf e = { err, errlen };
	struct spec sp = { 0 };
	struct rdt_machine *m = NULL;
	hwloc_topology_t t = NULL;
	int ret;

	if (errlen)
		err[0] = '\0';
	if (!out)
		return machine_fail(&e, -EINVAL, "machine: no output pointer");
	*out = NULL;
	/* never read past the bound: a caller's string may have no end in reach */
	if (desc && strnlen(desc, RDT_MACHINE_DESC_MAX + 1) > RDT_MACHINE_DESC_MAX)
		return machine_fail(&e, -E2BIG, "machine description is longer than %d bytes (%d KiB), "
			    "the most one may be: give each key once", RDT_MACHINE_DESC_MAX,
			    RDT_MACHINE_DESC_MAX >> 10);
	ret = parse_spec(&e, desc ? desc : "", &sp);
	if (ret)
		goto out;
	ret = load_topology(&e, sp.s[K_TOPOLOGY].set ? sp.s[K_TOPOLOGY].text : NULL, &t);
	if (ret)
		goto out;
	m = calloc(1, sizeof(*m));
	if (!m) {
		ret = machine_oom(&e);
		goto out;
	}
	ret = assemble(&e, t, &sp, m);
	if (ret)
		goto out;
	*out = m;
	m = NULL;
out:
	rdt_machine_free(m);
	if (t)
		hwloc_topology_destroy(t);
	spec_free(&sp);
	return ret;
}

void rdt_machine_free(struct rdt_machine *m)
{
	unsigned int r;

	if (!m)
		return;
	for (r = 0; r < RDT_NALL; r++) {
		free_domains(m->dom[r], m->ndom[r]);
		free(m->cpu_dom[r]);
	}
	free_domains(m->pkgdom, m->npkg);
	free(m->cpu_present);
	free(m->desc);
	free(m);
}

int rdt_machine_domain(const struct rdt_machine *m, enum rdt_res res, unsigned int cache_id)
{
	unsigned int lo = 0, hi;

	if (!m || (unsigned int)res >= RDT_NALL)
		return -1;
	hi = m->ndom[res];
	while (lo < hi) {	/* dom[] is ascending by cache id */
		unsigned int mid = lo + (hi - lo) / 2;
		unsigned int id = m->dom[res][mid].cache_id;

		if (id == cache_id)
			return (int)mid;
		if (id < cache_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int rdt_machine_cpu_domain(const struct rdt_machine *m, enum rdt_res res, int cpu)
{
	unsigned int i, c;

	if (!m || (unsigned int)res >= RDT_NALL || cpu < 0 || (unsigned int)cpu >= m->ncpus ||
	    !m->caps[res].present)
		return -1;
	if (m->cpu_dom[res])
		return m->cpu_dom[res][cpu];
	for (i = 0; i < m->ndom[res]; i++)	/* a hand-built machine has no table */
		for (c = 0; c < m->dom[res][i].ncpus; c++)
			if (m->dom[res][i].cpus[c] == cpu)
				return (int)i;
	return -1;
}

int rdt_machine_snc_node(const struct rdt_machine *m, int cpu)
{
	unsigned int snc = m->mon.snc > 1 ? m->mon.snc : 1, c;
	int d = rdt_machine_cpu_domain(m, RDT_L3, cpu);
	const struct rdt_domain *dom;

	if (d < 0)
		return -1;
	dom = &m->dom[RDT_L3][d];
	for (c = 0; c < dom->ncpus && dom->cpus[c] != cpu; c++)
		;
	return (int)((unsigned int)d * snc + c * snc / dom->ncpus);
}

const char *rdt_res_name(enum rdt_res res)
{
	switch (res) {
	case RDT_L3:
		return "L3";
	case RDT_L2:
		return "L2";
	case RDT_MB:
		return "MB";
	default:
		return "?";
	}
}

int rdt_res_parse(const char *name)
{
	if (!name)
		return -1;
	if (!strcasecmp(name, "L3"))
		return RDT_L3;
	if (!strcasecmp(name, "L2"))
		return RDT_L2;
	if (!strcasecmp(name, "MB"))
		return RDT_MB;
	return -1;
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * monitor/mbm_cf: the MBM correction factor of Broadwell-EP (erratum BDF102)
 * and Skylake-SP (SKX99). On those parts the MBM counts of RMIDs above a
 * threshold read too high or too low by a factor that depends on how many
 * RMIDs the part has; the kernel's table (monitor.c, mbm_cf_table) is
 * indexed by num_rmids / 8 - 1 and kept in fixed point, factor x 2^20.
 * ../shared/reference/mbm-correction.md has the facts and their sources.
 */
#include <stdbool.h>
#include <stdint.h>

#include "monitor/monitor.h"

static const struct {
	unsigned int threshold;		/* RMIDs above it are corrected */
	uint32_t cf;			/* round(factor x 2^20) */
} table[] = {
	{   7, 1048576 },	/*  0: 1.000000 */
	{  15, 1048576 },	/*  1: 1.000000 */
	{  15, 1016752 },	/*  2: 0.969650 */
	{  31, 1048576 },	/*  3: 1.000000 */
	{  31, 1118481 },	/*  4: 1.066667 */
	{  31, 1016752 },	/*  5: 0.969650 */
	{  47, 1198372 },	/*  6: 1.142857 */
	{  63, 1048576 },	/*  7: 1.000000 */
	{  63, 1242683 },	/*  8: 1.185115 */
	{  63, 1118362 },	/*  9: 1.066553 */
	{  79, 1525201 },	/* 10: 1.454545 */
	{  95, 1048576 },	/* 11: 1.000000 */
	{  95, 1290555 },	/* 12: 1.230769 */
	{  95, 1198372 },	/* 13: 1.142857 */
	{  95, 1118481 },	/* 14: 1.066667 */
	{ 127, 1048576 },	/* 15: 1.000000 */
	{ 127, 1315819 },	/* 16: 1.254863 */
	{ 127, 1242830 },	/* 17: 1.185255 */
	{ 151, 1048576 },	/* 18: 1.000000 */
	{ 127, 1118481 },	/* 19: 1.066667 */
	{ 167, 1048576 },	/* 20: 1.000000 */
	{ 159, 1524980 },	/* 21: 1.454334 */
	{ 183, 1048576 },	/* 22: 1.000000 */
	{ 127, 1016850 },	/* 23: 0.969744 */
	{ 191, 1342435 },	/* 24: 1.280246 */
	{ 191, 1290714 },	/* 25: 1.230921 */
	{ 215, 1048576 },	/* 26: 1.000000 */
	{ 191, 1198646 },	/* 27: 1.143118 */
};

#define CF_ONE (UINT32_C(1) << 20)

bool rdt_mbm_cf(unsigned int rmids, unsigned int *threshold, uint32_t *cf)
{
	unsigned int i = rmids / 8;

	/* index = num_rmids / 8 - 1; none from 28 on ("No MBM correction factor available") */
	if (!i || i - 1 >= sizeof(table) / sizeof(table[0]) || table[i - 1].cf == CF_ONE)
		return false;
	*threshold = table[i - 1].threshold;
	*cf = table[i - 1].cf;
	return true;
}

uint64_t rdt_mbm_correct(uint64_t count, uint32_t cf)
{
	return (uint64_t)(((unsigned __int128)count * cf) >> 20);
}

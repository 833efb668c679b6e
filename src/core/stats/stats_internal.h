/* Introspection of rs_stats for the unit tests (not part of the public API). */
#ifndef RIGHTSIZE_STATS_INTERNAL_H
#define RIGHTSIZE_STATS_INTERNAL_H

#include <stddef.h>

#include "rightsize/stats.h"

/* Total sketch bins and kept values held by st: what its memory grows with. */
size_t rs_stats_footprint(const rs_stats *st);

/* Forgets what rs_stats_add keeps of the rows before it to skip work (each
 * slot's known set of metrics, the grid's last time, the last interval), so
 * the next row takes every test: the tests compare the two ways. */
void rs_stats_forget_rows(rs_stats *st);

#endif

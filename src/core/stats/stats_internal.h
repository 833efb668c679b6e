/* Introspection of rs_stats for the unit tests, and the native reader's
 * sink for rows of zeros (not part of the public API). */
#ifndef RIGHTSIZE_STATS_INTERNAL_H
#define RIGHTSIZE_STATS_INTERNAL_H

#include <stddef.h>

#include "rightsize/stats.h"

/* rs_stats_add for a row whose every present value is +0 (the caller
 * knows it; asserted in debug builds): the same statistics, with the
 * values' adds counted in one step per run of such rows. The native
 * reader's fast path calls it, through rs_stats_sink_zeros, for an idle
 * GPU's repeated row. */
rs_status rs_stats_add_zeros(rs_stats *st, const rs_sample *s, rs_error *err);
rs_status rs_stats_sink_zeros(void *ctx, const rs_sample *s, rs_error *err);

/* Total sketch bins and kept values held by st: what its memory grows with. */
size_t rs_stats_footprint(const rs_stats *st);

/* Forgets what rs_stats_add keeps of the rows before it to skip work (each
 * slot's known set of metrics, the grid's last time, the last interval), so
 * the next row takes every test: the tests compare the two ways. */
void rs_stats_forget_rows(rs_stats *st);

#endif

/* Introspection of rs_stats for the unit tests (not part of the public API). */
#ifndef RIGHTSIZE_STATS_INTERNAL_H
#define RIGHTSIZE_STATS_INTERNAL_H

#include <stddef.h>

#include "rightsize/stats.h"

/* Total sketch bins and kept values held by st: what its memory grows with. */
size_t rs_stats_footprint(const rs_stats *st);

#endif

/* Locale-independent number, unit and time parsing for untrusted text.
 *
 * Nothing here uses atoi, sscanf or strtod: the decimal point is always '.',
 * overflow is detected, and NaN/inf spellings are rejected. Each parser takes
 * a pointer and a length (the text need not be NUL-terminated), ignores no
 * characters, and returns RS_OK or RS_INVALID / RS_LIMIT without touching
 * *out on failure. Callers add the file position to the error. */
#ifndef RIGHTSIZE_NUM_H
#define RIGHTSIZE_NUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rightsize/error.h"

/* A decimal number: [+-]digits[.digits][(e|E)[+-]digits] or [+-].digits.
 * RS_LIMIT when the value overflows a double. */
rs_status rs_num_parse_double(const char *s, size_t n, double *out);

/* A decimal integer [+-]digits that fits int64_t (RS_LIMIT otherwise). */
rs_status rs_num_parse_int64(const char *s, size_t n, int64_t *out);

/* Binary byte multiples: the one definition of a GiB. */
#define RS_KIB 1024.0
#define RS_MIB 1048576.0
#define RS_GIB 1073741824.0
#define RS_TIB 1099511627776.0

/* Unit kinds for rs_units_parse. */
typedef enum {
  RS_UNIT_BYTES,   /* B KB MB GB TB (10^3) KiB MiB GiB TiB (2^10); -> bytes */
  RS_UNIT_SECONDS, /* ns us ms s m min h d w; -> seconds */
  RS_UNIT_COUNT,   /* plain number with optional k M G (10^3) suffix */
  RS_UNIT_PERCENT, /* number with optional '%'; -> percent (50% -> 50) */
  RS_UNIT_BITRATE  /* bps kbps Mbps Gbps, bit/s forms, B/s KB/s MB/s GB/s...; -> bytes/s */
} rs_unit_kind;

/* Parses "16GiB", "3012 MiB", "50ms", "2k", "15 %", "25Gbps": a number, optional
 * spaces, then a unit of the given kind. Units are case-sensitive where case
 * carries meaning (m = minutes, M = mega). A bare number is accepted only when
 * default_unit is not NULL, and is then read in that unit ("MiB", "ms", ...).
 * Negative values are RS_INVALID. */
rs_status rs_units_parse(rs_unit_kind kind, const char *s, size_t n, const char *default_unit,
                         double *out);

/* Timestamps, returned as seconds since the Unix epoch (UTC), with fraction:
 *  - unix seconds: "1764511501" or "1764511501.25"
 *  - RFC 3339: "2026-11-30T14:05:01Z", "2026-11-30 14:05:01.123+01:00"
 *  - nvidia-smi: "2026/11/30 14:05:01.123" (local time of the logging host;
 *    read as UTC, see docs/samples-format.md)
 * Fields are range-checked (month 1-12, day valid for the month, 23:59:60),
 * and so is the instant, after any offset: RS_LIMIT outside
 * rs_time_in_range (docs/samples-format.md, "Ranges"). */
rs_status rs_time_parse(const char *s, size_t n, double *out);

/* The instants every reader accepts: 1970-01-01T00:00:00Z up to (not
 * including) 10000-01-01T00:00:00Z, i.e. through 9999-12-31 UTC. */
#define RS_TIME_MIN 0.0
#define RS_TIME_END 253402300800.0
/* 0000-01-01T00:00:00Z, the earliest instant rs_time_format prints. */
#define RS_TIME_YEAR0 (-62167219200.0)

/* True when t (epoch seconds) is in [RS_TIME_MIN, RS_TIME_END); false for
 * NaN and infinities too. */
bool rs_time_in_range(double t);

/* Formats t (epoch seconds) as RFC 3339 UTC "2026-11-30T14:05:01Z" (fraction
 * dropped) into buf of at least 21 bytes; "-" for a t before year 0, after
 * year 9999 or not finite. */
void rs_time_format(double t, char *buf, size_t size);

/* Days since 1970-01-01 for a proleptic Gregorian civil date. */
int64_t rs_time_days_from_civil(int64_t y, unsigned m, unsigned d);

#endif

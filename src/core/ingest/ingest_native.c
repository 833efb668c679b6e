/* The native CSV header: documented column names with unit suffixes
 * (docs/samples-format.md), x_ columns ignored, anything else an error. */
#include <stdio.h>
#include <string.h>

#include "ingest_internal.h"
#include "rightsize/num.h"

#define NAME_MAX_SUGGEST 64

static size_t min3(size_t a, size_t b, size_t c) {
  size_t m = a < b ? a : b;
  return m < c ? m : c;
}

/* Levenshtein distance, or limit when it is limit or more (a row whose
 * minimum reaches limit can only grow); both strings at most
 * NAME_MAX_SUGGEST bytes. */
static size_t edit_distance(const char *a, size_t alen, const char *b, size_t blen, size_t limit) {
  size_t prev[NAME_MAX_SUGGEST + 1], cur[NAME_MAX_SUGGEST + 1];
  for (size_t j = 0; j <= blen; j++)
    prev[j] = j;
  for (size_t i = 1; i <= alen; i++) {
    size_t row_min;
    cur[0] = row_min = i;
    for (size_t j = 1; j <= blen; j++) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (cur[j] < row_min)
        row_min = cur[j];
    }
    if (row_min >= limit)
      return limit;
    memcpy(prev, cur, (blen + 1) * sizeof(prev[0]));
  }
  return prev[blen];
}

bool rs_ingest_native_suggest(char *buf, size_t size, const char *name, size_t len) {
  char cand[NAME_MAX_SUGGEST + 1];
  size_t best = 3;
  if (len > NAME_MAX_SUGGEST)
    return false;
  for (size_t i = 0; rs_ingest_native_name(cand, sizeof(cand), i); i++) {
    size_t clen = strlen(cand);
    /* The distance is at least the difference in length: most candidates
     * are skipped without the table (a header of unknown names is the
     * common bad input, and the fuzz targets' hot path). */
    if ((clen > len ? clen - len : len - clen) >= best)
      continue;
    size_t d = edit_distance(name, len, cand, clen, best);
    if (d < best) {
      best = d;
      snprintf(buf, size, "%s", cand);
    }
  }
  return best <= 2;
}

static rs_status unknown_column(const rs_csv_field *f, const char *name, size_t len,
                                const char *path, rs_error *err) {
  char hint[NAME_MAX_SUGGEST + 32] = "";
  char suggestion[NAME_MAX_SUGGEST + 1];
  double v;
  int shown = (int)(len > RS_INGEST_QUOTE_MAX ? RS_INGEST_QUOTE_MAX : len);
  if (len == 0)
    return rs_error_set(err, RS_INVALID, path, f->line, f->col,
                        "empty column name in the header, expected one of the documented "
                        "columns (see docs/samples-format.md)");
  if (rs_num_parse_double(name, len, &v) == RS_OK || rs_time_parse(name, len, &v) == RS_OK)
    return rs_error_set(err, RS_INVALID, path, f->line, f->col,
                        "expected a header naming the columns, got '%.*s' (the native format "
                        "requires a header, see docs/samples-format.md)",
                        shown, name);
  if (rs_ingest_native_suggest(suggestion, sizeof(suggestion), name, len))
    snprintf(hint, sizeof(hint), "; did you mean '%s'?", suggestion);
  else if (memchr(name, '.', len) != NULL)
    snprintf(hint, sizeof(hint), "; for nvidia-smi logs use --input-format nvidia-smi");
  return rs_error_set(err, RS_INVALID, path, f->line, f->col,
                      "unknown column '%.*s', expected one of the documented columns (see "
                      "docs/samples-format.md) or an x_ prefix for ignored columns%s",
                      shown, name, hint);
}

/* True when the first line is a header: some field is a documented column
 * (or an x_ column), or the first field is a number or a time (a data row:
 * its own message says the header is missing). */
static bool looks_like_header(const rs_csv_field *fields, size_t n) {
  double v;
  size_t len = fields[0].len;
  const char *first = rs_ingest_trim(fields[0].text, &len);
  if (rs_num_parse_double(first, len, &v) == RS_OK || rs_time_parse(first, len, &v) == RS_OK)
    return true;
  for (size_t i = 0; i < n; i++) {
    rs_column c;
    len = fields[i].len;
    const char *name = rs_ingest_trim(fields[i].text, &len);
    if (rs_column_from_name(&c, name, len) == RS_OK)
      return true;
  }
  return false;
}

rs_status rs_ingest_native_header(rs_ingest_layout *out, rs_arena *arena,
                                  const rs_csv_field *fields, size_t n, const char *path,
                                  rs_error *err) {
  /* Not a samples file at all (a token, a config, a README): name what it
   * is, never quote it, since its first line may be a secret. */
  if (!looks_like_header(fields, n))
    return rs_error_set(err, RS_INVALID, path, 1, 1,
                        "a text file whose first line is not a CSV header (it names no "
                        "documented column), expected a samples CSV such as "
                        "'timestamp,gpu_util_pct' (see docs/samples-format.md)");
  rs_status st = rs_ingest_layout_alloc(out, arena, n, err);
  if (st != RS_OK)
    return st;
  for (size_t i = 0; i < n; i++) {
    size_t len = fields[i].len;
    const char *name = rs_ingest_trim(fields[i].text, &len);
    if (rs_column_from_name(&out->cols[i], name, len) != RS_OK)
      return unknown_column(&fields[i], name, len, path, err);
    out->names[i] = rs_arena_strndup(arena, name, len);
    if (out->names[i] == NULL)
      return rs_arena_error(arena, err, NULL, "while reading the header");
  }
  return rs_ingest_layout_check(out, fields, path, err);
}

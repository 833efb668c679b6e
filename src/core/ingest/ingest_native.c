/* The native CSV header: documented column names with unit suffixes
 * (docs/samples-format.md), x_ columns ignored, anything else an error. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ingest_internal.h"
#include "rightsize/num.h"
#include "num_fast.h"
#include "time_fast.h"

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

/* ---- rows: the fast path ---- */

static inline bool is_digit(char c) { return (unsigned)(unsigned char)c - '0' <= 9; }

/* Eight ASCII digits at q as their value (Lemire's SWAR parse, little-endian
 * hosts), or false when one of them is not a digit. */
static inline bool eight_digits(const char *q, uint64_t *out) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const uint64_t hi = 0xF0F0F0F0F0F0F0F0ull, zeros = 0x3030303030303030ull;
  uint64_t x;
  memcpy(&x, q, sizeof(x));
  if ((x & hi) != zeros || ((x + 0x0606060606060606ull) & hi) != zeros)
    return false;
  x -= zeros;
  x = x * 10 + (x >> 8);
  x = ((x & 0x000000FF000000FFull) * (100 + (1000000ull << 32)) +
       ((x >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32))) >>
      32;
  *out = x;
  return true;
#else
  (void)q;
  (void)out;
  return false;
#endif
}

/* An integer of 1 to 7 digits at q (8 bytes readable) ended by a byte that
 * is neither a digit nor '.', in one word: its value as fast_decimal's byte
 * loop reads it (the digits, exact) and the byte after it, or NULL for any
 * other text. Below the first byte that is not a digit no byte borrows or
 * carries, so that byte is the lowest one flagged, and the digits, moved to
 * the word's top with zeros before them, are eight_digits' number. */
static inline const char *word_integer(const char *q, double *out) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const uint64_t hi = 0xF0F0F0F0F0F0F0F0ull, zeros = 0x3030303030303030ull;
  uint64_t x;
  memcpy(&x, q, sizeof(x));
  uint64_t flag = ((x & hi) ^ zeros) | (((x + 0x0606060606060606ull) & hi) ^ zeros);
  if (flag == 0)
    return NULL;                                    /* eight digits or more */
  unsigned n = (unsigned)__builtin_ctzll(flag) / 8; /* digits */
  if (n == 0 || q[n] == '.')
    return NULL;
  x = (x - zeros) << (8 * (8 - n));
  x = x * 10 + (x >> 8);
  x = ((x & 0x000000FF000000FFull) * (100 + (1000000ull << 32)) +
       ((x >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32))) >>
      32;
  *out = (double)x;
  return q + n;
#else
  (void)q;
  (void)out;
  return NULL;
#endif
}

/* A short plain decimal at q, read up to the first byte that is neither a
 * digit nor the first '.': exactly what rs_num_parse_fast accepts (at most
 * 15 digits, 16 bytes), with the same value. Returns the byte after it, or
 * NULL when the text is not such a number (or is empty). */
static inline const char *fast_decimal(const char *q, const char *end, bool long_int, double *out) {
  static const double p10[RS_NUM_FAST_DIGITS + 1] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                     1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  const char *start = q, *e;
  uint64_t mant = 0;
  unsigned d;
  /* A metric's usual shapes ("0.0", "25.6", "12.68", "3005.0"): the same
   * double with fewer steps. */
  if (!long_int && ((e = rs_num_parse_short(q, out)) != NULL ||
                    (end - q >= 8 && (e = word_integer(q, out)) != NULL)))
    return e; /* and a longer integer ("1392829", bytes a second) in one word */
  if (long_int && end - q >= 8 && eight_digits(q, &mant)) /* a timestamp's first eight */
    q += 8;
  while ((d = (unsigned)(unsigned char)*q - '0') <= 9) {
    mant = mant * 10 + d;
    q++;
  }
  size_t ints = (size_t)(q - start), fracs = 0;
  if (*q == '.') {
    const char *f = ++q;
    while ((d = (unsigned)(unsigned char)*q - '0') <= 9) {
      mant = mant * 10 + d;
      q++;
    }
    fracs = (size_t)(q - f);
  }
  if (ints + fracs == 0 || ints + fracs > RS_NUM_FAST_DIGITS)
    return NULL;
  *out = fracs ? (double)mant / p10[fracs] : (double)mant;
  return q;
}

/* A metric cell at q (not empty) into s->v and *pres: the byte after it,
 * or NULL when the fast path does not take it. */
static inline const char *metric_cell(rs_sample *s, uint32_t *pres, const rs_native_col *c,
                                      const char *q, const char *end) {
  double v;
  /* "0.0" and a byte that is not a digit (an idle GPU's cells): +0 in any
   * unit and in range, the value rs_num_parse_short gives; byte by byte,
   * so no byte past the one that ends the cell is read */
  if (q[0] == '0' && q[1] == '.' && q[2] == '0' && (unsigned)(unsigned char)q[3] - '0' > 9) {
    s->v[c->metric] = 0.0;
    *pres |= c->bit;
    return q + 3;
  }
  const char *e = fast_decimal(q, end, false, &v);
  if (e == NULL)
    return NULL;
  v = v * c->scale + 0.0;
  if (!(v == 0.0 || (v >= RS_METRIC_MIN_NONZERO && v <= c->max)))
    return NULL;
  s->v[c->metric] = v;
  *pres |= c->bit;
  return e;
}

/* An ignored cell at q: the byte that ends it, or NULL for a quote. */
static inline const char *ignored_cell(const char *q) {
  while (*q != ',' && *q != '\n') {
    if (*q == '"')
      return NULL;
    q++;
  }
  return q;
}

/* A timestamp cell at q (line_start: its line's first byte) into s->t and
 * s->t_col; the byte after it, or NULL when the fast path does not take it. */
static inline const char *timestamp_cell(rs_sample *s, const char *q, const char *line_start,
                                         const char *end, rs_time_day *day) {
  double v;
  const char *e;
  s->t_col = (size_t)(q - line_start) + 1;
  /* four digits and a date's '-' or '/': the date, where fast_decimal
   * would stop at the same byte and hand it over */
  if (end - q > 4 && (q[4] == '-' || q[4] == '/') && is_digit(q[0]) && is_digit(q[1]) &&
      is_digit(q[2]) && is_digit(q[3])) {
    if ((e = rs_time_parse_fast(q, end, day, &v)) == NULL)
      return NULL;
  } else if ((e = fast_decimal(q, end, true, &v)) != NULL && *e != '-' && *e != '/') {
    if (!(v >= RS_TIME_MIN && v < RS_TIME_END)) /* rs_time_in_range */
      return NULL;
  } else if ((e = rs_time_parse_fast(q, end, day, &v)) == NULL) {
    return NULL; /* RFC 3339 or nvidia-smi, else the reader's */
  }
  s->t = v;
  return e;
}

/* A GPU index cell at q into s->gpu (an empty one leaves it); the byte
 * after it, or NULL when the fast path does not take it. */
static inline const char *gpu_cell(rs_sample *s, const char *q) {
  unsigned d0 = (unsigned)(unsigned char)q[0] - '0', d1;
  if (*q == ',' || *q == '\n' || *q == '\r')
    return q;
  if (d0 > 9)
    return NULL;
  if ((d1 = (unsigned)(unsigned char)q[1] - '0') <= 9) {
    d0 = d0 * 10 + d1;
    q++;
  }
  if (d0 >= RS_MAX_DEVICES)
    return NULL;
  s->gpu = (int)d0;
  return q + 1;
}

/* One cell at q (the first byte of the field) into s (a metric's bit into
 * *pres); the byte after the cell, or NULL when the fast path does not
 * take it. */
static inline const char *fast_cell(rs_sample *s, uint32_t *pres, const rs_native_col *c,
                                    const char *q, const char *line_start, const char *end,
                                    rs_time_day *day) {
  switch (c->kind) {
  case RS_COL_METRIC:
    if (*q == ',' || *q == '\n' || *q == '\r')
      return q; /* empty: sets nothing */
    return metric_cell(s, pres, c, q, end);
  case RS_COL_TIMESTAMP: return timestamp_cell(s, q, line_start, end, day);
  case RS_COL_GPU_INDEX: return gpu_cell(s, q);
  case RS_COL_IGNORED: return ignored_cell(q);
  }
  return NULL;
}

/* The timestamp cell at q into s, its text and value kept in *memo: the
 * rows of one time (one per GPU) repeat it, and a cell of the same bytes
 * reads the same. The memo compares the cell's bytes with the one that
 * ended it (an epoch stamp's in two words, RFC 3339's in four), masked by
 * words of a run of ones then zeros, found once when the memo is kept. */
#define TIME_MEMO_MAX 32
typedef struct time_memo {
  const char *text; /* up to and with the byte that ended it; NULL: none */
  const char *mask; /* TIME_MEMO_MAX bytes: len + 1 of 0xFF, then zeros */
  size_t len;
  double v;
} time_memo;

/* 0xFF bytes, then as many zeros: a memo's mask starts in the first half. */
static const unsigned char memo_masks[2 * TIME_MEMO_MAX] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};

static inline uint64_t load_word(const void *q) {
  uint64_t x;
  memcpy(&x, q, sizeof(x));
  return x;
}

/* Whether the bytes at q (32 readable) are t's where mask m's bytes are
 * 0xFF (a run of them from the start, then zeros): two masked words, and
 * two more when the run is longer than 16 bytes (long). */
static inline bool masked_same(const char *q, const char *t, const char *m, bool long_run) {
  uint64_t d = ((load_word(q) ^ load_word(t)) & load_word(m)) |
               ((load_word(q + 8) ^ load_word(t + 8)) & load_word(m + 8));
  if (d != 0)
    return false;
  if (!long_run)
    return true;
  return (((load_word(q + 16) ^ load_word(t + 16)) & load_word(m + 16)) |
          ((load_word(q + 24) ^ load_word(t + 24)) & load_word(m + 24))) == 0;
}

/* Whether the len + 1 bytes at q (TIME_MEMO_MAX readable) are the memo's. */
static inline bool memo_same(const time_memo *memo, const char *q) {
  return masked_same(q, memo->text, memo->mask, memo->len >= 16);
}

static inline const char *time_cell(rs_sample *s, time_memo *memo, const char *q,
                                    const char *line_start, const char *end, rs_time_day *day) {
  if (memo->text != NULL && end - q >= TIME_MEMO_MAX && memo_same(memo, q)) {
    s->t_col = (size_t)(q - line_start) + 1;
    s->t = memo->v;
    return q + memo->len;
  }
  const char *e = timestamp_cell(s, q, line_start, end, day);
  if (e != NULL && e - q < TIME_MEMO_MAX) {
    memo->text = q;
    memo->len = (size_t)(e - q);
    memo->mask = (const char *)memo_masks + TIME_MEMO_MAX - 1 - memo->len;
    memo->v = s->t;
  }
  return e;
}

/* A device's last row after its leading cells (from the ',' that ends
 * them through the line's end), kept while it is short: an idle GPU's rows
 * repeat it ("0.0,0.0,,,,,"), and the same bytes read as the same cells,
 * so a row whose text after its leading cells is the memo's takes the
 * memo's metrics and values without reading them again. Only where the
 * leading cells hold no metric (the memo's bits are all of the row's).
 * When every value is +0 (an idle GPU's), such a row goes to the zero
 * sink, if there is one (rs_native_rows.zero_sink). */
#define ROW_MEMO_MAX 32                     /* bytes compared, in four words */
#define ROW_MEMO_SLOTS (RS_MAX_DEVICES + 1) /* gpu_index -1 (none) to 63 */
#define ROW_MEMO_VALUES 8
typedef struct row_memo {
  const char *text; /* NULL: none */
  const char *mask; /* ROW_MEMO_MAX bytes: len of 0xFF, then zeros */
  size_t len;       /* through the '\n' */
  size_t cells;     /* where the cells' loop left the row: its '\r' or '\n' */
  uint32_t pres;
  unsigned n;
  rs_sample_sink sink; /* the zero sink when every value is +0 (an idle GPU's) */
  uint8_t m[ROW_MEMO_VALUES];
  double v[ROW_MEMO_VALUES];
  char pad[8]; /* 128 bytes with 64-bit pointers: a slot's memo is found by a shift */
} row_memo;
_Static_assert(sizeof(void *) < 8 || sizeof(row_memo) == 128, "a row memo is 128 bytes");

/* Whether the len bytes at q (ROW_MEMO_MAX readable) are the memo's. */
static inline bool row_memo_same(const row_memo *memo, const char *q) {
  return masked_same(q, memo->text, memo->mask, memo->len > 16);
}

/* Keeps the row whose cells after the leading ones are text[0..len) and
 * whose metrics are pres, with s's values, as memo (cells: where the
 * cells' loop ended, its CR or LF); a row too long or of
 * too many values is not kept (the memo keeps the last one kept). */
static inline void row_memo_keep(row_memo *memo, const char *text, size_t len, size_t cells,
                                 uint32_t pres, const rs_sample *s, const rs_native_rows *nr) {
  unsigned n = 0;
  if (len > ROW_MEMO_MAX || (unsigned)__builtin_popcount(pres) > ROW_MEMO_VALUES)
    return;
  for (uint32_t bits = pres; bits != 0; bits &= bits - 1, n++) {
    int m = __builtin_ctz(bits);
    memo->m[n] = (uint8_t)m;
    memo->v[n] = s->v[m];
  }
  memo->n = n;
  bool zeros = true;
  for (unsigned i = 0; i < n; i++)
    zeros &= memo->v[i] == 0.0 && !signbit(memo->v[i]);
  memo->sink = zeros && nr->zero_sink != NULL ? nr->zero_sink : nr->sink;
  memo->pres = pres;
  memo->text = text;
  memo->len = len;
  memo->cells = cells;
  memo->mask = (const char *)memo_masks + ROW_MEMO_MAX - len;
}

size_t rs_ingest_native_lines(rs_native_rows *nr, const char *buf, size_t len, size_t line,
                              size_t *lines, rs_status *st, rs_error *err) {
  const char *p = buf, *end = buf + len;
  const rs_native_col *cols = nr->cols;
  const size_t ncols = nr->ncols;
  rs_sample *s = nr->s;
  /* nr's fields the row loop reads, in locals: stores through s could
   * change nr as far as the compiler knows, and it would load them again */
  const size_t max_line = nr->max_line;
  void *const ctx = nr->ctx;
  const rs_sample_sink row_sink = nr->sink;
  rs_time_day *const day = nr->day;
  size_t done = 0, tail = ncols;
  time_memo memo = {NULL, NULL, 0, 0.0};
  row_memo rows[ROW_MEMO_SLOTS];
  bool lead_metric = false; /* a metric among the leading cells: no row memo */
  uint32_t pres = 0;        /* the bits of the row being read; s->present is the last row's */
  /* The columns from tail on are metrics or ignored, whose empty cells set
   * nothing: a run of empty cells among them is skipped as one run of
   * commas (three rows in four of the bench file end in five empty cells).
   * Column 0 is read by the first loop, which takes any kind. */
  while (tail > 1 &&
         (cols[tail - 1].kind == RS_COL_METRIC || cols[tail - 1].kind == RS_COL_IGNORED))
    tail--;
  if (tail == 0)
    tail = 1;
  for (size_t i = 0; i < tail; i++)
    lead_metric |= cols[i].kind == RS_COL_METRIC;
  /* The leading cells are a timestamp and a GPU index, as the native
   * format's own columns and the bench file have them. */
  const bool time_gpu =
      tail == 2 && cols[0].kind == RS_COL_TIMESTAMP && cols[1].kind == RS_COL_GPU_INDEX;
  for (size_t i = 0; i < ROW_MEMO_SLOTS; i++)
    rows[i].text = NULL;
  rs_sample_sink sink;
  *st = RS_OK;
  s->path = nr->path; /* the sink takes the row as const */
  while (p < end) {
    const char *q = p;
    pres = 0;
    if (time_gpu) {
      /* The usual leading cells, a timestamp and a GPU index: the loop
       * below unrolled (the same reads, in the same order) and a one-digit
       * index read in place. */
      s->gpu = -1;
      if ((q = time_cell(s, &memo, q, p, end, day)) == NULL || *q++ != ',')
        goto stop;
      if ((unsigned)(unsigned char)q[0] - '0' <= 9 && q[1] == ',') {
        s->gpu = q[0] - '0';
        q++;
      } else if ((q = gpu_cell(s, q)) == NULL) {
        goto stop;
      }
      goto leading_read;
    }
    s->t = 0.0;
    s->gpu = -1;
    s->t_col = 0;
    for (const rs_native_col *c = cols, *ce = cols + tail; c < ce; c++) {
      if (c > cols && *q++ != ',')
        goto stop;
      q = c->kind == RS_COL_TIMESTAMP ? time_cell(s, &memo, q, p, end, day)
                                      : fast_cell(s, &pres, c, q, p, end, day);
      if (q == NULL)
        goto stop;
    }
  leading_read:;
    /* the cells after the leading ones: the device's memo, or read */
    const char *after = q;
    unsigned slot = (unsigned)(s->gpu + 1);
    row_memo *rm = &rows[slot]; /* slot <= RS_MAX_DEVICES: fast_cell's bound */
    if (rm->text != NULL && end - q >= ROW_MEMO_MAX && row_memo_same(rm, q)) {
      pres = rm->pres;
      sink = rm->sink;
      for (unsigned i = 0; i < rm->n; i++)
        s->v[rm->m[i]] = rm->v[i];
      q += rm->cells; /* where reading the cells would have left it */
      goto cells_read;
    }
    sink = row_sink;
    for (const rs_native_col *c = cols + tail, *ce = cols + ncols; c < ce; c++) {
      if (*q++ != ',')
        goto stop;
      if (*q == ',') { /* empty, and so are the cells up to the next non-comma */
        if (c + 1 == ce)
          goto stop; /* a field too many */
        const char *r = q + 1;
        size_t k = (size_t)(ce - c) - 2; /* columns after the next one */
        while (k > 0 && *r == ',')
          r++, k--;
        if (k == 0 && (*r == '\n' || *r == '\r')) {
          q = r;
          break;
        }
        c += r - q - 1; /* the empty cells before r's */
        q = r - 1;
        continue;
      }
      const char *e = c->kind == RS_COL_METRIC ? metric_cell(s, &pres, c, q, end) : ignored_cell(q);
      if (e == NULL) {
        if (c->kind == RS_COL_METRIC && (*q == '\n' || *q == '\r'))
          continue; /* empty */
        goto stop;
      }
      q = e;
    }
    if (!lead_metric && (size_t)(q - after) < ROW_MEMO_MAX &&
        (*q == '\n' || (*q == '\r' && q[1] == '\n')))
      row_memo_keep(rm, after, (size_t)(q - after) + 1 + (*q == '\r'), (size_t)(q - after), pres, s,
                    nr);
  cells_read:
    if ((size_t)(q - p) > max_line)
      goto stop;
    if (*q == '\r')
      q++;
    if (*q != '\n')
      goto stop;
    for (uint32_t gone = s->present & ~pres; gone != 0; gone &= gone - 1)
      s->v[__builtin_ctz(gone)] = 0.0;
    s->present = pres;
    s->line = line + done;
    if ((*st = sink(ctx, s, err)) != RS_OK)
      goto stop;
    done++;
    p = q + 1;
  }
stop:
  /* Values of a row left half read stay set: the reader's row clears them
   * with the last row's (the sample's values outside present are 0). */
  s->present |= pres;
  nr->rows += done;
  *lines = done;
  return (size_t)(p - buf);
}

#include "jsonw.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void rs_jsonw_init(rs_jsonw *w, rs_buf *out) {
  memset(w, 0, sizeof(*w));
  w->out = out;
  w->first[0] = true;
}

static void indent(rs_jsonw *w) {
  rs_buf_putc(w->out, '\n');
  for (int i = 0; i < w->depth; i++)
    rs_buf_puts(w->out, "  ");
}

/* Separator, newline and key before any value. */
static void member(rs_jsonw *w, const char *key) {
  if (w->depth > 0) {
    if (!w->first[w->depth])
      rs_buf_putc(w->out, ',');
    indent(w);
  }
  w->first[w->depth] = false;
  if (key) {
    rs_buf_put_json_string(w->out, key);
    rs_buf_puts(w->out, ": ");
  }
}

static void open(rs_jsonw *w, const char *key, char c) {
  member(w, key);
  rs_buf_putc(w->out, c);
  assert(w->depth + 1 < RS_JSONW_DEPTH);
  w->depth++;
  w->first[w->depth] = true;
}

void rs_jsonw_object(rs_jsonw *w, const char *key) { open(w, key, '{'); }
void rs_jsonw_array(rs_jsonw *w, const char *key) { open(w, key, '['); }

void rs_jsonw_end(rs_jsonw *w, char close) {
  bool empty;
  assert(w->depth > 0);
  empty = w->first[w->depth];
  w->depth--;
  if (!empty)
    indent(w);
  rs_buf_putc(w->out, close);
}

void rs_jsonw_string(rs_jsonw *w, const char *key, const char *value) {
  member(w, key);
  if (value)
    rs_buf_put_json_string(w->out, value);
  else
    rs_buf_puts(w->out, "null");
}

void rs_jsonw_number(rs_jsonw *w, const char *key, double value) {
  member(w, key);
  if (!isfinite(value)) {
    rs_buf_puts(w->out, "null");
    return;
  }
  if (value == 0.0)
    value = 0.0;
  /* Integers up to 2^53 print exactly; anything else with 10 significant
   * digits, which is more than any sample carries. */
  if (value == floor(value) && fabs(value) < 9007199254740992.0)
    rs_buf_printf(w->out, "%.0f", value);
  else
    rs_buf_printf(w->out, "%.10g", value);
}

void rs_jsonw_uint(rs_jsonw *w, const char *key, uint64_t value) {
  member(w, key);
  rs_buf_printf(w->out, "%llu", (unsigned long long)value);
}

void rs_jsonw_bool(rs_jsonw *w, const char *key, bool value) {
  member(w, key);
  rs_buf_puts(w->out, value ? "true" : "false");
}

void rs_jsonw_null(rs_jsonw *w, const char *key) {
  member(w, key);
  rs_buf_puts(w->out, "null");
}

void rs_jsonw_finish(rs_jsonw *w) { rs_buf_putc(w->out, '\n'); }

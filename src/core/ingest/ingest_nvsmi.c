/* nvidia-smi --query-gpu logs: "--format=csv" with or without "nounits" and
 * "noheader". Header fields are "name" or "name [unit]"; the fields we use
 * are mapped to metrics, every other well-formed field name is ignored. */
#include <stdio.h>
#include <string.h>

#include "ingest_internal.h"
#include "rightsize/num.h"

typedef struct unit_scale {
  const char *unit;
  double scale;
} unit_scale;

static const unit_scale pct_units[] = {{"%", 1.0}, {NULL, 0.0}};
static const unit_scale mem_units[] = {
    {"MiB", RS_MIB}, {"KiB", RS_KIB}, {"GiB", RS_GIB}, {"B", 1.0}, {NULL, 0.0}};

/* The fields we read; the first unit of each is nvidia-smi's own, assumed
 * when the header has none. */
static const struct {
  const char *name;
  rs_column_kind kind;
  rs_metric metric;
  const unit_scale *units;
} used_fields[] = {
    {"timestamp", RS_COL_TIMESTAMP, RS_METRIC_GPU_UTIL, NULL},
    {"index", RS_COL_GPU_INDEX, RS_METRIC_GPU_UTIL, NULL},
    {"utilization.gpu", RS_COL_METRIC, RS_METRIC_GPU_UTIL, pct_units},
    {"memory.used", RS_COL_METRIC, RS_METRIC_GPU_MEM_USED, mem_units},
    {"memory.total", RS_COL_METRIC, RS_METRIC_GPU_MEM_TOTAL, mem_units},
};

#define USED_FIELDS (sizeof(used_fields) / sizeof(used_fields[0]))
#define NOHEADER_QUERY "timestamp,index,utilization.gpu,memory.used,memory.total"

/* Common fields that mark a header as nvidia-smi's even without units. */
static const char *const known_fields[] = {
    "utilization.gpu",
    "memory.used",
    "memory.total",
    "memory.free",
    "utilization.memory",
    "name",
    "pci.bus_id",
    "uuid",
    "driver_version",
    "temperature.gpu",
    "power.draw",
    "clocks.sm",
    "clocks.mem",
    "fan.speed",
    "pstate",
};

/* A header field split into its name and optional "[unit]". */
typedef struct header_field {
  const char *name;
  size_t len;
  const char *unit; /* inside the brackets, or NULL */
  size_t ulen;
} header_field;

static bool is_name_char(char ch, bool first) {
  bool alpha = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
  return alpha || (!first && ((ch >= '0' && ch <= '9') || ch == '_' || ch == '.'));
}

static bool split_field(header_field *out, const char *text, size_t len) {
  const char *s = rs_ingest_trim(text, &len);
  const char *open = memchr(s, '[', len);
  memset(out, 0, sizeof(*out));
  out->name = s;
  out->len = open ? (size_t)(open - s) : len;
  out->name = rs_ingest_trim(s, &out->len);
  if (open != NULL) {
    if (s[len - 1] != ']')
      return false;
    out->unit = open + 1;
    out->ulen = (size_t)(s + len - 1 - out->unit);
  }
  if (out->len == 0)
    return false;
  for (size_t i = 0; i < out->len; i++)
    if (!is_name_char(out->name[i], i == 0))
      return false;
  return true;
}

static bool field_is(const header_field *h, const char *word) {
  return strlen(word) == h->len && memcmp(h->name, word, h->len) == 0;
}

bool rs_ingest_nvsmi_is_header(const rs_csv_field *fields, size_t n) {
  for (size_t i = 0; i < n; i++) {
    header_field h;
    if (!split_field(&h, fields[i].text, fields[i].len))
      continue;
    if (h.unit != NULL)
      return true;
    for (size_t k = 0; k < sizeof(known_fields) / sizeof(known_fields[0]); k++)
      if (field_is(&h, known_fields[k]))
        return true;
  }
  return false;
}

static bool is_digits(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9')
      return false;
  return true;
}

bool rs_ingest_nvsmi_is_timestamp(const char *s, size_t len) {
  return len >= 10 && is_digits(s, 4) && s[4] == '/' && is_digits(s + 5, 2) && s[7] == '/' &&
         is_digits(s + 8, 2);
}

static rs_status set_unit(rs_column *c, const unit_scale *units, const header_field *h,
                          const rs_csv_field *f, const char *path, rs_error *err) {
  if (h->unit == NULL) {
    c->unit = units[0].unit;
    c->scale = units[0].scale;
    return RS_OK;
  }
  for (const unit_scale *u = units; u->unit != NULL; u++) {
    if (strlen(u->unit) == h->ulen && memcmp(u->unit, h->unit, h->ulen) == 0) {
      c->unit = u->unit;
      c->scale = u->scale;
      return RS_OK;
    }
  }
  return rs_error_set(err, RS_INVALID, path, f->line, f->col,
                      "unexpected unit '[%.*s]' for nvidia-smi field '%.*s', expected '[%s]'",
                      (int)h->ulen, h->unit, (int)h->len, h->name, units[0].unit);
}

static rs_status map_field(rs_column *c, const rs_csv_field *f, const char *path, rs_error *err) {
  header_field h;
  rs_column native;
  size_t len = f->len;
  const char *text = rs_ingest_trim(f->text, &len);
  if (!split_field(&h, f->text, f->len))
    return rs_error_set(err, RS_INVALID, path, f->line, f->col,
                        "unexpected nvidia-smi header field '%.*s', expected a --query-gpu "
                        "field name such as 'memory.used [MiB]'",
                        (int)(len > RS_INGEST_QUOTE_MAX ? RS_INGEST_QUOTE_MAX : len), text);
  c->kind = RS_COL_IGNORED;
  c->metric = RS_METRIC_GPU_UTIL;
  c->scale = 1.0;
  c->unit = NULL;
  for (size_t k = 0; k < USED_FIELDS; k++) {
    if (!field_is(&h, used_fields[k].name))
      continue;
    c->kind = used_fields[k].kind;
    c->metric = used_fields[k].metric;
    return used_fields[k].units ? set_unit(c, used_fields[k].units, &h, f, path, err) : RS_OK;
  }
  /* A native column here would be dropped silently as an unknown field. */
  if (rs_column_from_name(&native, h.name, h.len) == RS_OK && native.kind != RS_COL_IGNORED)
    return rs_error_set(err, RS_INVALID, path, f->line, f->col,
                        "native column '%.*s' in an nvidia-smi log, use --input-format native for "
                        "native files",
                        (int)h.len, h.name);
  return RS_OK;
}

/* Multi-GPU logs queried without `index` still name each device by its
 * pci.bus_id or uuid: without one of them every row would land on one GPU
 * (a false tiny interval and false gaps). The bus id is preferred: it is
 * what nvidia-smi -i accepts and it survives a driver reinstall. */
static void key_column(rs_ingest_layout *out) {
  static const char *const keys[] = {"pci.bus_id", "uuid"};
  out->key_col = -1;
  for (size_t i = 0; i < out->ncols; i++)
    if (out->cols[i].kind == RS_COL_GPU_INDEX)
      return;
  for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
    for (size_t i = 0; i < out->ncols; i++)
      if (strcmp(out->names[i], keys[k]) == 0) {
        out->key_col = (int)i;
        return;
      }
}

rs_status rs_ingest_nvsmi_header(rs_ingest_layout *out, rs_arena *arena, const rs_csv_field *fields,
                                 size_t n, const char *path, rs_error *err) {
  rs_status st = rs_ingest_layout_alloc(out, arena, n, err);
  if (st != RS_OK)
    return st;
  for (size_t i = 0; i < n; i++) {
    size_t len = fields[i].len;
    const char *text = rs_ingest_trim(fields[i].text, &len);
    st = map_field(&out->cols[i], &fields[i], path, err);
    if (st != RS_OK)
      return st;
    out->names[i] = rs_arena_strndup(arena, text, len);
    if (out->names[i] == NULL)
      return rs_arena_error(arena, err, NULL, "while reading the header");
  }
  key_column(out);
  return rs_ingest_layout_check(out, fields, path, err);
}

rs_status rs_ingest_nvsmi_default(rs_ingest_layout *out, rs_arena *arena, rs_error *err) {
  rs_status st = rs_ingest_layout_alloc(out, arena, USED_FIELDS, err);
  if (st != RS_OK)
    return st;
  for (size_t k = 0; k < USED_FIELDS; k++) {
    rs_column *c = &out->cols[k];
    c->kind = used_fields[k].kind;
    c->metric = used_fields[k].metric;
    c->scale = used_fields[k].units ? used_fields[k].units[0].scale : 1.0;
    c->unit = used_fields[k].units ? used_fields[k].units[0].unit : NULL;
    out->names[k] = used_fields[k].name;
  }
  out->headerless = true;
  out->ragged = "headerless nvidia-smi logs must use --query-gpu=" NOHEADER_QUERY;
  return RS_OK;
}

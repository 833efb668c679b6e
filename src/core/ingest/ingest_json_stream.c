/* Prometheus query_range JSON and CloudWatch get-metric-data output read
 * as a stream: memory flat in the file's size (docs/scale.md, "Exports").
 *
 * A query_range answer: pass 1 reads the document once, in order, through
 * a fixed window (a pull tokenizer with line:col), checks its structure and
 * labels and skims the points (skim_values: their times in order, no value
 * read), noting where each mapped series' values start. Rows need the
 * series joined by time; each series is in time order (as Prometheus
 * answers), so pass 2 merges them: one small window per series over the
 * same bytes (the file, or a spooled copy of standard input or a
 * decompressed stream), picked in rs_export_emit's order (a scan, or a heap
 * past 64 series), each point checked as the tree reader does
 * (rs_export_point_make) and the points of one time folded into rows. The
 * common point, [1764460800,"3012"], is read without the tokenizer
 * (quick_point_read), each number once. When pass 2 meets a mistake, pass 1
 * runs again in full (read_values: every point checked, in file order), so
 * the error reported is the first in the file, as before.
 *
 * CloudWatch get-metric-data output: pass 1 checks every timestamp in
 * file order, skims the values (their tokens only: each is read once, in
 * pass 2; a mistake there makes pass 1 run again in full, as above) and
 * notes the place of every CW_BLOCK-th timestamp and value of each result;
 * pass 2 reads a block of a result again at a time, oldest first whichever
 * order the result is in, into the same merge.
 *
 * Only the series' notes, one window each (two for a CloudWatch result and
 * a block of its points) and the points of one time stay in memory.
 *
 * Files up to RS_INGEST_EXPORT_MAX keep the tree reader's exact behaviour:
 * pass 1 is strict (plain strings, keys in the exporters' order, nothing
 * the tree reader might read differently) and any error or anything unusual
 * hands the file to rs_ingest_export_at, whose output and messages are then
 * the answer. Larger files, which the tree reader refuses, get this
 * reader's own positioned errors. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ingest_json_stream.h"
#include "ingest_internal.h"
#include "ingest_stream.h"
#include "rightsize/num.h"

static rs_status read_root(reader *r) {
  cursor *c = r->c;
  static const char *const keys[] = {"status", "data", NULL};
  bool more, status = false, data = false;
  int ch, which;
  rs_status st = peek(c, &ch);
  if (st != RS_OK)
    return st;
  if (c->base == 0 && c->pos == 0 && c->end >= 3 && memcmp(c->buf, "\xEF\xBB\xBF", 3) == 0) {
    if (c->strict)
      return unusual(c, "a byte order mark");
    c->pos = 3;
    c->cont = 2;
    if ((st = peek(c, &ch)) != RS_OK)
      return st;
  }
  if (r->cw) {
    if (ch != '{')
      return ch < 0 ? syntax(c, ch)
                    : rs_error_set(c->err, RS_SYNTAX, c->path, c->line, 1,
                                   "a text file that is not a JSON object, expected CloudWatch "
                                   "get-metric-data output");
    st = rs_jstream_cw_root(r);
  } else if (ch == '[') {
    st = rs_jstream_read_result(r);
  } else if (ch == '{') {
    st = open_bracket(c, '{', '}', &more);
    while (st == RS_OK && more) {
      if ((st = key_is(c, keys, &which)) != RS_OK)
        return st;
      if (which == 0) {
        if (status)
          return unusual(c, "a duplicate key 'status'");
        status = true;
        st = rs_jstream_want_text(c, "status", "success");
      } else if (which == 1) {
        if (!status || data)
          return unusual(c, data ? "a duplicate key 'data'" : "'data' before 'status'");
        data = true;
        st = rs_jstream_read_data(r);
      } else {
        st = skip_value(c, 1);
      }
      if (st == RS_OK)
        st = next_item(c, '}', &more);
    }
    if (st == RS_OK && !data)
      return unusual(c, "a response without 'status' and 'data'");
  } else {
    return ch < 0 ? syntax(c, ch)
                  : rs_error_set(c->err, RS_SYNTAX, c->path, 1, 1,
                                 "a text file that is not JSON (it does not start with '{' or "
                                 "'['), expected a JSON object");
  }
  if (st == RS_OK)
    st = peek(c, &ch);
  if (st == RS_OK && ch >= 0)
    return fail(c, RS_SYNTAX, "trailing characters after the JSON value");
  return st;
}

/* ---- pass 2: the merge ---- */

/* The next point of a CloudWatch result, oldest first. */
static rs_status cw_advance(stream *m, const rs_export *x, bool *got) {
  rs_status st = RS_OK;
  *got = false;
  if (m->at == m->nblock) {
    if (m->next == m->nblocks)
      return RS_OK;
    st = rs_jstream_cw_block(m, x, m->s->newest_first ? m->nblocks - 1 - m->next : m->next);
    m->next++;
    if (st != RS_OK)
      return st;
  }
  if (m->nblock == 0) /* datapoints without the statistic read */
    return cw_advance(m, x, got);
  m->head = m->block[m->at++];
  *got = true;
  return st;
}

static bool before(const rs_export_point *p, const rs_export_point *q) {
  if (p->t != q->t)
    return p->t < q->t;
  if (p->gpu != q->gpu)
    return p->gpu < q->gpu;
  if (p->metric != q->metric)
    return p->metric < q->metric;
  if (p->line != q->line)
    return p->line < q->line;
  return p->col < q->col;
}

/* What rs_export_point_value keeps as it is (a value neither refused nor
 * clamped): 0, or from RS_METRIC_MIN_NONZERO to the metric's largest
 * value, its upper bound and the rule's cap. */
static double quick_limit(const rs_series_rule *rule) {
  double lim = rs_metric_max(rule->metric), upper = rs_metric_upper(rule->metric);
  if (upper > 0 && upper < lim)
    lim = upper;
  if (rule->cap > 0 && rule->cap < lim)
    lim = rule->cap;
  return lim;
}

/* The next kept point of a stream into head: false at its end. */
static rs_status advance(stream *m, const rs_export *x, bool *got) {
  rs_status st = RS_OK;
  if (m->s->cw)
    return cw_advance(m, x, got);
  *got = false;
  while (st == RS_OK && m->more) {
    cursor *c = &m->c;
    quick_point q;
    bool kept = true;
    if ((st = ensure(c)) != RS_OK)
      return st;
    if (quick_point_read(c, &q) && q.t >= RS_TIME_MIN && q.t < RS_TIME_END) {
      size_t col = (size_t)(c->base + (long long)q.vq - c->line_start - c->cont) + 1;
      double v = q.v * m->s->rule.scale + 0.0;
      if (v == 0.0 || (v >= RS_METRIC_MIN_NONZERO && v <= m->lim)) /* as point_value has it */
        m->head = (rs_export_point){.t = q.t,
                                    .v = v,
                                    .gpu = m->gpu,
                                    .metric = m->s->rule.metric,
                                    .ep = x->cur_ep,
                                    .key = m->s->key,
                                    .line = c->line,
                                    .col = col};
      else
        st = rs_export_point_value(x, &m->s->rule, m->s->key, m->s->gpu, q.t, q.v,
                                   c->buf + q.vq + 1, q.vlen, c->line, col, &m->head, c->err);
      c->pos = q.end;
    } else {
      st = rs_jstream_read_point(c, x, m->s, &m->head, &kept);
    }
    if (st == RS_OK)
      st = next_point(c, &m->more);
    if (st == RS_OK && kept) {
      *got = true;
      break;
    }
  }
  return st;
}

static void sift_down(stream **h, size_t n, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && before(&h[l]->head, &h[m]->head))
      m = l;
    if (r < n && before(&h[r]->head, &h[m]->head))
      m = r;
    if (m == i)
      return;
    stream *t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

/* (GPU, metric, file order) of the streams' series. */
static int stream_order(const void *a, const void *b) {
  const stream *p = *(stream *const *)a, *q = *(stream *const *)b;
  if (p->head.gpu != q->head.gpu)
    return p->head.gpu < q->head.gpu ? -1 : 1;
  if (p->head.metric != q->head.metric)
    return p->head.metric < q->head.metric ? -1 : 1;
  return (p->s > q->s) - (p->s < q->s);
}

/* The series' windows read fd, or mem when it is set; size: the input's
 * bytes (a window never needs more than the input and one byte, which
 * keeps small inputs from allocating 256 KiB a series). */
static rs_status merge(reader *r, int fd, const char *mem, long long size, rs_sample_sink sink,
                       void *ctx, uint64_t *rows, rs_error *err) {
  rs_export *x = r->x;
  size_t cursors = r->cw ? 2 * r->n : r->n;
  size_t window = MERGE_MEMORY / cursors, n = 0, nb = 0, bcap = 0;
  rs_export_point *batch = NULL, *blocks = NULL;
  stream *ms = calloc(r->n, sizeof(*ms));
  stream **heap = calloc(r->n, sizeof(*heap));
  char *bufs;
  rs_status st = RS_OK;
  if (window > MERGE_WINDOW)
    window = MERGE_WINDOW;
  if (size >= 0 && (unsigned long long)size < window - 1)
    window = (size_t)size + 1;
  if (window < 2 * SMALL_LOOK)
    window = 2 * SMALL_LOOK;
  bufs = rs_malloc_array(cursors, window);
  if (r->cw)
    blocks = rs_malloc_array(r->n, DP_STATS * CW_BLOCK * sizeof(*blocks));
  if (ms == NULL || heap == NULL || bufs == NULL || (r->cw && blocks == NULL))
    st = rs_error_set(err, RS_NOMEM, x->path, 0, 0, "out of memory merging the series");
  for (size_t i = 0; st == RS_OK && i < r->n; i++) {
    stream *m = &ms[i];
    bool got;
    m->s = &r->s[i];
    if (m->s->cw) {
      cursor blank = {.cap = window,
                      .look = SMALL_LOOK,
                      .fd = fd,
                      .mem = mem,
                      .mem_len = size,
                      .strict = false,
                      .path = x->path,
                      .err = err};
      m->c = m->v = blank;
      m->c.buf = bufs + 2 * i * window;
      m->v.buf = bufs + (2 * i + 1) * window;
      m->marks = r->marks + m->s->mark0;
      m->block = blocks + i * DP_STATS * CW_BLOCK;
      m->dp = r->dp;
      m->nblocks = (size_t)((m->s->n + CW_BLOCK - 1) / CW_BLOCK);
      st = advance(m, x, &got);
      if (st == RS_OK && got)
        heap[n++] = m;
      continue;
    }
    m->c = (cursor){.buf = bufs + i * window,
                    .cap = window,
                    .look = SMALL_LOOK,
                    .base = r->s[i].off,
                    .fd = fd,
                    .mem = mem,
                    .mem_len = size,
                    .next_off = r->s[i].off,
                    .line = r->s[i].line,
                    .line_start = r->s[i].line_start,
                    .cont = r->s[i].cont,
                    .strict = false,
                    .path = x->path,
                    .err = err};
    m->lim = quick_limit(&m->s->rule);
    m->gpu = rs_metric_per_device(m->s->rule.metric) ? m->s->gpu : -1;
    st = open_bracket(&m->c, '[', ']', &m->more);
    if (st == RS_OK)
      st = advance(m, x, &got);
    if (st == RS_OK && got)
      heap[n++] = m;
  }
  /* Few series: each time, the smallest head time, then the streams in
   * (GPU, metric, file) order, which is rs_export_emit's order among points
   * of one time (a series' points follow the series before it in the file).
   * Many: a heap. */
  bool linear = n <= LINEAR_MAX;
  size_t cur = 0;
  double tmin = 0.0;
  if (linear && n > 1)
    qsort(heap, n, sizeof(*heap), stream_order);
  for (size_t i = n; !linear && st == RS_OK && i-- > 0;)
    sift_down(heap, n, i);
  while (st == RS_OK && n > 0) {
    stream *m = heap[0];
    bool got;
    if (linear) {
      while (cur < n && heap[cur]->head.t != tmin)
        cur++;
      if (cur == n || nb == 0) { /* a new time: the smallest head */
        tmin = heap[0]->head.t;
        for (size_t i = 1; i < n; i++)
          if (heap[i]->head.t < tmin)
            tmin = heap[i]->head.t;
        for (cur = 0; heap[cur]->head.t != tmin;)
          cur++;
      }
      m = heap[cur];
    }
    if (nb > 0 && m->head.t != batch[0].t) {
      st = rs_export_emit_batch(x, batch, nb, sink, ctx, rows, err);
      nb = 0;
      if (st != RS_OK)
        break;
    }
    if (nb == bcap) {
      size_t cap = bcap ? bcap * 2 : 256;
      rs_export_point *grown;
      if (nb >= MAX_BATCH) {
        st = rs_error_set(err, RS_LIMIT, x->path, m->head.line, m->head.col,
                          "more than %zu points at one time", MAX_BATCH);
        break;
      }
      if ((grown = rs_realloc_array(batch, cap, sizeof(*grown))) == NULL) {
        st = rs_error_set(err, RS_NOMEM, x->path, 0, 0, "out of memory merging the series");
        break;
      }
      batch = grown;
      bcap = cap;
    }
    batch[nb++] = m->head;
    st = advance(m, x, &got);
    if (linear && st == RS_OK && !got) {
      memmove(heap + cur, heap + cur + 1, (n - cur - 1) * sizeof(*heap));
      n--;
    } else if (!linear) {
      if (st == RS_OK && !got)
        heap[0] = heap[--n];
      sift_down(heap, n, 0);
    }
  }
  if (st == RS_OK && nb > 0)
    st = rs_export_emit_batch(x, batch, nb, sink, ctx, rows, err);
  free(batch);
  free(blocks);
  free(bufs);
  free(heap);
  free(ms);
  return st;
}

/* ---- the entry point ---- */

size_t rs_json_stream_tree_max = RS_INGEST_EXPORT_MAX;

/* The whole input from fd (or mem when it is set), for the tree reader. */
static rs_status fallback(int fd, const char *mem, long long size, const char *path,
                          rs_sample_format format, double instant_t, const rs_ingest_options *opts,
                          rs_sample_sink sink, void *ctx, rs_ingest_result *result, rs_error *err) {
  char *data = malloc((size_t)size + 1);
  size_t got = 0;
  rs_status st;
  if (data == NULL)
    return rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory reading the document");
  if (mem != NULL) {
    memcpy(data, mem, (size_t)size);
    got = (size_t)size;
  }
  while (got < (size_t)size) {
    ssize_t n = pread(fd, data + got, (size_t)size - got, (off_t)got);
    if (n <= 0) {
      free(data);
      return rs_error_set(err, RS_IO, path, 0, 0, "cannot read: %s",
                          n < 0 ? strerror(errno) : "the file shrank");
    }
    got += (size_t)n;
  }
  data[size] = '\0';
  rs_error_clear(err);
  st = rs_ingest_export_at(path, data, (size_t)size, format, instant_t, opts, sink, ctx, result,
                           err);
  free(data);
  return st;
}

/* One reading of a file: the state the passes share. */
typedef struct job {
  rs_arena arena;
  rs_export x;
  rs_series_map defaults;
  reader r;
  cursor c;
  char *buf;         /* pass 1's window */
  size_t wcap;       /* its size */
  const char *mem;   /* a plain memory input, read in place (else NULL) */
  long long mem_len; /* its bytes */
  const char *path;
  const rs_ingest_options *opts;
  rs_sample_format format;
  day_cache days;
  rs_error *err;
} job;

static void begin(job *j) {
  rs_arena_init(&j->arena, 0);
  memset(&j->r, 0, sizeof(j->r));
  rs_export_init(&j->x, &j->arena, j->path, j->opts && j->opts->map ? j->opts->map : &j->defaults);
  j->x.select = j->opts && j->opts->select && j->opts->select->n > 0 ? j->opts->select : NULL;
}

static void end(job *j) {
  free(j->r.s);
  free(j->r.marks);
  j->r.s = NULL;
  j->r.marks = NULL;
  rs_export_release(&j->x);
  rs_arena_release(&j->arena);
}

/* Pass 1 over the cursor's stream or file. */
static rs_status pass1(job *j, bool skim) {
  j->r.x = &j->x;
  j->r.c = &j->c;
  j->r.cw = j->format == RS_FORMAT_CLOUDWATCH;
  j->r.skim = skim;
  memset(&j->days, 0, sizeof(j->days));
  j->r.days = &j->days;
  rs_status st = fill(&j->c);
  if (st == RS_OK)
    st = read_root(&j->r);
  rs_jstream_labels_clear(&j->r);
  return st;
}

/* Pass 1 again, from a fresh start, over the whole file fd. */
static rs_status rerun(job *j, int fd, bool strict, bool skim) {
  end(j);
  begin(j);
  j->c = (cursor){.buf = j->buf,
                  .cap = j->wcap,
                  .look = LOOK,
                  .fd = fd,
                  .mem = j->mem,
                  .mem_len = j->mem_len,
                  .line = 1,
                  .strict = strict,
                  .path = j->path,
                  .err = j->err};
  rs_error_clear(j->err);
  return pass1(j, skim);
}

static bool data_error(rs_status st) {
  return st == RS_INVALID || st == RS_SYNTAX || st == RS_LIMIT;
}

/* After a full pass 1 that failed: an empty file's error, the tree reader
 * for a file it takes (*tree set: its rows and result are the answer), or
 * a strict pass again without strictness for a copy over the cap. */
static rs_status settle(job *j, rs_status st, int fd, long long size, rs_sample_format format,
                        double instant_t, rs_sample_sink sink, void *ctx, rs_ingest_result *result,
                        bool *tree) {
  if (st == RS_OK || (fd < 0 && j->mem == NULL))
    return st;
  if (size == 0) {
    rs_error_clear(j->err);
    return rs_error_set(j->err, RS_INVALID, j->path, 1, 1, "empty file, expected %s data",
                        rs_format_name(format));
  }
  if (size <= (long long)rs_json_stream_tree_max) {
    *tree = true;
    return fallback(fd, j->mem, size, j->path, format, instant_t, j->opts, sink, ctx, result,
                    j->err);
  }
  if (j->c.strict) /* a copy over the cap that strict pass 1 refused: read it as a big file */
    return rerun(j, fd, false, false);
  return st;
}

rs_status rs_ingest_json_stream(rs_instream *in, const char *path, rs_sample_format format,
                                double instant_t, const rs_ingest_options *opts,
                                rs_sample_sink sink, void *ctx, rs_ingest_result *result,
                                bool *handled, rs_error *err) {
  job j = {.path = path, .opts = opts, .format = format, .err = err};
  struct stat sb;
  FILE *spool = NULL;
  int fd = -1;
  long long size = -1;
  uint64_t rows = 0;
  bool strict, full = false, tree = false;
  rs_status st = RS_OK;
  size_t mem_len = 0;
  bool seekable;
  *handled = true;
  j.mem = rs_instream_memory(in, &mem_len);
  /* A plain memory input is read in place, and a plain regular file again
   * from its start (a memory input's name is never opened); anything else
   * (standard input, a decompressed stream) is copied to a temporary file
   * as pass 1 reads it. */
  if (j.mem != NULL) {
    size = j.mem_len = (long long)mem_len;
  } else if (rs_instream_encoding(in) == NULL && strcmp(path, "-") != 0 &&
             (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
      size = (long long)sb.st_size;
    } else {
      close(fd);
      fd = -1;
    }
  }
  /* Pass 1's window: the whole input when it is smaller than WINDOW. */
  j.wcap = WINDOW;
  if (size >= 0 && (unsigned long long)size < j.wcap - 1)
    j.wcap = (size_t)size + 1;
  if ((j.buf = malloc(j.wcap)) == NULL) {
    if (fd >= 0)
      close(fd);
    return rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory reading the document");
  }
  j.c = (cursor){.buf = j.buf,
                 .cap = j.wcap,
                 .look = LOOK,
                 .fd = -1,
                 .mem = j.mem,
                 .mem_len = j.mem_len,
                 .line = 1,
                 .path = path,
                 .err = err};
  if (j.mem != NULL) {
    /* read in place */
  } else if (fd < 0) {
    if ((spool = tmpfile()) == NULL) { /* no temporary directory: read it whole */
      free(j.buf);
      *handled = false;
      return RS_OK;
    }
    j.c.in = in;
    j.c.spool = spool;
  } else {
    j.c.fd = fd;
  }
  strict = j.c.strict = size < 0 || size <= (long long)rs_json_stream_tree_max;

  rs_series_map_init(&j.defaults);
  begin(&j);
  st = pass1(&j, true);
  full = false; /* pass 1 skims query_range points and get-metric-data values */
  if (spool != NULL) {
    /* the rest of the input into the copy (after an error), then read it */
    while (st == RS_OK || data_error(st)) {
      if (j.c.eof)
        break;
      j.c.pos = j.c.end;
      rs_status rd = fill(&j.c);
      if (rd != RS_OK) {
        st = rd;
        break;
      }
    }
    if (j.c.eof && fflush(spool) == 0) {
      fd = fileno(spool);
      size = j.c.base + (long long)j.c.end;
    }
  }
  /* Pass 1 skims: whatever it refuses, the full pass (every point checked
   * in file order) says why, or takes. */
  seekable = fd >= 0 || j.mem != NULL;
  if (data_error(st) && !full && seekable && size > 0) {
    st = rerun(&j, fd, strict, false);
    full = true;
  }
  st = settle(&j, st, fd, size, format, instant_t, sink, ctx, result, &tree);
  if (!tree) {
    if (st == RS_OK && j.r.points == 0)
      st = rs_export_no_samples(&j.x, err);
    else if (st == RS_OK && !seekable)
      st = rs_error_set(err, RS_IO, path, 0, 0, "cannot read the temporary copy of the input");
    else if (st == RS_OK) {
      st = merge(&j.r, fd, j.mem, size, sink, ctx, &rows, err);
      /* Pass 2 checks the points pass 1 skimmed, in time order: the full
       * pass finds the first mistake in file order, the one reported as
       * before; without one, pass 2's own error (a clash of series) stands. */
      if (data_error(st) && j.r.cw && size <= (long long)rs_json_stream_tree_max) {
        /* the tree reader's message (pass 1 took it all, so it fails too) */
        tree = true;
        st = fallback(fd, j.mem, size, path, format, instant_t, opts, sink, ctx, result, err);
      } else if (data_error(st) && !full) {
        rs_error found = *err;
        st = settle(&j, rerun(&j, fd, strict, false), fd, size, format, instant_t, sink, ctx,
                    result, &tree);
        if (st == RS_OK && !tree) {
          *err = found;
          st = found.status;
        }
      }
    }
  }
  if (result != NULL && !tree) {
    memset(result, 0, sizeof(*result));
    result->format = format;
    result->rows = rows;
    result->notes = j.x.notes;
  }
  end(&j);
  free(j.buf);
  if (spool != NULL)
    fclose(spool);
  else if (fd >= 0)
    close(fd);
  return st;
}

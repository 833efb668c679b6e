/* One native CSV on several threads (docs/scale.md, "Reading a native CSV
 * on several cores"). A plain file (not standard input, not compressed) of
 * at least RS_INGEST_SPLIT_MIN and two parts of RS_INGEST_PART_MIN is cut at line ends after its
 * header into one byte range per thread; each thread reads its range with
 * ingest.c's row loop (rs_ingest_csv_rows) into an accumulator of its own,
 * and the accumulators are appended in file order, the first to the
 * caller's last. The caller's accumulators make that the same bits as one
 * pass (rs_stats_append); where they cannot (a series going back in time
 * across a cut) or where a cut may not be a record boundary (a quote in
 * the file), and for every error, the file is read again in one pass, so
 * output and messages are one pass's whatever the thread count. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ingest_internal.h"
#include "rightsize/ingest.h"

#define MAX_PARTS 64
#define HEAD_BYTES ((size_t)64 << 10) /* the header must end within this */
#define SNIFF_BYTES 4096              /* what rs_ingest_file sniffs (RS_INSTREAM_HEAD) */

typedef struct shared {
  const rs_ingest_parts *how;
  const char *path;
  int fd;
  size_t max_record_bytes;
  const rs_ingest_layout *layout;
  rs_progress *progress;
  pthread_mutex_t progress_lock;
  _Atomic uint64_t done; /* bytes read by every part */
} shared;

typedef struct part {
  shared *sh;
  uint64_t pos, end; /* the byte range still to read */
  bool quote;        /* a '"' in the range: a cut may be inside a quoted field */
  void *acc;
  rs_ingest_result res;
  rs_status st;
  rs_error err;
} part;

typedef struct plan {
  int fd;
  uint64_t size;
  size_t n;                    /* parts */
  uint64_t cut[MAX_PARTS + 1]; /* part k is [cut[k], cut[k + 1]) */
  rs_arena arena;              /* the layout */
  rs_ingest_layout layout;
} plan;

static bool compressed(const unsigned char *p, size_t n) {
  return (n >= 2 && p[0] == 0x1f && p[1] == 0x8b) ||
         (n >= 4 && memcmp(p, "\x28\xB5\x2F\xFD", 4) == 0);
}

static ssize_t read_at(int fd, char *buf, size_t len, uint64_t at) {
  ssize_t k;
  do
    k = pread(fd, buf, len, (off_t)at);
  while (k < 0 && errno == EINTR);
  return k;
}

/* The header as rs_ingest_file reads it; the offset just past its line. */
static bool read_header(plan *pl, const char *path, const rs_ingest_options *opts, uint64_t *body) {
  rs_csv_options copts = {.delimiter = ',', .max_record_bytes = opts ? opts->max_record_bytes : 0};
  rs_csv_reader *reader = NULL;
  rs_sample_format format = RS_FORMAT_AUTO;
  size_t line = 0, lines = 0;
  rs_error err;
  char *buf = rs_arena_alloc(&pl->arena, HEAD_BYTES);
  ssize_t len = buf ? read_at(pl->fd, buf, HEAD_BYTES, 0) : -1;
  if (len <= 0 || compressed((const unsigned char *)buf, (size_t)len))
    return false;
  if ((opts == NULL || opts->format == RS_FORMAT_AUTO) &&
      rs_export_sniff(buf, (size_t)len < SNIFF_BYTES ? (size_t)len : SNIFF_BYTES) != RS_FORMAT_AUTO)
    return false;
  rs_error_clear(&err);
  bool ok = rs_csv_open_memory(&reader, path, buf, (size_t)len, &copts, &err) == RS_OK &&
            rs_ingest_csv_header(&pl->layout, &format, &line, reader, path, opts, &pl->arena,
                                 &err) == RS_OK &&
            format == RS_FORMAT_NATIVE && !pl->layout.headerless;
  rs_csv_free(reader);
  for (ssize_t i = 0; ok && i < len; i++)
    if (buf[i] == '\n' && ++lines == line) {
      *body = (uint64_t)i + 1;
      return true;
    }
  return false;
}

/* The first line start at or after at (size when none). */
static uint64_t line_start(int fd, uint64_t at, uint64_t size) {
  char buf[1 << 16];
  while (at < size) {
    ssize_t k = read_at(fd, buf, sizeof(buf), at);
    if (k <= 0)
      return size;
    const char *nl = memchr(buf, '\n', (size_t)k);
    if (nl != NULL)
      return at + (uint64_t)(nl - buf) + 1;
    at += (uint64_t)k;
  }
  return size;
}

/* Whether path is a file to cut, and where. */
static bool make_plan(plan *pl, const char *path, const rs_ingest_options *opts, unsigned threads) {
  struct stat sb;
  uint64_t body = 0;
  if (threads < 2 || path == NULL || strcmp(path, "-") == 0)
    return false;
  if (opts != NULL &&
      ((opts->map != NULL && opts->map->csv.set) || (opts->select != NULL && opts->select->n > 0) ||
       (opts->format != RS_FORMAT_AUTO && opts->format != RS_FORMAT_NATIVE)))
    return false;
  /* Only a regular file, looked at before it is opened: opening a FIFO
   * would wait for a writer. */
  if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size < RS_INGEST_SPLIT_MIN)
    return false; /* a small file is not opened twice */
  if (threads == RS_INGEST_THREADS_AUTO) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    threads = cpus <= 1 ? 1 : cpus > 16 ? 16 : (unsigned)cpus;
    if (threads < 2)
      return false;
  }
  pl->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (pl->fd < 0)
    return false;
  if (fstat(pl->fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
      (uint64_t)sb.st_size < 2 * RS_INGEST_PART_MIN || (uint64_t)sb.st_size < RS_INGEST_SPLIT_MIN ||
      !read_header(pl, path, opts, &body))
    return false;
  pl->size = (uint64_t)sb.st_size;
  uint64_t rows = pl->size - body, n = rows / RS_INGEST_PART_MIN;
  n = n < threads ? n : threads;
  n = n < MAX_PARTS ? n : MAX_PARTS;
  pl->n = 0;
  pl->cut[0] = body;
  for (uint64_t k = 1; k < n; k++) {
    uint64_t at = line_start(pl->fd, body + rows / n * k, pl->size);
    if (at < pl->size && at > pl->cut[pl->n])
      pl->cut[++pl->n] = at;
  }
  pl->cut[++pl->n] = pl->size;
  return pl->n >= 2;
}

static void report(shared *sh, uint64_t got) {
  uint64_t done = atomic_fetch_add(&sh->done, got) + got;
  if (sh->progress != NULL && pthread_mutex_trylock(&sh->progress_lock) == 0) {
    rs_progress_update(sh->progress, done);
    pthread_mutex_unlock(&sh->progress_lock);
  }
}

/* rs_csv_read_fn over the part's range. */
static rs_status part_read(void *ctx, char *buf, size_t cap, size_t *got, rs_error *err) {
  part *p = ctx;
  uint64_t left = p->end - p->pos;
  ssize_t k = 0;
  if (left > 0) {
    k = read_at(p->sh->fd, buf, left < cap ? (size_t)left : cap, p->pos);
    if (k < 0)
      return rs_error_set(err, RS_IO, p->sh->path, 0, 0, "read error: %s", strerror(errno));
  }
  *got = (size_t)k;
  p->pos += (uint64_t)k;
  p->quote = p->quote || memchr(buf, '"', (size_t)k) != NULL;
  report(p->sh, (uint64_t)k);
  return RS_OK;
}

static void *part_main(void *arg) {
  part *p = arg;
  shared *sh = p->sh;
  rs_csv_options copts = {.delimiter = ',', .max_record_bytes = sh->max_record_bytes};
  rs_csv_reader *reader = NULL;
  p->st = sh->how->open(sh->how->ctx, &p->acc, &p->err);
  if (p->st == RS_OK)
    p->st = rs_csv_open_source(&reader, sh->path, part_read, p, &copts, &p->err);
  if (p->st == RS_OK)
    p->st =
        rs_ingest_csv_rows(reader, sh->path, sh->layout, sh->how->sink, p->acc, &p->res, &p->err);
  rs_csv_free(reader);
  return NULL;
}

/* Appends the parts in order: into the first, then that to the caller's
 * accumulator. false (nothing appended to the caller's): read in one pass. */
static bool join(const rs_ingest_parts *how, part *parts, size_t n, rs_ingest_result *res,
                 rs_status *st, rs_error *err) {
  void *acc = parts[0].acc;
  for (size_t k = 0; k < n; k++)
    if (parts[k].st != RS_OK || parts[k].quote)
      return false;
  for (size_t k = 1; k < n; k++) {
    if (!how->fits(acc, parts[k].acc))
      return false;
    if ((*st = how->append(acc, parts[k].acc, err)) != RS_OK)
      return true;
  }
  memset(res, 0, sizeof(*res));
  res->format = RS_FORMAT_NATIVE;
  res->columns = parts[0].res.columns;
  for (size_t k = 0; k < n; k++) {
    res->rows += parts[k].res.rows;
    res->repeated_headers += parts[k].res.repeated_headers;
  }
  if (res->rows == 0 || !how->fits(how->ctx, acc))
    return false; /* "no samples" and the like: one pass says it */
  *st = how->append(how->ctx, acc, err);
  return true;
}

/* Runs the plan: true when it decided the outcome (*st), false when the
 * file is to be read in one pass. */
static bool run_plan(plan *pl, const char *path, const rs_ingest_options *opts,
                     const rs_ingest_parts *how, rs_ingest_result *res, rs_status *st,
                     rs_error *err) {
  part parts[MAX_PARTS];
  pthread_t tid[MAX_PARTS];
  bool started[MAX_PARTS];
  shared sh = {.how = how,
               .path = path,
               .fd = pl->fd,
               .max_record_bytes = opts ? opts->max_record_bytes : 0,
               .layout = &pl->layout,
               .progress = opts ? opts->progress : NULL};
  char label[160];
  pthread_mutex_init(&sh.progress_lock, NULL);
  atomic_init(&sh.done, 0);
  snprintf(label, sizeof(label), "reading %s", path);
  rs_progress_begin(sh.progress, label, NULL, pl->size);
  for (size_t k = 0; k < pl->n; k++) {
    parts[k] = (part){.sh = &sh, .pos = pl->cut[k], .end = pl->cut[k + 1], .st = RS_OK};
    rs_error_clear(&parts[k].err);
    started[k] = pthread_create(&tid[k], NULL, part_main, &parts[k]) == 0;
  }
  for (size_t k = 0; k < pl->n; k++) {
    if (started[k])
      pthread_join(tid[k], NULL);
    else
      part_main(&parts[k]); /* no thread to be had: here */
  }
  rs_progress_end(sh.progress);
  bool decided = join(how, parts, pl->n, res, st, err);
  for (size_t k = 0; k < pl->n; k++)
    if (parts[k].acc != NULL)
      how->close(parts[k].acc);
  pthread_mutex_destroy(&sh.progress_lock);
  return decided;
}

rs_status rs_ingest_file_parts(const char *path, const rs_ingest_options *opts,
                               const rs_ingest_parts *how, rs_ingest_result *result,
                               rs_error *err) {
  plan pl = {.fd = -1};
  rs_ingest_result res;
  rs_status st = RS_OK;
  bool decided = false;
  rs_arena_init(&pl.arena, 0);
  if (make_plan(&pl, path, opts, how->threads))
    decided = run_plan(&pl, path, opts, how, &res, &st, err);
  if (pl.fd >= 0)
    close(pl.fd);
  rs_arena_release(&pl.arena);
  if (!decided)
    return rs_ingest_file(path, opts, how->sink, how->ctx, result, err);
  if (result != NULL)
    *result = res;
  return st;
}

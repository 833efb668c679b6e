/* Fleet audit: discovery, fitting each profile on worker threads, ranking
 * and totals (audit.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "rightsize/audit.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "rightsize/file.h"
#include "rightsize/profile.h"

/* ---- discovery ---- */

typedef struct file_list {
  char **v;
  size_t n, cap;
  bool nomem, too_many;
  const char *root; /* realpath of the directory being walked: links never leave it */
  rs_file_id *seen; /* directories visited, so a link cycle is walked once */
  size_t nseen, capseen;
} file_list;

/* Marks directory id visited; false when it was already (or memory ran out). */
static bool visit(file_list *l, rs_file_id id) {
  if (rs_file_id_seen(l->seen, l->nseen, id))
    return false;
  if (l->nseen == l->capseen) {
    size_t cap = l->capseen ? 2 * l->capseen : 16;
    rs_file_id *v = rs_realloc_array(l->seen, cap, sizeof(*v));
    if (v == NULL) {
      l->nomem = true;
      return false;
    }
    l->seen = v;
    l->capseen = cap;
  }
  l->seen[l->nseen++] = id;
  return true;
}

static void push(file_list *l, const char *path) {
  if (l->n >= RS_AUDIT_MAX_FILES) {
    l->too_many = true;
    return;
  }
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    char **v = rs_realloc_array(l->v, cap, sizeof(*v));
    if (v == NULL) {
      l->nomem = true;
      return;
    }
    l->v = v;
    l->cap = cap;
  }
  char *copy = strdup(path);
  if (copy == NULL) {
    l->nomem = true;
    return;
  }
  l->v[l->n++] = copy;
}

static void walk(file_list *l, const char *dir, int depth) {
  DIR *d = opendir(dir);
  struct dirent *e;
  if (d == NULL || depth > 64) {
    if (d)
      closedir(d);
    return;
  }
  while ((e = readdir(d)) != NULL && !l->nomem && !l->too_many) {
    rs_file_id id;
    size_t n = strlen(dir) + strlen(e->d_name) + 2;
    char *p;
    if (e->d_name[0] == '.')
      continue;
    if ((p = malloc(n)) == NULL) {
      l->nomem = true;
      break;
    }
    snprintf(p, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
    switch (rs_file_classify(&id, l->root, p)) {
    case RS_FILE_DIRECTORY:
      if (visit(l, id))
        walk(l, p, depth + 1);
      break;
    case RS_FILE_REGULAR:
      if (rs_profile_is_path(p))
        push(l, p);
      break;
    case RS_FILE_SPECIAL: /* a walk finds files; a FIFO is not a profile */
    case RS_FILE_SKIP: break;
    }
    free(p);
  }
  closedir(d);
}

/* Walks the directory root, whose links may point anywhere inside it. */
static rs_status walk_root(file_list *l, const char *root, const struct stat *sb, rs_error *err) {
  char *real = realpath(root, NULL);
  if (real == NULL)
    return errno == ENOMEM
               ? rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory listing profiles")
               : rs_file_open_error(err, root, errno);
  l->root = real;
  if (visit(l, (rs_file_id){(unsigned long long)sb->st_dev, (unsigned long long)sb->st_ino}))
    walk(l, root, 0);
  l->root = NULL;
  free(real);
  return RS_OK;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

rs_status rs_audit_discover(const char ***files, size_t *nfiles, rs_arena *arena,
                            const char *const *paths, size_t npaths, rs_error *err) {
  file_list l = {0};
  rs_status st = RS_OK;
  for (size_t i = 0; i < npaths && st == RS_OK; i++) {
    struct stat sb;
    if (stat(paths[i], &sb) != 0)
      st = rs_file_open_error(err, paths[i], errno);
    else if (S_ISDIR(sb.st_mode))
      st = walk_root(&l, paths[i], &sb, err);
    else
      push(&l, paths[i]);
  }
  free(l.seen);
  if (st == RS_OK && l.nomem)
    st = rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory listing profiles");
  if (st == RS_OK && l.too_many)
    st = rs_error_set(err, RS_LIMIT, NULL, 0, 0, "more than %d profiles to audit",
                      RS_AUDIT_MAX_FILES);
  if (st == RS_OK && l.n == 0)
    st = rs_error_set(err, RS_INVALID, paths[0], 0, 0,
                      "no profiles found (*.yaml, *.yml or *.json files)");
  if (st == RS_OK) {
    qsort(l.v, l.n, sizeof(*l.v), cmp_str);
    const char **out = rs_arena_alloc_array(arena, l.n, sizeof(*out));
    size_t n = 0;
    for (size_t i = 0; out && i < l.n; i++) {
      if (n > 0 && strcmp(out[n - 1], l.v[i]) == 0)
        continue;
      if ((out[n] = rs_arena_strdup(arena, l.v[i])) == NULL)
        out = NULL;
      else
        n++;
    }
    if (out == NULL)
      st = rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory listing profiles");
    *files = out;
    *nfiles = n;
  }
  for (size_t i = 0; i < l.n; i++)
    free(l.v[i]);
  free(l.v);
  return st;
}

/* ---- fitting on threads ---- */

/* A worker's profiles each get a fresh arena, released as soon as the
 * profile's row is kept; its blocks go back to this cache, not to malloc, so
 * a fleet does not allocate, fault in and trim the same megabyte per
 * profile. */
#define CACHE_BLOCKS 64

typedef struct block_cache {
  void *v[CACHE_BLOCKS];
  size_t n;
} block_cache;

typedef union block_head {
  size_t size;
  max_align_t align;
} block_head;

static void *cache_alloc(void *ctx, size_t size) {
  block_cache *c = ctx;
  size_t best = SIZE_MAX;
  for (size_t i = 0; i < c->n; i++) { /* the smallest cached block that holds size */
    size_t have = ((block_head *)c->v[i])->size;
    if (have >= size && have <= 2 * size &&
        (best == SIZE_MAX || have < ((block_head *)c->v[best])->size))
      best = i;
  }
  if (best != SIZE_MAX) {
    block_head *h = c->v[best];
    c->v[best] = c->v[--c->n];
    return h + 1;
  }
  if (size > SIZE_MAX - sizeof(block_head))
    return NULL;
  block_head *h = malloc(sizeof(*h) + size);
  if (h == NULL)
    return NULL;
  h->size = size;
  return h + 1;
}

static void cache_free(void *ctx, void *p) {
  block_cache *c = ctx;
  block_head *h = (block_head *)p - 1;
  if (c->n < CACHE_BLOCKS)
    c->v[c->n++] = h;
  else
    free(h);
}

static void cache_release(block_cache *c) {
  for (size_t i = 0; i < c->n; i++)
    free(c->v[i]);
  c->n = 0;
}

typedef struct work {
  const char *const *files;
  size_t n;
  atomic_size_t next; /* the next profile to take: workers stay busy to the end */
  pthread_mutex_t progress_lock;
  const rs_audit_options *o;
  rs_audit *a;
} work;

typedef struct worker_ctx {
  work *w;
  rs_arena *keep; /* this worker's rows' data, for the audit's lifetime */
  block_cache cache;
  rs_arena_allocator allocator;
  rs_status failed; /* RS_NOMEM: keeping a row ran out of memory */
} worker_ctx;

/* The row's action and money, from its fit (the numbers the writers print). */
static void decide(rs_audit_row *row, const rs_fit_result *fit) {
  row->now_month = fit->current.usd_per_month;
  row->action = fit->verdict.action;
  if (fit->verdict.target == NULL) {
    row->after_month = row->now_month;
    row->confidence = fit->current.confidence;
  } else {
    row->after = fit->verdict.target->inst;
    row->after_replicas = fit->verdict.target->replicas;
    row->after_month = fit->verdict.target->usd_per_month;
    row->confidence = fit->verdict.target->confidence;
  }
  row->savings_month = row->now_month - row->after_month;
  row->savings_pct = row->now_month > 0 ? row->savings_month / row->now_month * 100.0 : NAN;
}

static char *canonical(const char *path);

/* The files p reads, as the profile names them (made canonical by
 * drop_inputs, and only when a profile failed: a realpath per sample file
 * was about 1% of an audit). */
static bool keep_refs(rs_audit_row *row, rs_arena *keep, const rs_profile *p) {
  size_t n = 0;
  for (size_t k = 0; k < 2 * p->nfiles; k++)
    n += (k % 2 ? p->files[k / 2].mapping : p->files[k / 2].path) != NULL;
  if (n == 0)
    return true;
  const char **refs = rs_arena_alloc_array(keep, n, sizeof(*refs));
  if (refs == NULL)
    return false;
  for (size_t k = 0; k < 2 * p->nfiles; k++) {
    const char *ref = k % 2 ? p->files[k / 2].mapping : p->files[k / 2].path;
    if (ref == NULL)
      continue;
    refs[row->nrefs] = rs_arena_strdup(keep, ref);
    if (refs[row->nrefs++] == NULL)
      return false;
  }
  row->refs = refs;
  return true;
}

/* Reduces the loaded profile and its fit (in the profile's arena, about to
 * be freed) to the row the reports print, in keep. */
static bool keep_row(rs_audit_row *row, rs_arena *keep, const rs_profile *p,
                     const rs_fit_result *fit, const rs_audit_options *o) {
  if (p->endpoint && (row->endpoint = rs_arena_strdup(keep, p->endpoint)) == NULL)
    return false;
  if (!keep_refs(row, keep, p))
    return false;
  if (fit == NULL)
    return true;
  if (p->current.instance &&
      (row->current_instance = rs_arena_strdup(keep, p->current.instance)) == NULL)
    return false;
  row->current_replicas = p->current.replicas;
  row->current = fit->current.inst;
  row->current_fit_replicas = fit->current.replicas;
  row->verdict = fit->verdict.code;
  row->wasted_month = fit->verdict.wasted_month;
  row->nfitting = fit->nfitting;
  if (fit->nwarnings) {
    rs_warning_code *w = rs_arena_alloc_array(keep, fit->nwarnings, sizeof(*w));
    if (w == NULL)
      return false;
    for (size_t k = 0; k < fit->nwarnings; k++)
      w[k] = fit->warnings[k].code;
    row->warnings = w;
    row->nwarnings = fit->nwarnings;
  }
  decide(row, fit);
  return !o->consolidate || rs_audit_row_shares(row, keep, fit, o->pipeline->fit.max_util) == RS_OK;
}

static void audit_one(worker_ctx *ctx, size_t i) {
  work *w = ctx->w;
  rs_audit_row *row = &w->a->rows[i];
  rs_arena arena;
  const rs_profile *p = NULL;
  rs_profile *loaded = NULL;
  rs_fit_result *fit = NULL;
  rs_error err;
  rs_error_clear(&err);
  rs_arena_init(&arena, 0);
  rs_arena_set_allocator(&arena, &ctx->allocator);
  row->path = w->files[i];
  rs_status st = RS_OK;
  if (w->o->profiles != NULL)
    p = w->o->profiles[i];
  else if ((st = rs_profile_load(&loaded, &arena, w->files[i], &err)) == RS_OK)
    p = loaded;
  if (st == RS_OK)
    st = rs_pipeline_fit_profile(&fit, &arena, w->o->pipeline, p, &err);
  row->ok = st == RS_OK;
  bool kept = p == NULL || keep_row(row, ctx->keep, p, row->ok ? fit : NULL, w->o);
  if (kept && !row->ok) {
    rs_error *e = rs_arena_alloc(ctx->keep, sizeof(*e));
    if (e != NULL)
      *e = err;
    row->err = e;
    kept = e != NULL;
  }
  if (!kept)
    ctx->failed = RS_NOMEM;
  rs_arena_release(&arena);
}

static void *worker(void *arg) {
  worker_ctx *ctx = arg;
  work *w = ctx->w;
  for (;;) {
    size_t i = atomic_fetch_add(&w->next, 1);
    if (w->o->progress != NULL) { /* the progress line is not thread-safe: one writer at a time */
      pthread_mutex_lock(&w->progress_lock);
      rs_progress_update(w->o->progress, i < w->n ? i : w->n);
      pthread_mutex_unlock(&w->progress_lock);
    }
    if (i >= w->n)
      break;
    audit_one(ctx, i);
  }
  cache_release(&ctx->cache);
  return NULL;
}

static char *canonical(const char *path) {
  char *r = realpath(path, NULL);
  return r ? r : strdup(path);
}

/* Drops the failed rows whose file another loaded profile reads as a sample
 * or mapping file (a mapping YAML next to its profile is not a profile). */
static rs_status drop_inputs(rs_audit *a) {
  size_t n = 0, failed = 0;
  for (size_t i = 0; i < a->nrows; i++) {
    n += a->rows[i].nrefs;
    failed += !a->rows[i].ok;
  }
  if (n == 0 || failed == 0)
    return RS_OK;
  char **refs = rs_malloc_array(n, sizeof(*refs));
  if (refs == NULL)
    return RS_NOMEM;
  rs_status st = RS_OK;
  n = 0;
  for (size_t i = 0; i < a->nrows && st == RS_OK; i++)
    for (size_t k = 0; k < a->rows[i].nrefs && st == RS_OK; k++)
      if ((refs[n] = canonical(a->rows[i].refs[k])) == NULL)
        st = RS_NOMEM;
      else
        n++;
  qsort(refs, n, sizeof(*refs), cmp_str);
  size_t kept = 0;
  for (size_t i = 0; i < a->nrows; i++) {
    bool input = false;
    if (!a->rows[i].ok) {
      char *self = canonical(a->rows[i].path);
      if (self == NULL)
        st = RS_NOMEM;
      input = self && bsearch(&self, refs, n, sizeof(*refs), cmp_str) != NULL;
      free(self);
    }
    if (!input)
      a->rows[kept++] = a->rows[i];
  }
  a->nrows = kept;
  for (size_t i = 0; i < n; i++)
    free(refs[i]);
  free(refs);
  return st;
}

/* Savings first; failed rows last; then endpoint name and path. */
static int cmp_rows(const void *pa, const void *pb) {
  const rs_audit_row *a = pa, *b = pb;
  if (a->ok != b->ok)
    return a->ok ? -1 : 1;
  if (a->ok) {
    double sa = isnan(a->savings_month) ? -INFINITY : a->savings_month;
    double sb = isnan(b->savings_month) ? -INFINITY : b->savings_month;
    if (sa != sb)
      return sa > sb ? -1 : 1;
    int r = strcmp(a->endpoint, b->endpoint);
    if (r)
      return r;
  }
  return strcmp(a->path, b->path);
}

static unsigned thread_count(unsigned asked, size_t n) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned t = asked ? asked : (cpus > 0 ? (unsigned)cpus : 1);
  if (t > 16 && !asked)
    t = 16;
  if (t > n)
    t = (unsigned)n;
  return t ? t : 1;
}

#ifdef __GLIBC__
/* glibc gives freed memory back to the kernel as soon as the top of a heap
 * is 128 KiB free, and serves blocks from 128 KiB up with mmap: a worker
 * that frees a profile's statistics (about 100 KB) and allocates the next
 * one's would trim, fault in and flush the TLB once per profile. */
static void no_trim_storms(void) {
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  mallopt(M_MMAP_THRESHOLD, 16 << 20);
}
#else
static void no_trim_storms(void) {}
#endif

rs_status rs_audit_run(rs_audit **out, const char *const *files, size_t nfiles,
                       const rs_audit_options *opts, rs_error *err) {
  rs_audit *a = calloc(1, sizeof(*a));
  unsigned nt = thread_count(opts->threads, nfiles), started = 0;
  if (nt > 256)
    nt = 256;
  *out = NULL;
  if (a == NULL)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  no_trim_storms();
  a->max_util = opts->pipeline->fit.max_util;
  a->catalog = opts->pipeline->catalog;
  a->basis = opts->pipeline->basis;
  a->overlay = opts->pipeline->overlay;
  a->rows = calloc(nfiles ? nfiles : 1, sizeof(*a->rows));
  a->arenas = calloc(nt, sizeof(*a->arenas));
  worker_ctx *ctx = calloc(nt, sizeof(*ctx));
  if (a->rows == NULL || a->arenas == NULL || ctx == NULL) {
    free(ctx);
    rs_audit_free(a);
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  }
  a->nrows = nfiles;
  a->narenas = nt;
  for (unsigned t = 0; t < nt; t++)
    rs_arena_init(&a->arenas[t], 0);
  /* The projection depends on the catalog alone: fitted once, not per profile. */
  rs_pipeline pipeline = *opts->pipeline;
  rs_audit_options o = *opts;
  o.pipeline = &pipeline;
  /* A row keeps numbers, codes and the verdict's shapes (keep_row): no
   * texts, and without consolidation, which reads every fit, only the
   * shapes that can change the verdict. */
  pipeline.fit.terse = true;
  pipeline.fit.verdict_only = !opts->consolidate;
  if (pipeline.fit.projection == NULL &&
      rs_fit_projection(&pipeline.fit.projection, &a->arenas[0], pipeline.catalog) != RS_OK) {
    free(ctx);
    rs_audit_free(a);
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  }
  work w = {.files = files, .n = nfiles, .o = &o, .a = a};
  atomic_init(&w.next, 0);
  pthread_mutex_init(&w.progress_lock, NULL);
  pthread_t tids[256];
  for (unsigned t = 0; t < nt; t++) {
    ctx[t] = (worker_ctx){.w = &w, .keep = &a->arenas[t], .failed = RS_OK};
    ctx[t].allocator = (rs_arena_allocator){cache_alloc, cache_free, &ctx[t].cache};
  }
  for (unsigned t = 1; t < nt; t++) { /* this thread is the first worker */
    if (pthread_create(&tids[started], NULL, worker, &ctx[t]) != 0)
      break;
    started++;
  }
  worker(&ctx[0]);
  for (unsigned t = 0; t < started; t++)
    pthread_join(tids[t], NULL);
  pthread_mutex_destroy(&w.progress_lock);
  bool nomem = false;
  for (unsigned t = 0; t < nt; t++)
    nomem = nomem || ctx[t].failed != RS_OK;
  free(ctx);
  if (nomem || drop_inputs(a) != RS_OK) {
    rs_audit_free(a);
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  }
  for (size_t i = 0; i < a->nrows; i++) {
    const rs_audit_row *r = &a->rows[i];
    if (!r->ok && r->err->status == RS_NOMEM) {
      /* Memory ran out, which says nothing about the profile: the run fails. */
      if (err != NULL && err->status == RS_OK)
        *err = *r->err;
      rs_audit_free(a);
      return RS_NOMEM;
    }
    if (!r->ok) {
      a->nfailed++;
      continue;
    }
    if (isfinite(r->now_month) && isfinite(r->after_month)) { /* an unpriced current shape */
      a->now_month += r->now_month;
      a->after_month += r->after_month;
    }
  }
  a->savings_month = a->now_month - a->after_month;
  a->savings_pct = a->now_month > 0 ? a->savings_month / a->now_month * 100.0 : NAN;
  qsort(a->rows, a->nrows, sizeof(*a->rows), cmp_rows);
  *out = a;
  return RS_OK;
}

void rs_audit_free(rs_audit *a) {
  if (a == NULL)
    return;
  for (size_t i = 0; a->arenas && i < a->narenas; i++)
    rs_arena_release(&a->arenas[i]);
  free(a->arenas);
  free(a->rows);
  free(a);
}

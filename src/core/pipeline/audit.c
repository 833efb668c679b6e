/* Fleet audit: discovery, fitting each profile on worker threads, ranking
 * and totals (audit.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "rightsize/audit.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

typedef struct work {
  const char *const *files;
  size_t n, next;
  pthread_mutex_t lock;
  const rs_audit_options *o;
  rs_audit *a;
} work;

/* The row's action and money, from its fit (the numbers the writers print). */
static void decide(rs_audit_row *row, const rs_fit_result *fit) {
  row->fit = fit;
  row->now_month = fit->current.usd_per_month;
  row->action = fit->verdict.action;
  if (fit->verdict.target == NULL) {
    row->after_month = row->now_month;
    row->confidence = fit->current.confidence;
  } else {
    row->after = fit->verdict.target;
    row->after_month = row->after->usd_per_month;
    row->confidence = row->after->confidence;
  }
  row->savings_month = row->now_month - row->after_month;
  row->savings_pct = row->now_month > 0 ? row->savings_month / row->now_month * 100.0 : NAN;
}

static void audit_one(work *w, size_t i) {
  rs_audit_row *row = &w->a->rows[i];
  rs_arena *arena = &w->a->arenas[i];
  const rs_profile *p = NULL;
  rs_profile *loaded = NULL;
  rs_fit_result *fit;
  rs_error_clear(&row->err);
  row->path = w->files[i];
  rs_status st = RS_OK;
  if (w->o->profiles != NULL)
    p = w->o->profiles[i];
  else if ((st = rs_profile_load(&loaded, arena, w->files[i], &row->err)) == RS_OK)
    p = loaded;
  if (st == RS_OK) {
    row->profile = p;
    st = rs_pipeline_fit_profile(&fit, arena, w->o->pipeline, p, &row->err);
  }
  row->ok = st == RS_OK;
  if (row->ok)
    decide(row, fit);
}

static void *worker(void *arg) {
  work *w = arg;
  for (;;) {
    pthread_mutex_lock(&w->lock);
    size_t i = w->next++;
    rs_progress_update(w->o->progress, i < w->n ? i : w->n);
    pthread_mutex_unlock(&w->lock);
    if (i >= w->n)
      return NULL;
    audit_one(w, i);
  }
}

static char *canonical(const char *path) {
  char *r = realpath(path, NULL);
  return r ? r : strdup(path);
}

/* Drops the failed rows whose file another loaded profile reads as a sample
 * or mapping file (a mapping YAML next to its profile is not a profile). */
static rs_status drop_inputs(rs_audit *a) {
  size_t n = 0, cap = 0;
  char **refs = NULL;
  rs_status st = RS_OK;
  for (size_t i = 0; i < a->nrows && st == RS_OK; i++) {
    const rs_profile *p = a->rows[i].profile;
    for (size_t k = 0; p && k < 2 * p->nfiles && st == RS_OK; k++) {
      const char *ref = k % 2 ? p->files[k / 2].mapping : p->files[k / 2].path;
      if (ref == NULL)
        continue;
      if (n == cap) {
        char **v = rs_realloc_array(refs, cap = cap ? 2 * cap : 64, sizeof(*v));
        if (v == NULL) {
          st = RS_NOMEM;
          break;
        }
        refs = v;
      }
      if ((refs[n] = canonical(ref)) == NULL)
        st = RS_NOMEM;
      else
        n++;
    }
  }
  if (st == RS_OK && n > 0) {
    qsort(refs, n, sizeof(*refs), cmp_str);
    size_t kept = 0;
    for (size_t i = 0; i < a->nrows; i++) {
      char *self = a->rows[i].ok ? NULL : canonical(a->rows[i].path);
      bool input = self && bsearch(&self, refs, n, sizeof(*refs), cmp_str) != NULL;
      free(self);
      if (!input)
        a->rows[kept++] = a->rows[i];
    }
    a->nrows = kept;
  }
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
    int r = strcmp(a->fit->summary->profile->endpoint, b->fit->summary->profile->endpoint);
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

rs_status rs_audit_run(rs_audit **out, const char *const *files, size_t nfiles,
                       const rs_audit_options *opts, rs_error *err) {
  rs_audit *a = calloc(1, sizeof(*a));
  *out = NULL;
  if (a == NULL)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  a->max_util = opts->pipeline->fit.max_util;
  a->catalog = opts->pipeline->catalog;
  a->basis = opts->pipeline->basis;
  a->overlay = opts->pipeline->overlay;
  a->rows = calloc(nfiles ? nfiles : 1, sizeof(*a->rows));
  a->arenas = calloc(nfiles ? nfiles : 1, sizeof(*a->arenas));
  if (a->rows == NULL || a->arenas == NULL) {
    rs_audit_free(a);
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  }
  a->nrows = a->narenas = nfiles;
  for (size_t i = 0; i < nfiles; i++)
    rs_arena_init(&a->arenas[i], 0);
  work w = {files, nfiles, 0, PTHREAD_MUTEX_INITIALIZER, opts, a};
  unsigned nt = thread_count(opts->threads, nfiles), started = 0;
  pthread_t tids[256];
  if (nt > 256)
    nt = 256;
  for (unsigned t = 1; t < nt; t++) { /* this thread is the first worker */
    if (pthread_create(&tids[started], NULL, worker, &w) != 0)
      break;
    started++;
  }
  worker(&w);
  for (unsigned t = 0; t < started; t++)
    pthread_join(tids[t], NULL);
  pthread_mutex_destroy(&w.lock);
  if (drop_inputs(a) != RS_OK) {
    rs_audit_free(a);
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  }
  for (size_t i = 0; i < a->nrows; i++) {
    const rs_audit_row *r = &a->rows[i];
    if (!r->ok && r->err.status == RS_NOMEM) {
      /* Memory ran out, which says nothing about the profile: the run fails. */
      if (err != NULL && err->status == RS_OK)
        *err = r->err;
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
  for (size_t i = 0; i < a->narenas; i++)
    rs_arena_release(&a->arenas[i]);
  free(a->arenas);
  free(a->rows);
  free(a);
}

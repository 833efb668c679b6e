/* Endpoints from sample files that hold many: the rows split by the
 * mapping's endpoint column, each endpoint a profile built from the
 * mapping's profile section (audit.h, rs_audit_split). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rightsize/audit.h"
#include "rightsize/doc.h"

/* The files to read: files as given, a directory's regular files (not its
 * dot files) in byte order of their names. */
typedef struct path_list {
  const char **v;
  size_t n, cap;
} path_list;

static rs_status add_path(path_list *l, rs_arena *arena, const char *path, rs_error *err) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 32;
    const char **v = rs_arena_alloc_array(arena, cap, sizeof(*v));
    if (v == NULL)
      return rs_arena_error(arena, err, path, "listing sample files");
    if (l->n)
      memcpy(v, l->v, l->n * sizeof(*v));
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = path;
  return RS_OK;
}

static int cmp_path(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static rs_status add_dir(path_list *l, rs_arena *arena, const char *dir, rs_error *err) {
  DIR *d = opendir(dir);
  struct dirent *e;
  size_t first = l->n;
  rs_status st = RS_OK;
  if (d == NULL)
    return rs_error_set(err, RS_IO, dir, 0, 0, "cannot open: %s", strerror(errno));
  while (st == RS_OK && (e = readdir(d)) != NULL) {
    struct stat sb;
    size_t n = strlen(dir) + strlen(e->d_name) + 2;
    char *p = rs_arena_alloc(arena, n);
    if (e->d_name[0] == '.')
      continue;
    if (p == NULL) {
      st = rs_arena_error(arena, err, dir, "listing sample files");
      break;
    }
    snprintf(p, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
    if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode))
      st = add_path(l, arena, p, err);
  }
  closedir(d);
  qsort(l->v + first, l->n - first, sizeof(*l->v), cmp_path);
  return st;
}

static rs_status list_paths(path_list *l, rs_arena *arena, const char *const *paths, size_t npaths,
                            rs_error *err) {
  rs_status st = RS_OK;
  for (size_t i = 0; st == RS_OK && i < npaths; i++) {
    struct stat sb;
    if (strcmp(paths[i], "-") != 0 && stat(paths[i], &sb) == 0 && S_ISDIR(sb.st_mode))
      st = add_dir(l, arena, paths[i], err);
    else
      st = add_path(l, arena, paths[i], err);
  }
  if (st == RS_OK && l->n == 0)
    st = rs_error_set(err, RS_INVALID, npaths ? paths[0] : NULL, 0, 0,
                      "no sample files found, expected CSV files to split by endpoint");
  return st;
}

/* One profile per endpoint: the template with the endpoint's name and rows. */
static rs_status build(const rs_profile ***profiles, const char ***names, rs_arena *arena,
                       const rs_profile *tmpl, const rs_endpoint_rows *eps, size_t n,
                       rs_error *err) {
  rs_profile *ps = rs_arena_alloc_array(arena, n ? n : 1, sizeof(*ps));
  const rs_profile **pp = rs_arena_alloc_array(arena, n ? n : 1, sizeof(*pp));
  const char **nn = rs_arena_alloc_array(arena, n ? n : 1, sizeof(*nn));
  if (ps == NULL || pp == NULL || nn == NULL)
    return rs_arena_error(arena, err, NULL, "building the endpoints' profiles");
  for (size_t i = 0; i < n; i++) {
    ps[i] = *tmpl;
    ps[i].endpoint = eps[i].name;
    ps[i].rows = eps[i].rows;
    ps[i].nrows = eps[i].nrows;
    ps[i].files = NULL;
    ps[i].nfiles = 0;
    pp[i] = &ps[i];
    nn[i] = eps[i].name;
  }
  *profiles = pp;
  *names = nn;
  return RS_OK;
}

rs_status rs_audit_split(const rs_profile ***profiles, const char ***names, size_t *n,
                         rs_arena *arena, const char *mapping, const rs_selection *select,
                         const char *const *paths, size_t npaths, rs_error *err) {
  rs_series_map map;
  rs_profile *tmpl = NULL;
  rs_endpoint_rows *eps = NULL;
  path_list l = {NULL, 0, 0};
  *n = 0;
  rs_status st = rs_series_map_load(&map, arena, mapping, err);
  if (st == RS_OK && map.profile == NULL)
    st = rs_error_set(err, RS_INVALID, mapping, 1, 1,
                      "the mapping: missing key 'profile' (the facts every endpoint shares: "
                      "model, current, slo), expected it to audit the endpoints of sample files");
  if (st == RS_OK)
    st = rs_profile_template(&tmpl, arena, mapping, map.profile, err);
  if (st == RS_OK)
    st = list_paths(&l, arena, paths, npaths, err);
  rs_ingest_options io = {.format = RS_FORMAT_AUTO, .map = &map, .select = select};
  size_t neps = 0;
  if (st == RS_OK)
    st = rs_ingest_split(&eps, &neps, arena, l.v, l.n, &io, err);
  if (st == RS_OK)
    st = build(profiles, names, arena, tmpl, eps, neps, err);
  if (st == RS_OK)
    *n = neps;
  return st;
}

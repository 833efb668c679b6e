/* Catalog loading (file, directory), hashing and lookup. The validation
 * rules live in catalog_parse.c, the built-in catalog in catalog_builtin.c. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "names.h"
#include "rightsize/file.h"
#include "catalog_internal.h"
#include "sha256.h"

rs_status rs_catalog_parse(rs_catalog **out, rs_arena *arena, const char *name, const char *data,
                           size_t len, rs_error *err) {
  rs_catalog *cat;
  rs_doc doc;
  rs_status st;
  *out = NULL;
  if (len > RS_CATALOG_MAX_BYTES)
    return rs_error_set(err, RS_LIMIT, name, 0, 0, "catalog is larger than %zu bytes",
                        RS_CATALOG_MAX_BYTES);
  cat = rs_arena_alloc(arena, sizeof(*cat));
  if (cat == NULL || (cat->path = rs_arena_strdup(arena, name)) == NULL)
    return rs_arena_error(arena, err, name, "reading the catalog");
  rs_sha256_hex(cat->sha256, data, len);
  if ((st = rs_doc_parse(&doc, arena, name, data, len, false, err)) != RS_OK ||
      (st = rs_catalog_from_doc(cat, arena, &doc, err)) != RS_OK)
    return st;
  *out = cat;
  return RS_OK;
}

/* Reads a whole file into the arena, capped. */
static rs_status read_file(char **data, size_t *len, rs_arena *arena, const char *path,
                           rs_error *err) {
  FILE *f;
  size_t cap = RS_CATALOG_MAX_BYTES + 1, n;
  char *buf;
  rs_status st = rs_file_open_regular(&f, path, err);
  if (st != RS_OK)
    return st;
  buf = rs_arena_alloc(arena, 64 * 1024);
  for (size_t size = 64 * 1024, used = 0;; size *= 2) {
    if (buf == NULL) {
      fclose(f);
      return rs_arena_error(arena, err, path, "reading the catalog");
    }
    n = fread(buf + used, 1, size - used, f);
    used += n;
    if (used < size || used >= cap) {
      int bad = ferror(f);
      fclose(f);
      if (bad)
        return rs_error_set(err, RS_IO, path, 0, 0, "read error");
      if (used >= cap)
        return rs_error_set(err, RS_LIMIT, path, 0, 0, "catalog is larger than %zu bytes",
                            RS_CATALOG_MAX_BYTES);
      *data = buf, *len = used;
      return RS_OK;
    }
    char *bigger = rs_arena_alloc(arena, size * 2);
    if (bigger != NULL)
      memcpy(bigger, buf, used);
    buf = bigger;
  }
}

/* Version order: runs of digits compare as numbers, the rest bytewise. */
static int version_cmp(const char *a, const char *b) {
  while (*a && *b) {
    if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
      const char *ea = a, *eb = b;
      while (*a == '0' && isdigit((unsigned char)a[1]))
        a++, ea++;
      while (*b == '0' && isdigit((unsigned char)b[1]))
        b++, eb++;
      while (isdigit((unsigned char)*ea))
        ea++;
      while (isdigit((unsigned char)*eb))
        eb++;
      if (ea - a != eb - b)
        return ea - a < eb - b ? -1 : 1;
      int r = strncmp(a, b, (size_t)(ea - a));
      if (r != 0)
        return r;
      a = ea, b = eb;
    } else {
      if (*a != *b)
        return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
      a++, b++;
    }
  }
  return (*a != 0) - (*b != 0);
}

static bool is_catalog_name(const char *name) {
  size_t n = strlen(name);
  if (name[0] == '.')
    return false;
  return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
         (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

/* true when dir/name may be the catalog: a link out of the directory never
 * is; a FIFO or a device is, so that reading it is refused rather than an
 * older catalog silently taken instead. */
static bool is_candidate(const char *dir_real, const char *dir, const char *name) {
  char path[4096];
  rs_file_id id;
  if (!is_catalog_name(name) ||
      snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
    return false;
  rs_file_entry kind = rs_file_classify(&id, dir_real, path);
  return kind == RS_FILE_REGULAR || kind == RS_FILE_SPECIAL;
}

/* The newest catalog file in dir, as an arena path. */
static rs_status newest_in_dir(const char **out, rs_arena *arena, const char *dir, rs_error *err) {
  char best[256] = "";
  struct dirent *e;
  char *dir_real = realpath(dir, NULL);
  DIR *d = dir_real ? opendir(dir) : NULL;
  if (d == NULL) {
    int saved = errno;
    free(dir_real);
    return rs_file_open_error(err, dir, saved);
  }
  while ((e = readdir(d)) != NULL)
    if (strlen(e->d_name) < sizeof(best) && (best[0] == '\0' || version_cmp(e->d_name, best) > 0) &&
        is_candidate(dir_real, dir, e->d_name))
      snprintf(best, sizeof(best), "%s", e->d_name);
  closedir(d);
  free(dir_real);
  if (best[0] == '\0')
    return rs_error_set(err, RS_IO, dir, 0, 0, "no catalog file (*.yaml, *.yml) in the directory");
  size_t n = strlen(dir) + strlen(best) + 2;
  char *path = rs_arena_alloc(arena, n);
  if (path == NULL)
    return rs_arena_error(arena, err, dir, "reading the catalog");
  snprintf(path, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", best);
  *out = path;
  return RS_OK;
}

rs_status rs_catalog_load(rs_catalog **out, rs_arena *arena, const char *path, rs_error *err) {
  struct stat sb;
  char *data = NULL;
  size_t len = 0;
  rs_status st;
  *out = NULL;
  if (stat(path, &sb) != 0)
    return rs_file_open_error(err, path, errno);
  if (S_ISDIR(sb.st_mode) && (st = newest_in_dir(&path, arena, path, err)) != RS_OK)
    return st;
  if ((st = read_file(&data, &len, arena, path, err)) != RS_OK)
    return st;
  return rs_catalog_parse(out, arena, path, data, len, err);
}

const rs_instance *rs_catalog_find(const rs_catalog *cat, const char *name) {
  for (size_t i = 0; i < cat->ninstances; i++)
    if (strcmp(cat->instances[i].name, name) == 0)
      return &cat->instances[i];
  for (size_t i = 0; i < cat->ninstances; i++)
    if (strcasecmp(cat->instances[i].name, name) == 0)
      return &cat->instances[i];
  return NULL;
}

const rs_accelerator *rs_catalog_find_accelerator(const rs_catalog *cat, const char *key) {
  for (size_t i = 0; i < cat->naccelerators; i++)
    if (strcmp(cat->accelerators[i].key, key) == 0)
      return &cat->accelerators[i];
  return NULL;
}

double rs_instance_accel_memory(const rs_instance *in) {
  if (in->accelerator == NULL)
    return NAN;
  return in->accelerator_memory_bytes * (in->accelerator_count < 1 ? 1 : in->accelerator_count);
}

/* ---- vocabularies (catalog.h) ---- */

const char *const rs_provider_names[] = {
#define RS_PROVIDER_NAME(name, key) key,
    RS_PROVIDER_MAP(RS_PROVIDER_NAME)
#undef RS_PROVIDER_NAME
        NULL};

int rs_provider_from_name(const char *name) {
  return rs_names_find(rs_provider_names, RS_PROVIDER_COUNT, name);
}

const char *const rs_family_names[] = {
#define RS_FAMILY_NAME(name, key, bit, kind) key,
    RS_FAMILY_MAP(RS_FAMILY_NAME)
#undef RS_FAMILY_NAME
        NULL};

unsigned rs_family_from_name(const char *name) {
  int i = rs_names_find(rs_family_names, (size_t)-1, name); /* NULL-terminated */
  return i < 0 ? 0 : 1u << i;
}

const char *rs_family_name(unsigned bit) {
  for (unsigned i = 0; rs_family_names[i]; i++)
    if (bit == 1u << i)
      return rs_family_names[i];
  return "unknown";
}

const char *const rs_accel_family_names[] = {
#define RS_ACCEL_NAME(name, key, bit, kind) RS_FAMILY_IF_##kind(key, )
    RS_FAMILY_MAP(RS_ACCEL_NAME)
#undef RS_ACCEL_NAME
        NULL};

unsigned rs_accel_family_bit(rs_accel_family family) {
  static const unsigned bits[] = {
#define RS_ACCEL_BIT(name, key, bit, kind) RS_FAMILY_IF_##kind(bit, )
      RS_FAMILY_MAP(RS_ACCEL_BIT)
#undef RS_ACCEL_BIT
  };
  return (unsigned)family < RS_ACCEL_COUNT ? bits[family] : 0;
}

const char *rs_accel_family_name(rs_accel_family family) {
  return (unsigned)family < RS_ACCEL_COUNT ? rs_accel_family_names[family] : "unknown";
}

const char *const rs_category_names[] = {
#define RS_CATEGORY_NAME(name, key) key,
    RS_CATEGORY_MAP(RS_CATEGORY_NAME)
#undef RS_CATEGORY_NAME
        NULL};

const char *rs_category_name(rs_category category) {
  return (unsigned)category < RS_CATEGORY_COUNT ? rs_category_names[category] : "unknown";
}

const char *const rs_arch_names[] = {
#define RS_ARCH_NAME(name, key) key,
    RS_ARCH_MAP(RS_ARCH_NAME)
#undef RS_ARCH_NAME
        NULL};

const char *rs_arch_name(rs_arch arch) {
  return (unsigned)arch < RS_ARCH_COUNT ? rs_arch_names[arch] : "unknown";
}

const char *rs_price_flag_name(rs_price_flag flag) {
  static const char *const names[] = {"", "suspect", "unpriced"};
  return (unsigned)flag < 3 ? names[flag] : "";
}

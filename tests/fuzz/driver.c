/* Standalone driver for the fuzz targets, so a gcc build runs their corpora
 * as ordinary tests (libFuzzer is not needed): every file named on the
 * command line, or found in a directory named there, goes through
 * LLVMFuzzerTestOneInput once. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *fp = fopen(path, "rb");
  long n;
  uint8_t *buf;
  if (fp == NULL || fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0 ||
      fseek(fp, 0, SEEK_SET) != 0) {
    fprintf(stderr, "driver: cannot read %s\n", path);
    if (fp)
      fclose(fp);
    return 1;
  }
  buf = malloc((size_t)n + 1);
  if (buf == NULL || fread(buf, 1, (size_t)n, fp) != (size_t)n) {
    fprintf(stderr, "driver: cannot read %s\n", path);
    free(buf);
    fclose(fp);
    return 1;
  }
  fclose(fp);
  LLVMFuzzerTestOneInput(buf, (size_t)n);
  free(buf);
  return 0;
}

static int name_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, size_t *count) {
  DIR *d = opendir(dir);
  struct dirent *e;
  char *names[4096];
  size_t n = 0;
  int rc = 0;
  if (d == NULL)
    return 1;
  while ((e = readdir(d)) != NULL && n < 4096) {
    char path[4096];
    struct stat sb;
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    if (e->d_name[0] != '.' && stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
      names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof(*names), name_cmp);
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
    rc |= run_file(path);
    (*count)++;
    free(names[i]);
  }
  return rc;
}

int main(int argc, char **argv) {
  size_t count = 0;
  int rc = 0;
  for (int i = 1; i < argc; i++) {
    struct stat sb;
    if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
      rc |= run_dir(argv[i], &count);
    } else {
      rc |= run_file(argv[i]);
      count++;
    }
  }
  printf("%zu inputs ran without a crash\n", count);
  return rc != 0 || count == 0;
}

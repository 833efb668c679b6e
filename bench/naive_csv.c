/* The naive C baseline of bench/run.py: what a first program would do to
 * get quantiles out of a samples CSV. fgets each line, split it with
 * strsep (strtok would merge the empty cells of rows that lack a column,
 * putting values under the wrong column), strtod each cell, keep every
 * value of every column in a growing array, qsort each column and print
 * its p50/p90/p95/p99 (rank floor(q * (n - 1)), as --exact does).
 *
 * Usage: naive_csv FILE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 64
#define LINE_MAX_BYTES 65536

typedef struct column {
  char name[64];
  double *v;
  size_t n, cap;
} column;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void push(column *c, double v) {
  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 1024;
    c->v = realloc(c->v, c->cap * sizeof(*c->v));
    if (c->v == NULL) {
      fprintf(stderr, "naive_csv: out of memory\n");
      exit(1);
    }
  }
  c->v[c->n++] = v;
}

int main(int argc, char **argv) {
  static char line[LINE_MAX_BYTES];
  static column cols[MAX_COLS];
  size_t ncols = 0;
  FILE *fp;
  if (argc != 2) {
    fprintf(stderr, "usage: naive_csv FILE\n");
    return 2;
  }
  fp = fopen(argv[1], "r");
  if (fp == NULL) {
    perror(argv[1]);
    return 1;
  }
  if (fgets(line, sizeof(line), fp) != NULL) {
    char *rest = line, *tok;
    line[strcspn(line, "\r\n")] = '\0';
    while ((tok = strsep(&rest, ",")) != NULL && ncols < MAX_COLS)
      snprintf(cols[ncols++].name, sizeof(cols[0].name), "%s", tok);
  }
  while (fgets(line, sizeof(line), fp) != NULL) {
    char *rest = line, *tok;
    size_t i = 0;
    line[strcspn(line, "\r\n")] = '\0';
    while ((tok = strsep(&rest, ",")) != NULL && i < ncols) {
      if (*tok != '\0')
        push(&cols[i], strtod(tok, NULL));
      i++;
    }
  }
  fclose(fp);
  for (size_t i = 0; i < ncols; i++) {
    column *c = &cols[i];
    static const double q[] = {0.50, 0.90, 0.95, 0.99};
    if (c->n == 0)
      continue;
    qsort(c->v, c->n, sizeof(*c->v), cmp_double);
    printf("%s n=%zu min=%.17g max=%.17g", c->name, c->n, c->v[0], c->v[c->n - 1]);
    for (size_t k = 0; k < sizeof(q) / sizeof(q[0]); k++)
      printf(" p%g=%.17g", q[k] * 100, c->v[(size_t)(q[k] * (double)(c->n - 1))]);
    printf("\n");
    free(c->v);
  }
  return 0;
}

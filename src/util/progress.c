/* Progress lines on a terminal (rightsize/progress.h). */
#include "rightsize/progress.h"

#include <string.h>
#include <time.h>

#define REDRAW_S 0.1

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void rs_progress_init(rs_progress *p, FILE *fp, double delay_s) {
  memset(p, 0, sizeof(*p));
  p->fp = fp;
  p->delay_s = delay_s;
}

void rs_progress_begin(rs_progress *p, const char *label, const char *noun, uint64_t total) {
  if (p == NULL || p->fp == NULL)
    return;
  rs_progress_end(p);
  snprintf(p->label, sizeof(p->label), "%s", label);
  p->noun = noun;
  p->total = total;
  p->start_s = now_s();
  p->drawn_s = 0;
  p->active = true;
}

/* 10000 -> "10,000". */
static void grouped(char *buf, size_t size, uint64_t v) {
  char digits[24];
  size_t n = (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v), o = 0;
  for (size_t i = 0; i < n && o + 2 < size; i++) {
    if (i > 0 && (n - i) % 3 == 0)
      buf[o++] = ',';
    buf[o++] = digits[i];
  }
  buf[o] = '\0';
}

void rs_progress_format(char *buf, size_t size, const rs_progress *p, uint64_t done) {
  char a[32], b[32];
  if (p->noun != NULL) {
    grouped(a, sizeof(a), done);
    grouped(b, sizeof(b), p->total);
    if (p->total > 0)
      snprintf(buf, size, "%s: %s of %s %s", p->label, a, b, p->noun);
    else
      snprintf(buf, size, "%s: %s %s", p->label, a, p->noun);
  } else if (p->total > 0) {
    uint64_t pct = done >= p->total ? 100 : done * 100 / p->total;
    snprintf(buf, size, "%s: %llu MB of %llu MB (%llu%%)", p->label,
             (unsigned long long)(done / 1000000), (unsigned long long)(p->total / 1000000),
             (unsigned long long)pct);
  } else {
    snprintf(buf, size, "%s: %llu MB", p->label, (unsigned long long)(done / 1000000));
  }
}

void rs_progress_update(rs_progress *p, uint64_t done) {
  if (p == NULL || !p->active)
    return;
  double t = now_s();
  if (t - p->start_s < p->delay_s || (p->shown > 0 && t - p->drawn_s < REDRAW_S))
    return;
  char line[256];
  rs_progress_format(line, sizeof(line), p, done);
  size_t n = strlen(line);
  /* pad over a longer previous line */
  fprintf(p->fp, "\r%s%*s", line, p->shown > n ? (int)(p->shown - n) : 0, "");
  fflush(p->fp);
  p->shown = n > p->shown ? n : p->shown;
  p->drawn_s = t;
}

void rs_progress_end(rs_progress *p) {
  if (p == NULL || !p->active)
    return;
  if (p->shown > 0) {
    fprintf(p->fp, "\r%*s\r", (int)p->shown, "");
    fflush(p->fp);
  }
  p->shown = 0;
  p->active = false;
}

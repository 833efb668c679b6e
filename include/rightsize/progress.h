/* Progress on a terminal for work that takes more than a second: one line
 * on stderr, rewritten in place with '\r' at most ten times a second and
 * cleared when the work ends ("reading FILE: 412 MB of 882 MB (47%)",
 * "audit: 312 of 10,000 endpoints"). The program decides whether to show
 * it at all (a terminal, not CI, not --quiet: docs/cli.md); the work only
 * reports how far it is, once per block of input or per item, which costs
 * a clock read. Not thread-safe: a caller with threads reports under its
 * own lock. */
#ifndef RIGHTSIZE_PROGRESS_H
#define RIGHTSIZE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct rs_progress {
  FILE *fp;       /* where the line goes; NULL: progress off */
  double delay_s; /* nothing is shown before the work has run this long */
  double start_s, drawn_s;
  char label[160];  /* "reading FILE" or "audit" */
  const char *noun; /* NULL: bytes; else what is counted ("endpoints") */
  uint64_t total;   /* 0: unknown */
  size_t shown;     /* columns of the line on screen, 0 when none */
  bool active;
} rs_progress;

/* Off when fp is NULL; delay_s is 1 for the program (tests shorten it). */
void rs_progress_init(rs_progress *p, FILE *fp, double delay_s);

/* Starts a piece of work: label, and total bytes (noun NULL) or items
 * (0: unknown). A NULL p is a no-op, here and below. */
void rs_progress_begin(rs_progress *p, const char *label, const char *noun, uint64_t total);

/* How far the work is: redraws the line when the delay has passed and the
 * last drawing is 0.1 s old. */
void rs_progress_update(rs_progress *p, uint64_t done);

/* The work ended: clears the line if one was drawn. */
void rs_progress_end(rs_progress *p);

/* The text of the line for done of total (what update draws), into buf. */
void rs_progress_format(char *buf, size_t size, const rs_progress *p, uint64_t done);

#endif

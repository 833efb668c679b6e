/* Shared by the fuzz targets (README): feeding bytes to a sample reader,
 * and to the readers that only take a path (profile, overlay, policy,
 * mapping) through a file of this process' own. */
#ifndef RS_FUZZ_SUPPORT_H
#define RS_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>

#include "rightsize/ingest.h"
#include "rightsize/stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ASan's defaults for the fuzz targets (ASAN_OPTIONS still overrides them).
 * The quarantine, which keeps freed memory poisoned so that a use after
 * free is caught, is 256 MiB by default; recycling it (re-poisoning the
 * shadow of every freed chunk, and refilling the allocator's free lists)
 * was a third of the sample targets' time, each run freeing some 400 KiB in
 * large chunks (statistics, stream and CSV buffers, arena blocks). A run
 * is independent of the ones before it, so 8 MiB, many runs' worth, loses
 * no use-after-free that a run can commit, and ingest runs about 1.8 times
 * as many inputs a second (README, "Speed"). Unused in the plain build. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "quarantine_size_mb=8"; }

/* A sink that only counts rows (ctx: uint64_t). */
static inline rs_status fuzz_count_sink(void *ctx, const rs_sample *s, rs_error *err) {
  (void)s;
  (void)err;
  ++*(uint64_t *)ctx;
  return RS_OK;
}

/* data through one sample reader, then, when the reader accepts it, again
 * into the statistics. The first pass is cheap: most mutated inputs fail
 * in the reader, and the statistics (a 217 KiB calloc, which ASan maps and
 * faults in afresh on every run) are only built for the ones that pass;
 * that is what keeps the sample targets well over 1,000 runs a second. */
static inline void fuzz_ingest(const uint8_t *data, size_t size, rs_sample_format format) {
  rs_stats *st = NULL;
  rs_error err;
  rs_endpoint_stats out;
  uint64_t rows = 0;
  rs_stats_options so = {.allow_unordered = format == RS_FORMAT_NATIVE};
  rs_ingest_options io = {.format = format, .max_record_bytes = 0, .map = NULL};
  rs_error_clear(&err);
  if (rs_ingest_memory("fuzz", (const char *)data, size, &io, fuzz_count_sink, &rows, NULL, &err) !=
      RS_OK)
    return;
  rs_error_clear(&err);
  if (rs_stats_new(&st, &so, &err) != RS_OK)
    return;
  rs_stats_begin_file(st, "fuzz");
  if (rs_ingest_memory("fuzz", (const char *)data, size, &io, rs_stats_sink, st, NULL, &err) ==
      RS_OK)
    rs_stats_finish(st, &out, &err);
  rs_stats_free(st);
}

/* Writes data to a file of this process and returns its path (static);
 * NULL when it cannot be written. The file is named by pid and suffix, in
 * TMPDIR, else /dev/shm (tmpfs), else /tmp, and is opened once and kept
 * open: each run rewrites it in place (pwrite, then ftruncate to the new
 * size), which costs no open, close or journal flush. Writing through
 * fopen/fclose on ext4 every run was most of the time of the path-based
 * targets (README, "Speed"). The file is removed when the process ends. */
static char fuzz_file_path[512];
static int fuzz_file_fd = -1;

static inline void fuzz_file_remove(void) {
  if (fuzz_file_path[0])
    unlink(fuzz_file_path);
}

static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix) {
  size_t off = 0;
  if (fuzz_file_fd < 0) {
    const char *dir = getenv("TMPDIR");
    if (dir == NULL || *dir == '\0')
      dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(fuzz_file_path, sizeof(fuzz_file_path), "%s/rs_fuzz.%ld%s", dir, (long)getpid(),
             suffix);
    fuzz_file_fd = open(fuzz_file_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fuzz_file_fd < 0)
      return NULL;
    atexit(fuzz_file_remove);
  }
  while (off < size) {
    ssize_t n = pwrite(fuzz_file_fd, data + off, size - off, (off_t)off);
    if (n <= 0)
      return NULL;
    off += (size_t)n;
  }
  return ftruncate(fuzz_file_fd, (off_t)size) == 0 ? fuzz_file_path : NULL;
}

#endif

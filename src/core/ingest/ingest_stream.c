/* Input streams: plain, gzip (zlib) or zstd (libzstd), told apart by magic
 * bytes (ingest_stream.h). */
#include "ingest_stream.h"

#include "rightsize/file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

#include "rightsize/buf.h"

#define RAW_CHUNK ((size_t)64 * 1024)
/* A plain read of at least this much goes straight into the caller's
 * buffer once the raw window is drained (a CSV reader's window; not the
 * 16 KiB chunks of rs_instream_slurp, which read through the window). */
#define DIRECT_MIN ((size_t)32 * 1024)

typedef enum { ENC_PLAIN, ENC_GZIP, ENC_ZSTD } encoding;

struct rs_instream {
  const char *name;
  FILE *fp;        /* NULL for memory input */
  bool owns_fp;    /* not standard input */
  const char *mem; /* memory input */
  size_t mem_len;
  encoding enc;
  unsigned char *raw; /* compressed input window */
  size_t rpos, rend;
  bool raw_eof;
  size_t raw_read;         /* compressed bytes taken from the source */
  unsigned long long size; /* a regular file's size when opened; 0: not known */
  z_stream z;
  bool z_live, z_ended; /* inflateInit2 done; the last gzip member ended */
  ZSTD_DStream *zd;
  size_t zstd_hint; /* ZSTD_decompressStream's last return: 0 at a frame's end */
  char head[RS_INSTREAM_HEAD];
  size_t head_len, head_pos;
  size_t line, col;      /* where the decoded text handed out so far ends */
  rs_progress *progress; /* NULL: none */
};

/* ---- the raw source ---- */

/* Reads up to want bytes (no more than the window holds) into the raw
 * window. */
static rs_status raw_fill_some(rs_instream *s, size_t want, rs_error *err) {
  size_t got;
  if (s->rpos > 0) {
    memmove(s->raw, s->raw + s->rpos, s->rend - s->rpos);
    s->rend -= s->rpos;
    s->rpos = 0;
  }
  if (want > RAW_CHUNK - s->rend)
    want = RAW_CHUNK - s->rend;
  if (s->fp == NULL) {
    size_t left = s->mem_len - s->raw_read;
    got = left < want ? left : want;
    memcpy(s->raw + s->rend, s->mem + s->raw_read, got);
  } else {
    got = fread(s->raw + s->rend, 1, want, s->fp);
    if (got == 0 && ferror(s->fp))
      return rs_error_set(err, RS_IO, s->name, 0, 0, "read error: %s", strerror(errno));
  }
  s->rend += got;
  s->raw_read += got;
  if (s->fp != NULL && feof(s->fp)) /* a short read met the end: no read for it again */
    s->raw_eof = true;
  rs_progress_update(s->progress, s->raw_read); /* once per block: a clock read */
  if (got == 0)
    s->raw_eof = true;
  return RS_OK;
}

static rs_status raw_fill(rs_instream *s, rs_error *err) {
  return raw_fill_some(s, RAW_CHUNK, err);
}

/* Plain bytes straight from the raw window. */
static rs_status read_plain(rs_instream *s, char *buf, size_t cap, size_t *got, rs_error *err) {
  rs_status st = RS_OK;
  if (s->rpos == s->rend && !s->raw_eof && cap >= DIRECT_MIN) {
    /* The window is drained and the reader asks for a large block: read it
     * straight into the reader's buffer, no copy through the window. */
    size_t n;
    if (s->fp == NULL) {
      size_t left = s->mem_len - s->raw_read;
      n = left < cap ? left : cap;
      memcpy(buf, s->mem + s->raw_read, n);
    } else {
      n = fread(buf, 1, cap, s->fp);
      if (n == 0 && ferror(s->fp))
        return rs_error_set(err, RS_IO, s->name, 0, 0, "read error: %s", strerror(errno));
    }
    s->raw_read += n;
    rs_progress_update(s->progress, s->raw_read);
    if (n == 0 || (s->fp != NULL && feof(s->fp)))
      s->raw_eof = true;
    *got = n;
    return RS_OK;
  }
  if (s->rpos == s->rend && !s->raw_eof)
    st = raw_fill(s, err);
  size_t n = s->rend - s->rpos < cap ? s->rend - s->rpos : cap;
  memcpy(buf, s->raw + s->rpos, n);
  s->rpos += n;
  *got = n;
  return st;
}

/* ---- decoding ---- */

static rs_status corrupt(const rs_instream *s, const char *what, const char *why, rs_error *err) {
  return rs_error_set(err, RS_SYNTAX, s->name, s->line, s->col,
                      "%s after %zu compressed bytes (%s), expected a whole %s stream", what,
                      s->raw_read - (s->rend - s->rpos), why, s->enc == ENC_GZIP ? "gzip" : "zstd");
}

/* Runs inflate over what input there is; with none left it still drains
 * output that zlib holds back, and only no progress at all is truncation. */
static rs_status read_gzip(rs_instream *s, char *buf, size_t cap, size_t *got, rs_error *err) {
  *got = 0;
  while (*got == 0) {
    if (s->rpos == s->rend && !s->raw_eof) {
      rs_status st = raw_fill(s, err);
      if (st != RS_OK)
        return st;
    }
    if (s->z_ended) {
      if (s->rpos == s->rend)
        return RS_OK; /* clean end after the last member */
      if (inflateReset(&s->z) != Z_OK)
        return corrupt(s, "corrupt gzip data", "cannot restart", err);
      s->z_ended = false; /* another member follows (cat a.gz b.gz) */
    }
    s->z.next_in = s->raw + s->rpos;
    s->z.avail_in = (uInt)(s->rend - s->rpos);
    s->z.next_out = (unsigned char *)buf;
    s->z.avail_out = (uInt)(cap > UINT32_MAX ? UINT32_MAX : cap);
    int zr = inflate(&s->z, Z_NO_FLUSH);
    size_t used = (s->rend - s->rpos) - s->z.avail_in;
    s->rpos += used;
    *got = (size_t)((char *)s->z.next_out - buf);
    if (zr == Z_STREAM_END)
      s->z_ended = true;
    else if (zr == Z_MEM_ERROR)
      return rs_error_set(err, RS_NOMEM, s->name, 0, 0, "out of memory decompressing");
    else if (zr != Z_OK && zr != Z_BUF_ERROR)
      return corrupt(s, "corrupt gzip data", s->z.msg ? s->z.msg : "inflate failed", err);
    else if (*got == 0 && used == 0 && s->raw_eof)
      return corrupt(s, "truncated gzip data", "the input ends inside the stream", err);
  }
  return RS_OK;
}

/* As read_gzip; a return of 0 from ZSTD_decompressStream ends a frame. */
static rs_status read_zstd(rs_instream *s, char *buf, size_t cap, size_t *got, rs_error *err) {
  *got = 0;
  while (*got == 0) {
    if (s->rpos == s->rend && !s->raw_eof) {
      rs_status st = raw_fill(s, err);
      if (st != RS_OK)
        return st;
    }
    if (s->rpos == s->rend && s->zstd_hint == 0)
      return RS_OK;
    ZSTD_inBuffer in = {s->raw + s->rpos, s->rend - s->rpos, 0};
    ZSTD_outBuffer out = {buf, cap, 0};
    size_t r = ZSTD_decompressStream(s->zd, &out, &in);
    if (ZSTD_isError(r))
      return corrupt(s, "corrupt zstd data", ZSTD_getErrorName(r), err);
    s->rpos += in.pos;
    s->zstd_hint = r;
    *got = out.pos;
    if (*got == 0 && in.pos == 0 && s->raw_eof && r != 0)
      return corrupt(s, "truncated zstd data", "the input ends inside a frame", err);
  }
  return RS_OK;
}

static rs_status decode(rs_instream *s, char *buf, size_t cap, size_t *got, rs_error *err) {
  rs_status st;
  if (s->enc == ENC_GZIP)
    st = read_gzip(s, buf, cap, got, err);
  else if (s->enc == ENC_ZSTD)
    st = read_zstd(s, buf, cap, got, err);
  else
    st = read_plain(s, buf, cap, got, err);
  if (st != RS_OK || s->enc == ENC_PLAIN)
    return st; /* line and col only place errors in compressed data */
  const char *p = buf, *end = buf + *got, *nl;
  while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
    s->line++;
    s->col = 1;
    p = nl + 1;
  }
  s->col += (size_t)(end - p);
  return st;
}

/* ---- opening ---- */

static bool magic(const unsigned char *p, size_t n, const char *m, size_t mlen) {
  return n >= mlen && memcmp(p, m, mlen) == 0;
}

/* Containers and compressions we recognise but do not read. */
static const char *unsupported(const unsigned char *p, size_t n) {
  if (magic(p, n,
            "\xFD"
            "7zXZ\x00",
            6))
    return "xz-compressed";
  if (magic(p, n, "BZh", 3) && n >= 4 && p[3] >= '1' && p[3] <= '9')
    return "bzip2-compressed";
  if (magic(p, n, "PK\x03\x04", 4))
    return "a zip archive (or an xlsx workbook)";
  if (magic(p, n, "\x04\x22\x4D\x18", 4))
    return "lz4-compressed";
  if (magic(p, n, "7z\xBC\xAF\x27\x1C", 6))
    return "a 7z archive";
  if (magic(p, n, "PAR1", 4))
    return "Apache Parquet";
  if (magic(p, n, "\x1F\x9D", 2))
    return "compress(1) .Z data";
  return NULL;
}

static rs_status start_decoder(rs_instream *s, rs_error *err) {
  const unsigned char *p = s->raw;
  size_t n = s->rend;
  const char *what;
  if (magic(p, n, "\x1F\x8B", 2)) {
    s->enc = ENC_GZIP;
    if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK)
      return rs_error_set(err, RS_NOMEM, s->name, 0, 0, "out of memory decompressing");
    s->z_live = true;
  } else if (magic(p, n, "\x28\xB5\x2F\xFD", 4)) {
    s->enc = ENC_ZSTD;
    if ((s->zd = ZSTD_createDStream()) == NULL)
      return rs_error_set(err, RS_NOMEM, s->name, 0, 0, "out of memory decompressing");
    s->zstd_hint = 1;
  } else if ((what = unsupported(p, n)) != NULL) {
    return rs_error_set(err, RS_INVALID, s->name, 1, 1,
                        "the file is %s, which rightsize does not read, expected text, "
                        "gzip or zstd (decompress or convert it first)",
                        what);
  }
  return RS_OK;
}

/* Fills the held-back head with the first decoded bytes and refuses binary
 * data (a NUL byte), naming where it is rather than quoting it. */
static rs_status fill_head(rs_instream *s, rs_error *err) {
  rs_status st = RS_OK;
  size_t got = 1;
  while (st == RS_OK && got > 0 && s->head_len < sizeof(s->head)) {
    st = decode(s, s->head + s->head_len, sizeof(s->head) - s->head_len, &got, err);
    s->head_len += got;
  }
  if (st != RS_OK)
    return st;
  const char *nul = memchr(s->head, '\0', s->head_len);
  if (nul != NULL)
    return rs_error_set(err, RS_INVALID, s->name, 0, 0,
                        "binary data (a NUL byte at offset %zu%s%s), expected text: CSV, "
                        "JSON or Prometheus text",
                        (size_t)(nul - s->head), s->enc != ENC_PLAIN ? " of the decompressed " : "",
                        s->enc == ENC_GZIP ? "gzip data" : (s->enc == ENC_ZSTD ? "zstd data" : ""));
  return RS_OK;
}

static rs_status begin(rs_instream *s, rs_error *err) {
  rs_status st;
  s->raw = malloc(RAW_CHUNK);
  if (s->raw == NULL)
    return rs_error_set(err, RS_NOMEM, s->name, 0, 0, "out of memory opening the file");
  s->line = 1;
  s->col = 1;
  /* A file larger than the window: only the head first. A plain file's
   * later blocks are read straight into the reader's window (read_plain),
   * so most of this window's pages are never touched; compressed data
   * fills it on the next read. A smaller file is read whole here, in one
   * read and the one that meets its end. */
  st = raw_fill_some(s, s->size > RAW_CHUNK ? RS_INSTREAM_HEAD : RAW_CHUNK, err);
  while (st == RS_OK && !s->raw_eof && s->rend < 8)
    st = raw_fill(s, err);
  if (st == RS_OK)
    st = start_decoder(s, err);
  if (st == RS_OK)
    st = fill_head(s, err);
  return st;
}

static rs_instream *stream_new(const char *name) {
  rs_instream *s = calloc(1, sizeof(*s));
  if (s != NULL && (s->name = strdup(name)) == NULL) {
    free(s);
    s = NULL;
  }
  return s;
}

static rs_status finish_open(rs_instream **out, rs_instream *s, rs_error *err) {
  rs_status st = begin(s, err);
  if (st != RS_OK) {
    rs_instream_free(s);
    return st;
  }
  *out = s;
  return RS_OK;
}

rs_status rs_instream_open(rs_instream **out, const char *path, rs_error *err) {
  struct stat sb;
  rs_instream *s = stream_new(path);
  *out = NULL;
  if (s == NULL)
    return rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory opening the file");
  if (strcmp(path, "-") == 0) {
    s->fp = stdin;
  } else {
    /* Regular files only: a FIFO, device or socket is refused before
     * anything can block on it (rightsize/file.h). */
    rs_status st = rs_file_open_regular_size(&s->fp, &s->size, path, err);
    if (st != RS_OK) {
      rs_instream_free(s);
      return st;
    }
    s->owns_fp = true;
    /* Unbuffered: every read here asks for a 64 KiB block or more, which
     * stdio would pass straight through anyway; without a stdio buffer
     * there is no fstat for its size either. */
    setvbuf(s->fp, NULL, _IONBF, 0);
  }
  /* A regular file was checked above; only standard input is left. */
  if (!s->owns_fp && fstat(fileno(s->fp), &sb) == 0 && S_ISDIR(sb.st_mode)) {
    rs_error_set(err, RS_IO, path, 0, 0, "is a directory, expected a file");
    rs_instream_free(s);
    return RS_IO;
  }
  return finish_open(out, s, err);
}

rs_status rs_instream_open_memory(rs_instream **out, const char *name, const char *data, size_t len,
                                  rs_error *err) {
  rs_instream *s = stream_new(name);
  *out = NULL;
  if (s == NULL)
    return rs_error_set(err, RS_NOMEM, name, 0, 0, "out of memory opening the file");
  s->mem = data;
  s->mem_len = len;
  return finish_open(out, s, err);
}

/* ---- reading ---- */

void rs_instream_set_progress(rs_instream *s, rs_progress *p) {
  struct stat sb;
  char label[160];
  uint64_t total = 0;
  if (p == NULL)
    return;
  if (s->fp != NULL && fstat(fileno(s->fp), &sb) == 0 && S_ISREG(sb.st_mode))
    total = (uint64_t)sb.st_size;
  snprintf(label, sizeof(label), "reading %s", s->name);
  rs_progress_begin(p, label, NULL, total);
  s->progress = p;
}

const char *rs_instream_head(const rs_instream *s, size_t *len) {
  *len = s->head_len;
  return s->head;
}

const char *rs_instream_encoding(const rs_instream *s) {
  return s->enc == ENC_GZIP ? "gzip" : (s->enc == ENC_ZSTD ? "zstd" : NULL);
}

const char *rs_instream_memory(const rs_instream *s, size_t *len) {
  if (s->fp != NULL || s->enc != ENC_PLAIN)
    return NULL;
  *len = s->mem_len;
  return s->mem != NULL ? s->mem : "";
}

rs_status rs_instream_read(void *ctx, char *buf, size_t cap, size_t *got, rs_error *err) {
  rs_instream *s = ctx;
  if (s->head_pos < s->head_len) {
    size_t n = s->head_len - s->head_pos < cap ? s->head_len - s->head_pos : cap;
    memcpy(buf, s->head + s->head_pos, n);
    s->head_pos += n;
    *got = n;
    return RS_OK;
  }
  return decode(s, buf, cap, got, err);
}

rs_status rs_instream_slurp(char **data, size_t *len, rs_instream *s, rs_arena *arena,
                            size_t max_bytes, rs_error *err) {
  char chunk[16384];
  rs_buf buf;
  size_t got = 1;
  rs_status st = RS_OK;
  rs_buf_init(&buf, max_bytes);
  while (st == RS_OK && got > 0) {
    st = rs_instream_read(s, chunk, sizeof(chunk), &got, err);
    if (st == RS_OK && got > 0 && (st = rs_buf_append(&buf, chunk, got)) == RS_LIMIT)
      st = rs_error_set(err, RS_LIMIT, s->name, 0, 0, "file is larger than %zu bytes%s", max_bytes,
                        s->enc != ENC_PLAIN ? " decompressed" : "");
    else if (st == RS_NOMEM)
      st = rs_error_set(err, RS_NOMEM, s->name, 0, 0, "out of memory reading the file");
  }
  if (st == RS_OK) {
    *len = buf.len;
    *data = rs_arena_strndup(arena, buf.len ? buf.data : "", buf.len);
    if (*data == NULL)
      st = rs_arena_error(arena, err, s->name, "reading the file");
  }
  rs_buf_release(&buf);
  return st;
}

void rs_instream_free(rs_instream *s) {
  if (s == NULL)
    return;
  rs_progress_end(s->progress);
  if (s->owns_fp)
    fclose(s->fp);
  if (s->z_live)
    inflateEnd(&s->z);
  ZSTD_freeDStream(s->zd);
  free(s->raw);
  free((char *)s->name);
  free(s);
}

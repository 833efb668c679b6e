/* Input streams for ingestion: a file, standard input or a memory buffer,
 * decompressed on the fly when its first bytes are a gzip or zstd magic
 * number (never by the file's name), with the first decoded bytes held back
 * for format detection. The one file that includes <zlib.h> and <zstd.h>.
 *
 * Errors name the path and, for a compressed input, where in the decoded
 * text the data broke (line:col) and how many compressed bytes were read;
 * raw compressed bytes never appear in a message. Containers and
 * compressions that are recognised but not read (xz, bzip2, zip, lz4, 7z,
 * Parquet) and binary data are refused at open with their name. */
#ifndef RIGHTSIZE_INGEST_STREAM_H
#define RIGHTSIZE_INGEST_STREAM_H

#include <stddef.h>

#include "rightsize/arena.h"
#include "rightsize/error.h"
#include "rightsize/progress.h"

/* Decoded bytes held back for detection (rs_export_sniff reads 4 KiB). */
#define RS_INSTREAM_HEAD 4096

typedef struct rs_instream rs_instream;

/* Opens path ("-": standard input). Reads and checks the first bytes, so a
 * missing file (RS_IO), a directory (RS_IO), an unsupported container
 * (RS_INVALID, naming it) or binary data (RS_INVALID) fail here. On failure
 * *out is NULL. The stream belongs to the caller (rs_instream_free). */
rs_status rs_instream_open(rs_instream **out, const char *path, rs_error *err);

/* The same over data[0..len) (not copied); name is used in messages. */
rs_status rs_instream_open_memory(rs_instream **out, const char *name, const char *data, size_t len,
                                  rs_error *err);

/* The first decoded bytes (at most RS_INSTREAM_HEAD; fewer only for a
 * shorter input), borrowed until the next read. */
const char *rs_instream_head(const rs_instream *s, size_t *len);

/* "gzip", "zstd", or NULL for plain text. */
const char *rs_instream_encoding(const rs_instream *s);

/* A plain (not compressed) memory input's bytes, all of them (*len), else
 * NULL: what rs_instream_open_memory was given, for a reader that reads it
 * in place rather than through rs_instream_read. */
const char *rs_instream_memory(const rs_instream *s, size_t *len);

/* Reads up to cap decoded bytes into buf, the held-back head first; *got 0
 * at end of input. Fits rs_csv_read_fn (ctx is the stream). Errors: RS_IO
 * (read error), RS_SYNTAX (corrupt or truncated compressed data). */
rs_status rs_instream_read(void *ctx, char *buf, size_t cap, size_t *got, rs_error *err);

/* Reads everything left into one NUL-terminated buffer in arena: RS_LIMIT
 * past max_bytes of decoded text. */
rs_status rs_instream_slurp(char **data, size_t *len, rs_instream *s, rs_arena *arena,
                            size_t max_bytes, rs_error *err);

/* Reports the bytes read from the source (compressed bytes for a compressed
 * file) to p, once per block, from now until the stream is freed, against
 * the file's size (unknown for standard input). p NULL: no-op. */
void rs_instream_set_progress(rs_instream *s, rs_progress *p);

/* Closes what the stream opened; NULL is a no-op. */
void rs_instream_free(rs_instream *s);

#endif

/* Opening input files safely: regular files only, special files refused
 * before anything blocks on them, and directory walks that stay inside
 * their tree.
 *
 * A FIFO with no writer, a terminal or a tape device can block a reader
 * forever or change state when opened, and /dev/zero never ends, so every
 * path rightsize reads goes through rs_file_open_regular: the path is
 * stat()ed first, refused unless it is a regular file, then opened with
 * O_NONBLOCK and checked again with fstat (the file may have been swapped
 * in between). A symbolic link loop is named as such, not "not found". */
#ifndef RIGHTSIZE_FILE_H
#define RIGHTSIZE_FILE_H

#include <stdbool.h>
#include <stdio.h>

#include "rightsize/error.h"

/* Opens path for reading ("rb"). On success *out is a stream the caller
 * closes with fclose. Errors (RS_IO, *out NULL): "cannot open: REASON"
 * (ELOOP reads "symbolic link loop"), "is a directory, expected a file",
 * "is a FIFO (named pipe), expected a regular file" and likewise for a
 * device or a socket (docs/exit-codes.md). */
rs_status rs_file_open_regular(FILE **out, const char *path, rs_error *err);

/* rs_file_open_regular, also giving the file's size when it was opened
 * (*size; a hint for buffer sizes: the file may grow or shrink after). */
rs_status rs_file_open_regular_size(FILE **out, unsigned long long *size, const char *path,
                                    rs_error *err);

/* Fills err with the "cannot open" message for errno value errnum at path
 * (ELOOP named "symbolic link loop") and returns RS_IO. For callers that
 * stat() a path themselves. */
rs_status rs_file_open_error(rs_error *err, const char *path, int errnum);

/* A file's identity (st_dev, st_ino), so a walk visits each directory once. */
typedef struct rs_file_id {
  unsigned long long dev, ino;
} rs_file_id;

/* What a directory walk may do with one of its entries. */
typedef enum {
  RS_FILE_SKIP,    /* a dangling link, a link out of the tree, or unreadable */
  RS_FILE_SPECIAL, /* a FIFO, a device or a socket: reading it would be refused */
  RS_FILE_REGULAR,
  RS_FILE_DIRECTORY
} rs_file_entry;

/* Classifies path, an entry found under a walk's root whose realpath() is
 * root_real. The entry itself (lstat) decides, except that a symbolic link
 * is followed when its target resolves inside root_real, so a walk never
 * leaves its tree. *out receives the identity of the file or directory
 * reached. */
rs_file_entry rs_file_classify(rs_file_id *out, const char *root_real, const char *path);

/* true when ids[0..n) holds id. */
bool rs_file_id_seen(const rs_file_id *ids, size_t n, rs_file_id id);

/* Writing output files atomically: a reader never sees half a file, and a
 * failure leaves the target as it was. The data goes whole into a fresh
 * temporary in the target's directory, DIR/.BASE.XXXXXX (mkstemp: O_EXCL,
 * so a file or link planted there is never followed), with the permissions
 * an ordinary open would give (0666 less the umask), flushed with fsync,
 * then renamed over the target. Only the temporary this run created is ever
 * removed. Errors: RS_INTERNAL "cannot write: REASON" (exit code 5, as for
 * standard output, docs/exit-codes.md; a directory target is refused before
 * anything is written), RS_NOMEM. */
typedef struct rs_file_staged {
  const char *path; /* the target (borrowed) */
  char *tmp;        /* the temporary this run created; NULL once renamed or removed */
} rs_file_staged;

/* Writes data[0..len) into a new temporary for path. On failure nothing is
 * left behind and s->tmp is NULL. */
rs_status rs_file_stage(rs_file_staged *s, const char *path, const void *data, size_t len,
                        rs_error *err);

/* Renames the staged temporary over its target. */
rs_status rs_file_commit(rs_file_staged *s, rs_error *err);

/* Removes the temporary if it is still there; a no-op after a commit. */
void rs_file_unstage(rs_file_staged *s);

/* Stage, then commit: the one-file case. */
rs_status rs_file_write_atomic(const char *path, const void *data, size_t len, rs_error *err);

#endif

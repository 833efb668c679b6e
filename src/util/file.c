/* Regular files only, walks that stay inside their tree, and atomic
 * writes (file.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "rightsize/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

rs_status rs_file_open_error(rs_error *err, const char *path, int errnum) {
  if (errnum == ELOOP)
    return rs_error_set(err, RS_IO, path, 0, 0, "cannot open: symbolic link loop (%s)",
                        strerror(errnum));
  return rs_error_set(err, RS_IO, path, 0, 0, "cannot open: %s", strerror(errnum));
}

/* The error for a path that exists but is not a regular file. */
static rs_status refuse(rs_error *err, const char *path, mode_t mode) {
  const char *what = S_ISFIFO(mode)   ? "a FIFO (named pipe)"
                     : S_ISCHR(mode)  ? "a character device"
                     : S_ISBLK(mode)  ? "a block device"
                     : S_ISSOCK(mode) ? "a socket"
                                      : NULL;
  if (S_ISDIR(mode))
    return rs_error_set(err, RS_IO, path, 0, 0, "is a directory, expected a file");
  if (what == NULL)
    return rs_error_set(err, RS_IO, path, 0, 0, "is not a regular file");
  return rs_error_set(err, RS_IO, path, 0, 0, "is %s, expected a regular file", what);
}

rs_status rs_file_open_regular(FILE **out, const char *path, rs_error *err) {
  unsigned long long size;
  return rs_file_open_regular_size(out, &size, path, err);
}

rs_status rs_file_open_regular_size(FILE **out, unsigned long long *size, const char *path,
                                    rs_error *err) {
  struct stat sb;
  int fd;
  *out = NULL;
  *size = 0;
  /* stat first: opening a FIFO or a device may block or have effects. */
  if (stat(path, &sb) != 0)
    return rs_file_open_error(err, path, errno);
  if (!S_ISREG(sb.st_mode))
    return refuse(err, path, sb.st_mode);
  /* O_NONBLOCK: a FIFO swapped in after the stat must not block the open. */
  fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return rs_file_open_error(err, path, errno);
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    rs_status st =
        S_ISREG(sb.st_mode) ? rs_file_open_error(err, path, errno) : refuse(err, path, sb.st_mode);
    close(fd);
    return st;
  }
  /* Back to blocking reads. Of the flags F_SETFL can change (O_APPEND,
   * O_ASYNC, O_DIRECT, O_NOATIME, O_NONBLOCK) the open above set only
   * O_NONBLOCK, so 0 clears it without an F_GETFL first: one system call
   * fewer per file. */
  fcntl(fd, F_SETFL, 0);
  *size = (unsigned long long)sb.st_size;
  if ((*out = fdopen(fd, "rb")) == NULL) {
    int saved = errno;
    close(fd);
    return saved == ENOMEM
               ? rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory opening the file")
               : rs_file_open_error(err, path, saved);
  }
  return RS_OK;
}

/* true when the resolved target of path lies inside root_real. */
static bool inside(const char *root_real, const char *path) {
  char *real = realpath(path, NULL);
  size_t n = strlen(root_real);
  bool in = real != NULL && strncmp(real, root_real, n) == 0 &&
            (real[n] == '/' || real[n] == '\0' || (n > 0 && root_real[n - 1] == '/'));
  free(real);
  return in;
}

rs_file_entry rs_file_classify(rs_file_id *out, const char *root_real, const char *path) {
  struct stat sb;
  if (lstat(path, &sb) != 0)
    return RS_FILE_SKIP;
  if (S_ISLNK(sb.st_mode) && (!inside(root_real, path) || stat(path, &sb) != 0))
    return RS_FILE_SKIP;
  out->dev = (unsigned long long)sb.st_dev;
  out->ino = (unsigned long long)sb.st_ino;
  if (S_ISREG(sb.st_mode))
    return RS_FILE_REGULAR;
  return S_ISDIR(sb.st_mode) ? RS_FILE_DIRECTORY : RS_FILE_SPECIAL;
}

bool rs_file_id_seen(const rs_file_id *ids, size_t n, rs_file_id id) {
  for (size_t i = 0; i < n; i++)
    if (ids[i].dev == id.dev && ids[i].ino == id.ino)
      return true;
  return false;
}

/* ---- atomic writes ---- */

static rs_status cannot_write(rs_error *err, const char *path, int errnum) {
  return rs_error_set(err, RS_INTERNAL, path, 0, 0, "cannot write: %s",
                      strerror(errnum ? errnum : EIO));
}

/* Writes all of data to fd, then fsync. */
static bool write_all(int fd, const char *data, size_t len) {
  for (size_t done = 0; done < len;) {
    ssize_t n = write(fd, data + done, len - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += (size_t)n;
  }
  return fsync(fd) == 0;
}

rs_status rs_file_stage(rs_file_staged *s, const char *path, const void *data, size_t len,
                        rs_error *err) {
  struct stat sb;
  const char *slash = strrchr(path, '/');
  size_t dir = slash ? (size_t)(slash - path) + 1 : 0, n = strlen(path) + 9;
  s->path = path;
  s->tmp = NULL;
  /* A rename onto a directory fails: find out before anything moves. */
  if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
    return rs_error_set(err, RS_INTERNAL, path, 0, 0, "cannot write: is a directory");
  char *tmp = malloc(n);
  if (tmp == NULL)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  snprintf(tmp, n, "%.*s.%s.XXXXXX", (int)dir, path, path + dir);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    int saved = errno;
    free(tmp);
    return cannot_write(err, path, saved);
  }
  s->tmp = tmp;
  mode_t mask = umask(0); /* mkstemp makes the file 0600 */
  umask(mask);
  errno = 0;
  bool ok = fchmod(fd, 0666 & ~mask) == 0 && write_all(fd, data, len);
  int saved = errno;
  ok = close(fd) == 0 && ok;
  if (ok)
    return RS_OK;
  rs_file_unstage(s);
  return cannot_write(err, path, saved ? saved : errno);
}

rs_status rs_file_commit(rs_file_staged *s, rs_error *err) {
  if (rename(s->tmp, s->path) != 0) {
    int saved = errno;
    rs_file_unstage(s);
    return cannot_write(err, s->path, saved);
  }
  free(s->tmp);
  s->tmp = NULL;
  return RS_OK;
}

void rs_file_unstage(rs_file_staged *s) {
  if (s->tmp != NULL)
    unlink(s->tmp);
  free(s->tmp);
  s->tmp = NULL;
}

rs_status rs_file_write_atomic(const char *path, const void *data, size_t len, rs_error *err) {
  rs_file_staged s;
  rs_status st = rs_file_stage(&s, path, data, len, err);
  return st == RS_OK ? rs_file_commit(&s, err) : st;
}

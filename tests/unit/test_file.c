/* rs_file_open_regular and the walk helpers (file.h): special files are
 * refused without blocking, a link loop is named, links never leave a tree. */
#define _XOPEN_SOURCE 700 /* mkdtemp, realpath, symlink */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "rightsize/file.h"

typedef struct tree {
  char dir[64];
  char path[256];
} tree;

static const char *at(tree *t, const char *name) {
  snprintf(t->path, sizeof(t->path), "%s/%s", t->dir, name);
  return t->path;
}

static int setup_tree(void **state) {
  tree *t = calloc(1, sizeof(*t));
  FILE *f;
  if (t == NULL)
    return -1;
  snprintf(t->dir, sizeof(t->dir), "/tmp/rs_test_file.XXXXXX");
  if (mkdtemp(t->dir) == NULL || (f = fopen(at(t, "plain.csv"), "w")) == NULL)
    return -1;
  fputs("timestamp\n", f);
  fclose(f);
  *state = t;
  return 0;
}

static int teardown_tree(void **state) {
  tree *t = *state;
  char cmd[128];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
  int rc = system(cmd);
  free(t);
  return rc == 0 ? 0 : -1;
}

/* Expects opening name to fail with RS_IO and a message holding want. */
static void refused(tree *t, const char *name, const char *want) {
  FILE *f = (FILE *)1;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_file_open_regular(&f, at(t, name), &err), RS_IO);
  assert_null(f);
  if (strstr(err.msg, want) == NULL)
    fail_msg("'%s': message '%s' lacks '%s'", name, err.msg, want);
  assert_string_equal(err.path, t->path);
}

static void test_regular_file_opens(void **state) {
  tree *t = *state;
  FILE *f = NULL;
  char line[32];
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_file_open_regular(&f, at(t, "plain.csv"), &err), RS_OK);
  assert_non_null(fgets(line, sizeof(line), f));
  assert_string_equal(line, "timestamp\n");
  fclose(f);
}

static void test_special_files_refused(void **state) {
  tree *t = *state;
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  assert_int_equal(mkfifo(at(t, "fifo"), 0600), 0);
  refused(t, "fifo", "is a FIFO (named pipe), expected a regular file"); /* and no hang */
  assert_true(strlen(at(t, "sock")) < sizeof(sa.sun_path));
  memcpy(sa.sun_path, t->path, strlen(t->path) + 1);
  assert_true(s >= 0);
  assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
  close(s);
  refused(t, "sock", "is a socket, expected a regular file");
  assert_int_equal(mkdir(at(t, "d"), 0700), 0);
  refused(t, "d", "is a directory, expected a file");
  refused(t, "missing", "cannot open: No such file or directory");
  assert_int_equal(symlink("loop", at(t, "loop")), 0);
  refused(t, "loop", "cannot open: symbolic link loop");
  assert_int_equal(symlink("/dev/null", at(t, "null")), 0);
  refused(t, "null", "is a character device, expected a regular file");
}

static void test_classify_stays_inside(void **state) {
  tree *t = *state;
  char *root = realpath(t->dir, NULL);
  rs_file_id id, root_id, back_id;
  assert_non_null(root);
  assert_int_equal(mkdir(at(t, "sub"), 0700), 0);
  assert_int_equal(symlink("..", at(t, "sub/up")), 0);
  assert_int_equal(symlink("/tmp", at(t, "out")), 0);
  assert_int_equal(symlink("plain.csv", at(t, "alias.csv")), 0);
  assert_int_equal(symlink("nowhere", at(t, "dangling")), 0);
  assert_int_equal(mkfifo(at(t, "f"), 0600), 0);
  assert_int_equal(rs_file_classify(&root_id, root, t->dir), RS_FILE_DIRECTORY);
  assert_int_equal(rs_file_classify(&id, root, at(t, "plain.csv")), RS_FILE_REGULAR);
  assert_int_equal(rs_file_classify(&id, root, at(t, "alias.csv")), RS_FILE_REGULAR);
  assert_int_equal(rs_file_classify(&id, root, at(t, "out")), RS_FILE_SKIP);
  assert_int_equal(rs_file_classify(&id, root, at(t, "dangling")), RS_FILE_SKIP);
  assert_int_equal(rs_file_classify(&id, root, at(t, "f")), RS_FILE_SPECIAL);
  /* The cycle: sub/up is the root again, the same identity. */
  assert_int_equal(rs_file_classify(&back_id, root, at(t, "sub/up")), RS_FILE_DIRECTORY);
  assert_true(rs_file_id_seen(&root_id, 1, back_id));
  assert_false(rs_file_id_seen(&root_id, 1, id));
  assert_false(rs_file_id_seen(NULL, 0, id));
  free(root);
}

/* The names in t->dir other than plain.csv, sorted into one string. */
static void listing(tree *t, char *out, size_t size) {
  char cmd[160];
  snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -v '^plain.csv$' | tr '\\n' ' '", t->dir);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t n = fread(out, 1, size - 1, p);
  out[n] = '\0';
  pclose(p);
}

static void contents(const char *path, const char *want) {
  char buf[64] = {0};
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  size_t n = fread(buf, 1, sizeof(buf) - 1, f);
  fclose(f);
  assert_int_equal(n, strlen(want));
  assert_string_equal(buf, want);
}

/* An atomic write replaces the target whole with ordinary permissions and
 * leaves no temporary; a staged file is invisible until committed, and
 * unstaging removes only the temporary. */
static void test_write_atomic(void **state) {
  tree *t = *state;
  char names[256];
  struct stat sb;
  rs_error err;
  rs_error_clear(&err);
  const char *target = at(t, "out.txt");
  assert_int_equal(rs_file_write_atomic(target, "first\n", 6, &err), RS_OK);
  contents(target, "first\n");
  assert_int_equal(rs_file_write_atomic(target, "second\n", 7, &err), RS_OK);
  contents(target, "second\n");
  assert_int_equal(stat(target, &sb), 0);
  mode_t mask = umask(0);
  umask(mask);
  assert_int_equal(sb.st_mode & 0777, 0666 & ~mask);
  rs_file_staged s;
  assert_int_equal(rs_file_stage(&s, target, "third\n", 6, &err), RS_OK);
  assert_non_null(s.tmp);
  contents(target, "second\n"); /* not yet */
  contents(s.tmp, "third\n");
  rs_file_unstage(&s);
  assert_null(s.tmp);
  contents(target, "second\n");
  listing(t, names, sizeof(names));
  assert_string_equal(names, "out.txt ");
  assert_int_equal(rs_file_stage(&s, target, "fourth\n", 7, &err), RS_OK);
  assert_int_equal(rs_file_commit(&s, &err), RS_OK);
  rs_file_unstage(&s); /* a no-op after the commit */
  contents(target, "fourth\n");
  listing(t, names, sizeof(names));
  assert_string_equal(names, "out.txt ");
}

/* A directory target and a missing directory fail with RS_INTERNAL (exit
 * code 5) before anything is written; nothing is left behind. */
static void test_write_atomic_fails(void **state) {
  tree *t = *state;
  char names[256];
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(mkdir(at(t, "dir"), 0755), 0);
  assert_int_equal(rs_file_write_atomic(at(t, "dir"), "x", 1, &err), RS_INTERNAL);
  assert_non_null(strstr(err.msg, "is a directory"));
  rs_error_clear(&err);
  assert_int_equal(rs_file_write_atomic(at(t, "missing/out.txt"), "x", 1, &err), RS_INTERNAL);
  assert_non_null(strstr(err.msg, "cannot write"));
  listing(t, names, sizeof(names));
  assert_string_equal(names, "dir ");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_regular_file_opens, setup_tree, teardown_tree),
      cmocka_unit_test_setup_teardown(test_special_files_refused, setup_tree, teardown_tree),
      cmocka_unit_test_setup_teardown(test_classify_stays_inside, setup_tree, teardown_tree),
      cmocka_unit_test_setup_teardown(test_write_atomic, setup_tree, teardown_tree),
      cmocka_unit_test_setup_teardown(test_write_atomic_fails, setup_tree, teardown_tree),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

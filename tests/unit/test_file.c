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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_regular_file_opens, setup_tree, teardown_tree),
      cmocka_unit_test_setup_teardown(test_special_files_refused, setup_tree, teardown_tree),
      cmocka_unit_test_setup_teardown(test_classify_stays_inside, setup_tree, teardown_tree),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

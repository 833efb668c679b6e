/* The libcurl transport's loading (src/core/net/transport_curl.c): libcurl
 * is opened when a transport is made, not linked, so a missing library or a
 * library that is not libcurl is one error, and the loaded functions carry a
 * real request (to a closed local port: no network needed). The HTTP
 * behaviour itself is tests/integration/http.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "rightsize/http.h"
#include "transport_curl.h"

/* Opening from libs fails with RS_INTERNAL (exit code 5) and msg, and
 * leaves no transport. */
static void refused(const char *const *libs, const char *msg) {
  rs_transport *t = (rs_transport *)1;
  rs_error err;
  rs_error_clear(&err);
  assert_int_equal(rs_transport_curl_open(&t, libs, &err), RS_INTERNAL);
  assert_null(t);
  assert_string_equal(err.msg, msg);
  assert_int_equal(rs_status_exit_code(err.status), 5);
}

static void test_missing_library_is_one_error(void **state) {
  static const char *const libs[] = {"libcurl-does-not-exist.so.4", "nor-this.so", NULL};
  (void)state;
  refused(libs, "cannot load libcurl-does-not-exist.so.4, which fetch and record need for HTTP: "
                "install libcurl (Debian: libcurl4)");
}

static void test_library_without_curl_is_refused(void **state) {
  static const char *const libs[] = {"libm.so.6", NULL};
  (void)state;
  refused(libs, "libm.so.6 has no curl_global_init, expected libcurl");
}

/* The second name is tried when the first does not load. */
static void test_loads_and_performs(void **state) {
  static const char *const libs[] = {"libcurl-does-not-exist.so.4", "libcurl.so.4", NULL};
  rs_transport *t = NULL;
  rs_error err;
  rs_buf body;
  long status = -1;
  rs_http_request req = {.url = "http://127.0.0.1:1/api/v1/query_range?query=up",
                         .connect_timeout_ms = 2000,
                         .timeout_ms = 2000};
  (void)state;
  rs_error_clear(&err);
  assert_int_equal(rs_transport_curl_open(&t, libs, &err), RS_OK);
  assert_non_null(t);
  rs_buf_init(&body, 1 << 20);
  /* nothing listens on port 1: curl's own message, naming the endpoint only */
  assert_int_equal(t->perform(t, &req, &status, &body, &err), RS_IO);
  assert_non_null(strstr(err.msg, "http://127.0.0.1:1/api/v1/query_range: "));
  assert_null(strstr(err.msg, "query=up"));
  assert_int_equal(body.len, 0);
  rs_buf_release(&body);
  rs_transport_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_missing_library_is_one_error),
      cmocka_unit_test(test_library_without_curl_is_refused),
      cmocka_unit_test(test_loads_and_performs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Progress lines: their text, the delay, the rate limit, the clearing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rightsize/progress.h"

static void test_format(void **state) {
  (void)state;
  rs_progress p;
  char line[128];
  rs_progress_init(&p, stderr, 0);
  rs_progress_begin(&p, "reading big.csv", NULL, 882000000);
  rs_progress_format(line, sizeof(line), &p, 412000000);
  assert_string_equal(line, "reading big.csv: 412 MB of 882 MB (46%)");
  rs_progress_format(line, sizeof(line), &p, 900000000); /* a file that grew */
  assert_string_equal(line, "reading big.csv: 900 MB of 882 MB (100%)");
  rs_progress_begin(&p, "reading -", NULL, 0);
  rs_progress_format(line, sizeof(line), &p, 5500000);
  assert_string_equal(line, "reading -: 5 MB");
  rs_progress_begin(&p, "audit", "endpoints", 10000);
  rs_progress_format(line, sizeof(line), &p, 312);
  assert_string_equal(line, "audit: 312 of 10,000 endpoints");
  rs_progress_format(line, sizeof(line), &p, 1234567);
  assert_string_equal(line, "audit: 1,234,567 of 10,000 endpoints");
  rs_progress_end(&p);
}

/* Drawn into a memory stream: with no delay the first update draws, the
 * next one within 0.1 s does not, the end clears the line; with a long
 * delay nothing is drawn; off (no stream) and NULL are no-ops. */
static void test_draw(void **state) {
  (void)state;
  char *text = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&text, &len);
  assert_non_null(fp);
  rs_progress p;
  rs_progress_init(&p, fp, 0);
  rs_progress_begin(&p, "audit", "endpoints", 3);
  rs_progress_update(&p, 1);
  rs_progress_update(&p, 2);
  rs_progress_end(&p);
  fflush(fp);
  /* the clearing writes as many spaces as the line was long (23) */
  assert_string_equal(text, "\raudit: 1 of 3 endpoints\r                       \r");
  rewind(fp);
  memset(text, 0, len);
  rs_progress_init(&p, fp, 3600);
  rs_progress_begin(&p, "audit", "endpoints", 3);
  rs_progress_update(&p, 1);
  rs_progress_end(&p);
  fflush(fp);
  assert_int_equal(ftell(fp), 0);
  fclose(fp);
  free(text);
  rs_progress_init(&p, NULL, 0);
  rs_progress_begin(&p, "x", NULL, 1);
  rs_progress_update(&p, 1);
  rs_progress_end(&p);
  rs_progress_update(NULL, 1);
  rs_progress_end(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_format),
      cmocka_unit_test(test_draw),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

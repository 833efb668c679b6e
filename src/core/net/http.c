/* Retries and URL encoding around a transport (include/rightsize/http.h). */
#include "rightsize/http.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_ATTEMPTS 4

void rs_transport_free(rs_transport *t) {
  if (t != NULL && t->free != NULL)
    t->free(t);
}

static void nap(void *ctx, double seconds) {
  struct timespec ts;
  (void)ctx;
  ts.tv_sec = (time_t)seconds;
  ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
  while (nanosleep(&ts, &ts) != 0)
    ;
}

static bool retryable(long status) { return status == 429 || (status >= 500 && status <= 599); }

rs_status rs_http_get(rs_transport *t, const rs_http_request *req, const rs_http_retry *retry,
                      long *status, rs_buf *body, rs_error *err) {
  unsigned attempts = retry && retry->attempts ? retry->attempts : DEFAULT_ATTEMPTS;
  double delay = retry && retry->base_delay_s > 0 ? retry->base_delay_s : 1.0;
  void (*wait)(void *, double) = retry && retry->sleep ? retry->sleep : nap;
  void *wait_ctx = retry ? retry->sleep_ctx : NULL;
  rs_status st = RS_OK;
  for (unsigned i = 0; i < attempts; i++) {
    if (i > 0) {
      wait(wait_ctx, delay);
      delay *= 2;
    }
    rs_buf_reset(body);
    *status = 0;
    st = t->perform(t, req, status, body, err);
    if (st != RS_OK || !retryable(*status))
      return st;
  }
  return st; /* the last retryable status; the caller reports it */
}

rs_status rs_http_put_query_value(rs_buf *buf, const char *s) {
  static const char hex[] = "0123456789ABCDEF";
  rs_status st = RS_OK;
  for (const unsigned char *p = (const unsigned char *)s; st == RS_OK && *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
        *p == '-' || *p == '.' || *p == '_' || *p == '~') {
      st = rs_buf_putc(buf, (char)*p);
    } else {
      char enc[3] = {'%', hex[*p >> 4], hex[*p & 15]};
      st = rs_buf_append(buf, enc, 3);
    }
  }
  return st;
}

rs_status rs_http_put_basic_auth(rs_buf *buf, const char *user_colon_password) {
  static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const unsigned char *p = (const unsigned char *)user_colon_password;
  size_t n = strlen(user_colon_password);
  rs_status st = rs_buf_puts(buf, "Basic ");
  for (size_t i = 0; st == RS_OK && i < n; i += 3) {
    unsigned v = (unsigned)p[i] << 16;
    char q[4];
    if (i + 1 < n)
      v |= (unsigned)p[i + 1] << 8;
    if (i + 2 < n)
      v |= p[i + 2];
    q[0] = b64[(v >> 18) & 63];
    q[1] = b64[(v >> 12) & 63];
    q[2] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
    q[3] = i + 2 < n ? b64[v & 63] : '=';
    st = rs_buf_append(buf, q, 4);
  }
  return st;
}

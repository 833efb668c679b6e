/* HTTP GET behind a small transport interface.
 *
 * The real transport is libcurl (src/core/net/transport_curl.c, the only
 * file that includes <curl/curl.h>; libcurl is loaded when the transport is
 * made, not linked); tests inject a fake one. rs_http_get adds
 * what every caller needs on top of one request: retries with exponential
 * backoff on 429 and 5xx, and one-line errors that never contain the
 * credential. */
#ifndef RIGHTSIZE_HTTP_H
#define RIGHTSIZE_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "rightsize/buf.h"
#include "rightsize/error.h"

typedef struct rs_http_request {
  const char *url;           /* http:// or https://, without user:password@ */
  const char *authorization; /* the Authorization header value, or NULL; never logged */
  bool insecure;             /* skip TLS certificate and host name checks */
  long connect_timeout_ms;   /* 0: 10 s */
  long timeout_ms;           /* whole request; 0: 60 s */
  size_t max_bytes;          /* response body cap; 0: RS_HTTP_DEFAULT_MAX */
} rs_http_request;

#define RS_HTTP_DEFAULT_MAX ((size_t)64 << 20)

typedef struct rs_transport rs_transport;

/* One request. On RS_OK *status is the HTTP status (any value) and body
 * holds the response body. A failure to get a response (connect, DNS, TLS,
 * timeout) is RS_IO; a body over req->max_bytes is RS_LIMIT; err says which,
 * naming the URL. */
typedef rs_status (*rs_transport_fn)(rs_transport *t, const rs_http_request *req, long *status,
                                     rs_buf *body, rs_error *err);

struct rs_transport {
  rs_transport_fn perform;
  void (*free)(rs_transport *t); /* NULL when there is nothing to free */
  void *ctx;
};

/* The libcurl transport: loads libcurl.so.4 (dlopen) and looks up the
 * functions it calls; RS_INTERNAL naming the library when it cannot. The
 * handle belongs to the caller (rs_transport_free). */
rs_status rs_transport_curl_new(rs_transport **out, rs_error *err);
void rs_transport_free(rs_transport *t);

typedef struct rs_http_retry {
  unsigned attempts;   /* tries in all; 0: 4 */
  double base_delay_s; /* first wait; doubles each retry; 0: 1 s */
  /* Waits; NULL: nanosleep. Tests pass a recorder. */
  void (*sleep)(void *ctx, double seconds);
  void *sleep_ctx;
} rs_http_retry;

/* GET with retries (retry may be NULL for the defaults): 429 and 5xx are
 * retried, other statuses returned at once. On RS_OK *status is the last
 * HTTP status, which may still be an error status: the caller decides
 * (Prometheus explains 400 and 422 in a JSON body). */
rs_status rs_http_get(rs_transport *t, const rs_http_request *req, const rs_http_retry *retry,
                      long *status, rs_buf *body, rs_error *err);

/* Appends s to buf percent-encoded for a URL query value (RFC 3986 unreserved
 * characters kept). */
rs_status rs_http_put_query_value(rs_buf *buf, const char *s);

/* Appends the Authorization value for HTTP basic auth: "Basic " and the
 * base64 of user_colon_password ("user:password"). */
rs_status rs_http_put_basic_auth(rs_buf *buf, const char *user_colon_password);

#endif

/* The libcurl door: the only file that includes <curl/curl.h>. One GET per
 * call, with TLS verification on unless asked, connect and total timeouts,
 * a cap on the body, no redirects (a redirect would carry the credential to
 * another host) and http/https only. */
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#include "rightsize/http.h"

#define DEFAULT_CONNECT_MS 10000L
#define DEFAULT_TOTAL_MS 60000L

typedef struct sink {
  rs_buf *body;
  size_t max;
  bool over;
} sink;

static size_t on_data(char *data, size_t size, size_t n, void *userdata) {
  sink *s = userdata;
  size_t len = size * n;
  if (s->body->len + len > s->max) {
    s->over = true;
    return 0; /* stops the transfer with CURLE_WRITE_ERROR */
  }
  return rs_buf_append(s->body, data, len) == RS_OK ? len : 0;
}

static rs_status setup(CURL *h, const rs_http_request *req, sink *s, struct curl_slist **headers,
                       char *errbuf) {
  bool ok = true;
  if (req->authorization != NULL) {
    size_t n = strlen("Authorization: ") + strlen(req->authorization) + 1;
    char *line = malloc(n);
    if (line == NULL)
      return RS_NOMEM;
    strcpy(line, "Authorization: ");
    strcat(line, req->authorization);
    *headers = curl_slist_append(NULL, line);
    memset(line, 0, n); /* curl keeps its own copy */
    free(line);
    if (*headers == NULL)
      return RS_NOMEM;
  }
  ok = ok && curl_easy_setopt(h, CURLOPT_URL, req->url) == CURLE_OK;
  ok = ok && curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK;
  ok = ok && curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L) == CURLE_OK;
  ok = ok && curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L) == CURLE_OK;
  ok = ok && curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf) == CURLE_OK;
  ok = ok && curl_easy_setopt(h, CURLOPT_USERAGENT, "rightsize") == CURLE_OK;
  ok = ok && curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "") == CURLE_OK;
  ok = ok && curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, req->insecure ? 0L : 1L) == CURLE_OK;
  ok = ok && curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, req->insecure ? 0L : 2L) == CURLE_OK;
  ok = ok && curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                              req->connect_timeout_ms > 0 ? req->connect_timeout_ms
                                                          : DEFAULT_CONNECT_MS) == CURLE_OK;
  ok = ok && curl_easy_setopt(h, CURLOPT_TIMEOUT_MS,
                              req->timeout_ms > 0 ? req->timeout_ms : DEFAULT_TOTAL_MS) == CURLE_OK;
  ok = ok && curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data) == CURLE_OK;
  ok = ok && curl_easy_setopt(h, CURLOPT_WRITEDATA, s) == CURLE_OK;
  if (*headers != NULL)
    ok = ok && curl_easy_setopt(h, CURLOPT_HTTPHEADER, *headers) == CURLE_OK;
  return ok ? RS_OK : RS_INTERNAL;
}

static rs_status curl_get(rs_transport *t, const rs_http_request *req, long *status, rs_buf *body,
                          rs_error *err) {
  char errbuf[CURL_ERROR_SIZE] = "";
  struct curl_slist *headers = NULL;
  sink s = {body, req->max_bytes ? req->max_bytes : RS_HTTP_DEFAULT_MAX, false};
  CURL *h = curl_easy_init();
  rs_status st;
  CURLcode rc;
  int shown = (int)strcspn(req->url, "?"); /* messages name the endpoint, not the whole query */
  (void)t;
  if (h == NULL)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "cannot start an HTTP transfer");
  st = setup(h, req, &s, &headers, errbuf);
  if (st != RS_OK) {
    st = rs_error_set(err, st, NULL, 0, 0, "cannot set up the HTTP transfer to %.*s", shown,
                      req->url);
  } else if ((rc = curl_easy_perform(h)) != CURLE_OK) {
    if (s.over)
      st = rs_error_set(err, RS_LIMIT, NULL, 0, 0,
                        "%.*s: the response is larger than %zu bytes, expected a smaller answer "
                        "(narrow the selector or the time range, or raise --max-bytes)",
                        shown, req->url, s.max);
    else
      st = rs_error_set(err, RS_IO, NULL, 0, 0, "%.*s: %s", shown, req->url,
                        errbuf[0] ? errbuf : curl_easy_strerror(rc));
  } else {
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(h);
  return st;
}

static void curl_transport_free(rs_transport *t) { free(t); }

rs_status rs_transport_curl_new(rs_transport **out, rs_error *err) {
  rs_transport *t;
  *out = NULL;
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
    return rs_error_set(err, RS_INTERNAL, NULL, 0, 0, "cannot initialise libcurl");
  t = calloc(1, sizeof(*t));
  if (t == NULL)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  t->perform = curl_get;
  t->free = curl_transport_free;
  *out = t;
  return RS_OK;
}

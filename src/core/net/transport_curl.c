/* The libcurl door: the only file that includes <curl/curl.h>. One GET per
 * call, with TLS verification on unless asked, connect and total timeouts,
 * a cap on the body, no redirects (a redirect would carry the credential to
 * another host) and http/https only.
 *
 * libcurl is loaded when a transport is made (dlopen), not linked: through
 * it the program needed 29 more shared objects (TLS, Kerberos, LDAP, SSH,
 * IDN...) that the loader mapped and relocated on every run, about two
 * thirds of a `recommend`'s time, for the two commands (fetch, record) that
 * speak HTTP (docs/design.md, "Start-up"). The header still gives the types
 * and constants; the functions come from the table below. */
#include <curl/curl.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "rightsize/http.h"
#include "transport_curl.h"

/* The libcurl functions this file calls, looked up by name. */
typedef struct curl_api {
  CURLcode (*global_init)(long flags);
  CURL *(*easy_init)(void);
  CURLcode (*easy_setopt)(CURL *h, CURLoption option, ...);
  CURLcode (*easy_perform)(CURL *h);
  CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
  const char *(*easy_strerror)(CURLcode code);
  void (*easy_cleanup)(CURL *h);
  struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
  void (*slist_free_all)(struct curl_slist *list);
} curl_api;

/* A transport and the functions it calls (t->ctx points at api). */
typedef struct curl_transport {
  rs_transport t;
  curl_api api;
} curl_transport;

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

static rs_status setup(const curl_api *api, CURL *h, const rs_http_request *req, sink *s,
                       struct curl_slist **headers, char *errbuf) {
  bool ok = true;
  if (req->authorization != NULL) {
    size_t n = strlen("Authorization: ") + strlen(req->authorization) + 1;
    char *line = malloc(n);
    if (line == NULL)
      return RS_NOMEM;
    strcpy(line, "Authorization: ");
    strcat(line, req->authorization);
    *headers = api->slist_append(NULL, line);
    memset(line, 0, n); /* curl keeps its own copy */
    free(line);
    if (*headers == NULL)
      return RS_NOMEM;
  }
  ok = ok && api->easy_setopt(h, CURLOPT_URL, req->url) == CURLE_OK;
  ok = ok && api->easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK;
  ok = ok && api->easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L) == CURLE_OK;
  ok = ok && api->easy_setopt(h, CURLOPT_NOSIGNAL, 1L) == CURLE_OK;
  ok = ok && api->easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf) == CURLE_OK;
  ok = ok && api->easy_setopt(h, CURLOPT_USERAGENT, "rightsize") == CURLE_OK;
  ok = ok && api->easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "") == CURLE_OK;
  ok = ok && api->easy_setopt(h, CURLOPT_SSL_VERIFYPEER, req->insecure ? 0L : 1L) == CURLE_OK;
  ok = ok && api->easy_setopt(h, CURLOPT_SSL_VERIFYHOST, req->insecure ? 0L : 2L) == CURLE_OK;
  ok = ok && api->easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                              req->connect_timeout_ms > 0 ? req->connect_timeout_ms
                                                          : DEFAULT_CONNECT_MS) == CURLE_OK;
  ok = ok && api->easy_setopt(h, CURLOPT_TIMEOUT_MS,
                              req->timeout_ms > 0 ? req->timeout_ms : DEFAULT_TOTAL_MS) == CURLE_OK;
  ok = ok && api->easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data) == CURLE_OK;
  ok = ok && api->easy_setopt(h, CURLOPT_WRITEDATA, s) == CURLE_OK;
  if (*headers != NULL)
    ok = ok && api->easy_setopt(h, CURLOPT_HTTPHEADER, *headers) == CURLE_OK;
  return ok ? RS_OK : RS_INTERNAL;
}

static rs_status curl_get(rs_transport *t, const rs_http_request *req, long *status, rs_buf *body,
                          rs_error *err) {
  char errbuf[CURL_ERROR_SIZE] = "";
  struct curl_slist *headers = NULL;
  sink s = {body, req->max_bytes ? req->max_bytes : RS_HTTP_DEFAULT_MAX, false};
  const curl_api *api = t->ctx;
  CURL *h = api->easy_init();
  rs_status st;
  CURLcode rc;
  int shown = (int)strcspn(req->url, "?"); /* messages name the endpoint, not the whole query */
  if (h == NULL)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "cannot start an HTTP transfer");
  st = setup(api, h, req, &s, &headers, errbuf);
  if (st != RS_OK) {
    st = rs_error_set(err, st, NULL, 0, 0, "cannot set up the HTTP transfer to %.*s", shown,
                      req->url);
  } else if ((rc = api->easy_perform(h)) != CURLE_OK) {
    if (s.over)
      st = rs_error_set(err, RS_LIMIT, NULL, 0, 0,
                        "%.*s: the response is larger than %zu bytes, expected a smaller answer "
                        "(narrow the selector or the time range, or raise --max-bytes)",
                        shown, req->url, s.max);
    else
      st = rs_error_set(err, RS_IO, NULL, 0, 0, "%.*s: %s", shown, req->url,
                        errbuf[0] ? errbuf : api->easy_strerror(rc));
  } else {
    api->easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
  }
  api->slist_free_all(headers);
  api->easy_cleanup(h);
  return st;
}

static void curl_transport_free(rs_transport *t) { free(t); }

/* Looks up every function of api in lib; the name of the first missing one,
 * or NULL when all are there. */
static const char *resolve(curl_api *api, void *lib) {
#define RS_CURL_SYM(field, name)                                                                   \
  if ((*(void **)&api->field = dlsym(lib, name)) == NULL)                                          \
    return name;
  RS_CURL_SYM(global_init, "curl_global_init")
  RS_CURL_SYM(easy_init, "curl_easy_init")
  RS_CURL_SYM(easy_setopt, "curl_easy_setopt")
  RS_CURL_SYM(easy_perform, "curl_easy_perform")
  RS_CURL_SYM(easy_getinfo, "curl_easy_getinfo")
  RS_CURL_SYM(easy_strerror, "curl_easy_strerror")
  RS_CURL_SYM(easy_cleanup, "curl_easy_cleanup")
  RS_CURL_SYM(slist_append, "curl_slist_append")
  RS_CURL_SYM(slist_free_all, "curl_slist_free_all")
#undef RS_CURL_SYM
  return NULL;
}

rs_status rs_transport_curl_open(rs_transport **out, const char *const *libs, rs_error *err) {
  curl_transport *ct;
  const char *missing;
  void *lib = NULL;
  *out = NULL;
  /* The first library that loads; never closed, as libcurl's TLS library
   * registers handlers that run at exit. */
  for (size_t i = 0; lib == NULL && libs[i] != NULL; i++)
    lib = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    return rs_error_set(err, RS_INTERNAL, NULL, 0, 0,
                        "cannot load %s, which fetch and record need for HTTP: install libcurl "
                        "(Debian: libcurl4)",
                        libs[0]);
  if ((ct = calloc(1, sizeof(*ct))) == NULL)
    return rs_error_set(err, RS_NOMEM, NULL, 0, 0, "out of memory");
  if ((missing = resolve(&ct->api, lib)) != NULL) {
    free(ct);
    return rs_error_set(err, RS_INTERNAL, NULL, 0, 0, "%s has no %s, expected libcurl", libs[0],
                        missing);
  }
  if (ct->api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    free(ct);
    return rs_error_set(err, RS_INTERNAL, NULL, 0, 0, "cannot initialise libcurl");
  }
  ct->t.perform = curl_get;
  ct->t.free = curl_transport_free;
  ct->t.ctx = &ct->api;
  *out = &ct->t;
  return RS_OK;
}

rs_status rs_transport_curl_new(rs_transport **out, rs_error *err) {
  /* libcurl's ABI 4 under its two Debian builds (OpenSSL, GnuTLS). */
  static const char *const libs[] = {"libcurl.so.4", "libcurl-gnutls.so.4", NULL};
  return rs_transport_curl_open(out, libs, err);
}

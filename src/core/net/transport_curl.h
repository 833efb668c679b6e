/* The libcurl transport with the libraries to try named (tests). */
#ifndef RS_TRANSPORT_CURL_H
#define RS_TRANSPORT_CURL_H

#include "rightsize/http.h"

/* rs_transport_curl_new with the shared objects tried in order (a
 * NULL-terminated list): RS_INTERNAL naming libs[0] when none loads, or one
 * lacks a function this transport calls. */
rs_status rs_transport_curl_open(rs_transport **out, const char *const *libs, rs_error *err);

#endif

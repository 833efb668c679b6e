/* Writing a profile document (docs/profile-format.md): what `rightsize
 * fetch` saves, in the form rs_profile_load reads back. */
#ifndef RIGHTSIZE_PROFILE_WRITE_H
#define RIGHTSIZE_PROFILE_WRITE_H

#include "rightsize/buf.h"
#include "rightsize/error.h"
#include "rightsize/profile.h"

/* Appends p to out as profile YAML, schema 1, after `comment` as a "# "
 * line when not NULL. Every string is a double-quoted scalar with its
 * quotes, backslashes and control characters escaped, so hostile names
 * (quotes, colons, '#', newlines) read back unchanged; sizes are written
 * in bytes ("123B"), durations in ms, families as a flow list. Defaults
 * (max_batch 1, growth 1, no region) are left out. Sample files are written
 * as given (files[].given; a mapping is written as its resolved path);
 * inline rows are not written: RS_INVALID when p has any. RS_NOMEM when
 * out failed. Reading the result with rs_profile_load from the directory
 * the sample paths are relative to gives the same profile. */
rs_status rs_profile_write(rs_buf *out, const rs_profile *p, const char *comment);

#endif

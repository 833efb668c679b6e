/* Name lists: every vocabulary (providers, families, formats, verdicts,
 * warning codes, confidence levels...) keeps its names in one array next to
 * its enum; these look a name up in such an array. Private to util and core. */
#ifndef RIGHTSIZE_NAMES_H
#define RIGHTSIZE_NAMES_H

#include <stddef.h>

/* The index of name among the first n entries of names (a NULL entry ends
 * the list early), or -1 when it is not there or name is NULL. */
int rs_names_find(const char *const *names, size_t n, const char *name);

#endif

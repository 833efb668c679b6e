/* Version of the rightsize library and program. */
#ifndef RIGHTSIZE_VERSION_H
#define RIGHTSIZE_VERSION_H

/* "0.1.0"; a static string. */
const char *rs_version(void);

#endif

#include "rightsize/version.h"

const char *rs_version(void) { return RS_VERSION; }

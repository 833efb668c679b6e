/* Name lists (names.h). */
#include "names.h"

#include <string.h>

int rs_names_find(const char *const *names, size_t n, const char *name) {
  if (name == NULL)
    return -1;
  for (size_t i = 0; i < n && names[i] != NULL; i++)
    if (strcmp(names[i], name) == 0)
      return (int)i;
  return -1;
}

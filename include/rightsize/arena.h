/* A bump allocator that owns the parsed data of one run.
 *
 * Allocations live until rs_arena_release(). The arena has a hard cap on the
 * bytes it will hand out, so a huge or hostile input fails with RS_NOMEM /
 * RS_LIMIT instead of eating the machine. With RS_ARENA_DEBUG defined at
 * build time every allocation is a separate malloc, so ASan and valgrind see
 * each one. */
#ifndef RIGHTSIZE_ARENA_H
#define RIGHTSIZE_ARENA_H

#include <stddef.h>

typedef struct rs_arena_block rs_arena_block;

typedef struct rs_arena {
  rs_arena_block *head;
  size_t used; /* bytes handed out */
  size_t cap;  /* hard cap on used; 0 means the default (1 GiB) */
} rs_arena;

#define RS_ARENA_DEFAULT_CAP ((size_t)1 << 30)

/* Prepares an empty arena with the given cap (0: the default). */
void rs_arena_init(rs_arena *arena, size_t cap);

/* Frees everything the arena handed out; the arena may be used again. */
void rs_arena_release(rs_arena *arena);

/* Returns size bytes aligned for any type, zeroed, or NULL when the cap is
 * reached or malloc fails. The memory is owned by the arena. */
void *rs_arena_alloc(rs_arena *arena, size_t size);

/* Copies n bytes of s and a terminating NUL into the arena (NULL on failure). */
char *rs_arena_strndup(rs_arena *arena, const char *s, size_t n);
char *rs_arena_strdup(rs_arena *arena, const char *s);

#endif

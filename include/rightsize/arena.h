/* A bump allocator that owns the parsed data of one run.
 *
 * Allocations live until rs_arena_release(). The arena has a hard cap on the
 * bytes it will hand out, so a huge or hostile input fails cleanly instead of
 * eating the machine. A failed allocation returns NULL and the arena
 * remembers why: RS_LIMIT when the cap (or a size overflow) refused it,
 * RS_NOMEM when malloc did, so callers report "input exceeds a limit"
 * (exit 3) apart from "out of memory" (exit 5) with one call,
 * rs_arena_error(). With RS_ARENA_DEBUG defined at build time every
 * allocation is a separate malloc, so ASan and valgrind see each one. */
#ifndef RIGHTSIZE_ARENA_H
#define RIGHTSIZE_ARENA_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rightsize/error.h"

typedef struct rs_arena_block rs_arena_block;

/* Where the arena gets its blocks; tests swap it to make malloc fail on
 * purpose (libuv's uv_replace_allocator, but per arena, not global). */
typedef struct rs_arena_allocator {
  void *(*alloc)(void *ctx, size_t size); /* NULL on failure */
  void (*free)(void *ctx, void *p);
  void *ctx;
} rs_arena_allocator;

typedef struct rs_arena {
  rs_arena_block *head;
  size_t used;      /* bytes handed out */
  size_t cap;       /* hard cap on used; 0 means the default (1 GiB) */
  rs_status failed; /* why the latest failed allocation failed; RS_OK if none did */
  const rs_arena_allocator *allocator; /* NULL: malloc and free */
} rs_arena;

#define RS_ARENA_DEFAULT_CAP ((size_t)1 << 30)

/* Prepares an empty arena with the given cap (0: the default), taking its
 * blocks from malloc. */
void rs_arena_init(rs_arena *arena, size_t cap);

/* Makes an empty arena take its blocks from allocator (borrowed; it must
 * outlive the arena). NULL restores malloc. */
void rs_arena_set_allocator(rs_arena *arena, const rs_arena_allocator *allocator);

/* Frees everything the arena handed out and forgets any failure; the arena
 * may be used again with the same cap and allocator. */
void rs_arena_release(rs_arena *arena);

/* Returns size bytes aligned for any type, zeroed, or NULL when the cap is
 * reached (arena->failed = RS_LIMIT) or malloc fails (RS_NOMEM). The memory
 * is owned by the arena. */
void *rs_arena_alloc(rs_arena *arena, size_t size);

/* rs_arena_alloc without the zeroing, for a block the caller writes (a big
 * struct most of which the caller's readers never look at). */
void *rs_arena_alloc_uninit(rs_arena *arena, size_t size);

/* rs_arena_alloc(arena, n * size), except that a product that overflows
 * size_t fails with RS_LIMIT instead of wrapping round to a small block. */
void *rs_arena_alloc_array(rs_arena *arena, size_t n, size_t size);

/* rs_arena_alloc_array without the zeroing, for an array the caller fills
 * before anything reads it. */
void *rs_arena_alloc_array_uninit(rs_arena *arena, size_t n, size_t size);

/* A copy of the n elements of size bytes at src, followed by one zeroed
 * element (a terminator, as arrays built in an arena keep), or NULL. */
void *rs_arena_dup_array(rs_arena *arena, const void *src, size_t n, size_t size);

/* Copies n bytes of s and a terminating NUL into the arena (NULL on failure). */
char *rs_arena_strndup(rs_arena *arena, const char *s, size_t n);
char *rs_arena_strdup(rs_arena *arena, const char *s);

/* Formats into a string owned by the arena, of any length (NULL on
 * failure: the cap, malloc, or an encoding error, which is RS_INTERNAL).
 * The v form leaves ap indeterminate, as vsnprintf does. */
char *rs_arena_printf(rs_arena *arena, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
char *rs_arena_vprintf(rs_arena *arena, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 0)))
#endif
    ;

/* Why the latest failed allocation failed (RS_LIMIT or RS_NOMEM), RS_OK
 * while none has. */
rs_status rs_arena_status(const rs_arena *arena);

/* Fills err after a failed allocation and returns its status: at the cap,
 * RS_LIMIT "memory limit of 1 GiB reached DOING; split the input into
 * smaller files"; otherwise RS_NOMEM "out of memory DOING". doing says what
 * the run was doing ("reading the document"); path names the input (may be
 * NULL). */
rs_status rs_arena_error(const rs_arena *arena, rs_error *err, const char *path, const char *doing);

/* *out = a * b; false (and *out untouched) when the product overflows
 * size_t. Every `n * size` allocation product goes through this or through
 * the *_array allocators. */
static inline bool rs_size_mul(size_t *out, size_t a, size_t b) {
  if (b != 0 && a > SIZE_MAX / b)
    return false;
  *out = a * b;
  return true;
}

/* malloc(n * size) and realloc(p, n * size) that fail (NULL, p untouched)
 * when the product overflows, as OpenBSD's reallocarray. For the few
 * buffers that live outside an arena (grown per row, or freed early). */
void *rs_malloc_array(size_t n, size_t size);
void *rs_realloc_array(void *p, size_t n, size_t size);

#endif

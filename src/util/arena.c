#include "rightsize/arena.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_SIZE ((size_t)64 * 1024)
#define ALIGN (alignof(max_align_t))

struct rs_arena_block {
  rs_arena_block *next;
  size_t size; /* usable bytes after the header */
  size_t off;
  alignas(max_align_t) unsigned char data[];
};

void rs_arena_init(rs_arena *arena, size_t cap) {
  arena->head = NULL;
  arena->used = 0;
  arena->cap = cap ? cap : RS_ARENA_DEFAULT_CAP;
  arena->failed = RS_OK;
  arena->allocator = NULL;
}

void rs_arena_set_allocator(rs_arena *arena, const rs_arena_allocator *allocator) {
  arena->allocator = allocator;
}

static void block_free(rs_arena *arena, rs_arena_block *b) {
  if (arena->allocator)
    arena->allocator->free(arena->allocator->ctx, b);
  else
    free(b);
}

void rs_arena_release(rs_arena *arena) {
  rs_arena_block *b = arena->head;
  while (b) {
    rs_arena_block *next = b->next;
    block_free(arena, b);
    b = next;
  }
  arena->head = NULL;
  arena->used = 0;
  arena->failed = RS_OK;
}

static rs_arena_block *block_new(rs_arena *arena, size_t size) {
  rs_arena_block *b;
  if (size > SIZE_MAX - sizeof(*b))
    return NULL;
  b = arena->allocator ? arena->allocator->alloc(arena->allocator->ctx, sizeof(*b) + size)
                       : malloc(sizeof(*b) + size);
  if (b == NULL)
    return NULL;
  b->next = NULL;
  b->size = size;
  b->off = 0;
  return b;
}

static void *fail(rs_arena *arena, rs_status why) {
  arena->failed = why;
  return NULL;
}

/* Finds need bytes in a block, taking a new block when the head is full. */
static void *bump(rs_arena *arena, size_t need, bool zero) {
#ifdef RS_ARENA_DEBUG
  rs_arena_block *b = block_new(arena, need);
  if (b == NULL)
    return fail(arena, RS_NOMEM);
  b->next = arena->head;
  arena->head = b;
#else
  rs_arena_block *b = arena->head;
  if (b == NULL || b->size - b->off < need) {
    /* Big requests get a block of their own, placed behind the current one
     * so the current block's free space is not wasted. */
    size_t bsize = need > BLOCK_SIZE / 4 ? need : BLOCK_SIZE;
    rs_arena_block *nb = block_new(arena, bsize);
    if (nb == NULL)
      return fail(arena, RS_NOMEM);
    if (bsize == need && b != NULL) {
      nb->next = b->next;
      b->next = nb;
    } else {
      nb->next = b;
      arena->head = nb;
    }
    b = nb;
  }
#endif
  void *p = b->data + b->off;
  b->off += need;
  arena->used += need;
  if (zero)
    memset(p, 0, need);
  return p;
}

static void *alloc(rs_arena *arena, size_t size, bool zero) {
  size_t need = (size + ALIGN - 1) & ~(ALIGN - 1);
  if (size == 0)
    need = ALIGN;
  if (need < size || need > arena->cap - arena->used)
    return fail(arena, RS_LIMIT);
  return bump(arena, need, zero);
}

void *rs_arena_alloc(rs_arena *arena, size_t size) { return alloc(arena, size, true); }

void *rs_arena_alloc_uninit(rs_arena *arena, size_t size) { return alloc(arena, size, false); }

static void *alloc_array(rs_arena *arena, size_t n, size_t size, bool zero) {
  size_t total;
  if (!rs_size_mul(&total, n, size))
    return fail(arena, RS_LIMIT);
  return alloc(arena, total, zero);
}

void *rs_arena_alloc_array(rs_arena *arena, size_t n, size_t size) {
  return alloc_array(arena, n, size, true);
}

void *rs_arena_alloc_array_uninit(rs_arena *arena, size_t n, size_t size) {
  return alloc_array(arena, n, size, false);
}

/* The copies below write every byte they hand out, so none is zeroed
 * first (the built-in catalog's 44 KB of tables are copied on every run). */
void *rs_arena_dup_array(rs_arena *arena, const void *src, size_t n, size_t size) {
  char *dst = n == SIZE_MAX ? fail(arena, RS_LIMIT) : alloc_array(arena, n + 1, size, false);
  if (dst == NULL)
    return NULL;
  if (n > 0)
    memcpy(dst, src, n * size);
  memset(dst + n * size, 0, size);
  return dst;
}

char *rs_arena_strndup(rs_arena *arena, const char *s, size_t n) {
  char *p;
  if (n == SIZE_MAX)
    return fail(arena, RS_LIMIT);
  p = rs_arena_alloc_uninit(arena, n + 1);
  if (p == NULL)
    return NULL;
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *rs_arena_strdup(rs_arena *arena, const char *s) {
  return rs_arena_strndup(arena, s, strlen(s));
}

char *rs_arena_vprintf(rs_arena *arena, const char *fmt, va_list ap) {
  /* Formatted once into a stack buffer and copied where it fits (the
   * reasons and explanations of a fit, a line each); a longer text is
   * formatted again into its own room. */
  char small[256];
  va_list again;
  char *p;
  int n;
  va_copy(again, ap);
  n = vsnprintf(small, sizeof(small), fmt, ap);
  if (n < 0) {
    va_end(again);
    return fail(arena, RS_INTERNAL);
  }
  p = rs_arena_alloc_uninit(arena, (size_t)n + 1);
  if (p != NULL && (size_t)n < sizeof(small))
    memcpy(p, small, (size_t)n + 1);
  else if (p != NULL)
    vsnprintf(p, (size_t)n + 1, fmt, again);
  va_end(again);
  return p;
}

char *rs_arena_printf(rs_arena *arena, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *p = rs_arena_vprintf(arena, fmt, ap);
  va_end(ap);
  return p;
}

rs_status rs_arena_status(const rs_arena *arena) { return arena->failed; }

/* "1 GiB", "64 MiB" or "1000 bytes": the cap as a user would write it. */
static void cap_text(char *buf, size_t size, size_t cap) {
  if (cap % ((size_t)1 << 30) == 0)
    snprintf(buf, size, "%zu GiB", cap >> 30);
  else if (cap % ((size_t)1 << 20) == 0)
    snprintf(buf, size, "%zu MiB", cap >> 20);
  else
    snprintf(buf, size, "%zu bytes", cap);
}

rs_status rs_arena_error(const rs_arena *arena, rs_error *err, const char *path,
                         const char *doing) {
  char cap[32];
  switch (arena->failed) {
  case RS_LIMIT:
    cap_text(cap, sizeof(cap), arena->cap);
    return rs_error_set(err, RS_LIMIT, path, 0, 0,
                        "memory limit of %s reached %s; split the input into smaller files", cap,
                        doing);
  case RS_INTERNAL:
    return rs_error_set(err, RS_INTERNAL, path, 0, 0, "cannot format text %s", doing);
  default: return rs_error_set(err, RS_NOMEM, path, 0, 0, "out of memory %s", doing);
  }
}

void *rs_malloc_array(size_t n, size_t size) {
  size_t total;
  return rs_size_mul(&total, n, size) ? malloc(total) : NULL;
}

void *rs_realloc_array(void *p, size_t n, size_t size) {
  size_t total;
  return rs_size_mul(&total, n, size) ? realloc(p, total) : NULL;
}

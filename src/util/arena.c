#include "rightsize/arena.h"

#include <stdalign.h>
#include <stdint.h>
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
}

void rs_arena_release(rs_arena *arena) {
  rs_arena_block *b = arena->head;
  while (b) {
    rs_arena_block *next = b->next;
    free(b);
    b = next;
  }
  arena->head = NULL;
  arena->used = 0;
}

static rs_arena_block *block_new(size_t size) {
  rs_arena_block *b = malloc(sizeof(*b) + size);
  if (b == NULL)
    return NULL;
  b->next = NULL;
  b->size = size;
  b->off = 0;
  return b;
}

void *rs_arena_alloc(rs_arena *arena, size_t size) {
  size_t need = (size + ALIGN - 1) & ~(ALIGN - 1);
  rs_arena_block *b;
  if (size == 0)
    need = ALIGN;
  if (need < size || need > arena->cap - arena->used)
    return NULL;
#ifdef RS_ARENA_DEBUG
  b = block_new(need);
  if (b == NULL)
    return NULL;
  b->next = arena->head;
  arena->head = b;
  b->off = need;
  arena->used += need;
  memset(b->data, 0, need);
  return b->data;
#else
  b = arena->head;
  if (b == NULL || b->size - b->off < need) {
    /* Big requests get a block of their own, placed behind the current one
     * so the current block's free space is not wasted. */
    size_t bsize = need > BLOCK_SIZE / 4 ? need : BLOCK_SIZE;
    rs_arena_block *nb = block_new(bsize);
    if (nb == NULL)
      return NULL;
    if (bsize == need && b != NULL) {
      nb->next = b->next;
      b->next = nb;
    } else {
      nb->next = b;
      arena->head = nb;
    }
    b = nb;
  }
  void *p = b->data + b->off;
  b->off += need;
  arena->used += need;
  memset(p, 0, need);
  return p;
#endif
}

char *rs_arena_strndup(rs_arena *arena, const char *s, size_t n) {
  char *p;
  if (n == SIZE_MAX)
    return NULL;
  p = rs_arena_alloc(arena, n + 1);
  if (p == NULL)
    return NULL;
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *rs_arena_strdup(rs_arena *arena, const char *s) {
  return rs_arena_strndup(arena, s, strlen(s));
}

/* src/front/alloc.c — the static front's allocator: a bump allocator with a free list per size class */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA_BYTES (64u << 20)  /* reserved, not committed: pages are touched as they are used */
#define ALIGN 16u

static _Atomic(char *) arena;
static atomic_size_t used;

typedef struct {
  size_t size;   /* what was asked for */
  size_t klass;  /* its size class, or CLASSES for a block never reused (also keeps the block 16-aligned) */
} header;

#define CLASSES 16        /* 32 bytes .. 1 MiB, the header included */
#define SMALLEST 32u

typedef struct node {
  struct node *next;
} node;

static node *free_lists[CLASSES];
static atomic_flag lists_lock = ATOMIC_FLAG_INIT;

static void lock(void) {
  while (atomic_flag_test_and_set_explicit(&lists_lock, memory_order_acquire)) {}
}

static void unlock(void) { atomic_flag_clear_explicit(&lists_lock, memory_order_release); }

static size_t class_of(size_t need) {
  size_t k = 0;
  while (k < CLASSES && ((size_t)SMALLEST << k) < need) k++;
  return k;
}

static void *bump(size_t need) {
  char *base = atomic_load(&arena);
  if (!base) {  /* the first caller maps it; a racing second one keeps the winner's */
    void *m = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return NULL;
    char *none = NULL;
    if (atomic_compare_exchange_strong(&arena, &none, m)) base = m;
    else munmap(m, ARENA_BYTES), base = none;
  }
  size_t at = atomic_fetch_add(&used, need);
  if (at + need > ARENA_BYTES) {
    errno = ENOMEM;
    return NULL;
  }
  return base + at;
}

/* A block for `n` bytes; *fresh: from the bump (zero), not reused. */
static void *take(size_t n, bool *fresh) {
  if (n > ARENA_BYTES) {
    errno = ENOMEM;
    return NULL;
  }
  size_t need = (sizeof(header) + n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
  size_t k = class_of(need);
  header *h = NULL;
  *fresh = true;
  if (k < CLASSES) {
    lock();
    node *b = free_lists[k];
    if (b) free_lists[k] = b->next;
    unlock();
    if (b) h = (header *)b, *fresh = false;
    else need = (size_t)SMALLEST << k;
  }
  if (!h && !(h = bump(need))) return NULL;
  h->size = n, h->klass = k;
  return h + 1;
}

void *malloc(size_t n) {
  bool fresh;
  return take(n, &fresh);
}

void free(void *p) {
  if (!p) return;
  header *h = (header *)p - 1;
  size_t k = h->klass;
  if (k >= CLASSES) return;
  node *b = (node *)h;
  lock();
  b->next = free_lists[k];
  free_lists[k] = b;
  unlock();
}

void *calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) {
    errno = ENOMEM;
    return NULL;
  }
  bool fresh;
  void *p = take(count * size, &fresh);
  if (p && !fresh) memset(p, 0, count * size);  /* fresh anonymous pages are zero already */
  return p;
}

void *realloc(void *p, size_t n) {
  if (p && n <= ((header *)p - 1)->size) return p;  /* shrinking: the block stays */
  void *q = malloc(n);
  if (p && q) {
    memcpy(q, p, ((header *)p - 1)->size);
    free(p);
  }
  return q;
}

void *aligned_alloc(size_t alignment, size_t n) {
  if (alignment <= ALIGN) return malloc(n);
  errno = EINVAL;
  return NULL;
}

size_t malloc_usable_size(void *p) { return p ? ((header *)p - 1)->size : 0; }

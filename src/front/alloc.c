/* src/front/alloc.c — the static front's allocator: a bump allocator over one mapping, freeing nothing.
 *
 * The front lives for about a millisecond before it execs the command, and allocates a few hundred
 * small blocks (the entry's strings, the plan); musl's malloc spent ~0.15 ms on them here. Memory is
 * returned all at once by the exec. Only the main thread allocates (the Landlock helper and the cleaner
 * allocate nothing), but the cursor is atomic all the same. A request the arena cannot hold fails like
 * an exhausted malloc: the run then fails closed. */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA_BYTES (64u << 20)  /* reserved, not committed: pages are touched as they are used */
#define ALIGN 16u

static _Atomic(char *) arena;
static atomic_size_t used;

typedef struct {
  size_t size;
  size_t pad;  /* keeps the block 16-aligned */
} header;

static void *take(size_t n) {
  char *base = atomic_load(&arena);
  if (!base) {  /* the first caller maps it; a racing second one keeps the winner's */
    void *m = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return NULL;
    char *none = NULL;
    if (atomic_compare_exchange_strong(&arena, &none, m)) base = m;
    else munmap(m, ARENA_BYTES), base = none;
  }
  if (n > ARENA_BYTES) {
    errno = ENOMEM;
    return NULL;
  }
  size_t need = (sizeof(header) + n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
  size_t at = atomic_fetch_add(&used, need);
  if (at + need > ARENA_BYTES) {
    errno = ENOMEM;
    return NULL;
  }
  header *h = (header *)(base + at);
  h->size = n;
  return h + 1;
}

void *malloc(size_t n) { return take(n); }

void free(void *p) { (void)p; }

void *calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) {
    errno = ENOMEM;
    return NULL;
  }
  return take(count * size);  /* fresh anonymous pages are zero, and nothing is reused */
}

void *realloc(void *p, size_t n) {
  void *q = take(n);
  if (p && q) {
    size_t old = ((header *)p - 1)->size;
    memcpy(q, p, old < n ? old : n);
  }
  return q;
}

void *aligned_alloc(size_t alignment, size_t n) {
  if (alignment <= ALIGN) return take(n);
  errno = EINVAL;
  return NULL;
}

size_t malloc_usable_size(void *p) { return p ? ((header *)p - 1)->size : 0; }

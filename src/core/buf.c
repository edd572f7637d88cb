/* src/core/buf.c — growable byte buffer. */
#include "core/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool reserve(cordon_buf *b, size_t extra) {
  if (b->oom) return false;
  if (b->len + extra + 1 <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + extra + 1) {
    if (cap > (size_t)-1 / 2) { b->oom = true; return false; }
    cap *= 2;
  }
  char *p = realloc(b->data, cap);
  if (!p) { b->oom = true; return false; }
  b->data = p;
  b->cap = cap;
  return true;
}

void cordon_buf_append(cordon_buf *b, const char *s, size_t n) {
  if (!reserve(b, n)) return;
  if (n) memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
}

void cordon_buf_puts(cordon_buf *b, const char *s) { cordon_buf_append(b, s, strlen(s)); }

void cordon_buf_putc(cordon_buf *b, char c) { cordon_buf_append(b, &c, 1); }

void cordon_buf_vprintf(cordon_buf *b, const char *fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  int n = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  if (n < 0 || !reserve(b, (size_t)n)) return;
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}

void cordon_buf_printf(cordon_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cordon_buf_vprintf(b, fmt, ap);
  va_end(ap);
}

const char *cordon_buf_str(cordon_buf *b) {
  if (b->oom) return NULL;
  return b->data ? b->data : "";
}

char *cordon_buf_take(cordon_buf *b) {
  char *out = b->oom ? NULL : (b->data ? b->data : strdup(""));
  if (b->oom) free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
  b->oom = false;
  return out;
}

void cordon_buf_reset(cordon_buf *b) {
  b->len = 0;
  b->oom = false;
  if (b->data) b->data[0] = 0;
}

void cordon_buf_free(cordon_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
  b->oom = false;
}

/* src/core/buf.h — a growable byte buffer, the one string builder the C core uses. */
#ifndef CORDON_BUF_H
#define CORDON_BUF_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
  char *data;   /* always NUL-terminated once anything was appended; NULL when empty */
  size_t len;
  size_t cap;
  bool oom;     /* set once an allocation failed; later appends are ignored */
} cordon_buf;

#define CORDON_BUF_INIT {0, 0, 0, false}

void cordon_buf_append(cordon_buf *b, const char *s, size_t n);
void cordon_buf_puts(cordon_buf *b, const char *s);
void cordon_buf_putc(cordon_buf *b, char c);
void cordon_buf_printf(cordon_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cordon_buf_vprintf(cordon_buf *b, const char *fmt, va_list ap);
/* Returns the text ("" when empty), or NULL when an allocation failed. The buffer still owns it. */
const char *cordon_buf_str(cordon_buf *b);
/* Hands the text to the caller (NULL on allocation failure) and empties the buffer. */
char *cordon_buf_take(cordon_buf *b);
void cordon_buf_reset(cordon_buf *b);
void cordon_buf_free(cordon_buf *b);
#endif

/* src/core/record.c — the run recorder (record.h): observations of the Lua half, and their replay. */
#include "core/record.h"

#include "core/path.h"
#include "core/stat_time.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static struct {
  bool armed;
  char *key;
  bool tainted;
  char taint[160];       /* the first reason */
  cordon_rec_entry *items;
  size_t n, cap;
} rec;

static void clear(void) {
  for (size_t i = 0; i < rec.n; i++) free(rec.items[i].arg), free(rec.items[i].digest);
  free(rec.items);
  free(rec.key);
  rec.items = NULL, rec.key = NULL, rec.n = rec.cap = 0, rec.tainted = false;
}

void cordon_record_arm(const char *key) {
  clear();
  rec.armed = true;
  if (!(rec.key = strdup(key ? key : ""))) cordon_record_taint("out of memory");
}

bool cordon_record_armed(void) { return rec.armed; }

void cordon_record_disarm(void) {
  clear();
  rec.armed = false;
}

void cordon_record_taint(const char *reason) {
  if (!rec.armed || rec.tainted) return;
  rec.tainted = true;
  snprintf(rec.taint, sizeof rec.taint, "%s", reason);
}

const char *cordon_record_tainted(void) { return !rec.armed ? "not recording" : rec.tainted ? rec.taint : NULL; }

const char *cordon_record_key(void) { return rec.key; }

const cordon_rec_entry *cordon_record_entries(size_t *count) {
  *count = rec.n;
  return rec.items;
}

void cordon_record_add(char call, const char *arg, const char *digest) {
  if (!rec.armed || rec.tainted) return;
  if (rec.n == rec.cap) {
    size_t c = rec.cap ? rec.cap * 2 : 64;
    cordon_rec_entry *p = realloc(rec.items, c * sizeof *p);
    if (!p) {
      cordon_record_taint("out of memory");
      return;
    }
    rec.items = p, rec.cap = c;
  }
  char *a = strdup(arg ? arg : ""), *d = strdup(digest ? digest : "");
  if (!a || !d) {
    free(a), free(d);
    cordon_record_taint("out of memory");
    return;
  }
  rec.items[rec.n++] = (cordon_rec_entry){call, a, d};
}

/* --- stat ------------------------------------------------------------------------------------------------ */
int cordon_record_stat(const char *path, bool follow, struct stat *st) {
  return follow ? stat(path, st) : lstat(path, st);
}

const char *cordon_record_getenv(const char *name) {
  const char *v = getenv(name);
  if (rec.armed) {
    cordon_buf b = CORDON_BUF_INIT;
    cordon_record_string_digest(v, ENOENT, &b);
    if (b.oom) cordon_record_taint("out of memory");
    else cordon_record_add(CORDON_REC_GETENV, name, cordon_buf_str(&b));
    cordon_buf_free(&b);
  }
  return v;
}

/* --- digests ------------------------------------------------------------------------------------------ */
/* The stat, file and directory digests are written by hand, not by printf: a hit formats one per replayed
 * observation (~200), and musl's printf was half of the replay's time. The text is exactly printf's
 * (tests/c/test_record_digest.c), which entries already on disk hold. */
typedef struct {
  char s[224];  /* the longest digest, a file's, needs ~170 */
  size_t n;
} digest_text;

static void put_char(digest_text *d, char c) {
  if (d->n < sizeof d->s - 1) d->s[d->n++] = c;
  d->s[d->n] = '\0';
}

/* " " (unless first) and `tag`, then `v` in `base` (8 or 10), zero-padded to `width` digits. */
static void put_unsigned(digest_text *d, char tag, unsigned long long v, unsigned base, int width) {
  char digits[24];
  int k = 0;
  do digits[k++] = (char)('0' + v % base), v /= base;
  while (v);
  while (k < width) digits[k++] = '0';
  if (tag) {
    if (d->n) put_char(d, ' ');
    put_char(d, tag);
  }
  while (k) put_char(d, digits[--k]);
}

/* As printf's "%0<width>lld": the sign counts toward the width. */
static void put_signed(digest_text *d, char tag, long long v, int width) {
  if (v >= 0) return put_unsigned(d, tag, (unsigned long long)v, 10, width);
  if (tag) {
    if (d->n) put_char(d, ' ');
    put_char(d, tag);
  }
  put_char(d, '-');
  put_unsigned(d, 0, 0ull - (unsigned long long)v, 10, width - 1);
}

/* "SEC.NSEC", the nanoseconds as "%09ld" */
static void put_time(digest_text *d, char tag, long long sec, long nsec) {
  put_signed(d, tag, sec, 0);
  put_char(d, '.');
  put_signed(d, 0, nsec, 9);
}

static void errno_text(digest_text *d, int err) { put_signed(d, 'e', err, 0); }

static void stat_text(digest_text *d, int rc, int err, const struct stat *st) {
  d->n = 0, d->s[0] = '\0';
  if (rc != 0) return errno_text(d, err);
  put_unsigned(d, 't', (unsigned)st->st_mode, 8, 0);
  put_unsigned(d, 'u', (unsigned)st->st_uid, 10, 0);
  put_unsigned(d, 'g', (unsigned)st->st_gid, 10, 0);
  put_unsigned(d, 'd', (unsigned long long)st->st_dev, 10, 0);
  put_unsigned(d, 'i', (unsigned long long)st->st_ino, 10, 0);
  /* A directory's size and mtime only say that its entries changed, which runs themselves do (the
   * command writes in the workdir); what the Lua half learns about entries it learns through listdir or
   * a stat of the entry, each recorded on its own. */
  if (S_ISDIR(st->st_mode)) return;
  put_signed(d, 's', (long long)st->st_size, 0);
  put_time(d, 'm', (long long)CORDON_ST_MTIM(st).tv_sec, (long)CORDON_ST_MTIM(st).tv_nsec);
}

/* mode, device, inode, then (a file) size, then mtime and ctime */
static void identity_text(digest_text *d, const struct stat *st, bool size) {
  d->n = 0, d->s[0] = '\0';
  put_unsigned(d, 't', (unsigned)st->st_mode, 8, 0);
  put_unsigned(d, 'd', (unsigned long long)st->st_dev, 10, 0);
  put_unsigned(d, 'i', (unsigned long long)st->st_ino, 10, 0);
  if (size) put_signed(d, 's', (long long)st->st_size, 0);
  put_time(d, 'm', (long long)CORDON_ST_MTIM(st).tv_sec, (long)CORDON_ST_MTIM(st).tv_nsec);
  put_time(d, 'c', (long long)CORDON_ST_CTIM(st).tv_sec, (long)CORDON_ST_CTIM(st).tv_nsec);
}

static void dir_text(digest_text *d, int rc, int err, const struct stat *st) {
  if (rc != 0) {
    d->n = 0, d->s[0] = '\0';
    return errno_text(d, err);
  }
  identity_text(d, st, false);
}

void cordon_record_stat_digest(int rc, int err, const struct stat *st, cordon_buf *out) {
  digest_text d;
  stat_text(&d, rc, err, st);
  cordon_buf_append(out, d.s, d.n);
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void cordon_record_names_free(char **names, size_t count) {
  for (size_t i = 0; i < count; i++) free(names[i]);
  free(names);
}

int cordon_record_listdir(const char *path, char ***out, size_t *count) {
  *out = NULL, *count = 0;
  DIR *d = opendir(path);
  if (!d) return errno;
  size_t n = 0, cap = 0;
  char **names = NULL;
  int err = 0;
  for (struct dirent *e;;) {
    errno = 0;
    if (!(e = readdir(d))) {
      err = errno;
      break;
    }
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (n == cap) {
      size_t c = cap ? cap * 2 : 32;
      char **grown = realloc(names, c * sizeof *names);
      if (!grown) {
        err = ENOMEM;
        break;
      }
      names = grown, cap = c;
    }
    if (!(names[n] = strdup(e->d_name))) {
      err = ENOMEM;
      break;
    }
    n++;
  }
  closedir(d);
  if (err) {
    cordon_record_names_free(names, n);
    return err;
  }
  if (n) qsort(names, n, sizeof *names, cmp_names);
  *out = names, *count = n;
  return 0;
}

void cordon_record_listdir_digest(int err, char *const *names, size_t count, cordon_buf *out) {
  if (err) {
    cordon_buf_printf(out, "e%d", err);
    return;
  }
  cordon_buf_printf(out, "n%zu", count);
  for (size_t i = 0; i < count; i++) cordon_buf_putc(out, '/'), cordon_buf_puts(out, names[i]);
}

void cordon_record_file_digest(int err, const struct stat *st, bool too_large, cordon_buf *out) {
  digest_text d = {.n = 0};
  if (err) errno_text(&d, err);
  else identity_text(&d, st, true);
  cordon_buf_append(out, d.s, d.n);
  if (!err && too_large) cordon_buf_puts(out, " big");
}

void cordon_record_dir_digest(int rc, int err, const struct stat *st, cordon_buf *out) {
  digest_text d;
  dir_text(&d, rc, err, st);
  cordon_buf_append(out, d.s, d.n);
}

bool cordon_record_racy(const struct stat *st) {
  struct timespec now;
  if (clock_gettime(CLOCK_REALTIME, &now) != 0) return true;
  long long c = (long long)CORDON_ST_CTIM(st).tv_sec * 1000000000LL + CORDON_ST_CTIM(st).tv_nsec;
  long long m = (long long)CORDON_ST_MTIM(st).tv_sec * 1000000000LL + CORDON_ST_MTIM(st).tv_nsec;
  long long n = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
  return n - c < 1000000000LL || n - m < 1000000000LL;
}

void cordon_record_string_digest(const char *result, int err, cordon_buf *out) {
  if (result) cordon_buf_printf(out, "=%s", result);
  else cordon_buf_printf(out, "e%d", err);
}

/* --- replay ------------------------------------------------------------------------------------------- */
/* "MAX:NOFOLLOW:path" -> its parts; false when malformed. */
static bool split_readfile(const char *arg, long long *max, bool *nofollow, const char **path) {
  char *end;
  errno = 0;
  long long m = strtoll(arg, &end, 10);
  if (errno || end == arg || m < 0 || end[0] != ':' || (end[1] != '0' && end[1] != '1') || end[2] != ':')
    return false;
  *max = m, *nofollow = end[1] == '1', *path = end + 3;
  return true;
}

static void replay_readfile(const char *arg, cordon_buf *out) {
  long long max;
  bool nofollow;
  const char *path;
  if (!split_readfile(arg, &max, &nofollow, &path)) {
    cordon_buf_puts(out, "?");  /* never equal to a recorded digest */
    return;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
  struct stat st;
  if (fd < 0) {
    cordon_record_file_digest(errno, NULL, false, out);
    return;
  }
  int rc = fstat(fd, &st);
  int err = errno;
  close(fd);
  if (rc != 0) cordon_buf_printf(out, "?e%d", err);
  else cordon_record_file_digest(0, &st, (long long)st.st_size > max, out);
}

static void replay_home(cordon_buf *out) {
  const char *h = getenv("HOME");
  if (h && h[0] == '/') {
    cordon_record_string_digest(h, 0, out);
    return;
  }
  struct passwd *pw = getpwuid(getuid());
  cordon_record_string_digest(pw && pw->pw_dir ? pw->pw_dir : NULL, ENOENT, out);
}

bool cordon_record_replay(char call, const char *arg, const char *digest) {
  cordon_buf b = CORDON_BUF_INIT;
  struct stat st;
  switch (call) {
  case CORDON_REC_STAT:
  case CORDON_REC_LSTAT: {  /* the most frequent: compared in place, no buffer */
    digest_text d;
    int rc = cordon_record_stat(arg, call == CORDON_REC_STAT, &st);
    stat_text(&d, rc, errno, &st);
    return strcmp(d.s, digest) == 0;
  }
  case CORDON_REC_LISTDIR: {
    char **names;
    size_t n;
    int err = cordon_record_listdir(arg, &names, &n);
    cordon_record_listdir_digest(err, names, n, &b);
    cordon_record_names_free(names, n);
    break;
  }
  case CORDON_REC_READFILE: replay_readfile(arg, &b); break;
  case CORDON_REC_REALPATH: {
    char buf[PATH_MAX];
    const char *r = realpath(arg, buf);
    cordon_record_string_digest(r, errno, &b);
    break;
  }
  case CORDON_REC_CANON: {
    char buf[CORDON_PATH_MAX + 1];
    cordon_path_status s = cordon_path_canonicalize(arg, buf, sizeof buf);
    cordon_record_string_digest(s == CORDON_PATH_OK ? buf : NULL, (int)s, &b);
    break;
  }
  case CORDON_REC_GETCWD: {
    char buf[PATH_MAX];
    const char *r = getcwd(buf, sizeof buf);
    cordon_record_string_digest(r, errno, &b);
    break;
  }
  case CORDON_REC_HOME: replay_home(&b); break;
  case CORDON_REC_GETENV: cordon_record_string_digest(getenv(arg), ENOENT, &b); break;
  case CORDON_REC_DIR: {
    digest_text d;
    int rc = stat(arg, &st);
    dir_text(&d, rc, errno, &st);
    return strcmp(d.s, digest) == 0;
  }
  case CORDON_REC_ISATTY: {
    char *end;
    long fd = strtol(arg, &end, 10);
    if (end == arg || *end || fd < 0 || fd > INT_MAX) return false;
    cordon_buf_printf(&b, "%d", isatty((int)fd) ? 1 : 0);
    break;
  }
  default: return false;
  }
  bool same = !b.oom && strcmp(cordon_buf_str(&b), digest) == 0;
  cordon_buf_free(&b);
  return same;
}

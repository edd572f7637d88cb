/* tests/c/test_record_digest.c — the run cache's stat and directory digests (core/record.c) are written
 * by hand for speed: they must be the very text printf gives, which entries already on disk hold, and a
 * replay must tell a changed file from an unchanged one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/record.h"

static struct stat sample(mode_t mode, long long size, long long sec, long nsec) {
  struct stat st;
  memset(&st, 0, sizeof st);
  st.st_mode = mode, st.st_uid = 4294967294u, st.st_gid = 0, st.st_dev = 18446744073709551615ull;
  st.st_ino = 1234567890123ull, st.st_size = size;
  st.st_mtim.tv_sec = sec, st.st_mtim.tv_nsec = nsec;
  st.st_ctim.tv_sec = -sec, st.st_ctim.tv_nsec = 999999999 - nsec;
  return st;
}

static void the_digests_are_the_text_printf_gives(void **state) {
  (void)state;
  struct stat cases[] = {sample(S_IFREG | 0644, 0, 0, 0), sample(S_IFREG | 04755, 1ll << 40, 1796158862, 5),
                         sample(S_IFDIR | 01777, 4096, -86400, 999999999), sample(S_IFLNK | 0777, 7, 17, 120000000),
                         sample(S_IFREG | 0600, -1, -1, -5) /* no kernel says so: printf's signs and padding */};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const struct stat *st = &cases[i];
    char want[256];
    int n = snprintf(want, sizeof want, "t%o u%u g%u d%llu i%llu", (unsigned)st->st_mode, (unsigned)st->st_uid,
                     (unsigned)st->st_gid, (unsigned long long)st->st_dev, (unsigned long long)st->st_ino);
    if (!S_ISDIR(st->st_mode))
      snprintf(want + n, sizeof want - (size_t)n, " s%lld m%lld.%09ld", (long long)st->st_size,
               (long long)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec);
    cordon_buf b = CORDON_BUF_INIT;
    cordon_record_stat_digest(0, 0, st, &b);
    assert_string_equal(cordon_buf_str(&b), want);
    cordon_buf_free(&b);
    snprintf(want, sizeof want, "t%o d%llu i%llu m%lld.%09ld c%lld.%09ld", (unsigned)st->st_mode,
             (unsigned long long)st->st_dev, (unsigned long long)st->st_ino, (long long)st->st_mtim.tv_sec,
             (long)st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec, (long)st->st_ctim.tv_nsec);
    cordon_record_dir_digest(0, 0, st, &b);
    assert_string_equal(cordon_buf_str(&b), want);
    cordon_buf_free(&b);
    snprintf(want, sizeof want, "t%o d%llu i%llu s%lld m%lld.%09ld c%lld.%09ld%s", (unsigned)st->st_mode,
             (unsigned long long)st->st_dev, (unsigned long long)st->st_ino, (long long)st->st_size,
             (long long)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec,
             (long)st->st_ctim.tv_nsec, i % 2 ? " big" : "");
    cordon_record_file_digest(0, st, i % 2, &b);
    assert_string_equal(cordon_buf_str(&b), want);
    cordon_buf_free(&b);
  }
  cordon_buf e = CORDON_BUF_INIT;
  cordon_record_file_digest(13, NULL, false, &e);
  cordon_record_dir_digest(-1, 20, NULL, &e);
  assert_string_equal(cordon_buf_str(&e), "e13e20");
  cordon_buf_free(&e);
  cordon_buf b = CORDON_BUF_INIT;
  cordon_record_stat_digest(-1, 2, NULL, &b);
  assert_string_equal(cordon_buf_str(&b), "e2");
  cordon_buf_free(&b);
}

static void a_replay_sees_a_change_and_only_a_change(void **state) {
  (void)state;
  char dir[] = "/tmp/cordon-digest-XXXXXX", file[64];
  assert_non_null(mkdtemp(dir));
  snprintf(file, sizeof file, "%s/f", dir);
  FILE *f = fopen(file, "w");
  assert_non_null(f);
  fputs("one", f);
  fclose(f);
  struct stat st;
  assert_int_equal(lstat(file, &st), 0);
  cordon_buf b = CORDON_BUF_INIT;
  cordon_record_stat_digest(0, 0, &st, &b);
  char *digest = cordon_buf_take(&b);
  assert_true(cordon_record_replay(CORDON_REC_LSTAT, file, digest));
  assert_true(cordon_record_replay(CORDON_REC_STAT, file, digest));
  f = fopen(file, "a");
  fputs("two", f);
  fclose(f);
  assert_false(cordon_record_replay(CORDON_REC_LSTAT, file, digest));
  unlink(file);
  assert_false(cordon_record_replay(CORDON_REC_LSTAT, file, digest));
  cordon_record_stat_digest(-1, 2, NULL, &b);  /* ENOENT, as recorded for a missing path */
  assert_true(cordon_record_replay(CORDON_REC_LSTAT, file, cordon_buf_str(&b)));
  cordon_buf_free(&b);
  free(digest);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(the_digests_are_the_text_printf_gives),
      cmocka_unit_test(a_replay_sees_a_change_and_only_a_change),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

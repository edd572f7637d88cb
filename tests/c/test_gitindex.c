/* tests/c/test_gitindex.c — git's index read as an attacker may have written it, and git's verify_path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gitindex.h"
#include "core/sha1.h"

typedef struct {
  unsigned char b[8192];
  size_t n;
  char last[256];  /* the v4 previous path */
} index_buf;

static void put32(index_buf *x, uint32_t v) {
  for (int i = 3; i >= 0; i--) x->b[x->n++] = (unsigned char)(v >> (8 * i));
}

static void header(index_buf *x, uint32_t version, uint32_t count) {
  x->n = 0;
  x->last[0] = '\0';
  memcpy(x->b, "DIRC", 4);
  x->n = 4;
  put32(x, version);
  put32(x, count);
}

/* One entry with a 20-byte id of `fill`; v4 with the path prefix-compressed against the previous one. */
static void entry(index_buf *x, uint32_t version, const char *path, uint32_t mode, unsigned char fill) {
  size_t start = x->n;
  for (int i = 0; i < 6; i++) put32(x, 0);
  put32(x, mode);
  for (int i = 0; i < 3; i++) put32(x, 0);
  memset(x->b + x->n, fill, 20);
  x->n += 20;
  size_t len = strlen(path);
  x->b[x->n++] = (unsigned char)(len >> 8), x->b[x->n++] = (unsigned char)len;
  if (version == 4) {
    size_t common = 0, prev = strlen(x->last);
    while (common < prev && x->last[common] == path[common]) common++;
    x->b[x->n++] = (unsigned char)(prev - common);  /* under 128: one byte */
    memcpy(x->b + x->n, path + common, len - common + 1);
    x->n += len - common + 1;
    snprintf(x->last, sizeof x->last, "%s", path);
  } else {
    memcpy(x->b + x->n, path, len);
    x->n += len;
    size_t pad = 8 - (x->n - start) % 8;
    memset(x->b + x->n, 0, pad);
    x->n += pad;
  }
}

static void trailer(index_buf *x) {
  cordon_sha1 h;
  cordon_sha1_init(&h);
  cordon_sha1_update(&h, x->b, x->n);
  cordon_sha1_final(&h, x->b + x->n);
  x->n += 20;
}

typedef struct {
  char paths[8][64];
  uint32_t modes[8];
  int n;
} seen;

static int collect(void *ctx, const cordon_gitindex_entry *e) {
  seen *s = ctx;
  if (s->n < 8) {
    snprintf(s->paths[s->n], sizeof s->paths[0], "%s", e->path);
    s->modes[s->n++] = e->mode;
  }
  return 0;
}

static void every_version_yields_its_entries_in_order(void **state) {
  (void)state;
  for (uint32_t v = 2; v <= 4; v++) {
    index_buf x;
    header(&x, v, 3);
    entry(&x, v, ".husky/pre-commit", 0100755, 1);
    entry(&x, v, ".husky/pre-push", 0100644, 2);
    entry(&x, v, "src/a.c", 0100644, 3);
    trailer(&x);
    seen s = {0};
    assert_int_equal(cordon_gitindex_walk(x.b, x.n, 20, collect, &s), CORDON_GITINDEX_OK);
    assert_int_equal(s.n, 3);
    assert_string_equal(s.paths[1], ".husky/pre-push");  /* v4: rebuilt from the previous path */
    assert_string_equal(s.paths[2], "src/a.c");
    assert_int_equal(s.modes[0], 0100755);
  }
}

static void every_truncation_is_refused_not_read_past(void **state) {
  (void)state;
  for (uint32_t v = 2; v <= 4; v++) {
    index_buf x;
    header(&x, v, 2);
    entry(&x, v, "a/b", 0100644, 1);
    entry(&x, v, "a/c", 0100644, 2);
    trailer(&x);
    for (size_t cut = 0; cut < x.n; cut++) {
      unsigned char *copy = malloc(cut ? cut : 1);  /* exactly `cut` bytes: the sanitizer sees any overread */
      memcpy(copy, x.b, cut);
      cordon_gitindex_status st = cordon_gitindex_walk(copy, cut, 20, NULL, NULL);
      free(copy);
      /* cutting only the trailing hash leaves the entries whole but shifts where extensions end */
      assert_int_not_equal(st == CORDON_GITINDEX_OK && cut < x.n - 20, true);
    }
  }
}

static void a_v4_prefix_longer_than_the_previous_path_is_refused(void **state) {
  (void)state;
  index_buf x;
  header(&x, 4, 2);
  entry(&x, 4, "ab", 0100644, 1);
  entry(&x, 4, "ac", 0100644, 2);
  x.b[12 + 62 + 3] = 9;  /* the second entry's strip count: 9 of a 2-byte previous path */
  trailer(&x);
  assert_int_equal(cordon_gitindex_walk(x.b, x.n, 20, NULL, NULL), CORDON_GITINDEX_ENTRY);
  header(&x, 4, 1);
  entry(&x, 4, "a", 0100644, 1);
  size_t at = 12 + 62;
  memset(x.b + at, 0xff, 12);  /* a varint that never ends within the bytes, or overflows */
  x.b[at + 12] = 0;
  x.n = at + 13;
  trailer(&x);
  assert_int_not_equal(cordon_gitindex_walk(x.b, x.n, 20, NULL, NULL), CORDON_GITINDEX_OK);
}

static void a_huge_count_ends_at_the_bytes(void **state) {
  (void)state;
  index_buf x;
  header(&x, 2, 0xffffffffu);
  entry(&x, 2, "a", 0100644, 1);
  trailer(&x);
  assert_int_equal(cordon_gitindex_walk(x.b, x.n, 20, NULL, NULL), CORDON_GITINDEX_TRUNCATED);
}

static void a_name_length_that_disagrees_with_the_name_is_refused(void **state) {
  (void)state;
  index_buf x;
  header(&x, 2, 1);
  entry(&x, 2, ".git/hooks/x", 0100755, 1);
  x.b[12 + 61] = 1;  /* claims one byte: git would read ".", but a NUL must follow it */
  trailer(&x);
  assert_int_equal(cordon_gitindex_walk(x.b, x.n, 20, NULL, NULL), CORDON_GITINDEX_ENTRY);
  header(&x, 2, 1);
  entry(&x, 2, "abc", 0100644, 1);
  x.b[12 + 60] = 0x40;  /* the extended flag, which version 2 does not have */
  trailer(&x);
  assert_int_equal(cordon_gitindex_walk(x.b, x.n, 20, NULL, NULL), CORDON_GITINDEX_ENTRY);
}

static void extensions_are_skipped_by_size_and_a_split_index_is_refused(void **state) {
  (void)state;
  index_buf x;
  header(&x, 2, 1);
  entry(&x, 2, "a", 0100644, 1);
  memcpy(x.b + x.n, "TREE", 4);
  x.n += 4;
  put32(&x, 3);
  memcpy(x.b + x.n, "xyz", 3);
  x.n += 3;
  size_t before_link = x.n;
  trailer(&x);
  assert_int_equal(cordon_gitindex_walk(x.b, x.n, 20, NULL, NULL), CORDON_GITINDEX_OK);
  x.n = before_link;
  memcpy(x.b + x.n, "link", 4);
  x.n += 4;
  put32(&x, 20);
  memset(x.b + x.n, 0, 20);
  x.n += 20;
  trailer(&x);
  assert_int_equal(cordon_gitindex_walk(x.b, x.n, 20, NULL, NULL), CORDON_GITINDEX_SPLIT);
  x.n = before_link;
  memcpy(x.b + x.n, "TREE", 4);
  x.n += 4;
  put32(&x, 0x7fffffff);  /* a size past the end */
  trailer(&x);
  assert_int_equal(cordon_gitindex_walk(x.b, x.n, 20, NULL, NULL), CORDON_GITINDEX_TRUNCATED);
}

static void a_bad_signature_or_version_is_refused(void **state) {
  (void)state;
  index_buf x;
  header(&x, 5, 0);
  trailer(&x);
  assert_int_equal(cordon_gitindex_walk(x.b, x.n, 20, NULL, NULL), CORDON_GITINDEX_VERSION);
  x.b[0] = 'X';
  assert_int_equal(cordon_gitindex_walk(x.b, x.n, 20, NULL, NULL), CORDON_GITINDEX_SIGNATURE);
}

static bool refused(const char *p) { return cordon_gitindex_path_refusal(p, strlen(p), false) != NULL; }

static void paths_git_refuses_are_refused_in_every_spelling(void **state) {
  (void)state;
  const char *bad[] = {".git/hooks/pre-commit", ".GIT/hooks/x", "sub/.Git/config", ".git./hooks/x",
                       ".git /x", "git~1/hooks/x", "GIT~1/x", ".git::$INDEX_ALLOCATION/hooks/x",
                       ".g\xe2\x80\x8cit/hooks/x", "\xef\xbb\xbf.git/x", "../x", "a/../b", "./a", "a/./b",
                       "a//b", "/etc/passwd", "a/", "", "a/.git"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    if (!refused(bad[i])) fail_msg("not refused: %s", bad[i]);
  }
  const char *good[] = {".gitignore", ".github/workflows/ci.yml", ".gitmodules", "git/x", ".git-blame-ignore",
                        "a/.gitx/b", "...", "a.git", "git~2", ".husky/pre-commit"};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    if (refused(good[i])) fail_msg("refused: %s", good[i]);
  }
  assert_null(cordon_gitindex_path_refusal("dir/", 4, true));  /* a sparse directory entry */
}

static void sha1_names_a_blob_as_git_does(void **state) {
  (void)state;
  /* git hash-object of "hello\n" */
  const char text[] = "blob 6\0hello\n";
  unsigned char d[20];
  cordon_sha1 h;
  cordon_sha1_init(&h);
  cordon_sha1_update(&h, text, sizeof text - 1);
  cordon_sha1_final(&h, d);
  char hex[41];
  for (int i = 0; i < 20; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
  assert_string_equal(hex, "ce013625030ba8dba906f756967f9e9ca394464a");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_version_yields_its_entries_in_order),
      cmocka_unit_test(every_truncation_is_refused_not_read_past),
      cmocka_unit_test(a_v4_prefix_longer_than_the_previous_path_is_refused),
      cmocka_unit_test(a_huge_count_ends_at_the_bytes),
      cmocka_unit_test(a_name_length_that_disagrees_with_the_name_is_refused),
      cmocka_unit_test(extensions_are_skipped_by_size_and_a_split_index_is_refused),
      cmocka_unit_test(a_bad_signature_or_version_is_refused),
      cmocka_unit_test(paths_git_refuses_are_refused_in_every_spelling),
      cmocka_unit_test(sha1_names_a_blob_as_git_does),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

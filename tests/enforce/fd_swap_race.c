/* tests/enforce/fd_swap_race.c — test helper for test_escape_review.sh: fd_swap_race TARGET DECOY PAYLOAD
 * Races a sandbox's look at a descriptor reopened through /proc/self/fd/N: one thread swaps descriptor N
 * between a read-only one on TARGET and a write one on DECOY, while the main thread opens
 * /proc/self/fd/N for append and, once what it got is TARGET, writes PAYLOAD there. A gate that follows
 * the link first and reads the descriptor's mode after can be shown a writable DECOY and hand over
 * TARGET. Bounded to 5 seconds or 20000 tries. Prints "won after N tries" (exit 0) or "lost after N
 * tries" (exit 1); 2 for bad usage or setup. Outside a sandbox it wins at once (the control). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { SWAPPED_FD = 200, MAX_TRIES = 20000, MAX_SECONDS = 5 };

static int target_ro, decoy_wr;
static atomic_int stop;

static void *swapper(void *unused) {
  (void)unused;
  while (!atomic_load(&stop)) {
    dup2(target_ro, SWAPPED_FD);
    dup2(decoy_wr, SWAPPED_FD);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: fd_swap_race TARGET DECOY PAYLOAD\n");
    return 2;
  }
  struct stat target;
  target_ro = open(argv[1], O_RDONLY | O_CLOEXEC);
  if (target_ro < 0 || fstat(target_ro, &target) < 0) {
    perror(argv[1]);
    return 2;
  }
  decoy_wr = open(argv[2], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (decoy_wr < 0) {
    perror(argv[2]);
    return 2;
  }
  pthread_t t;
  if (pthread_create(&t, NULL, swapper, NULL) != 0) return 2;
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", SWAPPED_FD);
  time_t deadline = time(NULL) + MAX_SECONDS;
  int tries = 0, won = 0;
  while (tries < MAX_TRIES && time(NULL) < deadline && !won) {
    tries++;
    int fd = open(link, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat got;
    if (fstat(fd, &got) == 0 && got.st_dev == target.st_dev && got.st_ino == target.st_ino) {
      won = write(fd, argv[3], strlen(argv[3])) > 0;
    }
    close(fd);
  }
  atomic_store(&stop, 1);
  pthread_join(t, NULL);
  printf("%s after %d tries\n", won ? "won" : "lost", tries);
  return won ? 0 : 1;
}

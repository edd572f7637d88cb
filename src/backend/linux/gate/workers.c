/* src/backend/linux/gate/workers.c — the gate's threads for what may block: FIFO or device opens, blocking connects */
#include "backend/linux/gate/gate_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define WORKERS_MAX 16
#define TICK_NS 200000000L  /* how often a blocked worker looks whether its caller is still waiting */
#define GATE_SIGNAL (SIGRTMIN + 2)
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid  /* glibc before 2.37 names it only so */
#endif

typedef struct job {
  gate_job j;
  uint64_t id;
  struct job *next;
} job;

struct gate_pool {
  cordon_lx_gate *g;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  job *head, *tail;
  size_t nthreads, idle;
  pthread_t threads[WORKERS_MAX];
  bool stop;
};

static void on_tick(int sig) { (void)sig; }

gate_pool *gate_pool_new(cordon_lx_gate *g) {
  gate_pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->g = g;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_tick;  /* no SA_RESTART: the blocked syscall returns EINTR */
  sigemptyset(&sa.sa_mask);
  sigaction(GATE_SIGNAL, &sa, NULL);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, GATE_SIGNAL);
  pthread_sigmask(SIG_BLOCK, &one, NULL);  /* the main thread never takes it */
  return p;
}

static void close_job(job *jb) {
  if (jb->j.fd >= 0) close(jb->j.fd);
  if (jb->j.keep >= 0) close(jb->j.keep);
  free(jb);
}

/* Whether to go on after EINTR: the caller still waits and the gate is not closing. */
static bool go_on(gate_pool *p, uint64_t id) {
  pthread_mutex_lock(&p->mu);
  bool stop = p->stop;
  pthread_mutex_unlock(&p->mu);
  return !stop && gate_id_valid(p->g, id);
}

/* connect, waiting out interruptions: a connection interrupted may still complete in the background
 * (EALREADY when asked again), so then the socket's own completion is awaited. */
static int do_connect(gate_pool *p, job *jb) {
  bool retried = false;
  for (;;) {
    if (connect(jb->j.fd, (struct sockaddr *)jb->j.addr, (socklen_t)jb->j.addrlen) == 0) return 0;
    int err = errno;
    if (err == EISCONN && retried) return 0;
    if (err == EALREADY && retried) {
      struct pollfd pf = {.fd = jb->j.fd, .events = POLLOUT};
      if (poll(&pf, 1, -1) < 0) {
        if (errno == EINTR && go_on(p, jb->id)) continue;
        return -EINTR;
      }
      int soerr = 0;
      socklen_t l = sizeof soerr;
      if (getsockopt(jb->j.fd, SOL_SOCKET, SO_ERROR, &soerr, &l) != 0) return -errno;
      return -soerr;
    }
    if (err != EINTR) return -err;
    if (!go_on(p, jb->id)) return -EINTR;
    retried = true;
  }
}

static void run(gate_pool *p, job *jb, timer_t timer, bool have_timer) {
  struct itimerspec on = {.it_interval = {0, TICK_NS}, .it_value = {0, TICK_NS}}, off;
  memset(&off, 0, sizeof off);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, GATE_SIGNAL);
  if (have_timer) timer_settime(timer, 0, &on, NULL);
  pthread_sigmask(SIG_UNBLOCK, &one, NULL);
  long r;
  int fd = -1;
  if (jb->j.kind == JOB_OPEN) {
    for (;;) {
      fd = gate_reopen(p->g, jb->j.fd, jb->j.flags);
      r = fd < 0 ? -errno : 0;
      if (r != -EINTR || !go_on(p, jb->id)) break;
    }
  } else {
    r = do_connect(p, jb);
  }
  pthread_sigmask(SIG_BLOCK, &one, NULL);
  if (have_timer) timer_settime(timer, 0, &off, NULL);
  if (fd >= 0) gate_answer_fd(p->g, jb->id, fd, jb->j.cloexec);
  else if (r != -EINTR || gate_id_valid(p->g, jb->id)) gate_answer(p->g, jb->id, 0, (int)-r);
  close_job(jb);
}

static void *worker(void *arg) {
  gate_pool *p = arg;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = GATE_SIGNAL;
  ev.sigev_notify_thread_id = gettid();
  timer_t timer;
  bool have_timer = timer_create(CLOCK_MONOTONIC, &ev, &timer) == 0;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (!p->head && !p->stop) {
      p->idle++;
      pthread_cond_wait(&p->cv, &p->mu);
      p->idle--;
    }
    if (!p->head) break;  /* stopping, and nothing left */
    job *jb = p->head;
    p->head = jb->next;
    if (!p->head) p->tail = NULL;
    pthread_mutex_unlock(&p->mu);
    run(p, jb, timer, have_timer);
    pthread_mutex_lock(&p->mu);
  }
  pthread_mutex_unlock(&p->mu);
  if (have_timer) timer_delete(timer);
  return NULL;
}

long gate_defer(gate_call *c, const gate_job *j) {
  gate_pool *p = c->g->pool;
  job *jb = calloc(1, sizeof *jb);
  if (!jb || !p) {
    if (j->fd >= 0) close(j->fd);
    if (j->keep >= 0) close(j->keep);
    free(jb);
    return -ENOMEM;
  }
  jb->j = *j;
  jb->id = c->id;
  pthread_mutex_lock(&p->mu);
  if (p->idle == 0 && p->nthreads < WORKERS_MAX) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    if (pthread_create(&p->threads[p->nthreads], &attr, worker, p) == 0) p->nthreads++;
    pthread_attr_destroy(&attr);
  }
  if (p->nthreads == 0) {
    pthread_mutex_unlock(&p->mu);
    close_job(jb);
    return -EAGAIN;
  }
  if (p->tail) p->tail->next = jb;
  else p->head = jb;
  p->tail = jb;
  pthread_cond_signal(&p->cv);
  pthread_mutex_unlock(&p->mu);
  return GATE_DEFERRED;
}

void gate_pool_free(gate_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->stop = true;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  for (size_t i = 0; i < p->nthreads; i++) {
    pthread_kill(p->threads[i], GATE_SIGNAL);  /* a worker still blocked gives up now */
    pthread_join(p->threads[i], NULL);
  }
  for (job *jb = p->head, *next; jb; jb = next) {
    next = jb->next;
    close_job(jb);
  }
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->cv);
  free(p);
}

/*
 * Threads with known work, for hetrace's recorded LTTng-UST tests.
 *
 * Three workers call job -> step -> leaf a number of times that differs per worker (some steps
 * sleep: calls that block), and a producer -> relay -> consumer pipeline passes messages through
 * two queues (the tracepoints app:msg_send and app:msg_recv, fired under the queue's lock so that
 * a send is always recorded before its receive). Built with -finstrument-functions: the calls are
 * traced when liblttng-ust-cyg-profile(-fast).so is preloaded; job is also bracketed by the
 * tracepoints app:job_entry and app:job_exit.
 *
 * It writes what it did to the file named by its first argument, for the tests to compare with
 * hetrace's state model:
 *   func NAME 0xADDRESS            the traced functions' addresses (the program is position-independent)
 *   thread TID NAME                each thread: the id the vtid context records, the name procname records
 *   call TID NAME DEPTH T0 T1      each call: CLOCK_MONOTONIC ns read just before and just after it
 *   msg QUEUE ID SENDER RECEIVER   each message, with the tids of its two ends
 *
 * With a second argument N > 0, each worker wraps its jobs in one call of run and makes N times
 * as many leaf calls: bursts that overflow a small channel. The workers then run one after the
 * other and the pipeline not at all: with one writer at a time, LTTng-UST closes a CPU's packets
 * in order, so that their events_discarded counters only grow (concurrent writers can close them
 * out of order: a counter that goes back, or a stream's first packet that already counts losses).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "app_tp.h"

#define NOTRACE __attribute__((no_instrument_function))
#define TRACED __attribute__((noinline))

enum { WORKERS = 3, MESSAGES = 40, QUEUE_SLOTS = 4 };

struct call {
    const char *func;
    int depth;
    long long t0, t1;
};

struct thread_log {
    pid_t tid;
    char name[16];
    struct call *calls;
    size_t n, cap;
};

struct message {
    int queue, id;
    pid_t sender, receiver;
};

struct queue {
    int number;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int ids[QUEUE_SLOTS];
    pid_t senders[QUEUE_SLOTS];
    int head, count;
};

static __thread struct thread_log *self;
static __thread int depth;
static struct thread_log logs[WORKERS + 3];
static struct message messages[2 * MESSAGES];
static int message_count;
static pthread_mutex_t message_lock = PTHREAD_MUTEX_INITIALIZER;
static struct queue queues[2] = {
    {1, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {0}, {0}, 0, 0},
    {2, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {0}, {0}, 0, 0},
};
static int scale;
static volatile unsigned long sink;

static NOTRACE long long now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static NOTRACE void record(const char *func, int d, long long t0, long long t1) {
    if (self->n == self->cap) {
        self->cap = self->cap ? 2 * self->cap : 256;
        self->calls = realloc(self->calls, self->cap * sizeof *self->calls);
        if (!self->calls) {
            abort();
        }
    }
    self->calls[self->n++] = (struct call) {func, d, t0, t1};
}

/* Calls f(args) at the current depth, recording when it began and ended. */
#define CALL(f, ...) do { \
        int d_ = depth++; \
        long long t0_ = now(); \
        f(__VA_ARGS__); \
        long long t1_ = now(); \
        depth--; \
        record(#f, d_, t0_, t1_); \
    } while (0)

static NOTRACE void sleep_us(long us) {
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

TRACED void leaf(int n) {
    for (int i = 0; i < n; i++) {
        sink += (unsigned long) i * i;
    }
}

TRACED void step(int job, int k) {
    int leaves = scale > 0 ? 2 * scale : 2;
    for (int i = 0; i < leaves; i++) {
        CALL(leaf, scale > 0 ? 20 : 200 + 100 * ((job + k + i) % 5));
    }
    if (scale == 0 && (job + k) % 4 == 0) {
        sleep_us(100);
    }
}

TRACED void job(int worker, int j) {
    tracepoint(app, job_entry, j);
    for (int k = 0; k <= worker; k++) {
        CALL(step, j, k);
    }
    tracepoint(app, job_exit, j);
}

TRACED void run(int worker) {
    for (int j = 0; j < 10 + 5 * worker; j++) {
        CALL(job, worker, j);
    }
    /* the consumer daemon empties the buffers before run's exit is recorded */
    sleep_us(300000);
}

static NOTRACE void begin_thread(struct thread_log *log, const char *name) {
    self = log;
    log->tid = (pid_t) syscall(SYS_gettid);
    snprintf(log->name, sizeof log->name, "%s", name);
    /* before any event: the procname context is the thread's name */
    pthread_setname_np(pthread_self(), log->name);
}

static NOTRACE void *worker_main(void *arg) {
    int worker = (int) (intptr_t) arg;
    char name[16];
    snprintf(name, sizeof name, "worker-%d", worker);
    begin_thread(&logs[worker - 1], name);
    if (scale > 0) {
        CALL(run, worker);
    } else {
        for (int j = 0; j < 10 + 5 * worker; j++) {
            CALL(job, worker, j);
        }
    }
    return NULL;
}

TRACED void produce(struct queue *q, int id) {
    pthread_mutex_lock(&q->lock);
    while (q->count == QUEUE_SLOTS) {
        pthread_cond_wait(&q->changed, &q->lock);
    }
    tracepoint(app, msg_send, q->number, id);
    int slot = (q->head + q->count) % QUEUE_SLOTS;
    q->ids[slot] = id;
    q->senders[slot] = self->tid;
    q->count++;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
}

static __thread int received;

TRACED void consume(struct queue *q) {
    pthread_mutex_lock(&q->lock);
    while (q->count == 0) {
        pthread_cond_wait(&q->changed, &q->lock);
    }
    int id = q->ids[q->head];
    pid_t sender = q->senders[q->head];
    tracepoint(app, msg_recv, q->number, id);
    q->head = (q->head + 1) % QUEUE_SLOTS;
    q->count--;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
    pthread_mutex_lock(&message_lock);
    messages[message_count++] = (struct message) {q->number, id, sender, self->tid};
    pthread_mutex_unlock(&message_lock);
    received = id;
}

static NOTRACE void *producer_main(void *arg) {
    (void) arg;
    begin_thread(&logs[WORKERS], "producer");
    for (int i = 0; i < MESSAGES; i++) {
        CALL(produce, &queues[0], 100 + 7 * i);
        if (i % 8 == 0) {
            sleep_us(200);
        }
    }
    return NULL;
}

static NOTRACE void *relay_main(void *arg) {
    (void) arg;
    begin_thread(&logs[WORKERS + 1], "relay");
    for (int i = 0; i < MESSAGES; i++) {
        CALL(consume, &queues[0]);
        CALL(produce, &queues[1], received);
    }
    return NULL;
}

static NOTRACE void *consumer_main(void *arg) {
    (void) arg;
    begin_thread(&logs[WORKERS + 2], "consumer");
    for (int i = 0; i < MESSAGES; i++) {
        CALL(consume, &queues[1]);
    }
    return NULL;
}

NOTRACE int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUT [SCALE]\n", argv[0]);
        return 2;
    }
    scale = argc > 2 ? atoi(argv[2]) : 0;
    /* with bursts, the workers one after the other and no pipeline (see above) */
    int started = scale > 0 ? WORKERS : WORKERS + 3;
    pthread_t threads[WORKERS + 3];
    for (int w = 1; w <= WORKERS; w++) {
        pthread_create(&threads[w - 1], NULL, worker_main, (void *) (intptr_t) w);
        if (scale > 0) {
            pthread_join(threads[w - 1], NULL);
        }
    }
    if (scale == 0) {
        pthread_create(&threads[WORKERS], NULL, producer_main, NULL);
        pthread_create(&threads[WORKERS + 1], NULL, relay_main, NULL);
        pthread_create(&threads[WORKERS + 2], NULL, consumer_main, NULL);
        for (int t = 0; t < WORKERS + 3; t++) {
            pthread_join(threads[t], NULL);
        }
    }
    FILE *out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    fprintf(out, "func run %p\nfunc job %p\nfunc step %p\nfunc leaf %p\nfunc produce %p\nfunc consume %p\n",
        (void *) run, (void *) job, (void *) step, (void *) leaf, (void *) produce, (void *) consume);
    for (int t = 0; t < started; t++) {
        fprintf(out, "thread %d %s\n", logs[t].tid, logs[t].name);
        for (size_t i = 0; i < logs[t].n; i++) {
            struct call *c = &logs[t].calls[i];
            fprintf(out, "call %d %s %d %lld %lld\n", logs[t].tid, c->func, c->depth, c->t0, c->t1);
        }
    }
    for (int i = 0; i < message_count; i++) {
        fprintf(out, "msg %d %d %d %d\n", messages[i].queue, messages[i].id, messages[i].sender, messages[i].receiver);
    }
    return fclose(out) == 0 ? 0 : 1;
}

/*
 * A request-serving program for bench/ust-trace.sh: a dispatcher thread queues N requests, four
 * workers take them and handle each (parse, one to four lookups, a computation, a reply queued to
 * a collector thread). Built with -finstrument-functions, its calls are traced through
 * liblttng-ust-cyg-profile; the queues fire app:msg_send and app:msg_recv (the tests' tracepoint
 * provider, analysis/src/test/resources/ust/app_tp.h).
 *
 * Calls are short (parse, lookup: tens of ns), medium (compute: a few us) and a few long: every
 * 4,999th request computes 100 times as long, every 25,013th sleeps 3 ms in flush. How many calls
 * each request makes depends on its number only, so the event count is the same every run; the
 * program prints it ("events N": two per call, one per tracepoint) on its standard output.
 *
 * Usage: workload N
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "app_tp.h"

#define NOTRACE __attribute__((no_instrument_function))
#define TRACED __attribute__((noinline))

enum { WORKERS = 4, SLOTS = 64 };

struct queue {
    int number;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int ids[SLOTS];
    int head, count;
};

static struct queue requests = {1, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {0}, 0, 0};
static struct queue replies = {2, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {0}, 0, 0};
static int total;
static unsigned long long events;
static pthread_mutex_t events_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread unsigned long long thread_events;
static __thread volatile unsigned long sink;

/* Counted in each traced function: an entry and an exit. */
#define CALLED() (thread_events += 2)

TRACED void enqueue(struct queue *q, int id) {
    CALLED();
    pthread_mutex_lock(&q->lock);
    while (q->count == SLOTS) {
        pthread_cond_wait(&q->changed, &q->lock);
    }
    tracepoint(app, msg_send, q->number, id);
    thread_events++;
    q->ids[(q->head + q->count) % SLOTS] = id;
    q->count++;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
}

TRACED int dequeue(struct queue *q) {
    CALLED();
    pthread_mutex_lock(&q->lock);
    while (q->count == 0) {
        pthread_cond_wait(&q->changed, &q->lock);
    }
    int id = q->ids[q->head];
    tracepoint(app, msg_recv, q->number, id);
    thread_events++;
    q->head = (q->head + 1) % SLOTS;
    q->count--;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
    return id;
}

static NOTRACE void spin(long n) {
    for (long i = 0; i < n; i++) {
        sink += (unsigned long) i * i;
    }
}

TRACED void make_request(int r) {
    CALLED();
    spin(20 + r % 16);
}

TRACED void dispatch(int r) {
    CALLED();
    make_request(r);
    enqueue(&requests, r);
}

TRACED void parse(int r) {
    CALLED();
    spin(30 + r % 32);
}

TRACED void lookup(int r, int k) {
    CALLED();
    spin(40 + (r * 31 + k * 17) % 64);
}

TRACED void compute(int r) {
    CALLED();
    long work = 500 + (r * 7919L) % 4000;
    spin(r % 4999 == 4998 ? 100 * work : work);
}

TRACED void flush(int r) {
    CALLED();
    (void) r;
    struct timespec ts = {0, 3000000};
    nanosleep(&ts, NULL);
}

TRACED void reply(int r) {
    CALLED();
    if (r % 25013 == 25012) {
        flush(r);
    }
    enqueue(&replies, r);
}

TRACED void handle(int r) {
    CALLED();
    parse(r);
    for (int k = 0; k <= r % 4; k++) {
        lookup(r, k);
    }
    compute(r);
    reply(r);
}

TRACED void account(int r) {
    CALLED();
    spin(10 + r % 8);
}

static NOTRACE void done(void) {
    pthread_mutex_lock(&events_lock);
    events += thread_events;
    pthread_mutex_unlock(&events_lock);
}

static NOTRACE void *dispatcher_main(void *arg) {
    (void) arg;
    pthread_setname_np(pthread_self(), "dispatcher");
    for (int r = 0; r < total; r++) {
        dispatch(r);
    }
    /* a stop for each worker: negative ids, each its own, as every message's */
    for (int w = 0; w < WORKERS; w++) {
        enqueue(&requests, -1 - w);
    }
    done();
    return NULL;
}

static NOTRACE void *worker_main(void *arg) {
    char name[16];
    snprintf(name, sizeof name, "worker-%d", (int) (long) arg);
    pthread_setname_np(pthread_self(), name);
    for (int r; (r = dequeue(&requests)) >= 0;) {
        handle(r);
    }
    done();
    return NULL;
}

static NOTRACE void *collector_main(void *arg) {
    (void) arg;
    pthread_setname_np(pthread_self(), "collector");
    for (int i = 0; i < total; i++) {
        account(dequeue(&replies));
    }
    done();
    return NULL;
}

NOTRACE int main(int argc, char **argv) {
    if (argc != 2 || (total = atoi(argv[1])) <= 0) {
        fprintf(stderr, "usage: %s N\n", argv[0]);
        return 2;
    }
    pthread_t threads[WORKERS + 2];
    pthread_create(&threads[0], NULL, dispatcher_main, NULL);
    for (long w = 1; w <= WORKERS; w++) {
        pthread_create(&threads[w], NULL, worker_main, (void *) w);
    }
    pthread_create(&threads[WORKERS + 1], NULL, collector_main, NULL);
    for (int t = 0; t < WORKERS + 2; t++) {
        pthread_join(threads[t], NULL);
    }
    printf("events %llu\n", events);
    return 0;
}

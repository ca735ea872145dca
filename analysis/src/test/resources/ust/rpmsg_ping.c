/*
 * Talks "RPMsg" through a socket pair standing in for /dev/rpmsgN: the main thread (Linux's
 * endpoint 0x400) writes ROUNDS messages of varying length to a remote endpoint (0x1e) run by
 * a thread, which reads each and answers it; each side counts its messages per direction from 0
 * and traces them with the hetrace_rpmsg provider just before write() and just after read(). Prints one line per
 * message traced: "send|recv src dst seq len".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hetrace_rpmsg_tp.h"

#define ROUNDS 50
#define LINUX_EPT 0x400u
#define REMOTE_EPT 0x1eu

static int fds[2];
static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;

static void said(const char *what, uint32_t src, uint32_t dst, uint32_t seq, uint32_t len)
{
    pthread_mutex_lock(&out);
    printf("%s %u %u %u %u\n", what, src, dst, seq, len);
    pthread_mutex_unlock(&out);
}

static void write_all(int fd, const char *buf, size_t len)
{
    /* a datagram socket, as rpmsg_char: one write is one message */
    if (write(fd, buf, len) != (ssize_t) len) {
        perror("write");
        exit(1);
    }
}

static size_t read_one(int fd, char *buf, size_t cap)
{
    ssize_t n = read(fd, buf, cap);
    if (n <= 0) {
        perror("read");
        exit(1);
    }
    return (size_t) n;
}

static void *remote(void *arg)
{
    (void) arg;
    char buf[496];
    uint32_t in = 0, outseq = 0;
    for (int i = 0; i < ROUNDS; i++) {
        size_t n = read_one(fds[1], buf, sizeof buf);
        lttng_ust_tracepoint(hetrace_rpmsg, recv, LINUX_EPT, REMOTE_EPT, in, (uint32_t) n);
        said("recv", LINUX_EPT, REMOTE_EPT, in++, (uint32_t) n);
        size_t reply = 8 + (size_t) (i % 5);
        lttng_ust_tracepoint(hetrace_rpmsg, send, REMOTE_EPT, LINUX_EPT, outseq, (uint32_t) reply);
        write_all(fds[1], buf, reply);
        said("send", REMOTE_EPT, LINUX_EPT, outseq++, (uint32_t) reply);
    }
    return NULL;
}

int main(void)
{
    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fds) != 0) {
        perror("socketpair");
        return 1;
    }
    pthread_t t;
    pthread_create(&t, NULL, remote, NULL);
    char buf[496];
    memset(buf, 'x', sizeof buf);
    uint32_t outseq = 0, in = 0;
    for (int i = 0; i < ROUNDS; i++) {
        size_t len = 16 + (size_t) (i * 37) % 480;
        lttng_ust_tracepoint(hetrace_rpmsg, send, LINUX_EPT, REMOTE_EPT, outseq, (uint32_t) len);
        write_all(fds[0], buf, len);
        said("send", LINUX_EPT, REMOTE_EPT, outseq++, (uint32_t) len);
        size_t n = read_one(fds[0], buf, sizeof buf);
        lttng_ust_tracepoint(hetrace_rpmsg, recv, REMOTE_EPT, LINUX_EPT, in, (uint32_t) n);
        said("recv", REMOTE_EPT, LINUX_EPT, in++, (uint32_t) n);
    }
    pthread_join(t, NULL);
    return 0;
}

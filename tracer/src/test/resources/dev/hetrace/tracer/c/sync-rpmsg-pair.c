/*
 * The sync handshake over RPMsg between two real processes (SyncRpmsgTest): a SOCK_SEQPACKET
 * socket pair stands in for the endpoint (one message per read, as /dev/rpmsgN). The parent is
 * the master (sy_sync_rpmsg_exchange), the child the slave, which gives each message to
 * sy_sync_rpmsg_answer() first, as an endpoint callback does. Both trace with the linux-file
 * platform (CLOCK_MONOTONIC). The slave also sends an application message before every 5th
 * answer (the master's `other` callback gets it), and the master sends one before every 4th
 * request (the slave's answer says it is not a request); "STOP" ends the slave.
 *
 * Usage: sync-rpmsg-pair MASTER_STREAM SLAVE_STREAM EXCHANGES
 * Prints: master OK TIMEOUT NOT_DELIVERED OTHER, then slave ANSWERED NOT_A_REQUEST
 */
#define _XOPEN_SOURCE 700

#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sy-platform-linux-file.h"
#include "sy-sync.h"

#define MASTER_CORE 1
#define SLAVE_CORE 7

static long others;

static int send_fd(const void *data, uint32_t size, void *user_data)
{
	return write(*(const int *) user_data, data, size) == (ssize_t) size ? 0 : -1;
}

static int32_t receive_fd(void *buf, uint32_t size, void *user_data)
{
	struct pollfd p;
	ssize_t n;

	p.fd = *(const int *) user_data;
	p.events = POLLIN;

	if (poll(&p, 1, 1000) <= 0) {
		return -1;
	}

	n = read(p.fd, buf, size);
	return n < 0 ? -1 : (int32_t) n;
}

static void other(const void *msg, uint32_t len, void *user_data)
{
	(void) user_data;

	if (len == 4 && memcmp(msg, "tick", 4) == 0) {
		others++;
	}
}

static int slave(int fd, const char *stream)
{
	struct sy_platform_linux_file_ctx *platform = sy_platform_linux_file_init(512, stream);
	uint8_t msg[512];
	long answered = 0, not_requests = 0, requests = 0;

	if (!platform) {
		return 2;
	}

	for (;;) {
		const ssize_t n = read(fd, msg, sizeof(msg));
		int r;

		if (n <= 0) {
			break;
		}

		if (n >= SY_SYNC_RPMSG_REQUEST_SIZE && msg[3] == 'Q' && ++requests % 5 == 0 && write(fd, "tick", 4) != 4) {
			return 2;
		}

		r = sy_sync_rpmsg_answer(sy_platform_linux_file_get_barectf_ctx(platform), msg, (uint32_t) n, send_fd,
			&fd, SLAVE_CORE, MASTER_CORE, (uint8_t) 1);

		if (r == SY_SYNC_ANSWERED) {
			answered++;
		} else if (r == SY_SYNC_NOT_A_REQUEST) {
			not_requests++;

			if (n == 4 && memcmp(msg, "STOP", 4) == 0) {
				break;
			}
		} else {
			fprintf(stderr, "slave: answer %d\n", r);
		}
	}

	sy_platform_linux_file_fini(platform);
	printf("slave %ld %ld\n", answered, not_requests);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct sy_platform_linux_file_ctx *platform;
	struct sy_sync_rpmsg_master master;
	long exchanges, i, ok = 0, timeouts = 0, undelivered = 0;
	int fds[2];
	int status;
	pid_t child;

	if (argc != 4 || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fds) != 0) {
		return 2;
	}

	exchanges = atol(argv[3]);
	fflush(stdout);
	child = fork();

	if (child == 0) {
		close(fds[0]);
		return slave(fds[1], argv[2]);
	}

	close(fds[1]);
	platform = sy_platform_linux_file_init(512, argv[1]);

	if (!platform) {
		return 2;
	}

	memset(&master, 0, sizeof(master));
	master.ctx = sy_platform_linux_file_get_barectf_ctx(platform);
	master.core = MASTER_CORE;
	master.peer = SLAVE_CORE;
	master.send = send_fd;
	master.receive = receive_fd;
	master.other = other;
	master.max_messages = 4;
	master.user_data = &fds[0];

	for (i = 0; i < exchanges; i++) {
		int r;

		if (i % 4 == 3 && write(fds[0], "app", 3) != 3) {
			return 2;
		}

		r = sy_sync_rpmsg_exchange(&master, (uint8_t) 0);
		ok += r == SY_SYNC_OK;
		timeouts += r == SY_SYNC_TIMEOUT;
		undelivered += r == SY_SYNC_NOT_DELIVERED;
	}

	if (write(fds[0], "STOP", 4) != 4) {
		return 2;
	}

	waitpid(child, &status, 0);
	sy_platform_linux_file_fini(platform);
	printf("master %ld %ld %ld %ld\n", ok, timeouts, undelivered, others);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

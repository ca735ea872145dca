/*
 * The coprocessor of the sync-over-RPMsg end-to-end test: a "firmware" whose tracer has the
 * rpmsg platform, on the master side of a pseudo-terminal standing in for the endpoint (the
 * collector reads and writes its slave, as it would /dev/ttyRPMSGN). It traces BURSTS bursts
 * of EVENTS tick events, each followed by IDLE_MS of silence; all along, what the pty brings is
 * given to rs_sync_rpmsg_answer() first, as an endpoint callback would, which answers the
 * collector's sync requests on the same link as the trace messages.
 *
 * Its clock is not the host's: cycles = 1.2 x CLOCK_MONOTONIC ns + 5e15 (the metadata says
 * 1 GHz), so that the relation `hetrace sync` finds can be checked against the truth.
 *
 * Prints the pty slave's name, waits for a line on stdin, traces, prints
 * "sent MESSAGES PACKETS ANSWERED", waits for a line, closes.
 *
 * usage: sync-firmware BURSTS EVENTS IDLE_MS PACKET_SIZE
 */
#define _XOPEN_SOURCE 600
#define _POSIX_C_SOURCE 200112L

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rs-platform-rpmsg.h"
#include "rs-sync.h"

#define CLOCK_OFFSET 5000000000000000ULL
#define MY_CORE 7
#define LINUX_CORE 1

static int fd = -1;
static unsigned long messages;
static unsigned long answered;
static struct rs_platform_rpmsg_ctx ctx;

/* What the pty brought and was not consumed yet (a byte stream: requests may come in pieces) */
static uint8_t in[4096];
static size_t in_len;

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

static uint64_t core_clock(void *user_data)
{
	const uint64_t ns = monotonic_ns();

	(void) user_data;
	return ns + ns / 5 + CLOCK_OFFSET;
}

static int write_all(const void * const data, const uint32_t size)
{
	const uint8_t *p = (const uint8_t *) data;
	uint32_t left = size;

	while (left > 0) {
		const ssize_t n = write(fd, p, left);

		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}

			perror("sync-firmware: write");
			return -1;
		}

		p += n;
		left -= (uint32_t) n;
	}

	return 0;
}

static int send_message(const void * const data, const uint32_t size, void * const user_data)
{
	(void) user_data;
	messages++;
	return write_all(data, size) == 0 ? 0 : -1;
}

static int send_answer(const void * const data, const uint32_t size, void * const user_data)
{
	(void) user_data;
	return write_all(data, size);
}

/* Reads what the pty has (waiting up to timeout_ms) and answers the whole requests in it */
static void serve(const int timeout_ms)
{
	struct pollfd p;
	ssize_t n;

	p.fd = fd;
	p.events = POLLIN;
	p.revents = 0;

	if (poll(&p, 1, timeout_ms) <= 0 || !(p.revents & POLLIN)) {
		return;
	}

	n = read(fd, in + in_len, sizeof(in) - in_len);

	if (n <= 0) {
		return;
	}

	in_len += (size_t) n;

	while (in_len >= RS_SYNC_RPMSG_REQUEST_SIZE) {
		const int r = rs_sync_rpmsg_answer(rs_platform_rpmsg_get_barectf_ctx(&ctx), in,
			(uint32_t) in_len, send_answer, NULL, MY_CORE, LINUX_CORE);
		size_t used = RS_SYNC_RPMSG_REQUEST_SIZE;

		if (r == RS_SYNC_NOT_A_REQUEST) {
			/* an application message would be handled here; this test has none */
			fprintf(stderr, "sync-firmware: not a request\n");
			used = 1;
		} else if (r == RS_SYNC_ANSWERED) {
			answered++;
		} else {
			fprintf(stderr, "sync-firmware: answer result %d\n", r);
		}

		memmove(in, in + used, in_len - used);
		in_len -= used;
	}
}

static int wait_line(void)
{
	char line[16];

	return fgets(line, sizeof(line), stdin) ? 0 : -1;
}

int main(int argc, char **argv)
{
	static uint8_t buf[65536];
	struct rs_platform_rpmsg_funcs funcs;
	unsigned long bursts;
	unsigned long events;
	long idle_ms;
	uint32_t packet_size;
	uint64_t seq = 0;
	unsigned long b;

	if (argc != 5) {
		fprintf(stderr, "usage: sync-firmware BURSTS EVENTS IDLE_MS PACKET_SIZE\n");
		return 2;
	}

	bursts = strtoul(argv[1], NULL, 10);
	events = strtoul(argv[2], NULL, 10);
	idle_ms = strtol(argv[3], NULL, 10);
	packet_size = (uint32_t) strtoul(argv[4], NULL, 10);

	if (packet_size > sizeof(buf)) {
		return 2;
	}

	fd = posix_openpt(O_RDWR | O_NOCTTY);

	if (fd < 0 || grantpt(fd) != 0 || unlockpt(fd) != 0) {
		perror("sync-firmware: posix_openpt");
		return 1;
	}

	printf("%s\n", ptsname(fd));
	fflush(stdout);

	if (wait_line() != 0) {
		return 1;
	}

	funcs.core_clock_clock = core_clock;
	funcs.send = send_message;
	funcs.is_full = NULL;
	funcs.user_data = NULL;

	if (rs_platform_rpmsg_init(&ctx, buf, packet_size, funcs) != 0) {
		fprintf(stderr, "sync-firmware: bad packet size\n");
		return 1;
	}

	for (b = 0; b < bursts; b++) {
		unsigned long i;
		uint64_t idle_end;

		for (i = 0; i < events; i++) {
			rs_main_trace_tick(rs_platform_rpmsg_get_barectf_ctx(&ctx), seq++);

			if (i % 64 == 0) {
				serve(0);
			}
		}

		idle_end = monotonic_ns() + (uint64_t) idle_ms * 1000000ULL;

		while (monotonic_ns() < idle_end) {
			serve(1);
		}
	}

	rs_platform_rpmsg_flush(&ctx);
	printf("sent %lu %lu %lu\n", messages, (unsigned long) ctx.packet, answered);
	fflush(stdout);

	if (wait_line() != 0) {
		return 1;
	}

	close(fd);
	return ctx.messages_failed == 0 ? 0 : 1;
}

/*
 * The remote core of the rpmsg end-to-end test: traces `events` tick events through the rpmsg
 * platform, whose send function write()s each message to a file descriptor standing in for the
 * RPMsg endpoint: a FIFO (an rpmsg_char device: one write per message) or the master side of a
 * pseudo-terminal whose slave the collector reads (an rpmsg_tty: a byte stream).
 * With DROP > 0 every DROP-th message is not written, as a link losing messages would (the
 * platform believes it sent). With the pty, prints the slave's name and waits for a line on
 * stdin before tracing (the collector has opened it) and before closing (it has read all).
 * Prints "sent MESSAGES PACKETS DROPPED".
 *
 * usage: producer (fifo PATH | pty) EVENTS DROP PACKET_SIZE
 */
#define _XOPEN_SOURCE 600

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rm-platform-rpmsg.h"

static uint64_t seq;
static int fd = -1;
static unsigned long drop_every;
static unsigned long messages;
static unsigned long dropped;

static uint64_t core_clock(void *user_data)
{
	(void) user_data;
	return 1000 + seq * 10;
}

static int send_message(const void * const data, const uint32_t size, void * const user_data)
{
	const uint8_t *p = (const uint8_t *) data;
	uint32_t left = size;

	(void) user_data;
	messages++;

	if (drop_every > 0 && messages % drop_every == 0) {
		dropped++;
		return 0;
	}

	while (left > 0) {
		const ssize_t n = write(fd, p, left);

		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}

			perror("producer: write");
			return -1;
		}

		p += n;
		left -= (uint32_t) n;
	}

	return 0;
}

static int wait_line(void)
{
	char line[16];

	return fgets(line, sizeof(line), stdin) ? 0 : -1;
}

int main(int argc, char **argv)
{
	static uint8_t buf[65536];
	struct rm_platform_rpmsg_ctx ctx;
	struct rm_platform_rpmsg_funcs funcs;
	int pty = argc == 5 && strcmp(argv[1], "pty") == 0;
	int arg = pty ? 2 : 3;
	uint64_t events;
	uint32_t packet_size;

	if (!pty && !(argc == 6 && strcmp(argv[1], "fifo") == 0)) {
		fprintf(stderr, "usage: producer (fifo PATH | pty) EVENTS DROP PACKET_SIZE\n");
		return 2;
	}

	events = strtoull(argv[arg], NULL, 10);
	drop_every = strtoul(argv[arg + 1], NULL, 10);
	packet_size = (uint32_t) strtoul(argv[arg + 2], NULL, 10);

	if (packet_size > sizeof(buf)) {
		return 2;
	}

	if (pty) {
		fd = posix_openpt(O_RDWR | O_NOCTTY);

		if (fd < 0 || grantpt(fd) != 0 || unlockpt(fd) != 0) {
			perror("producer: posix_openpt");
			return 1;
		}

		printf("%s\n", ptsname(fd));
		fflush(stdout);

		if (wait_line() != 0) {
			return 1;
		}
	} else {
		fd = open(argv[2], O_WRONLY);

		if (fd < 0) {
			perror("producer: open");
			return 1;
		}
	}

	funcs.core_clock_clock = core_clock;
	funcs.send = send_message;
	funcs.is_full = NULL;
	funcs.user_data = NULL;

	if (rm_platform_rpmsg_init(&ctx, buf, packet_size, funcs) != 0) {
		fprintf(stderr, "producer: bad packet size\n");
		return 1;
	}

	for (seq = 0; seq < events; seq++) {
		char msg[32];

		sprintf(msg, "event %llu", (unsigned long long) seq);
		rm_main_trace_tick(rm_platform_rpmsg_get_barectf_ctx(&ctx), (uint8_t) (seq % 251), seq,
			(int32_t) (seq * 7) - 1000, msg);
	}

	rm_platform_rpmsg_flush(&ctx);
	printf("sent %lu %lu %lu\n", messages, (unsigned long) ctx.packet, dropped);
	fflush(stdout);

	if (pty && wait_line() != 0) {
		return 1;
	}

	close(fd);
	return ctx.messages_failed == 0 ? 0 : 1;
}

/*
 * The coprocessor of the remoteproc-trace end-to-end tests: traces `events` tick events through
 * the remoteproc-trace platform into a trace buffer that is a file mapped shared (standing in
 * for the buffer Linux shows as /sys/kernel/debug/remoteproc/remoteprocN/trace0), pausing
 * PAUSE_US microseconds after each event, then says it is done.
 * Prints "sent SLOTS PACKETS".
 *
 * usage: rproc-producer FILE BUFFER_SIZE EVENTS PACKET_SIZE PAUSE_US
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "rm-platform-remoteproc-trace.h"

static uint64_t seq;

static uint64_t core_clock(void *user_data)
{
	(void) user_data;
	return 1000 + seq * 10;
}

int main(int argc, char **argv)
{
	static uint8_t buf[65536];
	struct rm_platform_remoteproc_trace_ctx ctx;
	struct rm_platform_remoteproc_trace_funcs funcs;
	uint32_t size;
	uint64_t events;
	uint32_t packet_size;
	long pause_us;
	void *trace;
	int fd;

	if (argc != 6) {
		fprintf(stderr, "usage: rproc-producer FILE BUFFER_SIZE EVENTS PACKET_SIZE PAUSE_US\n");
		return 2;
	}

	size = (uint32_t) strtoul(argv[2], NULL, 10);
	events = strtoull(argv[3], NULL, 10);
	packet_size = (uint32_t) strtoul(argv[4], NULL, 10);
	pause_us = strtol(argv[5], NULL, 10);

	if (packet_size > sizeof(buf)) {
		return 2;
	}

	fd = open(argv[1], O_RDWR | O_CREAT, 0644);

	if (fd < 0 || ftruncate(fd, (off_t) size) != 0) {
		perror("rproc-producer: open");
		return 1;
	}

	trace = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);

	if (trace == MAP_FAILED) {
		perror("rproc-producer: mmap");
		return 1;
	}

	funcs.core_clock_clock = core_clock;
	funcs.user_data = NULL;

	if (rm_platform_remoteproc_trace_init(&ctx, buf, packet_size, trace, size, funcs) != 0) {
		fprintf(stderr, "rproc-producer: bad buffer or packet size\n");
		return 1;
	}

	for (seq = 0; seq < events; seq++) {
		char msg[32];

		sprintf(msg, "event %llu", (unsigned long long) seq);
		rm_main_trace_tick(rm_platform_remoteproc_trace_get_barectf_ctx(&ctx), (uint8_t) (seq % 251), seq,
			(int32_t) (seq * 7) - 1000, msg);

		if (pause_us > 0) {
			struct timespec ts;

			ts.tv_sec = pause_us / 1000000;
			ts.tv_nsec = (pause_us % 1000000) * 1000;
			nanosleep(&ts, NULL);
		}
	}

	rm_platform_remoteproc_trace_finish(&ctx);
	printf("sent %lu %lu\n", (unsigned long) ctx.written, (unsigned long) ctx.packet);
	fflush(stdout);
	munmap(trace, size);
	return 0;
}

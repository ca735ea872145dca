/*
 * One "core" of the shm-ring end-to-end test: traces `events` tick events through an shm-ring
 * region, with its own fake clock (offset + seq * step). The first `burst` events are traced
 * before "ready" is printed and a line is read from stdin: a collector started after that
 * finds the ring as full as these events left it. Then the rest, with a pause every 64
 * events. Finishes (waiting for room if needed) and prints how many events it emitted.
 *
 * usage: producer REGION CORE SLOT_SIZE SLOT_COUNT EVENTS BURST CLOCK_OFFSET CLOCK_STEP PAUSE_US
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sr-platform-shm-ring.h"
#include "sr-shm-ring-linux.h"

static uint64_t seq;
static uint64_t clock_offset;
static uint64_t clock_step;

static uint64_t core_clock(void *user_data)
{
	(void) user_data;
	return clock_offset + seq * clock_step;
}

static void pause_us(long us)
{
	struct timespec ts;

	ts.tv_sec = us / 1000000;
	ts.tv_nsec = (us % 1000000) * 1000;
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	struct sr_platform_shm_ring_ctx ring;
	struct sr_platform_shm_ring_funcs funcs;
	uint32_t core, slot_size, slot_count;
	uint64_t events, burst;
	long pause;
	void *region;
	char line[16];

	if (argc != 10) {
		fprintf(stderr, "usage: producer REGION CORE SLOT_SIZE SLOT_COUNT EVENTS BURST OFFSET STEP PAUSE_US\n");
		return 2;
	}

	core = (uint32_t) strtoul(argv[2], NULL, 10);
	slot_size = (uint32_t) strtoul(argv[3], NULL, 10);
	slot_count = (uint32_t) strtoul(argv[4], NULL, 10);
	events = strtoull(argv[5], NULL, 10);
	burst = strtoull(argv[6], NULL, 10);
	clock_offset = strtoull(argv[7], NULL, 10);
	clock_step = strtoull(argv[8], NULL, 10);
	pause = strtol(argv[9], NULL, 10);
	region = sr_shm_ring_linux_create(argv[1], slot_size, slot_count);

	if (!region) {
		perror("producer: sr_shm_ring_linux_create");
		return 1;
	}

	funcs.core_clock_clock = core_clock;
	funcs.user_data = NULL;

	if (sr_platform_shm_ring_init(&ring, region, slot_size, slot_count, core, funcs) != 0) {
		fprintf(stderr, "producer: bad ring sizes\n");
		return 1;
	}

	for (seq = 0; seq < events; seq++) {
		char msg[32];

		if (seq == burst) {
			printf("ready\n");
			fflush(stdout);

			if (!fgets(line, sizeof(line), stdin)) {
				return 1;
			}
		}

		if (pause > 0 && seq % 64 == 63) {
			pause_us(pause);
		}

		sprintf(msg, "core %u event %llu", (unsigned int) core, (unsigned long long) seq);
		sr_main_trace_tick(sr_platform_shm_ring_get_barectf_ctx(&ring), (uint8_t) core, seq,
			(int32_t) (seq * 7 - core * 1000), msg);
	}

	if (burst >= events) {
		printf("ready\n");
		fflush(stdout);

		if (!fgets(line, sizeof(line), stdin)) {
			return 1;
		}
	}

	while (!sr_platform_shm_ring_finish(&ring)) {
		pause_us(100);
	}

	printf("%llu\n", (unsigned long long) events);
	sr_shm_ring_linux_unmap(region, slot_size, slot_count);
	return 0;
}

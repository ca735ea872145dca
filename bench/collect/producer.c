/*
 * One core of the collector benchmark (bench/collect.sh): publishes PACKETS copies of one
 * ready-made CTF packet into an shm-ring region as fast as the ring protocol allows, waiting
 * (never dropping) while the ring is full, then marks the ring done.
 *
 * The packet is made once by the generated tracer (bench/collect/config.yaml) in a scratch
 * ring: `sample` events with a clock that counts its reads, until the first packet is full.
 * Each copy n gets its packet context patched: timestamp_begin and timestamp_end moved by
 * n * 65536 ns and packet_seq_num = n. The events' 16-bit timestamps stay as they are: a
 * reader extends them from timestamp_begin, so copy n's events fall at n * 65536 + t and the
 * stream reads as one clean trace.
 *
 * The region is created and its header written by the generated code
 * (hc_shm_ring_linux_create, hc_platform_shm_ring_init); the copies are published with the
 * protocol of docs/shm-ring.md: write slot produced % slot_count while produced - consumed <
 * slot_count (consumed loaded with acquire), then a release store of produced + 1; after the
 * last one, a release store of done = 1. When the ring is full it sleeps (200 us at a time)
 * until half of it is free: nothing is dropped.
 *
 * usage: producer REGION CORE SLOT_SIZE SLOT_COUNT PACKETS
 * Prints "core C: P packets of S bytes, W sleeps waiting for room" when done.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hc-platform-shm-ring.h"
#include "hc-shm-ring-linux.h"

/* Packet context field offsets (bytes) of config.yaml's layout: a packet header of magic,
 * uuid[16] and a 64-bit stream id (28 bytes), then 64-bit byte-aligned packet_size,
 * content_size, timestamp_begin, timestamp_end, events_discarded, packet_seq_num. Checked
 * against the packet the tracer writes. */
#define OFF_PACKET_SIZE 28
#define OFF_TS_BEGIN 44
#define OFF_TS_END 52
#define OFF_SEQ_NUM 68
#define PACKET_SPAN UINT64_C(65536)

static uint64_t clock_value;

static uint64_t counting_clock(void *user_data)
{
	(void) user_data;
	return ++clock_value;
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof v);
	return v;
}

static void put_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof v);
}

/* Traces events into a scratch ring until its first packet is published; copies it to `packet`. */
static int make_packet(uint8_t *packet, uint32_t slot_size)
{
	struct hc_platform_shm_ring_ctx ring;
	struct hc_platform_shm_ring_funcs funcs;
	void *scratch = malloc((size_t) HC_SHM_RING_REGION_SIZE(slot_size, 2));
	volatile struct hc_platform_shm_ring_header *h = scratch;
	uint32_t i;

	if (!scratch) {
		return -1;
	}

	memset(scratch, 0, (size_t) HC_SHM_RING_REGION_SIZE(slot_size, 2));
	funcs.cycles_clock = counting_clock;
	funcs.user_data = NULL;

	if (hc_platform_shm_ring_init(&ring, scratch, slot_size, 2, 0, funcs) != 0) {
		free(scratch);
		return -1;
	}

	for (i = 0; h->produced == 0; i++) {
		hc_main_trace_sample(hc_platform_shm_ring_get_barectf_ctx(&ring), i, i * 2654435761u, (uint16_t) (i % 16),
			(uint8_t) (i & 1));
	}

	memcpy(packet, (uint8_t *) scratch + HC_SHM_RING_HEADER_SIZE, slot_size);
	free(scratch);

	if (get_u64(packet + OFF_PACKET_SIZE) != (uint64_t) slot_size * 8 || get_u64(packet + OFF_TS_BEGIN) != 1
			|| get_u64(packet + OFF_SEQ_NUM) != 0) {
		fprintf(stderr, "producer: the tracer's packet context is not laid out as expected\n");
		return -1;
	}

	if (get_u64(packet + OFF_TS_END) >= PACKET_SPAN) {
		fprintf(stderr, "producer: a packet of %u bytes spans more than 65536 clock ticks: use smaller packets\n",
			(unsigned int) slot_size);
		return -1;
	}

	return 0;
}

int main(int argc, char **argv)
{
	struct hc_platform_shm_ring_ctx ring;
	struct hc_platform_shm_ring_funcs funcs;
	volatile struct hc_platform_shm_ring_header *h;
	uint32_t core, slot_size, slot_count;
	volatile uint32_t *consumed_low;
	uint64_t packets, n, ts_begin, ts_end, sleeps = 0;
	const struct timespec pause = { 0, 200000 };
	uint8_t *packet, *slots;
	void *region;

	if (argc != 6) {
		fprintf(stderr, "usage: producer REGION CORE SLOT_SIZE SLOT_COUNT PACKETS\n");
		return 2;
	}

	core = (uint32_t) strtoul(argv[2], NULL, 10);
	slot_size = (uint32_t) strtoul(argv[3], NULL, 10);
	slot_count = (uint32_t) strtoul(argv[4], NULL, 10);
	packets = strtoull(argv[5], NULL, 10);
	packet = malloc(slot_size);

	if (!packet || make_packet(packet, slot_size) != 0) {
		fprintf(stderr, "producer: cannot make the packet (slot size %u)\n", (unsigned int) slot_size);
		return 1;
	}

	ts_begin = get_u64(packet + OFF_TS_BEGIN);
	ts_end = get_u64(packet + OFF_TS_END);
	region = hc_shm_ring_linux_create(argv[1], slot_size, slot_count);

	if (!region) {
		perror("producer: hc_shm_ring_linux_create");
		return 1;
	}

	/* Writes the header (the collector attaches when it sees the magic); the tracer itself is not used */
	funcs.cycles_clock = counting_clock;
	funcs.user_data = NULL;

	if (hc_platform_shm_ring_init(&ring, region, slot_size, slot_count, core, funcs) != 0) {
		fprintf(stderr, "producer: bad ring sizes\n");
		return 1;
	}

	h = (volatile struct hc_platform_shm_ring_header *) region;
	slots = (uint8_t *) region + HC_SHM_RING_HEADER_SIZE;
	consumed_low = (volatile uint32_t *) &h->consumed; /* little-endian host: the low half comes first */

	for (n = 0; n < packets; n++) {
		uint8_t *slot = slots + (uint64_t) (n % slot_count) * slot_size;

		if ((uint32_t) ((uint32_t) n - __atomic_load_n(consumed_low, __ATOMIC_ACQUIRE)) >= slot_count) {
			/*
			 * Full: sleep until half the ring is free rather than spin or yield for each
			 * slot. A real core does not take the host's CPU; on a small host a producer
			 * that spins, or wakes for every slot, takes it from the collector.
			 */
			while ((uint32_t) ((uint32_t) n - __atomic_load_n(consumed_low, __ATOMIC_ACQUIRE)) > slot_count / 2) {
				nanosleep(&pause, NULL);
				sleeps++;
			}
		}

		memcpy(slot, packet, slot_size);
		put_u64(slot + OFF_TS_BEGIN, n * PACKET_SPAN + ts_begin);
		put_u64(slot + OFF_TS_END, n * PACKET_SPAN + ts_end);
		put_u64(slot + OFF_SEQ_NUM, n);
		__atomic_store_n(&h->produced, n + 1, __ATOMIC_RELEASE);
	}

	__atomic_store_n(&h->done, UINT32_C(1), __ATOMIC_RELEASE);
	printf("core %u: %llu packets of %u bytes, %llu sleeps waiting for room\n", (unsigned int) core,
		(unsigned long long) packets, (unsigned int) slot_size, (unsigned long long) sleeps);
	hc_shm_ring_linux_unmap(region, slot_size, slot_count);
	free(packet);
	return 0;
}

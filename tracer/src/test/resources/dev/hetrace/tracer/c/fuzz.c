/*
 * Random event records (a deterministic generator) into one of the generated platforms, for
 * runs under AddressSanitizer and UndefinedBehaviorSanitizer: strings from empty to longer than
 * a packet, dynamic arrays, fields aligned to 64 bits after variable-size ones, and, as an ISR
 * would, tracepoints run from within the clock read of another. Build with one of
 * -DPLATFORM_LINUX_FILE, -DPLATFORM_CALLBACK, -DPLATFORM_SHM_RING, -DPLATFORM_RPMSG,
 * -DPLATFORM_REMOTEPROC_TRACE (with -DTT_REMOTEPROC_TRACE_NO_RESOURCE_TABLE), and with
 * -include fuzz-clock.h so that the tracer reads the clock through fuzz_clock().
 *
 * Usage: fuzz STREAM_FILE PACKET_SIZE SEED COUNT [huge]
 * Prints one line per event record it asks for ("KIND TAG SIZES..."), "nested N" (the
 * tracepoints run from the clock, all of which must be discarded), and "refused" instead when
 * the platform refuses the packet size. With `huge`, it also traces a dynamic array of 2^29
 * bytes and a string of 2^29 bytes, which no packet holds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(PLATFORM_LINUX_FILE)
# include "tt-platform-linux-file.h"
#elif defined(PLATFORM_CALLBACK)
# include "tt-platform-callback.h"
#elif defined(PLATFORM_SHM_RING)
# include "tt-platform-shm-ring.h"
#elif defined(PLATFORM_RPMSG)
# include "tt-platform-rpmsg.h"
#elif defined(PLATFORM_REMOTEPROC_TRACE)
# include "tt-platform-remoteproc-trace.h"
#endif

static struct tt_main_ctx *tracer;
static uint64_t now;
static uint64_t rng;
static uint64_t tag;
static long nested;
static FILE *out;

#if defined(PLATFORM_SHM_RING)
static struct tt_platform_shm_ring_ctx ring;

/* Drains the published slots into the stream file, as `hetrace collect` would. */
static void drain(void)
{
	uint64_t consumed = ring.header->consumed;

	while (consumed < ring.header->produced) {
		fwrite(ring.slots + (consumed % ring.slot_count) * ring.slot_size, 1, ring.slot_size, out);
		consumed++;
		ring.header->consumed = consumed;
	}
}
#endif

#if defined(PLATFORM_REMOTEPROC_TRACE)
static struct tt_platform_remoteproc_trace_ctx rproc;
static uint32_t rproc_size;
static uint32_t rproc_taken;
static uint32_t rproc_offset;

static uint32_t hex(const volatile uint8_t *p, int digits)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < digits; i++) {
		const int c = p[i];

		v = v << 4 | (uint32_t) (c >= 'a' ? c - 'a' + 10 : c - '0');
	}

	return v;
}

/* Takes the slots written since the last call, as `hetrace collect --remoteproc-trace` would; exits on any that does not follow */
static void take_slots(void)
{
	uint32_t i;

	for (i = 0; i < rproc_size; i++) {
		if (rproc.buffer[i] == 0) {
			fprintf(stderr, "fuzz: a NUL byte at %u of the trace buffer\n", (unsigned int) i);
			exit(1);
		}
	}

	if (rproc.written - rproc_taken > rproc.slot_count) {
		fprintf(stderr, "fuzz: the trace buffer was lapped\n");
		exit(1);
	}

	while (rproc_taken != rproc.written) {
		const volatile uint8_t *slot = rproc.buffer + TT_REMOTEPROC_TRACE_HEADER_SIZE
			+ (rproc_taken % rproc.slot_count) * TT_REMOTEPROC_TRACE_SLOT_SIZE;
		const uint32_t size = hex(slot + 24, 8);
		const uint32_t n = hex(slot + 32, 4);
		const uint32_t encoded = hex(slot + 36, 4);
		uint32_t j;
		uint32_t decoded = 0;

		if (hex(slot, 8) != rproc_taken || hex(slot + TT_REMOTEPROC_TRACE_SLOT_SIZE - 9, 8) != rproc_taken
			|| hex(slot + 16, 8) != rproc_offset || n == 0 || rproc_offset + n > size
			|| encoded > TT_REMOTEPROC_TRACE_SLOT_SIZE - 49) {
			fprintf(stderr, "fuzz: slot %u does not follow\n", (unsigned int) rproc_taken);
			exit(1);
		}

		for (j = 0; j < encoded; j++, decoded++) {
			uint8_t b = slot[40 + j];

			if (b == 0xff) {
				b = (uint8_t) (0xfd + slot[40 + ++j]);
			} else {
				b--;
			}

			fputc(b, out);
		}

		if (decoded != n) {
			fprintf(stderr, "fuzz: slot %u holds %u bytes, not %u\n", (unsigned int) rproc_taken,
				(unsigned int) decoded, (unsigned int) n);
			exit(1);
		}

		rproc_offset = rproc_offset + n == size ? 0 : rproc_offset + n;
		rproc_taken++;
	}
}
#endif

static uint32_t next(uint32_t bound)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return bound == 0 ? 0 : (uint32_t) ((rng * UINT64_C(2685821657736338717)) >> 33) % bound;
}

static char *text(uint32_t len)
{
	char *s = (char *) malloc(len + 1);
	uint32_t i;

	for (i = 0; i < len; i++) {
		s[i] = (char) ('a' + (i + len) % 26);
	}

	s[len] = '\0';
	return s;
}

uint64_t fuzz_clock(void);

uint64_t fuzz_clock(void)
{
	now += 10;
#if defined(PLATFORM_SHM_RING)
	drain();
#elif defined(PLATFORM_REMOTEPROC_TRACE)
	if (tracer) {
		take_slots();
	}
#endif

	if (tracer && tt_is_in_tracing_section(tracer) && next(4) == 0) {
		/* an interrupt's tracepoint: discarded and counted, the interrupted record intact */
		nested++;
		tt_trace_ints(tracer, 1, UINT64_MAX, -1);
	}

	return now;
}

#if defined(PLATFORM_CALLBACK)
static uint64_t callback_clock(void *user_data)
{
	(void) user_data;
	return now;
}

static void packet_ready(const uint8_t *packet, uint32_t size, void *user_data)
{
	(void) user_data;
	fwrite(packet, 1, size, out);
}
#elif defined(PLATFORM_SHM_RING)
static uint64_t ring_clock(void *user_data)
{
	(void) user_data;
	return now;
}
#elif defined(PLATFORM_RPMSG)
static uint64_t rpmsg_clock(void *user_data)
{
	(void) user_data;
	return now;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

/* Reassembles the messages as `hetrace collect --rpmsg` would; exits on any that does not follow */
static int send_message(const void *data, uint32_t size, void *user_data)
{
	static uint32_t sequence, packet, offset;
	const uint8_t *m = (const uint8_t *) data;
	const uint32_t length = (uint32_t) m[6] | (uint32_t) m[7] << 8;

	(void) user_data;

	if (size > TT_RPMSG_MESSAGE_SIZE || size != TT_RPMSG_HEADER_SIZE + length || memcmp(m, "HTRM", 4) != 0
		|| get32(m + 8) != sequence || get32(m + 12) != packet || get32(m + 16) != offset
		|| offset + length > get32(m + 20)) {
		fprintf(stderr, "fuzz: message %u does not follow\n", (unsigned int) sequence);
		exit(1);
	}

	fwrite(m + TT_RPMSG_HEADER_SIZE, 1, length, out);
	sequence++;
	offset += length;

	if (offset == get32(m + 20)) {
		packet++;
		offset = 0;
	}

	return 0;
}
#endif

#if defined(PLATFORM_REMOTEPROC_TRACE)
static uint64_t rproc_clock(void *user_data)
{
	(void) user_data;
	return now;
}
#endif

static void one(uint32_t packet_size)
{
	const uint8_t cpu = (uint8_t) next(32);
	const uint32_t big = packet_size + packet_size / 2;

	tag++;

	switch (next(4)) {
	case 0:
		printf("ints %llu\n", (unsigned long long) tag);
		tt_trace_ints(tracer, cpu, tag, (int8_t) ((int) next(8) - 4));
		break;
	case 1: {
		const uint32_t ls = next(4) == 0 ? next(big) : next(40);
		const uint32_t lt = next(4) == 0 ? next(big) : next(8);
		char *s = text(ls);
		char *t = text(lt);

		printf("strings %llu %u %u\n", (unsigned long long) tag, ls, lt);
		tt_trace_strings(tracer, cpu, tag, s, t);
		free(s);
		free(t);
		break;
	}
	case 2: {
		const uint32_t nbits = next(4) == 0 ? next(big) : next(9);
		const uint32_t nbytes = next(4) == 0 ? next(big) : next(9);
		const uint32_t nwords = next(5);
		uint8_t *bits = (uint8_t *) malloc(nbits + 1);
		uint8_t *bytes = (uint8_t *) malloc(nbytes + 1);
		char *words[4];
		uint32_t i;

		for (i = 0; i < nbits; i++) {
			bits[i] = (uint8_t) (i % 8);
		}
		for (i = 0; i < nbytes; i++) {
			bytes[i] = (uint8_t) i;
		}
		for (i = 0; i < nwords; i++) {
			words[i] = text(next(big / 4 + 1));
		}

		printf("arrays %llu %u %u %u\n", (unsigned long long) tag, nbits, nbytes, nwords);
		tt_trace_arrays(tracer, cpu, tag, nbits, bits, nbytes, bytes, nwords, (const char *const *) words);

		for (i = 0; i < nwords; i++) {
			free(words[i]);
		}

		free(bits);
		free(bytes);
		break;
	}
	default: {
		const uint32_t ls = next(16);
		char *s = text(ls);

		printf("aligned %llu %u\n", (unsigned long long) tag, ls);
		tt_trace_aligned(tracer, cpu, tag, s, ~tag);
		free(s);
		break;
	}
	}
}

/* A dynamic array and a string of 2^29 bytes: 2^32 bits, which 32-bit sizes would wrap to 0. */
static void huge(void)
{
	const uint32_t n = UINT32_C(1) << 29;
	uint8_t *bytes = (uint8_t *) calloc(n, 1);
	char *s = (char *) malloc(n + 1);

	memset(s, 'h', n);
	s[n] = '\0';
	tag++;
	printf("arrays %llu 0 %u 0\n", (unsigned long long) tag, n);
	tt_trace_arrays(tracer, 0, tag, 0, bytes, n, bytes, 0, NULL);
	tag++;
	printf("strings %llu %u 0\n", (unsigned long long) tag, n);
	tt_trace_strings(tracer, 0, tag, s, "");
	free(bytes);
	free(s);
}

int main(int argc, char **argv)
{
	uint32_t packet_size;
	long count, i;

	if (argc < 5 || !(out = fopen(argv[1], "wb"))) {
		fprintf(stderr, "usage: %s STREAM_FILE PACKET_SIZE SEED COUNT [huge]\n", argv[0]);
		return 2;
	}

	packet_size = (uint32_t) strtoul(argv[2], NULL, 10);
	rng = strtoull(argv[3], NULL, 10) * UINT64_C(0x9e3779b97f4a7c15) + 1;
	count = atol(argv[4]);

#if defined(PLATFORM_LINUX_FILE)
	fclose(out);
	out = NULL;
	{
		struct tt_platform_linux_file_ctx *platform = tt_platform_linux_file_init(packet_size, argv[1]);

		if (!platform) {
			printf("refused\n");
			return 0;
		}

		tracer = tt_platform_linux_file_get_barectf_ctx(platform);
#elif defined(PLATFORM_CALLBACK)
	{
		/* exactly the packet: a byte written past it is a heap overflow */
		uint8_t *buf = (uint8_t *) malloc(packet_size ? packet_size : 1);
		struct tt_platform_callback_ctx platform;
		struct tt_platform_callback_funcs funcs;

		funcs.sys_clock = callback_clock;
		funcs.packet_ready = packet_ready;
		funcs.is_full = NULL;
		funcs.user_data = NULL;
		tt_platform_callback_init(&platform, buf, packet_size, funcs);
		tracer = tt_platform_callback_get_barectf_ctx(&platform);

		if (tt_packet_buf_size(tracer) == 0) {
			/* refused: nothing is written, every record is counted */
			tt_trace_ints(tracer, 0, 1, 0);
			tt_trace_strings(tracer, 0, 2, "", "");
			printf("refused\n");
			free(buf);
			return tt_discarded_event_records_count(tracer) == 2 && !tt_packet_is_open(tracer) ? 0 : 1;
		}
#elif defined(PLATFORM_SHM_RING)
	{
		/* two slots, exactly: a byte written past the last slot is a heap overflow */
		void *region = malloc((size_t) TT_SHM_RING_REGION_SIZE(packet_size, 2));
		struct tt_platform_shm_ring_funcs funcs;

		funcs.sys_clock = ring_clock;
		funcs.user_data = NULL;

		if (tt_platform_shm_ring_init(&ring, region, packet_size, 2, 0, funcs) != 0) {
			printf("refused\n");
			free(region);
			return 0;
		}

		tracer = tt_platform_shm_ring_get_barectf_ctx(&ring);
#elif defined(PLATFORM_RPMSG)
	{
		/* exactly the packet: a byte read past it is a heap overflow */
		uint8_t *buf = (uint8_t *) malloc(packet_size ? packet_size : 1);
		struct tt_platform_rpmsg_ctx platform;
		struct tt_platform_rpmsg_funcs funcs;

		funcs.sys_clock = rpmsg_clock;
		funcs.send = send_message;
		funcs.is_full = NULL;
		funcs.user_data = NULL;

		if (tt_platform_rpmsg_init(&platform, buf, packet_size, funcs) != 0) {
			printf("refused\n");
			free(buf);
			return 0;
		}

		tracer = tt_platform_rpmsg_get_barectf_ctx(&platform);
#elif defined(PLATFORM_REMOTEPROC_TRACE)
	{
		/* exactly the packet and the trace buffer: a byte read or written past either is a heap overflow */
		uint8_t *buf = (uint8_t *) malloc(packet_size ? packet_size : 1);
		/* room for three packets of bytes that all take two: no lap between two clock reads */
		const uint32_t per_packet = (2 * packet_size + TT_REMOTEPROC_TRACE_SLOT_SIZE - 50) / (TT_REMOTEPROC_TRACE_SLOT_SIZE - 49);
		uint8_t *trace;
		struct tt_platform_remoteproc_trace_funcs funcs;

		rproc_size = TT_REMOTEPROC_TRACE_HEADER_SIZE + (3 * per_packet + 1) * TT_REMOTEPROC_TRACE_SLOT_SIZE + 5;
		trace = (uint8_t *) malloc(rproc_size);
		memset(trace, 0, rproc_size);
		funcs.sys_clock = rproc_clock;
		funcs.user_data = NULL;

		if (tt_platform_remoteproc_trace_init(&rproc, buf, packet_size, trace, rproc_size, funcs) != 0) {
			printf("refused\n");
			free(buf);
			free(trace);
			return 0;
		}

		tracer = tt_platform_remoteproc_trace_get_barectf_ctx(&rproc);
#endif

		for (i = 0; i < count; i++) {
			one(packet_size);
		}

		if (argc > 5) {
			huge();
		}

		/* a last small record: the packet that holds it counts every discarded record */
		tag++;
		printf("ints %llu\n", (unsigned long long) tag);
		tt_trace_ints(tracer, 0, tag, 0);
		printf("nested %ld\n", nested);
		tracer = NULL;
#if defined(PLATFORM_LINUX_FILE)
		tt_platform_linux_file_fini(platform);
#elif defined(PLATFORM_CALLBACK)
		tt_platform_callback_flush(&platform);
		free(buf);
#elif defined(PLATFORM_SHM_RING)
		while (!tt_platform_shm_ring_finish(&ring)) {
			drain();
		}

		drain();
		free(region);
#elif defined(PLATFORM_RPMSG)
		tt_platform_rpmsg_flush(&platform);
		free(buf);
#elif defined(PLATFORM_REMOTEPROC_TRACE)
		tt_platform_remoteproc_trace_finish(&rproc);
		take_slots();

		if (rproc.buffer[43] != '1' || rproc_offset != 0) {
			fprintf(stderr, "fuzz: not done, or a packet cut short\n");
			return 1;
		}

		free(buf);
		free(trace);
#endif
	}

	if (out) {
		fclose(out);
	}

	return 0;
}

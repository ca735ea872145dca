/*
 * The tracepoint-cost benchmark's application: ROUNDS rounds of the three event types through
 * the callback platform, with a counter for a clock and a consumer that takes each packet and
 * does nothing with it, so that only the tracer's own work is counted. The same source builds
 * against barectf's generated tracer and against hetrace's; with hetrace's, the build can also
 * read the clock inline (bench/tracepoint/clock.h, given with -include) instead of through the
 * platform's callback.
 */
#include <stdint.h>
#include <stdlib.h>

#include "barectf-platform-callback.h"

/* The clock: read through the platform (clock_read), or inline where the tracer supports it (clock.h) */
uint64_t bench_now;
static volatile uint32_t taken;

static uint64_t clock_read(void *user_data)
{
	(void) user_data;
	return bench_now += 7;
}

static void packet_ready(const uint8_t *packet, uint32_t size, void *user_data)
{
	(void) user_data;
	taken += packet[0] + size;
}

int main(int argc, char **argv)
{
	static uint8_t buf[4096];
	static const char *const words[] = {"idle", "sobel", "msgq_rx"};
	struct barectf_platform_callback_ctx platform;
	struct barectf_platform_callback_funcs funcs;
	struct barectf_default_ctx *ctx;
	long rounds = argc > 1 ? atol(argv[1]) : 0;
	long i;

	funcs.sys_clock = clock_read;
	funcs.packet_ready = packet_ready;
	funcs.is_full = NULL;
	funcs.user_data = NULL;
	barectf_platform_callback_init(&platform, buf, sizeof(buf), funcs);
	ctx = barectf_platform_callback_get_barectf_ctx(&platform);
	for (i = 0; i < rounds; i++) {
		barectf_default_trace_small4(ctx, (uint8_t) i, (uint8_t) (i >> 8), (uint16_t) i, (uint16_t) (i * 3));
		barectf_default_trace_two64(ctx, (uint64_t) i * 0x9E3779B97F4A7C15u, (uint64_t) i);
		barectf_default_trace_str2(ctx, words[i % 3], (uint32_t) i, (uint32_t) (i ^ 0x5555));
	}
	barectf_platform_callback_flush(&platform);
	return 0;
}

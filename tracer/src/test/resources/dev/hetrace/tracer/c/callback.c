/*
 * The callback platform with a consumer that writes packets to a file and is busy (cannot take
 * packets) for a while: the events traced meanwhile are discarded and counted. Prints how many
 * events it emitted.
 */
#include <stdint.h>
#include <stdio.h>

#include "tt-platform-callback.h"

static uint64_t now;
static int full_calls;

static uint64_t clock_read(void *user_data)
{
	(void) user_data;
	return now += 10;
}

static void packet_ready(const uint8_t *packet, uint32_t size, void *user_data)
{
	fwrite(packet, 1, size, (FILE *) user_data);
}

static int is_full(void *user_data)
{
	(void) user_data;
	full_calls++;
	return full_calls >= 3 && full_calls < 40;
}

int main(int argc, char **argv)
{
	static uint8_t buf[256];
	struct tt_platform_callback_ctx platform;
	struct tt_platform_callback_funcs funcs;
	FILE *out;
	long i, emitted = 0;

	if (argc != 2 || !(out = fopen(argv[1], "wb"))) {
		return 2;
	}

	funcs.sys_clock = clock_read;
	funcs.packet_ready = packet_ready;
	funcs.is_full = is_full;
	funcs.user_data = out;
	tt_platform_callback_init(&platform, buf, sizeof(buf), funcs);

	for (i = 0; i < 200; i++) {
		char s[32];

		sprintf(s, "event %ld", i);
		tt_trace_strings(tt_platform_callback_get_barectf_ctx(&platform), (uint8_t) (i % 32), s, "");
		emitted++;
	}

	tt_platform_callback_flush(&platform);
	fclose(out);
	printf("%ld\n", emitted);
	return 0;
}

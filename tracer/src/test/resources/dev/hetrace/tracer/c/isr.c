/*
 * A platform whose clock "interrupts" tracepoints: every other clock read made inside a
 * tracepoint runs another tracepoint, as an ISR that traces would. Prints how many such nested
 * tracepoints ran; the trace must count them all as discarded and hold every outer event intact.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tt.h"

static struct tt_main_ctx tracer;
static uint8_t buf[512];
static FILE *out;
static uint64_t now;
static long nested;

static uint64_t clock_get_value(void *data)
{
	(void) data;
	now++;

	if (tt_is_in_tracing_section(&tracer) && now % 2 == 0) {
		nested++;
		tt_trace_strings(&tracer, 31, "from the ISR", "");
	}

	return now;
}

static int is_backend_full(void *data)
{
	(void) data;
	return 0;
}

static void open_packet(void *data)
{
	(void) data;
	tt_main_open_packet(&tracer, 7);
}

static void close_packet(void *data)
{
	(void) data;
	tt_main_close_packet(&tracer);
	fwrite(tt_packet_buf(&tracer), 1, tt_packet_buf_size(&tracer), out);
}

int main(int argc, char **argv)
{
	struct tt_platform_callbacks cbs;
	long i;

	if (argc != 2 || !(out = fopen(argv[1], "wb"))) {
		return 2;
	}

	cbs.sys_clock_get_value = clock_get_value;
	cbs.is_backend_full = is_backend_full;
	cbs.open_packet = open_packet;
	cbs.close_packet = close_packet;
	tt_init(&tracer, buf, sizeof(buf), cbs, NULL);
	open_packet(NULL);

	for (i = 0; i < 100; i++) {
		char s[32];

		sprintf(s, "outer %ld", i);
		tt_trace_strings(&tracer, (uint8_t) (i % 32), s, "x");
	}

	if (tt_packet_is_open(&tracer) && !tt_packet_is_empty(&tracer)) {
		close_packet(NULL);
	}

	fclose(out);
	printf("%ld\n", nested);
	return 0;
}

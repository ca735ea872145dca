/*
 * A packet context with a string (fuzz.yaml with a `label`): opening a packet whose label leaves
 * no room for an event record opens none, and the records traced meanwhile are discarded and
 * counted; a short label opens one. Prints "open DISCARDED" after each of the two.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tt.h"

static struct tt_main_ctx tracer;

static uint64_t clock_get_value(void *data)
{
	(void) data;
	return 1;
}

static int is_backend_full(void *data)
{
	(void) data;
	return 0;
}

static void nothing(void *data)
{
	(void) data;
}

int main(void)
{
	struct tt_platform_callbacks cbs;
	uint8_t *buf = (uint8_t *) malloc(TT_MIN_PACKET_SIZE);
	char *label = (char *) malloc(TT_MIN_PACKET_SIZE);

	memset(label, 'l', TT_MIN_PACKET_SIZE - 1);
	label[TT_MIN_PACKET_SIZE - 1] = '\0';
	cbs.sys_clock_get_value = clock_get_value;
	cbs.is_backend_full = is_backend_full;
	cbs.open_packet = nothing;
	cbs.close_packet = nothing;
	tt_init(&tracer, buf, TT_MIN_PACKET_SIZE, cbs, NULL);
	tt_main_open_packet(&tracer, 0, label);
	tt_main_trace_ints(&tracer, 0, 1, 0);
	printf("%d %u\n", tt_packet_is_open(&tracer), tt_discarded_event_records_count(&tracer));
	tt_main_open_packet(&tracer, 0, "");
	tt_main_trace_ints(&tracer, 0, 2, 0);
	printf("%d %u\n", tt_packet_is_open(&tracer), tt_discarded_event_records_count(&tracer));
	free(label);
	free(buf);
	return 0;
}

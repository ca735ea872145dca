/* Emits N_ROUNDS rounds of the all-types events with values the Java test recomputes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tt-platform-linux-file.h"

int main(int argc, char **argv)
{
	struct tt_platform_linux_file_ctx *platform;
	struct tt_main_ctx *ctx;
	long rounds, i;
	static const char *const words[] = {"a", "bb", "ccc"};

	if (argc != 4) {
		fprintf(stderr, "usage: %s STREAM_FILE PACKET_SIZE ROUNDS\n", argv[0]);
		return 2;
	}

	platform = tt_platform_linux_file_init((unsigned int) atoi(argv[2]), argv[1]);
	if (!platform) {
		perror(argv[1]);
		return 1;
	}

	ctx = tt_platform_linux_file_get_barectf_ctx(platform);
	rounds = atol(argv[3]);

	for (i = 0; i < rounds; i++) {
		const uint8_t cpu = (uint8_t) (i % 32);
		uint16_t sa[3];
		uint8_t da[4];
		int8_t row0[2], row1[2];
		const int8_t *nested[2];
		int k;

		for (k = 0; k < 3; k++) {
			sa[k] = (uint16_t) (i * 1000 + k);
		}
		for (k = 0; k < 4; k++) {
			da[k] = (uint8_t) ((i + k) % 8);
		}
		row0[0] = (int8_t) (i % 100);
		row0[1] = (int8_t) -(i % 100);
		row1[0] = (int8_t) (i % 50);
		row1[1] = (int8_t) -(i % 50);
		nested[0] = row0;
		nested[1] = row1;

		tt_trace_ints(ctx, cpu, (uint8_t) i, (int8_t) (i % 256 - 128), (uint8_t) (i % 8),
			(int16_t) (i * 123 % 8192 - 4096), UINT64_C(0xfedcba9876543210) + (uint64_t) i,
			(int64_t) -i * INT64_C(1000000007), (int64_t) -i * 3, (int8_t) (i % 128 - 64));
		tt_trace_reals(ctx, cpu, (float) i * 0.5f, (double) i / 3.0, (uint64_t) i);
		{
			/* lengths on both sides of the tracer's inline string limit (32 bytes) */
			char s[64];
			int n = sprintf(s, "event %ld", i);

			for (k = 0; k < i % 45; k++) {
				s[n++] = '-';
			}
			s[n] = '\0';
			tt_trace_strings(ctx, cpu, s, "");
		}
		tt_trace_arrays(ctx, cpu, sa, (uint32_t) (i % 5), da, (uint32_t) (i % 4), words, nested);
		if (i % 7 == 3) {
			/* while tracing is disabled, tracepoints write and count nothing */
			tt_enable_tracing(ctx, 0);
			tt_trace_strings(ctx, cpu, "disabled", "");
			tt_trace_reals(ctx, cpu, 0.0f, 0.0, 0);
			tt_enable_tracing(ctx, 1);
		}
	}

	tt_platform_linux_file_fini(platform);
	return 0;
}

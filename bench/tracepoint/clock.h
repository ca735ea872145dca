/*
 * The tracepoint benchmark's clock read inline by hetrace's tracer (BARECTF_SYS_CLOCK_READ, a
 * hetrace addition; barectf's tracer can only call the platform's callback): the same counter as
 * app.c's clock_read, as a bare-metal platform would read a timer register.
 */
#include <stdint.h>

extern uint64_t bench_now;

#define BARECTF_SYS_CLOCK_READ(data)	(bench_now += 7)

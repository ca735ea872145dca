/* The tracer reads its clock through the sanitized driver (fuzz.c), which can trace from it as an ISR would. */
#include <stdint.h>

uint64_t fuzz_clock(void);

#define TT_SYS_CLOCK_READ(data)	((void) (data), fuzz_clock())

/* The hetrace_rpmsg tracepoint provider's probes: compile this file once into the program. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "hetrace_rpmsg_tp.h"

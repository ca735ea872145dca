/* The program's own tracepoint provider, "app": messages through queues, and a job's bounds. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER app

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./app_tp.h"

#if !defined(APP_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define APP_TP_H

#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(app, msg_send,
    TP_ARGS(int, queue, int, id),
    TP_FIELDS(ctf_integer(int, queue, queue) ctf_integer(int, id, id)))

TRACEPOINT_EVENT(app, msg_recv,
    TP_ARGS(int, queue, int, id),
    TP_FIELDS(ctf_integer(int, queue, queue) ctf_integer(int, id, id)))

TRACEPOINT_EVENT(app, job_entry,
    TP_ARGS(int, job),
    TP_FIELDS(ctf_integer(int, job, job)))

TRACEPOINT_EVENT(app, job_exit,
    TP_ARGS(int, job),
    TP_FIELDS(ctf_integer(int, job, job)))

#endif

#include <lttng/tracepoint-event.h>

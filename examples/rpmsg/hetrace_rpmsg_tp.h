/*
 * hetrace_rpmsg: an LTTng-UST tracepoint provider for the RPMsg messages a Linux program
 * writes to and reads from /dev/rpmsgN, so that `hetrace sync` pairs them with the
 * coprocessor's trace of the same messages (its `rpmsg` match rule).
 *
 * Around each message: the send just before its write(), the receive just after the read()
 * that returned it (a message is then never received before it was sent):
 *
 *     lttng_ust_tracepoint(hetrace_rpmsg, send, src, dst, seq, len);  write(fd, msg, len);
 *     n = read(fd, msg, sizeof msg);  lttng_ust_tracepoint(hetrace_rpmsg, recv, src, dst, seq, n);
 *
 * src: the sender's endpoint address, dst: the receiver's (RPMSG_CREATE_EPT_IOCTL's
 * src and dst, or the addresses the rpmsg_char device was created with); seq: the
 * message's number in its direction (src -> dst), counted from 0 from the endpoint's
 * creation, as the other side counts it; len: the payload's length in bytes.
 *
 * LTTng-UST 2.13 or later. Include this header where the tracepoints are, compile
 * hetrace_rpmsg_tp.c (the probes) into the program, link with -llttng-ust -ldl:
 *
 *     gcc -I. -c hetrace_rpmsg_tp.c && gcc -I. app.c hetrace_rpmsg_tp.o -llttng-ust -ldl
 *
 * and record with
 *
 *     lttng create && lttng enable-event --userspace 'hetrace_rpmsg:*' && lttng start
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER hetrace_rpmsg

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./hetrace_rpmsg_tp.h"

#if !defined(HETRACE_RPMSG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define HETRACE_RPMSG_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(hetrace_rpmsg, send,
    LTTNG_UST_TP_ARGS(uint32_t, src, uint32_t, dst, uint32_t, seq, uint32_t, len),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint32_t, src, src)
        lttng_ust_field_integer(uint32_t, dst, dst)
        lttng_ust_field_integer(uint32_t, seq, seq)
        lttng_ust_field_integer(uint32_t, len, len)))

LTTNG_UST_TRACEPOINT_EVENT(hetrace_rpmsg, recv,
    LTTNG_UST_TP_ARGS(uint32_t, src, uint32_t, dst, uint32_t, seq, uint32_t, len),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint32_t, src, src)
        lttng_ust_field_integer(uint32_t, dst, dst)
        lttng_ust_field_integer(uint32_t, seq, seq)
        lttng_ust_field_integer(uint32_t, len, len)))

#endif /* HETRACE_RPMSG_TP_H */

#include <lttng/tracepoint-event.h>

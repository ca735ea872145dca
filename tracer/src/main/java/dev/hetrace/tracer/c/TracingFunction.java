package dev.hetrace.tracer.c;

import dev.hetrace.tracer.c.TracerApi.Param;
import dev.hetrace.tracer.config.Configuration.DataStreamType;
import dev.hetrace.tracer.config.Configuration.EventRecordType;
import dev.hetrace.tracer.config.FieldType.IntegerType;
import dev.hetrace.tracer.config.FieldType.Member;
import dev.hetrace.tracer.config.FieldType.StaticArrayType;
import dev.hetrace.tracer.config.FieldType.StringType;
import dev.hetrace.tracer.config.FieldType.StructureType;
import java.util.List;

/**
 * An event record type's tracing function, which serializes its record. The fast path runs
 * when the open packet has room: it checks the room against a bound of the record's size that
 * costs an instruction or two (every record of the stream starts at a known alignment, see
 * {@link RecordLayout#recordStart}), serializes the record, then reads the clock and writes the
 * timestamp into the header, so that only the context and a pointer stay live across the clock
 * read, and it calls nothing else (closing a packet the record filled is a tail call). Strings
 * of up to {@value #SHORT_STRING} bytes are measured and copied inline. Anything else (no open
 * packet, a room the bound does not prove, a longer string) goes to a separate slow function,
 * which reads the clock first, computes the exact size in 64 bits and opens and closes packets
 * as barectf does (then sizes the record again: a new packet's alignment padding may differ),
 * so both give the same packets for the same calls and clock values. The fixed text of both is
 * in {@code tracing-function.c.in}.
 */
final class TracingFunction {
    /** The longest string (with its NUL) a tracing function's fast path copies itself. */
    static final int SHORT_STRING = 32;

    private static final String TEMPLATE = "tracing-function.c.in";

    private final TracerApi api;

    TracingFunction(TracerApi api) {
        this.api = api;
    }

    /**
     * Appends the slow and fast functions of event record type {@code e} of {@code d}, whose
     * records start at a multiple of {@code start} bits.
     */
    void append(StringBuilder c, DataStreamType d, EventRecordType e, int start) {
        CTemplate t = CTemplate.of(TEMPLATE);
        String p = api.prefix();
        String sctxType = "struct " + p + d.name() + "_ctx";
        List<Param> params = TracerApi.traceParams(d, e);
        String suffix = d.name() + "_" + e.name();
        List<Param> strings =
                params.stream().filter(prm -> prm.type() instanceof StringType).toList();
        String unused = params.stream()
                .filter(prm -> prm.type() instanceof StaticArrayType a && a.length() == 0)
                .map(prm -> "\t(void) " + prm.name() + ";\n")
                .reduce("", String::concat);
        String readClock = d.defaultClockType()
                .map(clk -> "\tsctx->cur_last_event_ts = _CLOCK_READ_" + clk.name() + "(ctx);\n")
                .orElse("");
        RecordBound bound = RecordLayout.bound(d, e, start);
        boolean fast = bound.exact();

        // slow path
        StringBuilder serialize = new StringBuilder("\tbuf = ctx->buf;\n");
        String writeTs = serialize(serialize, d, e, start, false);
        String locals = "\tuint8_t *buf;\n" + (writeTs.contains("ts_p") ? "\tuint8_t *ts_p;\n" : "")
                + (writeTs.contains("ts_at") ? "\tuint32_t ts_at;\n" : "");
        c.append("static _NOINLINE void _trace_slow_")
                .append(suffix)
                .append("(")
                .append(sctxType)
                .append(" * const sctx")
                .append(TracerApi.paramDecls(params))
                .append(")\n{\n\tstruct ")
                .append(p)
                .append("ctx * const ctx = &sctx->parent;\n");
        for (Param prm : strings) {
            c.append("\tconst uint64_t ")
                    .append(prm.sizeVariable())
                    .append(" = (uint64_t) strlen(")
                    .append(prm.name())
                    .append(") + 1;\n");
        }
        c.append(locals)
                .append("\tuint32_t at = ctx->at;\n\tuint64_t er_size;\n\n")
                .append(unused)
                .append(t.fill("slow-disabled"))
                .append(readClock);
        erSize(c, d, e, start, "\t");
        c.append(t.fill("slow-reserve"));
        erSize(c, d, e, start, "\t\t");
        c.append(t.fill("slow-recheck")).append(serialize).append(writeTs).append(t.fill("slow-end"));

        // the tracing function
        StringBuilder fastSerialize = new StringBuilder("\tbuf = ctx->buf;\n");
        String fastWriteTs = serialize(fastSerialize, d, e, start, fast);
        c.append(api.traceProto(d, e))
                .append("\n{\n\tstruct ")
                .append(p)
                .append("ctx * const ctx = &sctx->parent;\n")
                .append(locals)
                .append(
                        fast
                                ? "\tuint32_t at, packet_size;\n\n"
                                : "\tuint32_t at, packet_size;\n\tuint64_t er_size;\n\n")
                .append(unused);
        // Unlike barectf's, a tracepoint that interrupts another one (an ISR on the same core)
        // must not touch the packet nor the saved timestamp: it is discarded and counted. The
        // barrier keeps the compiler from reading the context before the section is entered.
        // With the bound, a disabled tracing (room_end 0) fails the room test and the slow
        // function returns: one test fewer. A record of no bits fits anything: it tests both.
        boolean mayBeEmpty = d.eventRecordHeader().members().isEmpty();
        boolean roomTestsEnabled = fast && !mayBeEmpty && bound.noArrayTerms() && bound.constantBits() < (1 << 20);
        if (!roomTestsEnabled) {
            c.append(t.fill("fast-enabled"));
        }
        c.append(t.fill("fast-entry"));
        StringBuilder noRoom = new StringBuilder();
        if (mayBeEmpty) {
            noRoom.append("at == packet_size || "); // a record of no bits fits a full packet: test that none is open
        }
        for (Param prm : strings) {
            c.append(fast ? "\tconst uint32_t " : "\tconst uint64_t ")
                    .append(prm.sizeVariable())
                    .append(" = ")
                    .append(
                            fast
                                    ? "_short_string_size(" + prm.name() + ")"
                                    : "(uint64_t) strlen(" + prm.name() + ") + 1")
                    .append(";\n");
            if (fast) {
                noRoom.append(prm.sizeVariable()).append(" == 0 || ");
            }
        }
        c.append("\tat = ctx->at;\n\tpacket_size = ctx->")
                .append(roomTestsEnabled ? "room_end" : "packet_size")
                .append(";\n");
        if (fast) {
            if (roomTestsEnabled) {
                // no overflow: the bound is under 2^20 bits plus strings of at most SHORT_STRING
                // bytes, and packets are under 2^32 bits (buf_size is in bytes) minus that
                noRoom.append("at + (uint32_t) (").append(bound.expression()).append(") > packet_size");
            } else {
                noRoom.append("(uint64_t) (").append(bound.expression()).append(") > packet_size - at");
            }
        } else {
            erSize(c, d, e, start, "\t");
            noRoom.append("er_size > packet_size - at");
        }
        c.append("\tif (")
                .append(noRoom)
                .append(") {\n\t\t_trace_slow_")
                .append(suffix)
                .append("(sctx")
                .append(TracerApi.paramNames(params))
                .append(");\n\t\treturn;\n\t}\n\n");
        // the packet_size read above stays valid: nothing but this function touches the context meanwhile
        String stamp = readClock + fastWriteTs.replace("\n\n", "\n");
        c.append(fastSerialize)
                .append("\n\tif (at == packet_size) {\n")
                .append(stamp.replaceAll("(?m)^\t", "\t\t"))
                .append("\t\t_close_full_packet(ctx);\n\t\treturn;\n\t}\n\n")
                .append(stamp)
                .append(t.fill("fast-end"));
    }

    /**
     * Statements serializing the record at {@code at} in {@code buf} but its timestamp, leaving
     * {@code ctx->at} at its end and {@code ts_p} (or {@code ts_at}) where the timestamp goes;
     * returns the statement writing the timestamp (empty without one).
     */
    private static String serialize(
            StringBuilder c, DataStreamType d, EventRecordType e, int start, boolean shortStrings) {
        Cursor w = new Cursor(c, "\t", "at", start, true);
        if (shortStrings) {
            w.shortStrings();
        }
        StructureType erh = d.eventRecordHeader();
        String writeTs = "";
        w.align(erh.alignment());
        for (Member m : erh.members()) {
            IntegerType it = (IntegerType) m.type();
            if (m.name().equals("id")) {
                w.field(it, Integer.toString(e.id()), "", null);
            } else if (d.defaultClockType().isEmpty()) {
                w.field(it, "0", "", null);
            } else {
                // written once the clock is read
                w.align(it.alignment());
                String value = "(uint64_t) sctx->cur_last_event_ts";
                int size = it.size();
                if (w.byteAligned() && (size == 8 || size == 16 || size == 32 || size == 64)) {
                    c.append("\tts_p = ").append(w.bytePointer("buf")).append(";\n");
                    writeTs = "\t_write_" + size + "(ts_p, " + value + ");\n\n";
                } else {
                    c.append("\tts_at = ").append(w.position()).append(";\n");
                    writeTs = "\t_write_bits(buf, ts_at, " + value + ", " + size + ");\n\n";
                }
                w.skip(it.alignment(), size);
            }
        }
        RecordLayout.payload(w, d, e);
        w.flush();
        c.append("\tctx->at = at;\n");
        return writeTs;
    }

    /**
     * Statements setting {@code er_size} to the bits of the event record starting at {@code at},
     * indented by {@code ind}; sizes add in 64 bits, so no string or array length wraps them.
     */
    private static void erSize(StringBuilder c, DataStreamType d, EventRecordType e, int start, String ind) {
        c.append(ind).append("{\n").append(ind).append("\tuint64_t end = at;\n\n");
        Cursor s = new Cursor(c, ind + "\t", "end", start, false);
        s.align(d.eventRecordHeader().alignment());
        for (Member m : d.eventRecordHeader().members()) {
            IntegerType it = (IntegerType) m.type();
            s.skip(it.alignment(), it.size());
        }
        RecordLayout.payload(s, d, e);
        s.flush();
        c.append(ind).append("\ter_size = end - at;\n").append(ind).append("}\n\n");
    }
}

package dev.hetrace.tracer.c;

import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.config.Configuration.ClockType;
import dev.hetrace.tracer.config.Configuration.DataStreamType;
import dev.hetrace.tracer.config.FieldType.IntegerType;
import dev.hetrace.tracer.config.FieldType.Member;
import dev.hetrace.tracer.config.FieldType.StructureType;
import java.util.Optional;

/**
 * A data stream type's open_packet and close_packet: opening writes the packet header and
 * context, noting where the fields known only at closing go; closing writes those. Their fixed
 * text is in {@code packet-functions.c.in}.
 */
final class PacketFunctions {
    private static final String TEMPLATE = "packet-functions.c.in";

    private final Configuration config;
    private final TracerApi api;
    private final RecordLayout layout;

    PacketFunctions(Configuration config, TracerApi api, RecordLayout layout) {
        this.config = config;
        this.api = api;
        this.layout = layout;
    }

    /** Appends the two functions of data stream type {@code d} to {@code c}. */
    void append(StringBuilder c, DataStreamType d) {
        CTemplate t = CTemplate.of(TEMPLATE);
        open(c, t, d);
        close(c, t, d);
    }

    private void open(StringBuilder c, CTemplate t, DataStreamType d) {
        Optional<ClockType> clock = d.defaultClockType();
        c.append(api.openProto(d))
                .append("\n{\n\tstruct ")
                .append(api.prefix())
                .append("ctx * const ctx = &sctx->parent;\n");
        boolean begTs =
                clock.isPresent() && d.packetFeatures().beginningTimestamp().isPresent();
        if (begTs) {
            c.append(timestamp(t, clock.get()));
        }
        c.append(entry(t, true)).append(t.fill("open-no-packet"));
        StructureType ph = config.trace().type().packetHeader();
        if (ph.members().stream().anyMatch(m -> m.name().equals("uuid"))) {
            c.append("\tstatic const uint8_t uuid[16] = {");
            byte[] bytes = CTracer.uuidBytes(config);
            for (int i = 0; i < 16; i++) {
                c.append(i == 0 ? "" : ", ").append(bytes[i] & 0xff);
            }
            c.append("};\n\n");
        }
        if (!layout.contentBound(d).constant()) {
            // strings or arrays in the packet context: the minimum packet size counted them empty
            c.append(t.fill("open-room-check"));
            Cursor size = new Cursor(c, "\t\t", "end", Cursor.AT_ZERO, false);
            size.align(ph.alignment());
            for (Member m : ph.members()) {
                size.field(m.type(), "", "", null);
            }
            size.align(d.packetContext().alignment());
            for (Member m : d.packetContext().members()) {
                size.field(m.type(), TracerApi.PC + "_" + m.name(), TracerApi.PC + "___" + m.name() + "_len", null);
            }
            size.flush();
            c.append(t.fill("open-room-check-end", "least_event_bits", Long.toString(layout.largestEventLeastBits(d))));
        }
        c.append("\t(void) buf;\n\t/* Packet header */\n");
        // the packet starts at 0: every position is a constant until a field of variable size
        Cursor cur = new Cursor(c, "\t", "at", Cursor.AT_ZERO, true);
        cur.align(ph.alignment());
        for (Member m : ph.members()) {
            c.append("\tsctx->off_ph_")
                    .append(m.name())
                    .append(" = ")
                    .append(cur.position())
                    .append(";\n");
            String src = switch (m.name()) {
                case "magic" -> "UINT32_C(0xc1fc1fc1)";
                case "stream_id" -> "UINT64_C(" + d.id() + ")";
                default -> "uuid";
            };
            cur.field(m.type(), src, "", null);
        }
        c.append("\n\t/* Packet context */\n");
        cur.align(d.packetContext().alignment());
        for (Member m : d.packetContext().members()) {
            IntegerType it = m.type() instanceof IntegerType i ? i : null;
            switch (m.name()) {
                case "packet_size" -> cur.field(it, "ctx->packet_size", "", null);
                case "timestamp_begin" -> cur.field(it, begTs ? "ts" : "0", "", null);
                case "packet_seq_num" -> cur.field(it, "ctx->sequence_number", "", null);
                case "content_size", "timestamp_end", "events_discarded" -> {
                    // written when the packet closes
                    cur.align(it.alignment());
                    c.append("\tsctx->off_pc_")
                            .append(m.name())
                            .append(" = ")
                            .append(cur.position())
                            .append(";\n");
                    cur.skip(it.alignment(), it.size());
                }
                default ->
                    cur.field(m.type(), TracerApi.PC + "_" + m.name(), TracerApi.PC + "___" + m.name() + "_len", null);
            }
        }
        cur.flush();
        c.append(t.fill("open-end"));
    }

    private void close(StringBuilder c, CTemplate t, DataStreamType d) {
        Optional<ClockType> clock = d.defaultClockType();
        c.append(api.closeProto(d))
                .append("\n{\n\tstruct ")
                .append(api.prefix())
                .append("ctx * const ctx = &sctx->parent;\n");
        boolean endTs = clock.isPresent() && d.packetFeatures().endTimestamp().isPresent();
        if (endTs) {
            c.append(timestamp(t, clock.get()));
        }
        c.append(entry(t, false)).append(t.fill("close-begin"));
        d.packetFeatures()
                .endTimestamp()
                .ifPresent(it -> c.append("\t_write_bits(ctx->buf, sctx->off_pc_timestamp_end, (uint64_t) ")
                        .append(endTs ? "ts" : "0")
                        .append(", ")
                        .append(it.size())
                        .append(");\n"));
        c.append("\t_write_bits(ctx->buf, sctx->off_pc_content_size, (uint64_t) ctx->content_size, ")
                .append(d.packetFeatures().contentSize().size())
                .append(");\n");
        d.packetFeatures()
                .discardedEventRecordsCounterSnapshot()
                .ifPresent(it -> c.append(
                                "\t_write_bits(ctx->buf, sctx->off_pc_events_discarded, (uint64_t) ctx->events_discarded, ")
                        .append(it.size())
                        .append(");\n"));
        c.append(t.fill("close-end"));
        if (d.packetFeatures().sequenceNumber().isPresent()) {
            c.append(t.fill("close-next-sequence-number"));
        }
        c.append(t.fill("close-leave"));
    }

    /** The time a packet opens or closes at: the event's being traced when it does so, else now. */
    private String timestamp(CTemplate t, ClockType clock) {
        return t.fill("timestamp", "ctype", api.clockCType(clock), "clock", clock.name());
    }

    /**
     * The start of open_packet ({@code opening}) and close_packet: platforms call them with
     * tracing disabled or from within a tracepoint (in_tracing_section set); either leaves a
     * packet already in the wanted state alone.
     */
    private static String entry(CTemplate t, boolean opening) {
        return t.fill("entry", "already_done", opening ? "ctx->packet_is_open" : "!ctx->packet_is_open");
    }
}

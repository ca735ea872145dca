package dev.hetrace.tracer.c;

import dev.hetrace.tracer.c.TracerApi.Param;
import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.config.Configuration.DataStreamType;
import dev.hetrace.tracer.config.Configuration.EventRecordType;
import dev.hetrace.tracer.config.FieldType.Member;
import dev.hetrace.tracer.config.FieldType.StringType;
import dev.hetrace.tracer.config.FieldType.StructureType;
import java.util.List;
import java.util.Optional;

/**
 * What the generator knows of the packets' layout before any is written: the bounds of event
 * records and packet headers and contexts, the alignment every event record of a stream starts
 * at, and from these the smallest packet the tracer accepts.
 */
final class RecordLayout {
    /** The largest packet (bytes): bit positions and the fast path's bounds stay far from 2^32. */
    static final int MAX_PACKET_BYTES = 1 << 28;

    private final Configuration config;

    RecordLayout(Configuration config) {
        this.config = config;
    }

    /**
     * The smallest packet (bytes) of the configuration: of every data stream type, the packet
     * header and context (strings empty, dynamic arrays empty) and the largest event record whose
     * strings are empty and dynamic arrays empty, with its largest alignment padding.
     */
    int minPacketBytes() {
        long most = 0;
        for (DataStreamType d : config.trace().type().dataStreamTypes()) {
            most = Math.max(most, contentBound(d).leastBits() + largestEventLeastBits(d));
        }
        return (int) ((most + 7) / 8);
    }

    /** The largest event record of a data stream type with its strings and dynamic arrays empty (bits). */
    long largestEventLeastBits(DataStreamType d) {
        int start = recordStart(d);
        long event = 0;
        for (EventRecordType e : d.eventRecordTypes()) {
            event = Math.max(event, bound(d, e, start).leastBits());
        }
        return event;
    }

    /** Walks the common context, specific context and payload of an event record. */
    static void payload(FieldSink cur, DataStreamType d, EventRecordType e) {
        List<Optional<StructureType>> roots = List.of(d.eventRecordCommonContext(), e.specificContext(), e.payload());
        List<String> prefixes = List.of(TracerApi.ERCC, TracerApi.ERSC, TracerApi.ERP);
        for (int r = 0; r < roots.size(); r++) {
            if (roots.get(r).isPresent()) {
                cur.align(roots.get(r).get().alignment());
                for (Member m : roots.get(r).get().members()) {
                    String name = prefixes.get(r) + "_" + m.name();
                    cur.field(
                            m.type(),
                            name,
                            prefixes.get(r) + "___" + m.name() + "_len",
                            m.type() instanceof StringType ? new Param(name, m.type()).sizeVariable() : null);
                }
            }
        }
    }

    /** The bound of an event record's size from a position that is a multiple of {@code start} bits. */
    static RecordBound bound(DataStreamType d, EventRecordType e, int start) {
        RecordBound b = new RecordBound(start);
        b.align(d.eventRecordHeader().alignment());
        for (Member m : d.eventRecordHeader().members()) {
            b.field(m.type(), "");
        }
        payload(b, d, e);
        return b;
    }

    /**
     * The largest power of two (bits, up to 4096) that every event record of the stream starts
     * at a multiple of: the packet content starts at one, and each record type, started at one,
     * ends at one. Alignments up to it then cost nothing at run time.
     */
    int recordStart(DataStreamType d) {
        RecordBound content = contentBound(d);
        if (!content.exact()) {
            return 1;
        }
        candidates:
        for (int start = 4096; start > 1; start >>= 1) {
            if (!content.multipleOf(start)) {
                continue;
            }
            for (EventRecordType e : d.eventRecordTypes()) {
                RecordBound end = bound(d, e, start);
                if (!end.exact() || !end.multipleOf(start)) {
                    continue candidates;
                }
            }
            return start;
        }
        return 1;
    }

    /** The packet header and context of a data stream type's packets, from the packet's start. */
    RecordBound contentBound(DataStreamType d) {
        RecordBound content = new RecordBound(Cursor.AT_ZERO);
        StructureType ph = config.trace().type().packetHeader();
        content.align(ph.alignment());
        for (Member m : ph.members()) {
            content.field(m.type(), "");
        }
        content.align(d.packetContext().alignment());
        for (Member m : d.packetContext().members()) {
            content.field(m.type(), "");
        }
        return content;
    }
}

package dev.hetrace.ctf.api;

import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.decode.TracePlan;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.TraceClass;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;

/**
 * Tells whether a slot of a memory region holds a packet of the trace, before a collector
 * writes it to a stream file: a slot a faulty core filled with anything else (zeros, stray writes) would make the whole
 * stream file unreadable from there on. The slot's packet header and context are decoded as
 * every reader decodes them: the magic, a stream class the metadata declares (the same for
 * every packet of the region), the trace UUID if the header holds one, and packet and content
 * sizes that agree with each other and fill the slot exactly. The events are not decoded.
 * Nothing is allocated per packet but the decoder's packet record.
 */
public final class PacketCheck {
    /** The packets a trace class describes, compiled once for all the regions that carry them. */
    public static final class Packets {
        private final TracePlan plan;

        private Packets(TracePlan plan) {
            this.plan = plan;
        }

        /** Fails when the trace class cannot describe packets (as a reader of its trace would). */
        public static Packets of(TraceClass trace) throws MetadataException {
            return new Packets(TracePlan.compile(trace));
        }
    }

    private final TracePlan plan;
    private final List<StreamDecoder.StreamFile> region;
    private StreamDecoder decoder;
    /** Set by the decoder's warning: the only one a packet header gives is a UUID that differs. */
    private boolean uuidDiffers;

    /** Checks slots of the region {@code mapping}, named {@code regionFile} in what it tells. */
    public PacketCheck(Packets packets, Path regionFile, MemorySegment mapping) {
        this.plan = packets.plan;
        this.region = List.of(new StreamDecoder.StreamFile(regionFile, mapping));
        this.decoder = newDecoder();
    }

    private StreamDecoder newDecoder() {
        StreamDecoder d = new StreamDecoder(plan, region);
        d.warnings(w -> uuidDiffers = true);
        return d;
    }

    /**
     * Null if the slot of {@code slotSize} bytes at {@code offset} in the region holds one
     * packet of the trace; otherwise why not.
     */
    public String problem(long offset, int slotSize) {
        decoder.seek(0, offset * 8, 0, false, PacketInfo.ABSENT, PacketInfo.ABSENT, PacketInfo.ABSENT);
        String problem;
        try {
            decoder.nextPacket();
            long packetBits = decoder.packet().packetBits();
            problem = packetBits == slotSize * 8L
                    ? null
                    : "packet_size %d bits, but the slot holds %d".formatted(packetBits, slotSize * 8L);
        } catch (StreamDecodingException e) {
            // the decoder names the region and a packet number of its own: the slot is named by the caller
            problem = (e.event() == null ? "" : e.event() + (e.field() == null ? ": " : ", "))
                    + (e.field() == null ? "" : "field '" + e.field() + "': ")
                    + e.detail();
        } catch (IndexOutOfBoundsException e) {
            problem = "its packet header goes past the end of the region";
        }
        if (uuidDiffers) {
            // the decoder warns once only: a fresh one for the next slot
            uuidDiffers = false;
            decoder = newDecoder();
            if (problem == null) {
                problem = "its packet UUID is not the trace UUID " + plan.trace.uuid();
            }
        }
        return problem;
    }
}

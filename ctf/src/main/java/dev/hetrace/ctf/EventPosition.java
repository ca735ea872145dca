package dev.hetrace.ctf;

import dev.hetrace.ctf.api.PacketInfo;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.text.JsonText;
import java.util.List;

/**
 * Where an event is in a trace, as three numbers an index can keep per event and a reader can
 * decode the event's fields again from, reading only its packet's header and context and the
 * event itself: the stream file ({@link #streamFile}: the trace among those a reader opened, the
 * stream, the stream's file), the packet's offset in that file in bytes, and the event's offset
 * in its packet in bits. Decoding one event so costs the same wherever it sits in its packet.
 * {@link Tracker} follows a cursor to give the current event's position; {@link #decode} finds
 * an event again.
 */
public final class EventPosition {
    private final List<CtfTrace> traces;
    private final StreamDecoder[][] decoders;

    /**
     * Decodes events of {@code traces} (a reader's {@link dev.hetrace.ctf.api.CtfReader#traces()}, in
     * that order). A position is used by one thread at a time; several may share the traces.
     */
    public EventPosition(List<CtfTrace> traces) {
        this.traces = traces;
        decoders = new StreamDecoder[traces.size()][];
        for (int t = 0; t < traces.size(); t++) {
            decoders[t] = new StreamDecoder[traces.get(t).streamCount()];
        }
    }

    /** The stream file number of file {@code file} of stream {@code stream} of trace {@code trace}. */
    public static int streamFile(int trace, int stream, int file) {
        if (trace >= 128 || stream >= 1 << 16 || file >= 256) {
            throw new IllegalArgumentException(
                    "position out of range: trace " + trace + ", stream " + stream + ", file " + file);
        }
        return trace << 24 | stream << 8 | file;
    }

    /**
     * A decoder standing on the event at that position, its fields decoded ({@link
     * StreamDecoder#decodeAt}: not its time, which the index keeps), or null when no event of
     * the trace starts there. The decoder is reused by the next call for the same stream, and
     * reads the packet's header and context again only for another packet.
     */
    public StreamDecoder decode(int streamFile, long packetOffsetBytes, long eventOffsetBits)
            throws StreamDecodingException {
        int t = streamFile >>> 24;
        int s = (streamFile >>> 8) & 0xFFFF;
        int f = streamFile & 0xFF;
        if (t >= traces.size() || s >= decoders[t].length || packetOffsetBytes < 0 || eventOffsetBits < 0) {
            return null;
        }
        StreamDecoder d = decoders[t][s];
        if (d == null) {
            CtfTrace trace = traces.get(t);
            // positions of several threads may share the traces: a trace maps a file when a decoder first asks for it
            synchronized (trace) {
                d = trace.decoder(s);
            }
            decoders[t][s] = d;
        }
        long packet = packetOffsetBytes * 8;
        return d.decodeAt(f, packet, packet + eventOffsetBits) ? d : null;
    }

    /**
     * Writes the fields of the event at that position to {@code json} ({@link JsonText#fields}:
     * its own scopes as one JSON object); false, and nothing written, when no event of the trace
     * starts there.
     */
    public boolean fields(int streamFile, long packetOffsetBytes, long eventOffsetBits, JsonText json)
            throws StreamDecodingException {
        StreamDecoder d = decode(streamFile, packetOffsetBytes, eventOffsetBits);
        if (d == null) {
            return false;
        }
        json.fields(d);
        return true;
    }

    /**
     * Writes the event at that position to {@code json} as the line {@code hetrace print --format
     * json} writes for it, without its time ({@link JsonText#print}: its packet context too);
     * false, and nothing written, when no event of the trace starts there.
     */
    public boolean line(int streamFile, long packetOffsetBytes, long eventOffsetBits, JsonText json)
            throws StreamDecodingException {
        StreamDecoder d = decode(streamFile, packetOffsetBytes, eventOffsetBits);
        if (d == null) {
            return false;
        }
        json.print(traces.get(streamFile >>> 24), d, false, 0);
        return true;
    }

    /**
     * Follows a cursor: after each {@link EventCursor#next()}, {@link #update} gives the position
     * of its current event.
     */
    public static final class Tracker {
        private final List<CtfTrace> traces;
        private CtfTrace lastTrace;
        private int lastIndex;
        /** The decoder and packet of the last event: while they stay, only the event's offset moves. */
        private StreamDecoder lastDecoder;

        private PacketInfo lastPacket;
        private long packetBits;
        private int streamFile;
        private long eventOffset;

        /** For a cursor over {@code traces}. */
        public Tracker(List<CtfTrace> traces) {
            this.traces = traces;
        }

        /**
         * Takes the position of {@code cursor}'s current event; true when it follows the last
         * one taken in the same packet as the stream's decoder read it (its stream file and
         * packet unchanged). False does not mean another packet: a stream parked and resumed by
         * the cursor goes on in its packet with a new decoder.
         */
        public boolean update(EventCursor cursor) {
            StreamDecoder d = cursor.decoder();
            PacketInfo p = d.packet();
            if (d == lastDecoder && p == lastPacket) {
                // the common case: the stream goes on in its packet
                eventOffset = d.eventBitOffset() - packetBits;
                return true;
            }
            CtfTrace trace = cursor.trace();
            if (trace != lastTrace) {
                lastTrace = trace;
                lastIndex = traces.indexOf(trace);
            }
            lastDecoder = d;
            lastPacket = p;
            packetBits = p.offsetBits();
            streamFile = EventPosition.streamFile(lastIndex, cursor.stream(), d.fileIndex());
            eventOffset = d.eventBitOffset() - packetBits;
            return false;
        }

        /** The current event's stream file ({@link EventPosition#streamFile}). */
        public int streamFile() {
            return streamFile;
        }

        /** The current event's packet's offset in its file, in bytes. */
        public long packetOffset() {
            return packetBits >>> 3;
        }

        /** The current event's offset from the start of its packet, in bits. */
        public long eventOffset() {
            return eventOffset;
        }
    }
}

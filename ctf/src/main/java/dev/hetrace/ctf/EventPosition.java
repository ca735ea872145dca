package dev.hetrace.ctf;

import dev.hetrace.ctf.decode.PacketInfo;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.decode.StreamDecodingException;
import java.util.List;

/**
 * Where an event is in a trace, as three numbers an index can keep per event and a reader can
 * decode the event again from, reading only its packet: the stream file ({@link #streamFile}:
 * the trace among those a reader opened, the stream, the stream's file), the packet's offset in
 * that file in bytes, and the index of the event in its packet. {@link Tracker} follows a
 * cursor to give the current event's position; {@link #decode} finds an event again.
 */
public final class EventPosition {
    private final List<CtfTrace> traces;
    private final StreamDecoder[][] decoders;

    /** Decodes events of {@code traces} (a reader's {@link dev.hetrace.ctf.api.CtfReader#traces()}, in that order). */
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
            throw new IllegalArgumentException("position out of range: trace " + trace + ", stream " + stream + ", file " + file);
        }
        return trace << 24 | stream << 8 | file;
    }

    /**
     * A decoder standing on the event at that position (its fields and time decoded), or null
     * when there is no such event. The decoder is reused by the next call for the same stream.
     * The time is right when the packet's timestamp_begin sets the whole clock, as in every
     * trace hetrace writes and LTTng's.
     */
    public StreamDecoder decode(int streamFile, long packetOffsetBytes, int index) throws StreamDecodingException {
        int t = streamFile >>> 24;
        int s = (streamFile >>> 8) & 0xFFFF;
        int f = streamFile & 0xFF;
        if (t >= traces.size() || s >= decoders[t].length || f >= traces.get(t).streams().get(s).size() || index < 0) {
            return null;
        }
        StreamDecoder d = decoders[t][s];
        if (d == null) {
            d = traces.get(t).decoder(s);
            decoders[t][s] = d;
        }
        d.seek(f, packetOffsetBytes * 8, 0, false, PacketInfo.ABSENT, PacketInfo.ABSENT, PacketInfo.ABSENT);
        if (!d.nextPacket()) {
            return null;
        }
        PacketInfo packet = d.packet();
        for (int i = 0; i <= index; i++) {
            if (!d.next() || d.packet() != packet) {
                return null;
            }
        }
        return d;
    }

    /** The time in ns from the epoch of the event {@code d} stands on (Long.MIN_VALUE without a clock). */
    public static long timeNanos(StreamDecoder d) throws StreamDecodingException {
        return EventCursor.timeOf(d);
    }

    /**
     * Follows a cursor: after each {@link EventCursor#next()}, {@link #update} gives the position
     * of its current event. Per stream it counts the events of the current packet.
     */
    public static final class Tracker {
        private final List<CtfTrace> traces;
        private final int[][] counts;
        private final long[][] packets;
        private CtfTrace lastTrace;
        private int lastIndex;
        /** The decoder and packet of the last event, and its trace and stream: the next event of that packet is the next index. */
        private StreamDecoder lastDecoder;
        private PacketInfo lastPacket;
        private int lastStream = -1;
        private int streamFile;
        private long packetOffset;
        private int index;

        /** For a cursor over {@code traces}. */
        public Tracker(List<CtfTrace> traces) {
            this.traces = traces;
            counts = new int[traces.size()][];
            packets = new long[traces.size()][];
            for (int t = 0; t < traces.size(); t++) {
                counts[t] = new int[traces.get(t).streamCount()];
                packets[t] = new long[traces.get(t).streamCount()];
                java.util.Arrays.fill(packets[t], -1);
            }
        }

        /**
         * Takes the position of {@code cursor}'s current event; true when it is the event after
         * the last one taken in the same packet (its stream file and packet unchanged, its index
         * one more).
         */
        public boolean update(EventCursor cursor) {
            StreamDecoder d = cursor.decoder();
            PacketInfo p = d.packet();
            if (d == lastDecoder && p == lastPacket) {
                // the common case: the stream goes on in its packet (its count is written back when it stops)
                index++;
                return true;
            }
            if (lastStream >= 0) {
                counts[lastIndex][lastStream] = index;
            }
            CtfTrace trace = cursor.trace();
            if (trace != lastTrace) {
                lastTrace = trace;
                lastIndex = traces.indexOf(trace);
            }
            int t = lastIndex;
            int s = cursor.stream();
            int file = d.fileIndex();
            // file and offset, not the PacketInfo's identity: a stream parked and resumed has a new one
            long key = (long) file << 48 | (p.offsetBits() >>> 3);
            if (packets[t][s] == key) {
                counts[t][s]++;
            } else {
                packets[t][s] = key;
                counts[t][s] = 0;
            }
            lastDecoder = d;
            lastPacket = p;
            lastStream = s;
            streamFile = EventPosition.streamFile(t, s, file);
            packetOffset = p.offsetBits() >>> 3;
            index = counts[t][s];
            return false;
        }

        /** The current event's stream file ({@link EventPosition#streamFile}). */
        public int streamFile() {
            return streamFile;
        }

        /** The current event's packet's offset in its file, in bytes. */
        public long packetOffset() {
            return packetOffset;
        }

        /** The current event's index in its packet. */
        public int index() {
            return index;
        }
    }
}

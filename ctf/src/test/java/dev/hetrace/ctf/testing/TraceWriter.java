package dev.hetrace.ctf.testing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Writes small LTTng-like CTF traces for tests, byte for byte what a test needs: a packet
 * header (magic, uuid, stream_id, stream_instance_id), a packet context (timestamp_begin,
 * timestamp_end, content_size, packet_size, packet_seq_num, events_discarded, cpu_id), and one
 * event class "tick" (or the classes {@link #eventNames} gives) with {@code uint32 n} and
 * {@code string msg}; little-endian, a 1 GHz clock
 * at {@code offset_s = 1700000000} (2023-11-14 22:13:20 UTC). Optionally LTTng index files.
 */
public final class TraceWriter {
    public static final UUID TRACE_UUID = UUID.fromString("2a6422d0-6cee-11e0-8c08-cb07d7b3a564");
    public static final long OFFSET_SECONDS = 1_700_000_000L;
    /** Bytes of packet header and context before the first event. */
    public static final int PACKET_HEADER_BYTES = 4 + 16 + 4 + 8 + 8 * 6 + 4;

    private static final String METADATA = """
        /* CTF 1.8 */
        typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
        trace {
        	major = 1; minor = 8;
        	uuid = "%s";
        	byte_order = le;
        	packet.header := struct {
        		uint32_t magic;
        		uint8_t uuid[16];
        		uint32_t stream_id;
        		uint64_t stream_instance_id;
        	};
        };
        env { hostname = "%s"; domain = "ust"; };
        clock { name = monotonic; freq = 1000000000; offset_s = %d; offset = 0; };
        typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := clk64;
        stream {
        	id = 0;
        	packet.context := struct {
        		clk64 timestamp_begin;
        		clk64 timestamp_end;
        		uint64_t content_size;
        		uint64_t packet_size;
        		uint64_t packet_seq_num;
        		uint64_t events_discarded;
        		uint32_t cpu_id;
        	};
        	event.header := struct { uint32_t id; clk64 timestamp; };
        };
        """;
    private static final String EVENT_CLASS = """
        event { name = "%s"; id = %d; stream_id = 0; fields := struct { uint32_t n; string msg; }; };
        """;

    /** One event: its timestamp (clock cycles = ns after the clock offset), payload and event class id. */
    public record Event(long timestamp, long n, String msg, int id) {}

    /** One packet: its context and events; {@code eventId} other than 0 makes undecodable events. */
    public record Packet(long begin, long end, long seqNum, long discarded, List<Event> events, int eventId) {}

    private final Path dir;
    private String hostname = "box";
    private boolean index;
    private List<String> eventNames = List.of("tick");
    private final Map<String, Stream> streams = new LinkedHashMap<>();

    public TraceWriter(Path dir) {
        this.dir = dir;
    }

    public static Event event(long timestamp, long n, String msg) {
        return new Event(timestamp, n, msg, 0);
    }

    /** An event of the class of id {@code id} (its rank in {@link #eventNames}). */
    public static Event event(int id, long timestamp, long n, String msg) {
        return new Event(timestamp, n, msg, id);
    }

    /** The event classes the metadata declares, ids 0, 1, ... in this order (by default one, "tick"). */
    public TraceWriter eventNames(String... names) {
        this.eventNames = List.of(names);
        return this;
    }

    public TraceWriter hostname(String hostname) {
        this.hostname = hostname;
        return this;
    }

    /** Also writes LTTng index files ({@code index/FILE.idx}, format 1.1). */
    public TraceWriter withIndex() {
        this.index = true;
        return this;
    }

    /** A stream file, whose packets say {@code stream_instance_id = instanceId} and {@code cpu_id = instanceId}. */
    public Stream stream(String fileName, long instanceId) {
        return streams.computeIfAbsent(fileName, f -> new Stream(instanceId));
    }

    public final class Stream {
        final long instanceId;
        final List<Packet> packets = new ArrayList<>();

        Stream(long instanceId) {
            this.instanceId = instanceId;
        }

        public Stream packet(long begin, long end, long seqNum, long discarded, Event... events) {
            packets.add(new Packet(begin, end, seqNum, discarded, List.of(events), 0));
            return this;
        }

        /** A packet whose events have an event id the metadata does not declare. */
        public Stream damagedPacket(long begin, long end, long seqNum, Event... events) {
            packets.add(new Packet(begin, end, seqNum, 0, List.of(events), 7));
            return this;
        }

        public TraceWriter done() {
            return TraceWriter.this;
        }
    }

    /** Writes the trace and returns its directory. */
    public Path write() throws IOException {
        Files.createDirectories(dir);
        StringBuilder metadata = new StringBuilder(METADATA.formatted(TRACE_UUID, hostname, OFFSET_SECONDS));
        for (int id = 0; id < eventNames.size(); id++) {
            metadata.append(EVENT_CLASS.formatted(eventNames.get(id), id));
        }
        Files.writeString(dir.resolve("metadata"), metadata);
        for (Map.Entry<String, Stream> e : streams.entrySet()) {
            Stream s = e.getValue();
            List<byte[]> packets = new ArrayList<>();
            ByteBuffer idx = ByteBuffer.allocate(16 + 72 * s.packets.size()).order(ByteOrder.BIG_ENDIAN);
            idx.putInt(0xC1F1DCC1).putInt(1).putInt(1).putInt(72);
            long offset = 0;
            for (Packet p : s.packets) {
                byte[] bytes = packet(s.instanceId, p);
                packets.add(bytes);
                idx.putLong(offset)
                        .putLong(bytes.length * 8L)
                        .putLong(bytes.length * 8L)
                        .putLong(p.begin())
                        .putLong(p.end())
                        .putLong(p.discarded())
                        .putLong(0)
                        .putLong(s.instanceId)
                        .putLong(p.seqNum());
                offset += bytes.length;
            }
            ByteBuffer file = ByteBuffer.allocate((int) offset);
            packets.forEach(file::put);
            Files.write(dir.resolve(e.getKey()), file.array());
            if (index) {
                Files.createDirectories(dir.resolve("index"));
                Files.write(dir.resolve("index").resolve(e.getKey() + ".idx"), idx.array());
            }
        }
        return dir;
    }

    private static byte[] packet(long instanceId, Packet p) {
        List<byte[]> events = new ArrayList<>();
        int eventBytes = 0;
        for (Event ev : p.events()) {
            byte[] msg = ev.msg().getBytes(StandardCharsets.UTF_8);
            ByteBuffer b = ByteBuffer.allocate(4 + 8 + 4 + msg.length + 1).order(ByteOrder.LITTLE_ENDIAN);
            b.putInt(p.eventId() != 0 ? p.eventId() : ev.id())
                    .putLong(ev.timestamp())
                    .putInt((int) ev.n())
                    .put(msg)
                    .put((byte) 0);
            events.add(b.array());
            eventBytes += b.capacity();
        }
        int size = PACKET_HEADER_BYTES + eventBytes;
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0xC1FC1FC1);
        ByteBuffer uuid = ByteBuffer.allocate(16);
        uuid.putLong(TRACE_UUID.getMostSignificantBits()).putLong(TRACE_UUID.getLeastSignificantBits());
        b.put(uuid.array());
        b.putInt(0).putLong(instanceId);
        b.putLong(p.begin())
                .putLong(p.end())
                .putLong(size * 8L)
                .putLong(size * 8L)
                .putLong(p.seqNum())
                .putLong(p.discarded())
                .putInt((int) instanceId);
        events.forEach(b::put);
        return b.array();
    }
}

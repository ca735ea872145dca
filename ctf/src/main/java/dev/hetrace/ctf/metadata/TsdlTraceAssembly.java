package dev.hetrace.ctf.metadata;

import static dev.hetrace.ctf.metadata.TsdlTokens.error;

import dev.hetrace.ctf.metadata.FieldType.StructType;
import dev.hetrace.ctf.metadata.TsdlAttribute.Value;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The top-level TSDL blocks (trace, stream, event, clock, env) and the {@link TraceClass}
 * assembled from them once the metadata is read: stream and event ids checked, and runs of
 * similar consecutive classes kept as runs. Part of {@link TsdlParser}, which parses the types.
 */
final class TsdlTraceAssembly {
    private final TsdlParser parser;
    private final TsdlTokens tokens;
    private final ByteOrder traceByteOrder;
    private final Consumer<String> warnings;

    // What the metadata declares.
    private Token traceBlock;
    private Integer major;
    private Integer minor;
    private UUID uuid;
    private StructType packetHeader;
    private final Map<String, ClockClass> clocks = new LinkedHashMap<>();
    private final Map<String, Object> env = new LinkedHashMap<>();
    private final List<PendingStream> streams = new ArrayList<>();
    private final List<PendingEvent> events = new ArrayList<>();

    TsdlTraceAssembly(TsdlParser parser, TsdlTokens tokens, ByteOrder traceByteOrder, Consumer<String> warnings) {
        this.parser = parser;
        this.tokens = tokens;
        this.traceByteOrder = traceByteOrder;
        this.warnings = warnings;
    }

    /** A stream block, or a run of {@code count} similar ones with consecutive ids. */
    private static final class PendingStream {
        final Token at;
        final Long id;
        final StructType packetContext;
        final StructType eventHeader;
        final StructType eventContext;
        long count = 1;

        PendingStream(Token at, Long id, StructType packetContext, StructType eventHeader, StructType eventContext) {
            this.at = at;
            this.id = id;
            this.packetContext = packetContext;
            this.eventHeader = eventHeader;
            this.eventContext = eventContext;
        }

        /** Whether {@code s} is the next of this run. */
        boolean extendsWith(PendingStream s) {
            return id != null
                    && s.id != null
                    && s.id == id + count
                    && Types.same(packetContext, s.packetContext)
                    && Types.same(eventHeader, s.eventHeader)
                    && Types.same(eventContext, s.eventContext);
        }
    }

    /** An event block, or a run of {@code count} similar ones with consecutive ids (and counted names). */
    private static final class PendingEvent {
        final Token at;
        final Long id;
        final String name;
        final Long streamId;
        final StructType context;
        final StructType payload;
        final Long logLevel;
        final String emfUri;
        long count = 1;
        String namePrefix;
        long firstNumber;
        int nameStep;

        PendingEvent(
                Token at,
                Long id,
                String name,
                Long streamId,
                StructType context,
                StructType payload,
                Long logLevel,
                String emfUri) {
            this.at = at;
            this.id = id;
            this.name = name;
            this.streamId = streamId;
            this.context = context;
            this.payload = payload;
            this.logLevel = logLevel;
            this.emfUri = emfUri;
            this.namePrefix = name;
        }

        /** Adds {@code e} to this run if it is the next of it. */
        boolean extendWith(PendingEvent e) {
            if (id == null
                    || e.id == null
                    || e.id != id + count
                    || !Objects.equals(streamId, e.streamId)
                    || !Types.same(context, e.context)
                    || !Types.same(payload, e.payload)
                    || !Objects.equals(logLevel, e.logLevel)
                    || !Objects.equals(emfUri, e.emfUri)) {
                return false;
            }
            if (count == 1) {
                if (Objects.equals(name, e.name)) {
                    nameStep = 0;
                } else {
                    CountedName a = name == null ? null : CountedName.of(name);
                    CountedName b = e.name == null ? null : CountedName.of(e.name);
                    if (a == null || b == null || !a.prefix().equals(b.prefix()) || b.number() != a.number() + 1) {
                        return false;
                    }
                    nameStep = 1;
                    namePrefix = a.prefix();
                    firstNumber = a.number();
                }
            } else if (nameStep == 0
                    ? !Objects.equals(name, e.name)
                    : e.name == null || !e.name.equals(namePrefix + (firstNumber + count))) {
                return false;
            }
            count++;
            return true;
        }

        EventClassRun run(long streamId) {
            return new EventClassRun(
                    id, count, namePrefix, firstNumber, nameStep, streamId, context, payload, logLevel, emfUri);
        }
    }

    /** Runs shorter than this are kept as separate classes. */
    private static final long MIN_RUN = 16;

    void parseTraceBlock(Token at) throws MetadataException {
        if (traceBlock != null) {
            throw error(at, "duplicate trace block (the first is at line " + traceBlock.line() + ")");
        }
        traceBlock = at;
        parser.parseAttributeBlock(at, a -> {
            switch (a.name()) {
                case "major" -> major = (int) a.toLong(0, 255);
                case "minor" -> minor = (int) a.toLong(0, 255);
                case "uuid" -> uuid = a.uuid();
                case "byte_order" -> {} // read by the pre-scan
                case "packet.header" -> packetHeader = a.scopeStruct();
                default ->
                    warnings.accept("line " + a.at().line() + ": unknown trace attribute '" + a.name() + "' ignored");
            }
        });
        tokens.expect(";", "after the trace block");
        if (major == null || minor == null) {
            throw error(at, "trace block needs 'major' and 'minor'");
        }
        if (major != 1 || minor != 8) {
            throw error(
                    at, "unsupported CTF version " + major + "." + minor + ": only CTF 1.8 and CTF 2 are supported");
        }
    }

    void parseStreamBlock(Token at) throws MetadataException {
        Long[] id = {null};
        StructType[] pc = {null};
        StructType[] eh = {null};
        StructType[] ec = {null};
        parser.parseAttributeBlock(at, a -> {
            switch (a.name()) {
                case "id" -> id[0] = a.toLong(0, Long.MAX_VALUE);
                case "packet.context" -> pc[0] = a.scopeStruct();
                case "event.header" -> eh[0] = a.scopeStruct();
                case "event.context" -> ec[0] = a.scopeStruct();
                default ->
                    warnings.accept("line " + a.at().line() + ": unknown stream attribute '" + a.name() + "' ignored");
            }
        });
        tokens.expect(";", "after the stream block");
        PendingStream ps = new PendingStream(at, id[0], pc[0], eh[0], ec[0]);
        if (streams.isEmpty() || !streams.getLast().extendsWith(ps)) {
            streams.add(ps);
        } else {
            streams.getLast().count++;
        }
    }

    void parseEventBlock(Token at) throws MetadataException {
        Long[] id = {null};
        String[] name = {null};
        Long[] streamId = {null};
        StructType[] ctx = {null};
        StructType[] fields = {null};
        Long[] logLevel = {null};
        String[] emf = {null};
        parser.parseAttributeBlock(at, a -> {
            switch (a.name()) {
                case "id" -> id[0] = a.toLong(0, Long.MAX_VALUE);
                case "name" -> name[0] = a.nameValue();
                case "stream_id" -> streamId[0] = a.toLong(0, Long.MAX_VALUE);
                case "context" -> ctx[0] = a.scopeStruct();
                case "fields" -> fields[0] = a.scopeStruct();
                case "loglevel" -> logLevel[0] = a.toLong(Long.MIN_VALUE, Long.MAX_VALUE);
                case "model.emf.uri" -> emf[0] = a.nameValue();
                default ->
                    warnings.accept("line " + a.at().line() + ": unknown event attribute '" + a.name() + "' ignored");
            }
        });
        tokens.expect(";", "after the event block");
        PendingEvent pe = new PendingEvent(at, id[0], name[0], streamId[0], ctx[0], fields[0], logLevel[0], emf[0]);
        if (events.isEmpty() || !events.getLast().extendWith(pe)) {
            events.add(pe);
        }
    }

    void parseClockBlock(Token at) throws MetadataException {
        String[] name = {null};
        String[] uuidText = {null};
        String[] description = {null};
        long[] freq = {1_000_000_000L};
        long[] precision = {0};
        long[] offsetS = {0};
        BigInteger[] offset = {BigInteger.ZERO};
        boolean[] absolute = {false};
        parser.parseAttributeBlock(at, a -> {
            switch (a.name()) {
                case "name" -> name[0] = a.nameValue();
                case "uuid" -> uuidText[0] = a.uuid().toString();
                case "description" -> description[0] = a.nameValue();
                case "freq" -> freq[0] = a.toLong(1, Long.MAX_VALUE);
                case "precision" -> precision[0] = a.toLong(0, Long.MAX_VALUE);
                case "offset_s" -> offsetS[0] = a.toLong(Long.MIN_VALUE, Long.MAX_VALUE);
                case "offset" -> {
                    if (!(a.value() instanceof Value.Int(BigInteger v))) {
                        throw error(a.at(), "'offset' must be an integer");
                    }
                    offset[0] = v;
                }
                case "absolute" -> absolute[0] = a.toBool();
                default ->
                    warnings.accept("line " + a.at().line() + ": unknown clock attribute '" + a.name() + "' ignored");
            }
        });
        tokens.expect(";", "after the clock block");
        if (name[0] == null) {
            throw error(at, "clock has no name");
        }
        if (clocks.containsKey(name[0])) {
            throw error(at, "duplicate clock '" + name[0] + "'");
        }
        // Normalise so that 0 <= offset < freq, carrying whole seconds into offset_s.
        BigInteger[] qr = offset[0].divideAndRemainder(BigInteger.valueOf(freq[0]));
        BigInteger q = qr[0];
        BigInteger r = qr[1];
        if (r.signum() < 0) {
            r = r.add(BigInteger.valueOf(freq[0]));
            q = q.subtract(BigInteger.ONE);
        }
        BigInteger seconds = BigInteger.valueOf(offsetS[0]).add(q);
        if (seconds.bitLength() > 63) {
            throw error(at, "clock '" + name[0] + "' offset is out of range");
        }
        clocks.put(
                name[0],
                new ClockClass(
                        name[0],
                        description[0],
                        uuidText[0],
                        freq[0],
                        precision[0],
                        seconds.longValue(),
                        r.longValue(),
                        absolute[0]));
    }

    void parseEnvBlock() throws MetadataException {
        Token at = tokens.previous();
        parser.parseAttributeBlock(at, a -> {
            if (a.type() != null) {
                throw error(a.at(), "env entries are values, not types");
            }
            switch (a.value()) {
                case Value.Int(BigInteger v) -> {
                    if (v.bitLength() > 63) {
                        throw error(a.at(), "env value " + v + " does not fit in a signed 64-bit integer");
                    }
                    env.put(a.name(), v.longValue());
                }
                case Value.Str(String s) -> env.put(a.name(), s);
                case Value.Path path -> env.put(a.name(), String.join(".", path.parts()));
            }
        });
        tokens.expect(";", "after the env block");
    }

    TraceClass assemble() throws MetadataException {
        if (traceBlock == null) {
            throw new MetadataException("metadata has no trace block");
        }
        long streamTotal = 0;
        for (PendingStream s : streams) {
            streamTotal += s.count;
        }
        // Stream ids: first id -> last id of each block or run, to find duplicates.
        TreeMap<Long, Long> streamIds = new TreeMap<>();
        TreeMap<Long, PendingStream> byFirstId = new TreeMap<>();
        for (PendingStream s : streams) {
            long id;
            if (s.id == null) {
                if (streamTotal > 1) {
                    throw error(s.at, "stream has no id, but the trace has several streams");
                }
                id = 0;
            } else {
                id = s.id;
            }
            long last = id + s.count - 1;
            Map.Entry<Long, Long> before = streamIds.floorEntry(last);
            if (before != null && before.getValue() >= id) {
                throw error(s.at, "duplicate stream id " + Math.max(id, before.getKey()));
            }
            streamIds.put(id, last);
            byFirstId.put(id, s);
        }
        if (streamTotal > 1 && (packetHeader == null || packetHeader.member("stream_id") == null)) {
            throw new MetadataException("the trace has several streams but its packet header has no stream_id field");
        }
        Long onlyStream = streamTotal == 1 ? streamIds.firstKey() : null;
        Map<Long, Long> eventCounts = new HashMap<>();
        for (PendingEvent e : events) {
            eventCounts.merge(streamIdOf(e, onlyStream), e.count, Long::sum);
        }
        Map<Long, StreamEvents> eventsByStream = new HashMap<>();
        for (PendingEvent e : events) {
            long streamId;
            if (e.streamId == null) {
                if (streamTotal > 1) {
                    throw error(e.at, "event '" + e.name + "' has no stream_id, but the trace has several streams");
                }
                streamId = streamTotal == 0 ? 0 : onlyStream;
            } else {
                streamId = e.streamId;
                Map.Entry<Long, Long> s = streamIds.floorEntry(streamId);
                if (s == null || s.getValue() < streamId) {
                    if (streamTotal == 0 && streamId == 0) {
                        // an implicit stream class
                    } else {
                        throw error(e.at, "event '" + e.name + "' refers to undefined stream " + streamId);
                    }
                }
            }
            StreamEvents se = eventsByStream.computeIfAbsent(streamId, k -> new StreamEvents());
            long id;
            if (e.id == null) {
                if (!se.ids.isEmpty()) {
                    throw error(e.at, "event '" + e.name + "' has no id, but its stream has several events");
                }
                id = 0;
            } else {
                id = e.id;
            }
            long last = id + e.count - 1;
            Map.Entry<Long, Long> before = se.ids.floorEntry(last);
            if (before != null && before.getValue() >= id) {
                throw error(e.at, "duplicate event id " + Math.max(id, before.getKey()) + " in stream " + streamId);
            }
            if (e.id == null && eventCounts.get(streamId) > 1) {
                throw error(e.at, "event '" + e.name + "' has no id, but its stream has several events");
            }
            se.ids.put(id, last);
            if (e.count >= MIN_RUN) {
                se.runs.add(e.run(streamId));
            } else {
                EventClassRun r = e.count == 1 ? null : e.run(streamId);
                for (long k = 0; k < e.count; k++) {
                    se.classes.put(
                            id + k,
                            r == null
                                    ? new EventClass(id, e.name, streamId, e.context, e.payload, e.logLevel, e.emfUri)
                                    : r.get(k));
                }
            }
        }
        if (streamTotal == 0 && !eventsByStream.isEmpty()) {
            PendingStream implicit = new PendingStream(traceBlock, 0L, null, null, null);
            byFirstId.put(0L, implicit);
            streamIds.put(0L, 0L);
        }
        TreeMap<Long, StreamClass> streamClasses = new TreeMap<>();
        List<StreamClassRun> streamRuns = new ArrayList<>();
        TreeMap<Long, StreamEvents> withEvents = new TreeMap<>(eventsByStream);
        for (Map.Entry<Long, PendingStream> entry : byFirstId.entrySet()) {
            PendingStream ps = entry.getValue();
            long first = entry.getKey();
            long last = first + ps.count - 1;
            // Stream classes that have events are classes of their own; the others may stay in runs.
            long from = first;
            while (from <= last) {
                Long nextWithEvents = withEvents.ceilingKey(from);
                long to = nextWithEvents == null || nextWithEvents > last ? last : nextWithEvents - 1;
                if (to - from + 1 >= MIN_RUN) {
                    streamRuns.add(
                            new StreamClassRun(from, to - from + 1, ps.packetContext, ps.eventHeader, ps.eventContext));
                } else {
                    for (long id = from; id <= to; id++) {
                        streamClasses.put(
                                id,
                                new StreamClass(
                                        id, ps.packetContext, ps.eventHeader, ps.eventContext, new TreeMap<>()));
                    }
                }
                if (to < last) {
                    long id = to + 1;
                    StreamEvents se = withEvents.get(id);
                    se.runs.sort(Comparator.comparingLong(EventClassRun::firstId));
                    StreamClass sc =
                            new StreamClass(id, ps.packetContext, ps.eventHeader, ps.eventContext, se.classes, se.runs);
                    if (sc.eventHeader() == null && sc.eventCount() > 1) {
                        throw new MetadataException(
                                "a stream with several event classes needs an event header with an id field");
                    }
                    streamClasses.put(id, sc);
                    from = id + 1;
                } else {
                    from = last + 1;
                }
            }
        }
        return new TraceClass(major, minor, traceByteOrder, uuid, packetHeader, clocks, env, streamClasses, streamRuns);
    }

    /** Event classes of one stream, as they are assembled. */
    private static final class StreamEvents {
        final TreeMap<Long, Long> ids = new TreeMap<>();
        final TreeMap<Long, EventClass> classes = new TreeMap<>();
        final List<EventClassRun> runs = new ArrayList<>();
    }

    private static long streamIdOf(PendingEvent e, Long onlyStream) {
        if (e.streamId != null) {
            return e.streamId;
        }
        return onlyStream == null ? 0 : onlyStream;
    }
}

package dev.hetrace.ctf.decode;

import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.ctf.metadata.EventClass;
import dev.hetrace.ctf.metadata.EventClassRun;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.StreamClass;
import dev.hetrace.ctf.metadata.StreamClassRun;
import dev.hetrace.ctf.metadata.StructChain;
import dev.hetrace.ctf.metadata.TraceClass;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The decode plan of a whole trace, compiled once from its {@link TraceClass}: every scope of
 * every stream and event class as a tree of {@link Node}s with references resolved. Compiling
 * also finishes validating the metadata (paths, tag types), so a trace without any stream
 * file is still fully checked.
 */
public final class TracePlan {
    /** How deep field types may nest: the decoder and the printers walk them recursively. */
    public static final int MAX_NESTING = 10_000;
    /**
     * The stack of a thread that decodes or prints fields nested {@link #MAX_NESTING} deep
     * (they take about 16 MB; a platform thread's default, 1 MB, holds about 2,000 levels).
     * Reserved address space: only the depth used is backed by memory.
     */
    public static final long STACK_BYTES = 64L << 20;

    /** Platform threads whose stack holds fields nested as deep as a plan allows: for every thread that decodes. */
    public static Thread.Builder.OfPlatform threads() {
        return Thread.ofPlatform().stackSize(STACK_BYTES);
    }

    public final TraceClass trace;
    public final List<ClockClass> clocks;
    public final Node packetHeader;
    public final Map<Long, StreamPlan> streams = new LinkedHashMap<>();
    /** Runs of similar stream classes without events (sorted by id): one plan each, shared. */
    public final List<StreamPlanRun> streamRuns = new ArrayList<>();
    /** Plans of stream classes of runs that packets referred to, by id. */
    private final Map<Long, StreamPlan> fromRuns = new HashMap<>();

    public int registerCount;
    /** Levels of the deepest chain of nested structs (CHAIN node) of the plan, 0 when it has none. */
    public long deepestChain;

    /** A run of stream classes and the plan they share. */
    public record StreamPlanRun(StreamClassRun cls, StreamPlan template) {}

    /** The plan of stream class {@code id}, or null. */
    public StreamPlan stream(long id) {
        StreamPlan sp = streams.get(id);
        if (sp != null || streamRuns.isEmpty()) {
            return sp;
        }
        sp = fromRuns.get(id);
        if (sp != null) {
            return sp;
        }
        int lo = 0;
        int hi = streamRuns.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            StreamPlanRun r = streamRuns.get(mid);
            if (id < r.cls().firstId()) {
                hi = mid - 1;
            } else if (id > r.cls().lastId()) {
                lo = mid + 1;
            } else {
                StreamPlan t = r.template();
                sp = new StreamPlan(r.cls().get(id));
                sp.packetContext = t.packetContext;
                sp.eventHeader = t.eventHeader;
                sp.eventContext = t.eventContext;
                sp.defaultClock = t.defaultClock;
                fromRuns.put(id, sp);
                return sp;
            }
        }
        return null;
    }

    /** Number of stream classes. */
    public long streamCount() {
        long n = streams.size();
        for (StreamPlanRun r : streamRuns) {
            n += r.cls().count();
        }
        return n;
    }

    /** The plan of the only stream class (see {@link #streamCount()}). */
    public StreamPlan onlyStream() {
        return streams.isEmpty()
                ? stream(streamRuns.getFirst().cls().firstId())
                : streams.values().iterator().next();
    }

    /** Every distinct plan of a stream class: one per class, one per run. */
    public List<StreamPlan> distinctStreams() {
        List<StreamPlan> all = new ArrayList<>(streams.values());
        for (StreamPlanRun r : streamRuns) {
            all.add(r.template());
        }
        return all;
    }

    /** Decode plan of one stream class. */
    public static final class StreamPlan {
        public final StreamClass cls;
        public Node packetContext;
        public Node eventHeader;
        public Node eventContext;
        public final Map<Long, EventPlan> events = new LinkedHashMap<>();
        /** Runs of similar event classes (sorted by id): one plan each, shared. */
        public final List<EventPlanRun> eventRuns = new ArrayList<>();
        /** Dense lookup by event id when ids are small, else null. */
        public EventPlan[] eventsById;
        /** Index in {@link TracePlan#clocks} of the stream's default clock, or -1. */
        public int defaultClock = -1;
        /** Plans of event classes of runs, last used, by id modulo its size. */
        private EventPlan[] fromRuns;

        StreamPlan(StreamClass cls) {
            this.cls = cls;
        }

        public EventPlan event(long id) {
            EventPlan ep;
            if (eventsById != null) {
                ep = id >= 0 && id < eventsById.length ? eventsById[(int) id] : null;
            } else {
                ep = events.get(id);
            }
            return ep != null || eventRuns.isEmpty() ? ep : fromRun(id);
        }

        private EventPlan fromRun(long id) {
            int slot = (int) (id & 1023);
            if (fromRuns != null && fromRuns[slot] != null && fromRuns[slot].cls.id() == id) {
                return fromRuns[slot];
            }
            int lo = 0;
            int hi = eventRuns.size() - 1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                EventPlanRun r = eventRuns.get(mid);
                if (id < r.cls().firstId()) {
                    hi = mid - 1;
                } else if (id > r.cls().lastId()) {
                    lo = mid + 1;
                } else {
                    EventPlan ep = new EventPlan(r.cls().get(id - r.cls().firstId()), this);
                    ep.context = r.template().context;
                    ep.payload = r.template().payload;
                    if (fromRuns == null) {
                        fromRuns = new EventPlan[1024];
                    }
                    fromRuns[slot] = ep;
                    return ep;
                }
            }
            return null;
        }

        /** Number of event classes. */
        public long eventCount() {
            long n = events.size();
            for (EventPlanRun r : eventRuns) {
                n += r.cls().count();
            }
            return n;
        }

        /** The plan of the only event class (see {@link #eventCount()}). */
        public EventPlan onlyEvent() {
            return events.isEmpty()
                    ? event(eventRuns.getFirst().cls().firstId())
                    : events.values().iterator().next();
        }

        /** Every distinct plan of an event class: one per class, one per run. */
        public List<EventPlan> distinctEvents() {
            List<EventPlan> all = new ArrayList<>(events.values());
            for (EventPlanRun r : eventRuns) {
                all.add(r.template());
            }
            return all;
        }
    }

    /** A run of event classes and the plan they share. */
    public record EventPlanRun(EventClassRun cls, EventPlan template) {}

    /** Decode plan of one event class. */
    public static final class EventPlan {
        public final EventClass cls;
        public final StreamPlan stream;
        public Node context;
        public Node payload;
        /** The name as printed, in UTF-8 (set by the first printer that needs it). */
        public byte[] nameBytes;

        EventPlan(EventClass cls, StreamPlan stream) {
            this.cls = cls;
            this.stream = stream;
        }
    }

    /**
     * A member's name as shown: CTF 1.8 removes one leading underscore (as its specification
     * asks), CTF 2 shows names as they are.
     */
    public static String shownName(TraceClass trace, String raw) {
        return trace.major() < 2 ? displayName(raw) : raw;
    }

    /** A CTF 1.8 name as shown: without one leading underscore. */
    static String displayName(String raw) {
        return raw.startsWith("_") ? raw.substring(1) : raw;
    }

    /** Where a scope sits in the dynamic scope hierarchy; also the order in which scopes are decoded. */
    enum Scope {
        PACKET_HEADER("trace.packet.header"),
        PACKET_CONTEXT("stream.packet.context"),
        EVENT_HEADER("stream.event.header"),
        EVENT_CONTEXT("stream.event.context"),
        EVENT_SPECIFIC_CONTEXT("event.context"),
        EVENT_PAYLOAD("event.fields");

        final String prefix;

        Scope(String prefix) {
            this.prefix = prefix;
        }
    }

    TracePlan(TraceClass trace, List<ClockClass> clocks, Node packetHeader) {
        this.trace = trace;
        this.clocks = clocks;
        this.packetHeader = packetHeader;
    }

    public static TracePlan compile(TraceClass trace) throws MetadataException {
        return new PlanCompiler(trace, CHAIN_MIN_LEVELS).compile();
    }

    /** Chains of nested structs (see {@link StructChain}) at least this deep are compiled as one CHAIN node. */
    static final int CHAIN_MIN_LEVELS = 64;

    /** Compiles with CHAIN nodes from {@code chainMinLevels} levels (for tests: {@link Integer#MAX_VALUE} for none). */
    static TracePlan compile(TraceClass trace, int chainMinLevels) throws MetadataException {
        return new PlanCompiler(trace, chainMinLevels).compile();
    }

    public int clockIndex(String name) {
        for (int i = 0; i < clocks.size(); i++) {
            if (clocks.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }
}

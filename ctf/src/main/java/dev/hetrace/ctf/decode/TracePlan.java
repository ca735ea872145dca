package dev.hetrace.ctf.decode;

import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.ctf.metadata.EventClass;
import dev.hetrace.ctf.metadata.EventClassRun;
import dev.hetrace.ctf.metadata.FieldPath;
import dev.hetrace.ctf.metadata.FieldType;
import dev.hetrace.ctf.metadata.FieldType.ArrayType;
import dev.hetrace.ctf.metadata.FieldType.BlobType;
import dev.hetrace.ctf.metadata.FieldType.BoolType;
import dev.hetrace.ctf.metadata.FieldType.EnumMapping;
import dev.hetrace.ctf.metadata.FieldType.EnumType;
import dev.hetrace.ctf.metadata.FieldType.FloatType;
import dev.hetrace.ctf.metadata.FieldType.IntegerType;
import dev.hetrace.ctf.metadata.FieldType.OptionalType;
import dev.hetrace.ctf.metadata.FieldType.SequenceType;
import dev.hetrace.ctf.metadata.FieldType.StringType;
import dev.hetrace.ctf.metadata.FieldType.StructType;
import dev.hetrace.ctf.metadata.FieldType.VarIntType;
import dev.hetrace.ctf.metadata.FieldType.VariantType;
import dev.hetrace.ctf.metadata.MemberList;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.Role;
import dev.hetrace.ctf.metadata.StreamClass;
import dev.hetrace.ctf.metadata.StreamClassRun;
import dev.hetrace.ctf.metadata.StructChain;
import dev.hetrace.ctf.metadata.TraceClass;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
    private final Map<Long, StreamPlan> fromRuns = new java.util.HashMap<>();
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
        return streams.isEmpty() ? stream(streamRuns.getFirst().cls().firstId()) : streams.values().iterator().next();
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
            return events.isEmpty() ? event(eventRuns.getFirst().cls().firstId()) : events.values().iterator().next();
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

    private TracePlan(TraceClass trace, List<ClockClass> clocks, Node packetHeader) {
        this.trace = trace;
        this.clocks = clocks;
        this.packetHeader = packetHeader;
    }

    public static TracePlan compile(TraceClass trace) throws MetadataException {
        return new Compiler(trace).compile();
    }

    /** Chains of nested structs (see {@link StructChain}) at least this deep are compiled as one CHAIN node. */
    static final int CHAIN_MIN_LEVELS = 64;

    /** Compiles with CHAIN nodes from {@code chainMinLevels} levels (for tests: {@link Integer#MAX_VALUE} for none). */
    static TracePlan compile(TraceClass trace, int chainMinLevels) throws MetadataException {
        Compiler c = new Compiler(trace);
        c.chainMinLevels = chainMinLevels;
        return c.compile();
    }

    public int clockIndex(String name) {
        for (int i = 0; i < clocks.size(); i++) {
            if (clocks.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    // ------------------------------------------------------------------------------------------

    private static final class Compiler {
        private final TraceClass trace;
        private final List<ClockClass> clocks;
        private int registers;
        /** Roots of the scopes compiled so far for the current event, by scope. */
        private final Node[] roots = new Node[Scope.values().length];
        private Scope current;
        /** Chains of nested structs at least this deep become CHAIN nodes; shallower ones, nested STRUCT nodes. */
        private int chainMinLevels = CHAIN_MIN_LEVELS;
        private long deepestChain;
        /** Structs being compiled, innermost first, with the number of members done so far. */
        private final Deque<Frame> frames = new ArrayDeque<>();
        /** CTF 2 metadata says roles and clocks explicitly and names fields as they are shown. */
        private final boolean ctf2;

        private record Frame(Node struct, int[] done) {}

        Compiler(TraceClass trace) {
            this.trace = trace;
            this.clocks = new ArrayList<>(trace.clocks().values());
            this.ctf2 = trace.major() == 2;
        }

        TracePlan compile() throws MetadataException {
            Node header = compileScope(Scope.PACKET_HEADER, trace.packetHeader());
            place(header, Scope.PACKET_HEADER, 0, 0);
            forEachInt(header, n -> {
                if (n.clock >= 0) {
                    throw new MetadataException("trace.packet.header may not hold fields mapped to a clock");
                }
            });
            TracePlan plan = new TracePlan(trace, clocks, header);
            for (StreamClass sc : trace.streams().values()) {
                plan.streams.put(sc.id(), compileStream(sc));
            }
            for (StreamClassRun run : trace.streamRuns()) {
                plan.streamRuns.add(new StreamPlanRun(run, compileStream(run.get(run.firstId()))));
            }
            Visibility.apply(plan);
            plan.registerCount = registers;
            plan.deepestChain = deepestChain;
            return plan;
        }

        private StreamPlan compileStream(StreamClass sc) throws MetadataException {
            StreamPlan sp = new StreamPlan(sc);
            clearRootsFrom(Scope.PACKET_CONTEXT);
            sp.packetContext = compileScope(Scope.PACKET_CONTEXT, sc.packetContext());
            sp.eventHeader = compileScope(Scope.EVENT_HEADER, sc.eventHeader());
            sp.eventContext = compileScope(Scope.EVENT_CONTEXT, sc.eventContext());
            place(sp.packetContext, Scope.PACKET_CONTEXT, sc.id(), 0);
            place(sp.eventHeader, Scope.EVENT_HEADER, sc.id(), 0);
            place(sp.eventContext, Scope.EVENT_CONTEXT, sc.id(), 0);
            long maxId = -1;
            for (EventClass ec : sc.events().values()) {
                sp.events.put(ec.id(), compileEvent(ec, sp));
                maxId = Math.max(maxId, ec.id());
            }
            for (EventClassRun run : sc.eventRuns()) {
                sp.eventRuns.add(new EventPlanRun(run, compileEvent(run.get(0), sp)));
            }
            if (maxId < 65536) {
                sp.eventsById = new EventPlan[(int) maxId + 1];
                for (EventPlan ep : sp.events.values()) {
                    sp.eventsById[(int) ep.cls.id()] = ep;
                }
            }
            autoMapClock(sp.packetContext, Set.of("timestamp_begin", "timestamp_end"));
            autoMapClock(sp.eventHeader, Set.of("timestamp"));
            sp.defaultClock = defaultClock(sp);
            return sp;
        }

        private EventPlan compileEvent(EventClass ec, StreamPlan sp) throws MetadataException {
            clearRootsFrom(Scope.EVENT_SPECIFIC_CONTEXT);
            EventPlan ep = new EventPlan(ec, sp);
            ep.context = compileScope(Scope.EVENT_SPECIFIC_CONTEXT, ec.context());
            ep.payload = compileScope(Scope.EVENT_PAYLOAD, ec.payload());
            place(ep.context, Scope.EVENT_SPECIFIC_CONTEXT, ec.streamId(), ec.id());
            place(ep.payload, Scope.EVENT_PAYLOAD, ec.streamId(), ec.id());
            return ep;
        }

        /** Gives the nodes of a scope the places where CTF 2 metadata defines them (see {@link Node#place}). */
        private void place(Node root, Scope scope, long streamId, long eventId) {
            String place = trace.places().get(TraceClass.placeKey(scope.prefix, streamId, eventId));
            if (root != null && place != null) {
                place(root, place);
            }
        }

        /** {@code n} is at {@code place}; its members, options and elements at their JSON paths below it. */
        private static void place(Node n, String place) {
            n.place = place;
            switch (n.kind) {
                case Node.STRUCT -> {
                    MemberList members = n.type instanceof StructType st && st.members() instanceof MemberList ml ? ml : null;
                    for (int i = 0; i < n.children.length; i++) {
                        int member = members != null ? members.entryStart(i) : i;
                        place(n.children[i], place + ".member-classes[" + member + "].field-class");
                    }
                }
                case Node.VARIANT -> {
                    MemberList options = n.type instanceof VariantType vt && vt.options() instanceof MemberList ml ? ml : null;
                    for (int i = 0; i < n.children.length; i++) {
                        int option = options != null ? options.entryStart(i) : i;
                        place(n.children[i], place + ".options[" + option + "].field-class");
                    }
                }
                case Node.OPTIONAL -> place(n.element(), place + ".field-class");
                case Node.ARRAY, Node.SEQUENCE, Node.PACKED_ARRAY, Node.PACKED_SEQUENCE -> {
                    for (Node c : n.children) {
                        place(c, place + ".element-field-class");
                    }
                }
                default -> {
                    for (Node c : n.children) {
                        place(c, place);
                    }
                }
            }
        }

        private void clearRootsFrom(Scope s) {
            for (int i = s.ordinal(); i < roots.length; i++) {
                roots[i] = null;
            }
        }

        /**
         * As babeltrace2 does, integers named like timestamps that say no {@code map} sample the
         * trace's only clock (or an implicit 1 GHz clock when it declares none).
         */
        private void autoMapClock(Node root, Set<String> names) throws MetadataException {
            if (ctf2) {
                return;
            }
            List<Node> found = new ArrayList<>();
            collectNamedInts(root, names, found);
            for (Node n : found) {
                if (n.clock >= 0) {
                    continue;
                }
                if (clocks.isEmpty()) {
                    clocks.add(ClockClass.defaultClock());
                } else if (clocks.size() > 1) {
                    throw new MetadataException("field '" + String.join("/", names) + "' is not mapped to a clock and"
                        + " the trace has several clocks: say which with map = clock.NAME.value");
                }
                n.clock = 0;
            }
        }

        private static void collectNamedInts(Node n, Set<String> names, List<Node> out) {
            if (n == null) {
                return;
            }
            boolean named = n.kind == Node.STRUCT || n.kind == Node.VARIANT;
            for (int i = 0; i < n.children.length; i++) {
                Node c = n.children[i];
                if (named && c.kind == Node.INT && names.contains(n.rawNames[i])) {
                    out.add(c);
                }
                if (named) {
                    collectNamedInts(c.kind == Node.CHAIN ? c.element() : c, names, out);
                }
            }
        }

        private int defaultClock(StreamPlan sp) throws MetadataException {
            int[] found = {-1};
            List<Node> scopes = new ArrayList<>();
            scopes.add(sp.packetContext);
            scopes.add(sp.eventHeader);
            scopes.add(sp.eventContext);
            for (EventPlan ep : sp.distinctEvents()) {
                scopes.add(ep.context);
                scopes.add(ep.payload);
            }
            for (Node root : scopes) {
                forEachInt(root, n -> {
                    if (n.clock >= 0) {
                        if (found[0] >= 0 && found[0] != n.clock) {
                            throw new MetadataException("stream " + sp.cls.id() + " maps fields to two clocks ("
                                + clocks.get(found[0]).name() + " and " + clocks.get(n.clock).name() + ")");
                        }
                        found[0] = n.clock;
                    }
                });
            }
            return found[0];
        }

        private interface NodeAction {
            void accept(Node n) throws MetadataException;
        }

        static void forEachInt(Node n, NodeAction action) throws MetadataException {
            if (n == null) {
                return;
            }
            if (n.kind == Node.INT || n.kind == Node.BIG_INT) {
                action.accept(n);
            }
            for (Node c : n.children) {
                forEachInt(c, action);
            }
        }

        private Node compileScope(Scope scope, StructType type) throws MetadataException {
            if (type == null) {
                return null;
            }
            current = scope;
            frames.clear();
            Node root = compile(type, null, 0);
            roots[scope.ordinal()] = root;
            assignRoles(scope, root);
            return root;
        }

        /**
         * Roles: in CTF 2, those the metadata gives; in CTF 1.8, those babeltrace2 gives by name
         * (top-level members of the packet scopes, any "id" of the event header).
         */
        private void assignRoles(Scope scope, Node root) throws MetadataException {
            if (ctf2) {
                rolesFromMetadata(scope, root);
                return;
            }
            switch (scope) {
                case PACKET_HEADER -> {
                    role(root, "magic", Node.ROLE_MAGIC);
                    role(root, "stream_id", Node.ROLE_STREAM_ID);
                    role(root, "stream_instance_id", Node.ROLE_STREAM_INSTANCE_ID);
                    int uuid = root.memberIndex("uuid");
                    if (uuid >= 0) {
                        Node u = root.children[uuid];
                        if (u.kind != Node.PACKED_ARRAY || u.length != 16 || u.element().kind != Node.INT
                                || u.element().size != 8) {
                            throw new MetadataException("trace.packet.header.uuid must be an array of 16 bytes");
                        }
                        u.role = Node.ROLE_UUID;
                    }
                }
                case PACKET_CONTEXT -> {
                    role(root, "timestamp_begin", Node.ROLE_TIMESTAMP_BEGIN);
                    role(root, "timestamp_end", Node.ROLE_TIMESTAMP_END);
                    role(root, "events_discarded", Node.ROLE_EVENTS_DISCARDED);
                    role(root, "packet_size", Node.ROLE_PACKET_SIZE);
                    role(root, "content_size", Node.ROLE_CONTENT_SIZE);
                    role(root, "packet_seq_num", Node.ROLE_PACKET_SEQ_NUM);
                }
                case EVENT_HEADER -> markEventIds(root);
                default -> { }
            }
        }

        /** Every integer named "id", at any depth of the event header, carries the event class id. */
        private static void markEventIds(Node n) {
            for (int i = 0; i < n.children.length; i++) {
                Node c = n.children[i];
                boolean named = n.kind == Node.STRUCT || n.kind == Node.VARIANT;
                if (named && c.kind == Node.INT && n.rawNames[i].equals("id")) {
                    c.role = Node.ROLE_EVENT_ID;
                }
                markEventIds(c);
            }
        }

        /**
         * CTF 2 roles, as the metadata gives them (it checked which scope allows which), at any
         * depth of their scope.
         */
        private static void rolesFromMetadata(Scope scope, Node n) throws MetadataException {
            for (Node c : n.children) {
                Set<Role> roles = switch (c.type) {
                    case IntegerType it -> it.roles();
                    case EnumType et -> et.container().roles();
                    case VarIntType vt -> vt.roles();
                    case ArrayType at -> at.roles();
                    case BlobType bt -> bt.roles();
                    default -> Set.of();
                };
                for (Role r : roles) {
                    c.role = switch (r) {
                        case PACKET_MAGIC_NUMBER -> Node.ROLE_MAGIC;
                        case METADATA_STREAM_UUID -> Node.ROLE_UUID;
                        case DATA_STREAM_CLASS_ID -> Node.ROLE_STREAM_ID;
                        case DATA_STREAM_ID -> Node.ROLE_STREAM_INSTANCE_ID;
                        case PACKET_TOTAL_LENGTH -> Node.ROLE_PACKET_SIZE;
                        case PACKET_CONTENT_LENGTH -> Node.ROLE_CONTENT_SIZE;
                        case DEFAULT_CLOCK_TIMESTAMP -> scope == Scope.PACKET_CONTEXT ? Node.ROLE_TIMESTAMP_BEGIN
                            : Node.ROLE_NONE;
                        case PACKET_END_DEFAULT_CLOCK_TIMESTAMP -> Node.ROLE_TIMESTAMP_END;
                        case DISCARDED_EVENT_RECORD_COUNTER_SNAPSHOT -> Node.ROLE_EVENTS_DISCARDED;
                        case PACKET_SEQUENCE_NUMBER -> Node.ROLE_PACKET_SEQ_NUM;
                        case EVENT_RECORD_CLASS_ID -> Node.ROLE_EVENT_ID;
                    };
                    if (c.role == Node.ROLE_UUID && (c.kind != Node.PACKED_ARRAY || c.length != 16)) {
                        throw new MetadataException("the metadata stream UUID must be a BLOB of 16 bytes");
                    }
                    if (c.role == Node.ROLE_EVENT_ID && c.kind != Node.INT && c.kind != Node.VARINT) {
                        throw new MetadataException("an event record class id must be an integer of at most 64 bits");
                    }
                }
                rolesFromMetadata(scope, c);
            }
        }

        private void role(Node root, String name, int role) {
            int i = root.memberIndex(name);
            if (i >= 0 && (root.children[i].kind == Node.INT)) {
                root.children[i].role = role;
            }
        }

        private Node compile(FieldType type, Node parentStruct, int depth) throws MetadataException {
            if (depth > MAX_NESTING) {
                throw new MetadataException("field types are nested more than " + MAX_NESTING + " levels deep");
            }
            return switch (type) {
                case IntegerType it -> integer(it, type);
                case EnumType et -> {
                    Node n = integer(et.container(), type);
                    n.enumTable = EnumTable.of(et);
                    yield n;
                }
                case FloatType ft -> bits(Node.FLOAT, type, ft.alignment(), ft.size(), ft.byteOrder());
                case StringType st -> {
                    Node n = new Node(Node.STRING, type, 8);
                    n.charset = st.encoding() == FieldType.Encoding.ASCII ? FieldType.Encoding.UTF8 : st.encoding();
                    n.minBits = 8L * n.charset.unitBytes();
                    yield n;
                }
                case FieldType.BitArrayType ba -> bitArray(ba);
                case StructType st when st.members() instanceof StructChain chain && chain.levels() >= chainMinLevels
                    -> chain(st, chain, parentStruct, depth);
                case StructType st -> {
                    Node n = new Node(Node.STRUCT, type, st.alignment());
                    MemberList ml = st.members() instanceof MemberList x ? x : null;
                    int count = ml != null ? ml.entryCount() : st.members().size();
                    n.children = new Node[count];
                    n.rawNames = new String[count];
                    n.names = new String[count];
                    n.nameEquals = new byte[count][];
                    int[] done = {0};
                    frames.push(new Frame(n, done));
                    try {
                        long min = 0;
                        for (int i = 0; i < count; i++) {
                            var m = ml != null ? ml.entryMember(i) : st.members().get(i);
                            n.rawNames[i] = m.name();
                            n.names[i] = shown(m.name());
                            n.nameEquals[i] = (dev.hetrace.ctf.text.TerminalText.controls(n.names[i]) + " = ").getBytes(java.nio.charset.StandardCharsets.UTF_8);
                            if (ml != null && ml.isRun(i) && ml.entrySize(i) > 1) {
                                n.children[i] = run(ml, i, compile(m.type(), n, depth + 1));
                            } else {
                                n.children[i] = compile(m.type(), n, depth + 1);
                                n.children[i].source = m;
                            }
                            min += n.children[i].minBits;
                            done[0] = i + 1;
                        }
                        n.minBits = min;
                    } finally {
                        frames.pop();
                    }
                    yield n;
                }
                case VariantType vt -> variant(vt, depth);
                case OptionalType ot -> optional(ot, parentStruct, depth);
                case BlobType bt -> blob(bt);
                case BoolType bt -> bits(Node.BOOL, type, bt.alignment(), bt.size(), bt.byteOrder());
                case VarIntType vt -> {
                    Node n = new Node(Node.VARINT, type, 8);
                    n.signed = vt.signed();
                    n.base = vt.base();
                    n.size = 64; // the width of its value, for display
                    n.minBits = 8;
                    if (!vt.mappings().isEmpty()) {
                        n.enumTable = EnumTable.of(new EnumType(new IntegerType(64, 8, vt.signed(),
                            dev.hetrace.ctf.metadata.ByteOrder.LITTLE_ENDIAN, vt.base(), FieldType.Encoding.NONE, null),
                            vt.mappings()));
                    }
                    yield n;
                }
                case ArrayType at -> {
                    Node elem = compile(at.element(), parentStruct, depth + 1);
                    Node n = new Node(packable(elem) ? Node.PACKED_ARRAY : Node.ARRAY, type, elem.align);
                    n.children = new Node[] {elem};
                    n.length = at.length();
                    n.size = elem.size;
                    n.text = isText(at.element(), elem);
                    n.charset = charset(at.element());
                    n.minBits = saturatingMultiply(at.length(), elem.minBits);
                    yield n;
                }
                case SequenceType sq -> {
                    Located length = locate(sq.length(), sq.lengthField(), "sequence length");
                    for (Node target : length.targets()) {
                        IntegerType lt = target.type instanceof EnumType e ? e.container()
                            : target.type instanceof IntegerType i ? i : null;
                        boolean unsignedVarInt = target.type instanceof VarIntType vi && !vi.signed();
                        if ((lt == null || lt.signed()) && !unsignedVarInt) {
                            throw new MetadataException("sequence length '" + sq.length() + "' must be an unsigned integer"
                                + " field");
                        }
                    }
                    Node elem = compile(sq.element(), parentStruct, depth + 1);
                    Node n = new Node(packable(elem) ? Node.PACKED_SEQUENCE : Node.SEQUENCE, type, elem.align);
                    n.children = new Node[] {elem};
                    n.sourceRegister = registerOf(length, n);
                    n.size = elem.size;
                    n.text = isText(sq.element(), elem);
                    n.charset = charset(sq.element());
                    yield n;
                }
            };
        }

        /** A node of {@code size} bits read as they are (a float, a boolean). */
        private static Node bits(int kind, FieldType type, int alignment, int size,
                                 dev.hetrace.ctf.metadata.ByteOrder order) {
            Node n = new Node(kind, type, alignment);
            n.size = size;
            n.bigEndian = order == dev.hetrace.ctf.metadata.ByteOrder.BIG_ENDIAN;
            n.minBits = size;
            return n;
        }

        /**
         * Nested structs of one shape (a {@link StructChain}) as one CHAIN node: the struct of
         * its innermost level, compiled as any struct, stands for every level. Its members
         * other than the core must take a fixed number of tape slots and be no tag or length
         * (one node serves every level); otherwise the chain is compiled as the nested structs
         * it stands for, when it is not too deep.
         */
        private Node chain(StructType st, StructChain chain, Node parentStruct, int depth) throws MetadataException {
            Node level = compile(chain.level(1), parentStruct, depth + 1);
            int h = chain.holeIndex();
            long before = 0;
            long after = 0;
            boolean ok = true;
            for (int i = 0; i < level.children.length && ok; i++) {
                if (i == h) {
                    continue;
                }
                long slots = Tape.fixedSpan(level.children[i]);
                ok = slots >= 0 && !usedByReference(level.children[i]);
                if (i < h) {
                    before += slots;
                } else {
                    after += slots;
                }
            }
            if (!ok || (before + after > 0 && chain.levels() > Integer.MAX_VALUE / (before + after))) {
                if (chain.levels() > 10_000) {
                    throw new MetadataException("structs nested " + chain.levels() + " levels deep whose members are"
                        + " of variable size or tags or lengths are not supported");
                }
                int saved = chainMinLevels;
                chainMinLevels = Integer.MAX_VALUE;
                try {
                    return compile(st, parentStruct, depth);
                } finally {
                    chainMinLevels = saved;
                }
            }
            Node n = new Node(Node.CHAIN, st, st.alignment());
            deepestChain = Math.max(deepestChain, chain.levels());
            n.children = new Node[] {level};
            n.length = chain.levels();
            n.chainHole = h;
            n.chainBeforeSlots = (int) before;
            n.chainAfterSlots = (int) after;
            n.runPrefix = chain.prefix();
            n.runDisplayPrefix = shown(chain.prefix()).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            n.runFirst = chain.first();
            long perLevel = level.minBits - level.children[h].minBits;
            long total = saturatingMultiply(chain.levels() - 1, perLevel) + level.minBits;
            n.minBits = total < 0 ? Long.MAX_VALUE : total;
            return n;
        }

        /** Whether a tag or length refers to {@code n} or a field in it. */
        private static boolean usedByReference(Node n) {
            if (n.referenced || n.register >= 0) {
                return true;
            }
            for (Node c : n.children) {
                if (usedByReference(c)) {
                    return true;
                }
            }
            return false;
        }

        /** A run of struct members of one type: decoded as an array, shown as members. */
        private Node run(MemberList ml, int entry, Node elem) {
            Node r = new Node(packable(elem) ? Node.PACKED_RUN : Node.RUN, elem.type, elem.align);
            r.children = new Node[] {elem};
            r.length = ml.entrySize(entry);
            r.size = elem.size;
            r.runPrefix = ml.runPrefix(entry);
            r.runDisplayPrefix = shown(r.runPrefix).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            r.runFirst = ml.runFirst(entry);
            r.minBits = saturatingMultiply(r.length, elem.minBits);
            return r;
        }

        private static long saturatingMultiply(long a, long b) {
            long hi = Math.multiplyHigh(a, b);
            long lo = a * b;
            return (hi != 0 || lo < 0) ? Long.MAX_VALUE : lo;
        }

        /** The encoding of the text of an array or sequence of {@code elementType} (UTF-8 when it is no text). */
        private static FieldType.Encoding charset(FieldType elementType) {
            return elementType instanceof IntegerType it && it.encoding().unitBytes() > 1 ? it.encoding()
                : FieldType.Encoding.UTF8;
        }

        /**
         * A CTF 2 bit array: an unsigned integer shown in hexadecimal, as babeltrace2 shows bit
         * arrays; a bit map also keeps the mask of each flag, to name the flags a value sets.
         */
        private static Node bitArray(FieldType.BitArrayType ba) {
            Node n = bits(Node.INT, ba, ba.alignment(), ba.size(), ba.byteOrder());
            n.base = 16;
            if (!ba.flags().isEmpty()) {
                List<String> names = new ArrayList<>();
                List<Long> masks = new ArrayList<>();
                for (FieldType.BitFlag f : ba.flags()) {
                    int i = names.indexOf(f.name());
                    if (i < 0) {
                        names.add(f.name());
                        masks.add(0L);
                        i = names.size() - 1;
                    }
                    long mask = masks.get(i);
                    for (long b = f.lowBit(); b <= f.highBit() && b < ba.size(); b++) {
                        mask |= 1L << b;
                    }
                    masks.set(i, mask);
                }
                n.flagNames = names.toArray(String[]::new);
                n.flagMasks = masks.stream().mapToLong(Long::longValue).toArray();
            }
            return n;
        }

        private static boolean isText(FieldType elementType, Node elem) {
            return elementType instanceof IntegerType it && it.size() == 8 && it.alignment() == 8
                && it.encoding() != FieldType.Encoding.NONE && elem.kind == Node.INT;
        }

        /** Scalars whose successive elements are adjacent: element i is at start + i * size. */
        private static boolean packable(Node elem) {
            return (elem.kind == Node.INT || elem.kind == Node.FLOAT) && elem.size % elem.align == 0
                && elem.register < 0 && elem.clock < 0;
        }

        private String shown(String raw) {
            return shownName(trace, raw);
        }

        private Node integer(IntegerType it, FieldType type) throws MetadataException {
            Node n = new Node(it.size() > 64 ? Node.BIG_INT : Node.INT, type, it.alignment());
            n.size = it.size();
            n.signed = it.signed();
            n.bigEndian = it.byteOrder() == dev.hetrace.ctf.metadata.ByteOrder.BIG_ENDIAN;
            n.minBits = it.size();
            n.base = it.base();
            if (it.mappedClock() != null) {
                n.clock = clockIndexOf(it.mappedClock());
            }
            return n;
        }

        private int clockIndexOf(String name) throws MetadataException {
            for (int i = 0; i < clocks.size(); i++) {
                if (clocks.get(i).name().equals(name)) {
                    return i;
                }
            }
            throw new MetadataException("integer is mapped to undeclared clock '" + name + "'");
        }

        private Node variant(VariantType vt, int depth) throws MetadataException {
            if (vt.tag() == null) {
                throw new MetadataException("variant has no tag");
            }
            Located tag = locate(vt.tag(), vt.tagField(), "variant tag");
            Node target = tag.targets().getFirst();
            EnumType tagType = target.type instanceof EnumType et ? et : null;
            boolean tagSigned;
            if (vt.optionRanges() != null) {
                tagSigned = switch (target.type) {
                    case EnumType et -> et.container().signed();
                    case IntegerType it -> it.signed();
                    case VarIntType vi -> vi.signed();
                    default -> throw new MetadataException("variant selector '" + vt.tag() + "' must be an integer field");
                };
            } else if (tagType == null) {
                throw new MetadataException("variant tag '" + vt.tag() + "' must be an enumeration field");
            } else {
                tagSigned = tagType.container().signed();
            }
            Node n = new Node(Node.VARIANT, vt, 1);
            MemberList options = vt.options() instanceof MemberList x ? x : new MemberList(vt.options());
            int count = options.entryCount();
            n.children = new Node[count];
            n.rawNames = new String[count];
            n.names = new String[count];
            n.tagSigned = tagSigned;
            n.sourceRegister = registerOf(tag, n);
            if (count != options.size()) {
                n.entryStart = new int[count];
                n.runPrefixes = new String[count];
                n.runFirsts = new long[count];
            }
            long min = Long.MAX_VALUE;
            for (int i = 0; i < count; i++) {
                var option = options.entryMember(i);
                n.rawNames[i] = option.name();
                n.names[i] = shown(option.name());
                n.children[i] = compile(option.type(), null, depth + 1);
                if (n.entryStart != null) {
                    n.entryStart[i] = options.entryStart(i);
                    if (options.isRun(i)) {
                        n.runPrefixes[i] = options.runPrefix(i);
                        n.runFirsts[i] = options.runFirst(i);
                    }
                }
                min = Math.min(min, n.children[i].minBits);
            }
            if (vt.optionRanges() != null) {
                n.selector = VariantSelector.ofRanges(tagSigned, vt.optionRanges());
            } else {
                EnumTable tags = target.enumTable != null ? target.enumTable : EnumTable.of(tagType);
                n.selector = VariantSelector.of(tags, options);
            }
            if (n.selector.isEmpty()) {
                throw new MetadataException("no option of the variant tagged by '" + vt.tag()
                    + "' is named by a label of the tag");
            }
            n.minBits = count == 0 ? 0 : min;
            return n;
        }

        private Node optional(OptionalType ot, Node parentStruct, int depth) throws MetadataException {
            Located selector = locate(ot.selector(), null, "optional selector");
            boolean bool = false;
            boolean signed = false;
            for (Node target : selector.targets()) {
                switch (target.type) {
                    case FieldType.BoolType bt -> bool = true;
                    case EnumType et -> signed = et.container().signed();
                    case IntegerType it -> signed = it.signed();
                    case VarIntType vi -> signed = vi.signed();
                    default -> throw new MetadataException("optional selector '" + ot.selector() + "' must be a boolean"
                        + " or an integer field");
                }
            }
            if (bool != (ot.selectorRanges() == null)) {
                throw new MetadataException("optional selector '" + ot.selector() + "' must be " + (bool
                    ? "an integer field: the optional has selector ranges" : "a boolean field: the optional has no"
                    + " selector ranges"));
            }
            Node content = compile(ot.content(), parentStruct, depth + 1);
            Node n = new Node(Node.OPTIONAL, ot, 1);
            n.children = new Node[] {content};
            n.tagSigned = signed;
            if (!bool) {
                List<EnumMapping> ranges = ot.selectorRanges();
                n.optionalRanges = new long[ranges.size() * 2];
                for (int i = 0; i < ranges.size(); i++) {
                    n.optionalRanges[2 * i] = ranges.get(i).low();
                    n.optionalRanges[2 * i + 1] = ranges.get(i).high();
                }
            }
            n.sourceRegister = registerOf(selector, n);
            n.minBits = 0;
            return n;
        }

        /** A BLOB: a packed array or sequence of bytes, shown as bytes. */
        private Node blob(BlobType bt) throws MetadataException {
            IntegerType byteType = new IntegerType(8, 8, false, dev.hetrace.ctf.metadata.ByteOrder.LITTLE_ENDIAN, 16,
                FieldType.Encoding.NONE, null);
            Node elem = integer(byteType, byteType);
            Node n = new Node(bt.lengthField() == null ? Node.PACKED_ARRAY : Node.PACKED_SEQUENCE, bt, 8);
            n.children = new Node[] {elem};
            n.size = 8;
            n.blob = true;
            n.mediaType = bt.mediaType();
            if (bt.lengthField() == null) {
                n.length = bt.length();
                n.minBits = saturatingMultiply(bt.length(), 8);
            } else {
                Located length = locate(bt.lengthField(), null, "BLOB length");
                for (Node target : length.targets()) {
                    boolean unsigned = switch (target.type) {
                        case EnumType et -> !et.container().signed();
                        case IntegerType it -> !it.signed();
                        case VarIntType vi -> !vi.signed();
                        default -> false;
                    };
                    if (!unsigned) {
                        throw new MetadataException("BLOB length '" + bt.lengthField() + "' must be an unsigned integer"
                            + " field");
                    }
                }
                n.sourceRegister = registerOf(length, n);
            }
            return n;
        }

        /**
         * The fields a length or selector path may name (several when it goes through variant
         * options: the one in the option decoded is the one), and the variants and optionals
         * on its way, whose decoded option the consumer checks (see {@link Node#guardRegisters}).
         */
        private record Located(List<Node> targets, List<Guard> guards) {}

        private record Guard(Node node, boolean[] allowed, int parent, int parentValue) {}

        private Located locate(FieldPath path, FieldType.Member lexical, String what) throws MetadataException {
            if (!ctf2) {
                return new Located(List.of(resolve(path, lexical, what)), List.of());
            }
            List<String> parts = path.parts();
            Node root = null;
            List<String> rest = parts;
            for (Scope s : Scope.values()) {
                String[] prefix = s.prefix.split("\\.");
                if (parts.size() > prefix.length && parts.subList(0, prefix.length).equals(List.of(prefix))) {
                    if (s.ordinal() > current.ordinal()) {
                        throw new MetadataException(what + " '" + path + "' refers to a later scope");
                    }
                    root = s == current ? frames.peekLast() == null ? null : frames.peekLast().struct()
                        : roots[s.ordinal()];
                    if (root == null) {
                        throw new MetadataException(what + " '" + path + "': scope " + s.prefix + " is not defined");
                    }
                    rest = parts.subList(prefix.length, parts.size());
                }
            }
            if (root == null) {
                // Relative: from the innermost struct.
                root = frames.isEmpty() ? null : frames.peekFirst().struct();
                if (root == null) {
                    throw new MetadataException(what + " '" + path + "' does not name a field declared before it");
                }
            }
            List<Node> targets = new ArrayList<>();
            List<Guard> guards = new ArrayList<>();
            reach(root, rest, 0, -1, -1, targets, guards, path, what);
            if (targets.isEmpty()) {
                throw new MetadataException(what + " '" + path + "' does not name a field declared before it");
            }
            if (guards.size() > 64) {
                throw new MetadataException(what + " '" + path + "' goes through more than 64 variants and optionals:"
                    + " not supported");
            }
            return new Located(targets, guards);
        }

        /**
         * Collects the fields {@code parts[k..]} names from {@code v}, the field {@code parts[k - 1]}
         * names (or the root struct): through arrays to their element, through optionals and
         * every option of variants (adding their checks), into structs by member name, among
         * the members compiled so far of the structs being compiled.
         */
        private void reach(Node v, List<String> parts, int k, int parent, int parentValue, List<Node> targets,
                           List<Guard> guards, FieldPath path, String what) throws MetadataException {
            switch (v.kind) {
                case Node.ARRAY, Node.SEQUENCE, Node.PACKED_ARRAY, Node.PACKED_SEQUENCE, Node.RUN, Node.PACKED_RUN ->
                    reach(v.element(), parts, k, parent, parentValue, targets, guards, path, what);
                case Node.VARIANT, Node.OPTIONAL -> {
                    Guard g = new Guard(v, new boolean[v.kind == Node.OPTIONAL ? 2 : v.children.length], parent,
                        parentValue);
                    int index = guards.size();
                    guards.add(g);
                    boolean any = false;
                    for (int o = 0; o < v.children.length; o++) {
                        int value = v.kind == Node.OPTIONAL ? 1 : o;
                        int before = targets.size();
                        int guardsBefore = guards.size();
                        reach(v.children[o], parts, k, index, value, targets, guards, path, what);
                        if (targets.size() > before) {
                            g.allowed()[value] = true;
                            any = true;
                        } else {
                            guards.subList(guardsBefore, guards.size()).clear();
                        }
                    }
                    if (!any) {
                        guards.remove(index);
                    }
                }
                case Node.STRUCT -> {
                    if (k == parts.size()) {
                        return;
                    }
                    // By name, as memberIndex, but also among the members not compiled yet (no node so far).
                    int i = -1;
                    for (int j = 0; j < v.rawNames.length && i < 0; j++) {
                        Node c = v.children[j];
                        if (v.rawNames[j].equals(parts.get(k)) && (c == null || (c.kind != Node.RUN
                                && c.kind != Node.PACKED_RUN))) {
                            i = j;
                        }
                    }
                    if (i < 0) {
                        return;
                    }
                    List<Frame> inward = new ArrayList<>(frames);
                    int f = -1;
                    for (int j = 0; j < inward.size(); j++) {
                        if (inward.get(j).struct() == v) {
                            f = j;
                        }
                    }
                    int done = f < 0 ? v.children.length : inward.get(f).done()[0];
                    if (i < done) {
                        reach(v.children[i], parts, k + 1, parent, parentValue, targets, guards, path, what);
                    } else if (i == done && f > 0 && k + 1 < parts.size()) {
                        // The member being compiled: on into the innermost struct in it being compiled, through
                        // the element, option or content being decoded.
                        reach(inward.get(f - 1).struct(), parts, k + 1, parent, parentValue, targets, guards, path,
                            what);
                    }
                }
                case Node.CHAIN -> throw new MetadataException(what + " '" + path + "' goes through " + v.length
                    + " nested structs of one shape, whose fields cannot be tags or lengths: not supported");
                default -> {
                    if (k == parts.size()) {
                        targets.add(v);
                    }
                }
            }
        }

        /**
         * One register for every field a location may name (each writes it when decoded), and
         * the checks of the variants and optionals on the way on {@code consumer}.
         */
        private int registerOf(Located located, Node consumer) throws MetadataException {
            int register = -1;
            for (Node t : located.targets()) {
                if (t.register >= 0) {
                    if (register >= 0 && register != t.register) {
                        throw new MetadataException("a field location that may name several fields, some of which other"
                            + " locations name: not supported");
                    }
                    register = t.register;
                }
            }
            if (register < 0) {
                register = registers++;
            }
            for (Node t : located.targets()) {
                t.register = register;
                t.referenced = true;
            }
            List<Guard> guards = located.guards();
            if (!guards.isEmpty()) {
                int count = guards.size();
                consumer.guardRegisters = new int[count];
                consumer.guardAllowed = new boolean[count][];
                consumer.guardParents = new int[count];
                consumer.guardParentValues = new int[count];
                for (int i = 0; i < count; i++) {
                    Guard g = guards.get(i);
                    if (g.node().register < 0) {
                        g.node().register = registers++;
                    }
                    consumer.guardRegisters[i] = g.node().register;
                    consumer.guardAllowed[i] = g.allowed();
                    consumer.guardParents[i] = g.parent();
                    consumer.guardParentValues[i] = g.parentValue();
                }
            }
            return register;
        }

        private int registerOf(Node target) {
            target.referenced = true;
            if (target.register < 0) {
                target.register = registers++;
            }
            return target.register;
        }

        /** Finds the field a tag or length path names: in the static scope first, then absolute. */
        private Node resolve(FieldPath path, FieldType.Member lexical, String what) throws MetadataException {
            List<String> parts = path.parts();
            if (lexical != null) {
                // The member the path named where it was written, found among the enclosing structs.
                for (Frame f : frames) {
                    for (int i = 0; i < f.done()[0]; i++) {
                        if (f.struct().children[i].source == lexical) {
                            return walk(f.struct().children[i], parts.subList(1, parts.size()), path, what, null);
                        }
                    }
                }
            }
            for (Scope s : Scope.values()) {
                String[] prefix = s.prefix.split("\\.");
                if (parts.size() > prefix.length && parts.subList(0, prefix.length).equals(List.of(prefix))) {
                    if (s.ordinal() > current.ordinal()) {
                        throw new MetadataException(what + " '" + path + "' refers to a later scope");
                    }
                    Node root = s == current ? frames.peekLast() == null ? null : frames.peekLast().struct()
                        : roots[s.ordinal()];
                    if (root == null) {
                        throw new MetadataException(what + " '" + path + "': scope " + s.prefix + " is not defined");
                    }
                    return walk(root, parts.subList(prefix.length, parts.size()), path, what,
                        s == current ? frames.peekLast() : null);
                }
            }
            if (parts.getFirst().equals("env")) {
                throw new MetadataException(what + " '" + path + "': env values cannot be used as lengths or tags");
            }
            // Relative: members declared before, in the innermost struct first.
            for (Frame f : frames) {
                for (int i = 0; i < f.done()[0]; i++) {
                    if (f.struct().rawNames[i].equals(parts.getFirst())) {
                        return walk(f.struct().children[i], parts.subList(1, parts.size()), path, what, null);
                    }
                }
            }
            // Then the earlier dynamic scopes, nearest first.
            for (int s = current.ordinal() - 1; s >= 0; s--) {
                Node root = roots[s];
                if (root != null && root.memberIndex(parts.getFirst()) >= 0) {
                    return walk(root, parts, path, what, null);
                }
            }
            throw new MetadataException(what + " '" + path + "' does not name a field declared before it");
        }

        private Node walk(Node from, List<String> parts, FieldPath path, String what, Frame limit)
                throws MetadataException {
            Node n = from;
            for (int k = 0; k < parts.size(); k++) {
                // A CTF 2 field location goes through arrays to the current element.
                while (ctf2 && (n.kind == Node.ARRAY || n.kind == Node.SEQUENCE)) {
                    n = n.element();
                }
                if (n.kind == Node.CHAIN) {
                    throw new MetadataException(what + " '" + path + "' goes through " + n.length + " nested structs"
                        + " of one shape, whose fields cannot be tags or lengths: not supported");
                }
                if (n.kind != Node.STRUCT) {
                    throw new MetadataException(what + " '" + path + "' goes through a field that is not a struct");
                }
                int i = n.memberIndex(parts.get(k));
                if (i < 0 && n.inRun(parts.get(k))) {
                    throw new MetadataException(what + " '" + path + "' names a member of a run of similar members"
                        + " that no relative reference named where it was declared: not supported");
                }
                if (i < 0 || (k == 0 && limit != null && n == limit.struct() && i >= limit.done()[0])) {
                    throw new MetadataException(what + " '" + path + "' does not name a field declared before it");
                }
                n = n.children[i];
            }
            return n;
        }
    }
}

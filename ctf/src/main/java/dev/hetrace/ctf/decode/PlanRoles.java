package dev.hetrace.ctf.decode;

import dev.hetrace.ctf.decode.TracePlan.EventPlan;
import dev.hetrace.ctf.decode.TracePlan.Scope;
import dev.hetrace.ctf.decode.TracePlan.StreamPlan;
import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.ctf.metadata.FieldType.ArrayType;
import dev.hetrace.ctf.metadata.FieldType.BlobType;
import dev.hetrace.ctf.metadata.FieldType.EnumType;
import dev.hetrace.ctf.metadata.FieldType.IntegerType;
import dev.hetrace.ctf.metadata.FieldType.StructType;
import dev.hetrace.ctf.metadata.FieldType.VarIntType;
import dev.hetrace.ctf.metadata.FieldType.VariantType;
import dev.hetrace.ctf.metadata.MemberList;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.Role;
import dev.hetrace.ctf.metadata.TraceClass;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What the nodes of a compiled scope mean beyond their type, set once they are compiled: their
 * roles (packet size, timestamps, event id...), the clocks their integers sample, and where
 * CTF 2 metadata defines them. Part of the {@link PlanCompiler}.
 */
final class PlanRoles {
    private PlanRoles() {}

    /** Gives the nodes of a scope the places where CTF 2 metadata defines them (see {@link Node#place}). */
    static void place(TraceClass trace, Node root, Scope scope, long streamId, long eventId) {
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
                MemberList members =
                        n.type instanceof StructType st && st.members() instanceof MemberList ml ? ml : null;
                for (int i = 0; i < n.children.length; i++) {
                    int member = members != null ? members.entryStart(i) : i;
                    place(n.children[i], place + ".member-classes[" + member + "].field-class");
                }
            }
            case Node.VARIANT -> {
                MemberList options =
                        n.type instanceof VariantType vt && vt.options() instanceof MemberList ml ? ml : null;
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

    /**
     * As babeltrace2 does, integers named like timestamps that say no {@code map} sample the
     * trace's only clock (or an implicit 1 GHz clock when it declares none).
     */
    static void autoMapClock(Node root, Set<String> names, boolean ctf2, List<ClockClass> clocks)
            throws MetadataException {
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

    static int defaultClock(StreamPlan sp, List<ClockClass> clocks) throws MetadataException {
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
                                + clocks.get(found[0]).name() + " and "
                                + clocks.get(n.clock).name() + ")");
                    }
                    found[0] = n.clock;
                }
            });
        }
        return found[0];
    }

    interface NodeAction {
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

    /**
     * Roles: in CTF 2, those the metadata gives; in CTF 1.8, those babeltrace2 gives by name
     * (top-level members of the packet scopes, any "id" of the event header).
     */
    static void assignRoles(Scope scope, Node root, boolean ctf2) throws MetadataException {
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
                    if (u.kind != Node.PACKED_ARRAY
                            || u.length != 16
                            || u.element().kind != Node.INT
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
            default -> {}
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
                    case DEFAULT_CLOCK_TIMESTAMP ->
                        scope == Scope.PACKET_CONTEXT ? Node.ROLE_TIMESTAMP_BEGIN : Node.ROLE_NONE;
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

    private static void role(Node root, String name, int role) {
        int i = root.memberIndex(name);
        if (i >= 0 && (root.children[i].kind == Node.INT)) {
            root.children[i].role = role;
        }
    }
}

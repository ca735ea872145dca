package dev.hetrace.view;

import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;

/**
 * The parts of Perfetto's trace format ({@code perfetto_trace.proto}, package
 * {@code perfetto.protos}) that {@link PerfettoTrace} writes: each field's number and wire type,
 * each enum value's number, as the schema gives them (a test reads the schema and checks each one).
 */
final class PerfettoProto {
    private PerfettoProto() {}

    static final int VARINT = 0;
    static final int FIXED64 = 1;
    static final int LENGTH = 2;

    /** A field of a message: its number and wire type, with its tag ready to write. */
    static final class Field {
        final String message;
        final String name;
        final int number;
        final int wire;
        final int tag;
        final int tagSize;

        Field(String message, String name, int number, int wire) {
            this.message = message;
            this.name = name;
            this.number = number;
            this.wire = wire;
            this.tag = number << 3 | wire;
            this.tagSize = CodedOutputStream.computeUInt32SizeNoTag(tag);
        }
    }

    /** A value of an enum of the schema. */
    record EnumValue(String enumName, String name, int number) {}

    static final Field TRACE_PACKET = new Field("Trace", "packet", 1, LENGTH);

    static final Field PACKET_TIMESTAMP = new Field("TracePacket", "timestamp", 8, VARINT);
    static final Field PACKET_CLOCK_ID = new Field("TracePacket", "timestamp_clock_id", 58, VARINT);
    static final Field PACKET_TRACK_EVENT = new Field("TracePacket", "track_event", 11, LENGTH);
    static final Field PACKET_TRACK_DESCRIPTOR = new Field("TracePacket", "track_descriptor", 60, LENGTH);
    static final Field PACKET_CLOCK_SNAPSHOT = new Field("TracePacket", "clock_snapshot", 6, LENGTH);
    static final Field PACKET_SEQUENCE_ID = new Field("TracePacket", "trusted_packet_sequence_id", 10, VARINT);
    static final Field PACKET_INTERNED_DATA = new Field("TracePacket", "interned_data", 12, LENGTH);
    static final Field PACKET_SEQUENCE_FLAGS = new Field("TracePacket", "sequence_flags", 13, VARINT);

    static final Field EVENT_TYPE = new Field("TrackEvent", "type", 9, VARINT);
    static final Field EVENT_TRACK_UUID = new Field("TrackEvent", "track_uuid", 11, VARINT);
    static final Field EVENT_NAME_IID = new Field("TrackEvent", "name_iid", 10, VARINT);
    static final Field EVENT_DOUBLE_COUNTER_VALUE = new Field("TrackEvent", "double_counter_value", 44, FIXED64);
    static final Field EVENT_COUNTER_VALUE = new Field("TrackEvent", "counter_value", 30, VARINT);
    static final Field EVENT_FLOW_IDS = new Field("TrackEvent", "flow_ids", 47, FIXED64);
    static final Field EVENT_TERMINATING_FLOW_IDS = new Field("TrackEvent", "terminating_flow_ids", 48, FIXED64);
    static final Field EVENT_DEBUG_ANNOTATIONS = new Field("TrackEvent", "debug_annotations", 4, LENGTH);

    static final Field ANNOTATION_NAME_IID = new Field("DebugAnnotation", "name_iid", 1, VARINT);
    static final Field ANNOTATION_BOOL = new Field("DebugAnnotation", "bool_value", 2, VARINT);
    static final Field ANNOTATION_INT = new Field("DebugAnnotation", "int_value", 4, VARINT);

    static final Field INTERNED_EVENT_NAMES = new Field("InternedData", "event_names", 2, LENGTH);
    static final Field INTERNED_ANNOTATION_NAMES = new Field("InternedData", "debug_annotation_names", 3, LENGTH);
    static final Field EVENT_NAME_IID_FIELD = new Field("EventName", "iid", 1, VARINT);
    static final Field EVENT_NAME_NAME = new Field("EventName", "name", 2, LENGTH);
    static final Field ANNOTATION_NAME_IID_FIELD = new Field("DebugAnnotationName", "iid", 1, VARINT);
    static final Field ANNOTATION_NAME_NAME = new Field("DebugAnnotationName", "name", 2, LENGTH);

    static final Field TRACK_UUID = new Field("TrackDescriptor", "uuid", 1, VARINT);
    static final Field TRACK_PARENT_UUID = new Field("TrackDescriptor", "parent_uuid", 5, VARINT);
    static final Field TRACK_NAME = new Field("TrackDescriptor", "name", 2, LENGTH);
    static final Field TRACK_DESCRIPTION = new Field("TrackDescriptor", "description", 14, LENGTH);
    static final Field TRACK_COUNTER = new Field("TrackDescriptor", "counter", 8, LENGTH);
    static final Field TRACK_CHILD_ORDERING = new Field("TrackDescriptor", "child_ordering", 11, VARINT);
    static final Field TRACK_SIBLING_ORDER_RANK = new Field("TrackDescriptor", "sibling_order_rank", 12, VARINT);

    static final Field COUNTER_UNIT = new Field("CounterDescriptor", "unit", 3, VARINT);
    static final Field COUNTER_UNIT_NAME = new Field("CounterDescriptor", "unit_name", 6, LENGTH);
    static final Field COUNTER_Y_AXIS_SHARE_KEY = new Field("CounterDescriptor", "y_axis_share_key", 7, LENGTH);

    static final Field SNAPSHOT_CLOCKS = new Field("ClockSnapshot", "clocks", 1, LENGTH);
    static final Field SNAPSHOT_PRIMARY_CLOCK = new Field("ClockSnapshot", "primary_trace_clock", 2, VARINT);
    static final Field CLOCK_ID = new Field("ClockSnapshot.Clock", "clock_id", 1, VARINT);
    static final Field CLOCK_TIMESTAMP = new Field("ClockSnapshot.Clock", "timestamp", 2, VARINT);

    static final List<Field> FIELDS = List.of(
            TRACE_PACKET,
            PACKET_TIMESTAMP,
            PACKET_CLOCK_ID,
            PACKET_TRACK_EVENT,
            PACKET_TRACK_DESCRIPTOR,
            PACKET_CLOCK_SNAPSHOT,
            PACKET_SEQUENCE_ID,
            PACKET_INTERNED_DATA,
            PACKET_SEQUENCE_FLAGS,
            EVENT_TYPE,
            EVENT_TRACK_UUID,
            EVENT_NAME_IID,
            EVENT_DOUBLE_COUNTER_VALUE,
            EVENT_COUNTER_VALUE,
            EVENT_FLOW_IDS,
            EVENT_TERMINATING_FLOW_IDS,
            EVENT_DEBUG_ANNOTATIONS,
            ANNOTATION_NAME_IID,
            ANNOTATION_BOOL,
            ANNOTATION_INT,
            INTERNED_EVENT_NAMES,
            INTERNED_ANNOTATION_NAMES,
            EVENT_NAME_IID_FIELD,
            EVENT_NAME_NAME,
            ANNOTATION_NAME_IID_FIELD,
            ANNOTATION_NAME_NAME,
            TRACK_UUID,
            TRACK_PARENT_UUID,
            TRACK_NAME,
            TRACK_DESCRIPTION,
            TRACK_COUNTER,
            TRACK_CHILD_ORDERING,
            TRACK_SIBLING_ORDER_RANK,
            COUNTER_UNIT,
            COUNTER_UNIT_NAME,
            COUNTER_Y_AXIS_SHARE_KEY,
            SNAPSHOT_CLOCKS,
            SNAPSHOT_PRIMARY_CLOCK,
            CLOCK_ID,
            CLOCK_TIMESTAMP);

    static final EnumValue SLICE_BEGIN = new EnumValue("TrackEvent.Type", "TYPE_SLICE_BEGIN", 1);
    static final EnumValue SLICE_END = new EnumValue("TrackEvent.Type", "TYPE_SLICE_END", 2);
    static final EnumValue INSTANT = new EnumValue("TrackEvent.Type", "TYPE_INSTANT", 3);
    static final EnumValue COUNTER = new EnumValue("TrackEvent.Type", "TYPE_COUNTER", 4);
    static final EnumValue INCREMENTAL_STATE_CLEARED =
            new EnumValue("TracePacket.SequenceFlags", "SEQ_INCREMENTAL_STATE_CLEARED", 1);
    static final EnumValue NEEDS_INCREMENTAL_STATE =
            new EnumValue("TracePacket.SequenceFlags", "SEQ_NEEDS_INCREMENTAL_STATE", 2);
    static final EnumValue BOOTTIME = new EnumValue("BuiltinClock", "BUILTIN_CLOCK_BOOTTIME", 6);
    static final EnumValue ORDER_EXPLICIT = new EnumValue("TrackDescriptor.ChildTracksOrdering", "EXPLICIT", 3);
    static final EnumValue UNIT_COUNT = new EnumValue("CounterDescriptor.Unit", "UNIT_COUNT", 2);

    static final List<EnumValue> ENUM_VALUES = List.of(
            SLICE_BEGIN,
            SLICE_END,
            INSTANT,
            COUNTER,
            INCREMENTAL_STATE_CLEARED,
            NEEDS_INCREMENTAL_STATE,
            BOOTTIME,
            ORDER_EXPLICIT,
            UNIT_COUNT);

    /** The first clock id a sequence may define for itself (64 to 127: sequence-scoped, ClockSnapshot.Clock). */
    static final int FIRST_OWN_CLOCK = 64;

    static final int LAST_OWN_CLOCK = 127;

    /**
     * A message built in memory, for the few packets written once per track or name (the
     * descriptors, the interned names, the clock snapshots); the events are written straight to
     * the output ({@link PerfettoTrace}).
     */
    static final class Message {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        private final CodedOutputStream out = CodedOutputStream.newInstance(bytes, 256);

        Message varint(Field f, long v) throws IOException {
            out.writeUInt32NoTag(f.tag);
            out.writeUInt64NoTag(v);
            return this;
        }

        Message string(Field f, String s) throws IOException {
            out.writeUInt32NoTag(f.tag);
            out.writeStringNoTag(s);
            return this;
        }

        Message message(Field f, Message m) throws IOException {
            byte[] b = m.toByteArray();
            out.writeUInt32NoTag(f.tag);
            out.writeUInt32NoTag(b.length);
            out.writeRawBytes(b);
            return this;
        }

        byte[] toByteArray() throws IOException {
            out.flush();
            return bytes.toByteArray();
        }

        int size() throws IOException {
            out.flush();
            return bytes.size();
        }
    }
}

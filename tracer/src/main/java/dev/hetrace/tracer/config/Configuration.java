package dev.hetrace.tracer.config;

import dev.hetrace.tracer.config.FieldType.IntegerType;
import dev.hetrace.tracer.config.FieldType.Member;
import dev.hetrace.tracer.config.FieldType.StaticArrayType;
import dev.hetrace.tracer.config.FieldType.StructureType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * A barectf configuration, whichever format it was written in: the trace (its type and
 * environment) and the code generation options; plus hetrace's own additions (the sync
 * handshake), whose event record types are already among their data stream type's. Built by
 * {@link ConfigReader}.
 */
public record Configuration(Trace trace, CodeGenerationOptions options, Optional<SyncHandshake> sync) {

    /** The trace: its type and its environment (barectf's own entries first, then the user's). */
    public record Trace(TraceType type, Map<String, Object> environment) {
        public Trace {
            environment = Collections.unmodifiableMap(new LinkedHashMap<>(environment));
        }
    }

    public enum ByteOrder {
        LITTLE_ENDIAN,
        BIG_ENDIAN
    }

    /**
     * The trace type. Data stream types are sorted by name, which is how barectf numbers them.
     *
     * @param uuid the trace UUID, if any ({@code auto} was replaced by a fresh one)
     */
    public record TraceType(
            ByteOrder nativeByteOrder,
            Optional<UUID> uuid,
            TraceTypeFeatures features,
            List<DataStreamType> dataStreamTypes) {
        public TraceType {
            dataStreamTypes = List.copyOf(dataStreamTypes);
        }

        /** The packet header barectf derives from the features: magic, uuid, stream_id. */
        public StructureType packetHeader() {
            List<Member> members = new ArrayList<>();
            features.magic().ifPresent(ft -> members.add(new Member("magic", ft)));
            features.uuid().ifPresent(ft -> members.add(new Member("uuid", ft)));
            features.dataStreamTypeId().ifPresent(ft -> members.add(new Member("stream_id", ft)));
            return new StructureType(8, members);
        }

        /** The clock types some data stream type uses, sorted by name. */
        public List<ClockType> clockTypes() {
            return dataStreamTypes.stream()
                    .flatMap(d -> d.defaultClockType().stream())
                    .distinct()
                    .sorted(Comparator.comparing(ClockType::name))
                    .toList();
        }
    }

    /** Packet header features; an empty one is absent from the packet header. */
    public record TraceTypeFeatures(
            Optional<IntegerType> magic, Optional<StaticArrayType> uuid, Optional<IntegerType> dataStreamTypeId) {}

    /** A clock type; barectf emits it in the metadata only if a data stream type uses it. */
    public record ClockType(
            String name,
            long frequency,
            Optional<UUID> uuid,
            Optional<String> description,
            long precision,
            long offsetSeconds,
            long offsetCycles,
            boolean originIsUnixEpoch) {}

    /** Packet context features; an empty one is absent from the packet context. */
    public record PacketFeatures(
            IntegerType totalSize,
            IntegerType contentSize,
            Optional<IntegerType> beginningTimestamp,
            Optional<IntegerType> endTimestamp,
            Optional<IntegerType> discardedEventRecordsCounterSnapshot,
            Optional<IntegerType> sequenceNumber) {}

    /** Event record header features; an empty one is absent from the event header. */
    public record EventRecordFeatures(Optional<IntegerType> typeId, Optional<IntegerType> timestamp) {}

    /**
     * A data stream type. {@code id} is its index among the trace type's data stream types
     * sorted by name; event record types are sorted by name too, which gives their ids.
     */
    public record DataStreamType(
            String name,
            int id,
            Optional<ClockType> defaultClockType,
            PacketFeatures packetFeatures,
            EventRecordFeatures eventRecordFeatures,
            List<Member> packetContextExtraMembers,
            Optional<StructureType> eventRecordCommonContext,
            List<EventRecordType> eventRecordTypes) {
        public DataStreamType {
            packetContextExtraMembers = List.copyOf(packetContextExtraMembers);
            eventRecordTypes = List.copyOf(eventRecordTypes);
        }

        /** The packet context as barectf lays it out: sizes, times, counters, then the extra members. */
        public StructureType packetContext() {
            List<Member> m = new ArrayList<>();
            m.add(new Member("packet_size", packetFeatures.totalSize()));
            m.add(new Member("content_size", packetFeatures.contentSize()));
            packetFeatures.beginningTimestamp().ifPresent(ft -> m.add(new Member("timestamp_begin", ft)));
            packetFeatures.endTimestamp().ifPresent(ft -> m.add(new Member("timestamp_end", ft)));
            packetFeatures
                    .discardedEventRecordsCounterSnapshot()
                    .ifPresent(ft -> m.add(new Member("events_discarded", ft)));
            packetFeatures.sequenceNumber().ifPresent(ft -> m.add(new Member("packet_seq_num", ft)));
            m.addAll(packetContextExtraMembers);
            return new StructureType(8, m);
        }

        /** The event record header: type id then timestamp, when present. */
        public StructureType eventRecordHeader() {
            List<Member> m = new ArrayList<>();
            eventRecordFeatures.typeId().ifPresent(ft -> m.add(new Member("id", ft)));
            eventRecordFeatures.timestamp().ifPresent(ft -> m.add(new Member("timestamp", ft)));
            return new StructureType(8, m);
        }
    }

    /** An event record type; {@code id} is its index among its data stream type's, sorted by name. */
    public record EventRecordType(
            String name,
            int id,
            Optional<Long> logLevel,
            Optional<StructureType> specificContext,
            Optional<StructureType> payload) {}

    /**
     * Code generation options.
     *
     * @param identifierPrefix          prefix of every C identifier, e.g. {@code barectf_}
     * @param fileNamePrefix            prefix of the generated file names, e.g. {@code barectf}
     * @param defaultDataStreamTypeName the data stream type marked {@code $is-default}, if any
     * @param clockTypeCTypes           C type of each used clock type's value, {@code uint32_t} unless set
     */
    public record CodeGenerationOptions(
            String identifierPrefix,
            String fileNamePrefix,
            Optional<String> defaultDataStreamTypeName,
            boolean identifierPrefixDefinition,
            boolean defaultDataStreamTypeNameDefinition,
            Map<String, String> clockTypeCTypes) {
        public CodeGenerationOptions {
            clockTypeCTypes = Map.copyOf(clockTypeCTypes);
        }
    }

    /**
     * The sync handshake ({@code hetrace: {sync: ...}} or {@code --sync}; docs/sync.md): data
     * stream type {@code dataStreamTypeName} has the event record types {@link #SEND} and
     * {@link #RECV}, each with the payload {@code seq}, {@code core}, {@code peer} (uint32).
     */
    public record SyncHandshake(String dataStreamTypeName) {
        /** The first event of a pair, emitted by the side that asks. */
        public static final String SEND = "hetrace_sync_send";
        /** The second event of a pair, emitted by the side that answers. */
        public static final String RECV = "hetrace_sync_recv";
    }
}

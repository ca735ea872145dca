package dev.hetrace.tracer.config;

import dev.hetrace.tracer.config.Configuration.DataStreamType;
import dev.hetrace.tracer.config.Configuration.EventRecordType;
import dev.hetrace.tracer.config.Configuration.SyncHandshake;
import dev.hetrace.tracer.config.FieldType.IntegerType;
import dev.hetrace.tracer.config.FieldType.Member;
import dev.hetrace.tracer.config.FieldType.StructureType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A request for the sync handshake (docs/sync.md), from {@code hetrace: {sync: ...}} in a
 * configuration or from the command line: it gives one data stream type the two event record
 * types of the handshake's pairs, so the metadata and the C tracer describe them like any other.
 *
 * @param dataStreamTypeName the data stream type named by the user; empty: the default one, else the only one
 * @param mark               where the request was written, or null (the command line)
 * @param origin             what errors name: its path ({@code $.hetrace.sync}) or its option ({@code --sync})
 */
public record SyncOption(Optional<String> dataStreamTypeName, Mark mark, String origin) {

    /** A request from the command line option {@code option} ({@code --sync} or {@code --sync-stream}). */
    public static SyncOption commandLine(Optional<String> dataStreamTypeName, String option) {
        return new SyncOption(dataStreamTypeName, null, option);
    }

    /**
     * {@code config} as the command line options {@code --sync} and {@code --sync-stream NAME}
     * ask: unchanged if neither is given or if its own {@code hetrace} section already chose
     * the same data stream type.
     */
    public static Configuration applyCommandLine(Configuration config, boolean sync, Optional<String> stream)
            throws ConfigException {
        boolean asked = sync || stream.isPresent();
        boolean same = config.sync().isPresent()
                && stream.map(s -> s.equals(config.sync().get().dataStreamTypeName()))
                        .orElse(true);
        if (!asked || same) {
            return config;
        }
        return commandLine(stream, stream.isPresent() ? "--sync-stream" : "--sync")
                .applyTo(config);
    }

    /** {@code config} with the handshake's event record types added to the chosen data stream type. */
    public Configuration applyTo(Configuration config) throws ConfigException {
        if (config.sync().isPresent()) {
            throw fail("the sync handshake is already in data stream type `"
                    + config.sync().get().dataStreamTypeName() + "`");
        }
        List<DataStreamType> dsts = config.trace().type().dataStreamTypes();
        DataStreamType target = chosen(config, dsts);
        if (target.defaultClockType().isEmpty()) {
            throw fail("data stream type `" + target.name() + "` has no default clock type: the sync events need"
                    + " timestamps");
        }
        if (target.eventRecordFeatures().timestamp().isEmpty()) {
            throw fail("data stream type `" + target.name() + "` has no event record timestamp"
                    + " (`timestamp-field-type: false`): the sync events need timestamps");
        }
        for (EventRecordType e : target.eventRecordTypes()) {
            if (e.name().equals(SyncHandshake.SEND) || e.name().equals(SyncHandshake.RECV)) {
                throw fail("data stream type `" + target.name() + "` already has an event record type named `"
                        + e.name() + "`, which the sync handshake needs");
            }
        }
        int count = target.eventRecordTypes().size() + 2;
        Optional<IntegerType> typeId = target.eventRecordFeatures().typeId();
        if (typeId.isEmpty()) {
            throw fail("data stream type `" + target.name() + "` has no event record type ID"
                    + " (`type-id-field-type: false`), which its " + count + " event record types with the sync"
                    + " events need");
        }
        if (typeId.get().size() < 63 && count > (1L << typeId.get().size())) {
            throw fail("the event record type ID field type of data stream type `" + target.name() + "` ("
                    + typeId.get().size() + " bits) is too small to accommodate " + count
                    + " event record types with the sync events");
        }
        // barectf numbers event record types in the order of their names: renumber them all
        List<EventRecordType> erts = new ArrayList<>(target.eventRecordTypes());
        StructureType payload = new StructureType(
                8,
                List.of(
                        new Member("seq", IntegerType.unsigned(32)),
                        new Member("core", IntegerType.unsigned(32)),
                        new Member("peer", IntegerType.unsigned(32))));
        erts.add(new EventRecordType(SyncHandshake.SEND, 0, Optional.empty(), Optional.empty(), Optional.of(payload)));
        erts.add(new EventRecordType(SyncHandshake.RECV, 0, Optional.empty(), Optional.empty(), Optional.of(payload)));
        erts.sort(Comparator.comparing(EventRecordType::name));
        List<EventRecordType> numbered = new ArrayList<>();
        for (EventRecordType e : erts) {
            numbered.add(
                    new EventRecordType(e.name(), numbered.size(), e.logLevel(), e.specificContext(), e.payload()));
        }
        List<DataStreamType> newDsts = new ArrayList<>();
        for (DataStreamType d : dsts) {
            newDsts.add(
                    d != target
                            ? d
                            : new DataStreamType(
                                    d.name(),
                                    d.id(),
                                    d.defaultClockType(),
                                    d.packetFeatures(),
                                    d.eventRecordFeatures(),
                                    d.packetContextExtraMembers(),
                                    d.eventRecordCommonContext(),
                                    numbered));
        }
        Configuration.TraceType t = config.trace().type();
        return new Configuration(
                new Configuration.Trace(
                        new Configuration.TraceType(t.nativeByteOrder(), t.uuid(), t.features(), newDsts),
                        config.trace().environment()),
                config.options(),
                Optional.of(new SyncHandshake(target.name())));
    }

    private DataStreamType chosen(Configuration config, List<DataStreamType> dsts) throws ConfigException {
        if (dataStreamTypeName.isPresent()) {
            String name = dataStreamTypeName.get();
            return dsts.stream()
                    .filter(d -> d.name().equals(name))
                    .findFirst()
                    .orElseThrow(() -> fail("data stream type `" + name + "` does not exist (known: "
                            + String.join(
                                    ", ",
                                    dsts.stream().map(DataStreamType::name).toList()) + ")"));
        }
        Optional<String> def = config.options().defaultDataStreamTypeName();
        if (def.isPresent()) {
            return dsts.stream()
                    .filter(d -> d.name().equals(def.get()))
                    .findFirst()
                    .orElseThrow();
        }
        if (dsts.size() == 1) {
            return dsts.getFirst();
        }
        throw fail("the trace type has " + dsts.size() + " data stream types and none is the default: name the one"
                + " for the sync events (" + (mark == null ? "--sync-stream NAME" : "`sync: {data-stream-type: NAME}`")
                + ")");
    }

    private ConfigException fail(String message) {
        return mark == null
                ? new ConfigException(null, null, origin + ": " + message)
                : new ConfigException(mark, origin, message);
    }
}

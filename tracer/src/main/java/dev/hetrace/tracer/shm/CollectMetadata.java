package dev.hetrace.tracer.shm;

import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.metadata.BarectfMetadata;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Optional;
import java.util.UUID;

/** The metadata of a collected trace, made to agree with the trace UUID its producers write. */
public final class CollectMetadata {
    private CollectMetadata() {}

    /**
     * The metadata of {@code config}'s trace with the producers' UUID: a configuration whose
     * UUID is {@code auto} gets a fresh one each time it is read, so the one compiled into the
     * producers' tracer is the one that counts.
     */
    public static String fromConfig(Configuration config, Path file, UUID producersUuid) throws ShmRingException {
        Configuration.TraceType t = config.trace().type();
        if (producersUuid == null) {
            if (t.features().uuid().isPresent()) {
                throw new ShmRingException(
                        file,
                        "its packet headers hold a trace UUID, the producers' hold none:"
                                + " they were not built from this configuration");
            }
            return BarectfMetadata.of(config);
        }
        if (t.features().uuid().isEmpty()) {
            throw new ShmRingException(
                    file,
                    "its packet headers hold no trace UUID, the producers' hold " + producersUuid
                            + ": they were not built from this configuration");
        }
        Configuration.TraceType withUuid = new Configuration.TraceType(
                t.nativeByteOrder(), Optional.of(producersUuid), t.features(), t.dataStreamTypes());
        return BarectfMetadata.of(new Configuration(
                new Configuration.Trace(withUuid, config.trace().environment()), config.options(), config.sync()));
    }

    /** {@code text} (a TSDL metadata file's), checked to declare the producers' UUID if they write one. */
    public static String fromFile(String text, Path file, UUID producersUuid) throws ShmRingException {
        if (producersUuid != null && text.startsWith("/* CTF") && !text.contains("\"" + producersUuid + "\"")) {
            throw new ShmRingException(
                    file,
                    "does not declare the producers' trace UUID " + producersUuid + ": it describes another trace");
        }
        return text;
    }

    /**
     * The trace UUID in the packet header of {@code packet} (a packet of {@code config}'s
     * tracer, from its start), or null if its packet headers hold none or it is all zeros.
     */
    public static UUID packetUuid(Configuration config, ByteBuffer packet) {
        Configuration.TraceType t = config.trace().type();
        if (t.features().uuid().isEmpty()) {
            return null;
        }
        int at = packet.position()
                + t.features().magic().map(m -> (int) (m.size() / 8)).orElse(0);
        if (packet.limit() - at < 16) {
            return null;
        }
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++) {
            hi = hi << 8 | (packet.get(at + i) & 0xff);
            lo = lo << 8 | (packet.get(at + 8 + i) & 0xff);
        }
        return hi == 0 && lo == 0 ? null : new UUID(hi, lo);
    }
}

package dev.hetrace.tracer.shm;

import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.metadata.BarectfMetadata;
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
}

package dev.hetrace.sim;

import dev.hetrace.tracer.config.ConfigException;
import dev.hetrace.tracer.config.ConfigReader;
import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.config.Configuration.EventRecordType;
import dev.hetrace.tracer.metadata.BarectfMetadata;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The trace class of the simulated bare-metal cores: the barectf configuration
 * {@code slave.yaml} (with hetrace's sync events) read as {@code hetrace tracer generate}
 * reads it, for one clock frequency, and the metadata its tracer would ship.
 */
final class SlaveTraceClass {
    private static final String RESOURCE = "slave.yaml";
    private static final String FREQUENCY_LINE = "frequency: 1200000000";

    final Configuration config;
    final Map<String, Long> eventIds = new HashMap<>();

    private SlaveTraceClass(Configuration config) {
        this.config = config;
        for (EventRecordType e :
                config.trace().type().dataStreamTypes().getFirst().eventRecordTypes()) {
            eventIds.put(e.name(), (long) e.id());
        }
    }

    long id(String eventName) {
        Long id = eventIds.get(eventName);
        if (id == null) {
            throw new IllegalStateException(RESOURCE + " has no event record type " + eventName);
        }
        return id;
    }

    /** Reads the configuration with the clock at {@code frequencyHz}. */
    static SlaveTraceClass of(long frequencyHz) {
        String yaml;
        try (InputStream in = SlaveTraceClass.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + RESOURCE);
            }
            yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!yaml.contains(FREQUENCY_LINE)) {
            throw new IllegalStateException(RESOURCE + " no longer has the line '" + FREQUENCY_LINE + "'");
        }
        yaml = yaml.replace(FREQUENCY_LINE, "frequency: " + frequencyHz);
        Path file = null;
        try {
            file = Files.createTempFile("hetrace-sim-", ".yaml");
            Files.writeString(file, yaml);
            return new SlaveTraceClass(ConfigReader.read(file, List.of()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ConfigException e) {
            throw new IllegalStateException(RESOURCE + " does not read: " + e.getMessage(), e);
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException ignored) {
                    // a temporary file left behind is harmless
                }
            }
        }
    }

    /**
     * The metadata of core {@code hostname}'s trace: barectf's environment plus the core's name
     * and where it sits on the board ({@code place}: {@code cluster}, {@code chip}).
     */
    String metadata(String hostname, Map<String, String> place) {
        Map<String, Object> env = new LinkedHashMap<>(config.trace().environment());
        env.put("hostname", hostname);
        env.putAll(place);
        Configuration c =
                new Configuration(new Configuration.Trace(config.trace().type(), env), config.options(), config.sync());
        return BarectfMetadata.of(c);
    }
}

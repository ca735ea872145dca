package dev.hetrace.tracer.c;

import dev.hetrace.tracer.config.Configuration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The C99 tracer of a configuration: {@code PREFIX.h} and {@code PREFIX.c}, with barectf 3's
 * API (same names, signatures and platform callbacks), so an instrumented application and its
 * platform build against either. Unlike barectf's, the code writes every field in the trace's
 * byte order whatever the host's, so a big-endian trace can be produced (and tested) on a
 * little-endian host. It uses nothing from libc beyond {@code <stdint.h>} and
 * {@code <string.h>}.
 *
 * <p>{@link TracerHeader} writes the header, {@link TracerSource} the source, with
 * {@link PacketFunctions} and {@link TracingFunction} for each data stream and event record
 * type; the C text they share with every configuration is in resource templates
 * ({@link CTemplate}), as is the platforms' ({@link LinuxFilePlatform}, {@link CallbackPlatform}, {@link RpmsgPlatform},
 * {@link ShmRingPlatform}) and the sync handshake's ({@link CSyncHandshake}).
 */
public final class CTracer {
    private CTracer() {}

    /** Generated files by name ({@code PREFIX.h}, {@code PREFIX.c}). */
    public static Map<String, String> generate(Configuration config) {
        TracerApi api = new TracerApi(config);
        RecordLayout layout = new RecordLayout(config);
        Map<String, String> files = new LinkedHashMap<>();
        String file = config.options().fileNamePrefix();
        files.put(file + ".h", new TracerHeader(config, api, layout).text());
        files.put(file + ".c", new TracerSource(config, api, layout).text(file + ".h"));
        return files;
    }

    /**
     * The smallest packet (bytes) of the configuration: of every data stream type, the packet
     * header and context (strings empty, dynamic arrays empty) and the largest event record whose
     * strings are empty and dynamic arrays empty, with its largest alignment padding.
     */
    static int minPacketBytes(Configuration config) {
        return new RecordLayout(config).minPacketBytes();
    }

    /** The trace UUID as the packet headers hold it (zeros without one). */
    static byte[] uuidBytes(Configuration config) {
        byte[] b = new byte[16];
        config.trace().type().uuid().ifPresent(u -> {
            long hi = u.getMostSignificantBits();
            long lo = u.getLeastSignificantBits();
            for (int i = 0; i < 8; i++) {
                b[i] = (byte) (hi >>> (56 - 8 * i));
                b[8 + i] = (byte) (lo >>> (56 - 8 * i));
            }
        });
        return b;
    }
}

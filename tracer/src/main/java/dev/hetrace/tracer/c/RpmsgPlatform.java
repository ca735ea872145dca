package dev.hetrace.tracer.c;

import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.rpmsg.RpmsgFraming;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code rpmsg} platform: cuts each full packet of one data stream type (the default one,
 * else the first) into messages of at most the RPMsg payload size, each with a header
 * ({@link RpmsgFraming}) that lets the host reassemble packets and see what was lost, and sends
 * them with a user function ({@code rpmsg_send()} on OpenAMP). Freestanding like the tracer.
 */
public final class RpmsgPlatform {
    private RpmsgPlatform() {}

    /** With messages of {@link RpmsgFraming#DEFAULT_MESSAGE_SIZE} bytes at most. */
    public static Map<String, String> generate(Configuration config) {
        return generate(config, RpmsgFraming.DEFAULT_MESSAGE_SIZE);
    }

    /**
     * @param messageSize the largest message (header included) the link carries
     * @throws IllegalArgumentException if it leaves no room for packet bytes or exceeds
     *                                  {@link RpmsgFraming#MAX_MESSAGE_SIZE}
     */
    public static Map<String, String> generate(Configuration config, int messageSize) {
        if (messageSize <= RpmsgFraming.HEADER_SIZE || messageSize > RpmsgFraming.MAX_MESSAGE_SIZE) {
            throw new IllegalArgumentException(
                    "message size " + messageSize + ": from " + (RpmsgFraming.HEADER_SIZE + 1)
                            + " to " + RpmsgFraming.MAX_MESSAGE_SIZE + " bytes (the header takes "
                            + RpmsgFraming.HEADER_SIZE + ")");
        }
        CTemplate t = CTemplate.of("rpmsg-platform.c.in");
        PlatformParts.Names n = PlatformParts.names(config, "rpmsg");
        Map<String, String> files = new LinkedHashMap<>();
        files.put(
                n.file() + "-platform-rpmsg.h",
                t.fill(
                        "header",
                        n.header(
                                "MACRO",
                                n.macro(),
                                "message_size",
                                String.valueOf(messageSize),
                                "version",
                                String.valueOf(RpmsgFraming.VERSION),
                                "header_size",
                                String.valueOf(RpmsgFraming.HEADER_SIZE))));
        files.put(n.file() + "-platform-rpmsg.c", t.fill("source", n.source("MACRO", n.macro())));
        return files;
    }
}

package dev.hetrace.tracer.c;

import dev.hetrace.tracer.config.Configuration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code callback} platform: hands each full packet of one data stream type (the default
 * one, else the first) to a user function, which sends it on (message queue, DMA, UART...)
 * before returning. Freestanding like the tracer: the caller provides the context and the
 * packet buffer, and the clock functions; nothing from libc beyond {@code <stdint.h>}.
 */
public final class CallbackPlatform {
    private CallbackPlatform() {}

    public static Map<String, String> generate(Configuration config) {
        CTemplate t = CTemplate.of("callback-platform.c.in");
        PlatformParts.Names n = PlatformParts.names(config, "callback");
        Map<String, String> files = new LinkedHashMap<>();
        files.put(n.file() + "-platform-callback.h", t.fill("header", n.header()));
        files.put(n.file() + "-platform-callback.c", t.fill("source", n.source()));
        return files;
    }
}

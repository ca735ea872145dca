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
        files.put(
                n.file() + "-platform-callback.h",
                t.fill(
                        "header",
                        "guard",
                        n.guard(),
                        "file",
                        n.file(),
                        "platform",
                        n.platform(),
                        "stream",
                        n.stream().name(),
                        "stream_ctx",
                        n.streamCtx(),
                        "clock_members",
                        n.clocks().members()));
        files.put(
                n.file() + "-platform-callback.c",
                t.fill(
                        "source",
                        "file",
                        n.file(),
                        "platform",
                        n.platform(),
                        "prefix",
                        n.prefix(),
                        "clock_functions",
                        n.clocks().functions(),
                        "stream",
                        n.stream().name(),
                        "open_args",
                        n.open().args(),
                        "open_decls",
                        n.open().decls(),
                        "clock_init",
                        n.clocks().init(),
                        "stream_ctx",
                        n.streamCtx()));
        return files;
    }
}

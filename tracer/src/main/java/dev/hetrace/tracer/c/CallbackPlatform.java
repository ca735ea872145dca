package dev.hetrace.tracer.c;

import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.config.Configuration.DataStreamType;
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
        String p = config.options().identifierPrefix();
        String file = config.options().fileNamePrefix();
        DataStreamType d = PlatformParts.stream(config);
        String pp = p + "platform_callback_";
        String sctx = "struct " + p + d.name() + "_ctx";
        PlatformParts.UserClocks clocks = PlatformParts.userClocks(config, pp);
        PlatformParts.OpenArgs open = PlatformParts.openArgs(d);
        String guard = "_" + p.toUpperCase() + "PLATFORM_CALLBACK_H";
        Map<String, String> files = new LinkedHashMap<>();
        files.put(
                file + "-platform-callback.h",
                t.fill(
                        "header",
                        "guard",
                        guard,
                        "file",
                        file,
                        "platform",
                        pp,
                        "stream",
                        d.name(),
                        "stream_ctx",
                        sctx,
                        "clock_members",
                        clocks.members()));
        files.put(
                file + "-platform-callback.c",
                t.fill(
                        "source",
                        "file",
                        file,
                        "platform",
                        pp,
                        "prefix",
                        p,
                        "clock_functions",
                        clocks.functions(),
                        "stream",
                        d.name(),
                        "open_args",
                        open.args(),
                        "open_decls",
                        open.decls(),
                        "clock_init",
                        clocks.init(),
                        "stream_ctx",
                        sctx));
        return files;
    }
}

package dev.hetrace.tracer.c;

import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.config.Configuration.ClockType;
import dev.hetrace.tracer.config.Configuration.DataStreamType;
import dev.hetrace.tracer.config.FieldType;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code linux-file} platform: runs a generated tracer in a Linux process, writing the
 * packets of one data stream type (the default one, else the first) to a stream file. Clocks
 * read {@code CLOCK_REALTIME} when their origin is the Unix epoch, else {@code CLOCK_MONOTONIC},
 * scaled to their frequency. The platform may use libc; the tracer does not.
 */
public final class LinuxFilePlatform {
    private LinuxFilePlatform() {}

    public static Map<String, String> generate(Configuration config) {
        CTemplate t = CTemplate.of("linux-file-platform.c.in");
        String p = config.options().identifierPrefix();
        String file = config.options().fileNamePrefix();
        DataStreamType d = PlatformParts.stream(config);
        String pp = p + "platform_linux_file_";
        String sctx = "struct " + p + d.name() + "_ctx";
        Map<String, String> files = new LinkedHashMap<>();
        String guard = "_" + p.toUpperCase() + "PLATFORM_LINUX_FILE_H";
        files.put(
                file + "-platform-linux-file.h",
                t.fill("header", "guard", guard, "file", file, "platform", pp, "stream", d.name(), "stream_ctx", sctx));
        StringBuilder clocks = new StringBuilder();
        StringBuilder cbs = new StringBuilder();
        for (ClockType c : config.trace().type().clockTypes()) {
            String ctype = config.options().clockTypeCTypes().getOrDefault(c.name(), "uint32_t");
            clocks.append(t.fill(
                    "clock-function",
                    "ctype",
                    ctype,
                    "clock",
                    c.name(),
                    "posix_clock",
                    c.originIsUnixEpoch() ? "CLOCK_REALTIME" : "CLOCK_MONOTONIC",
                    "frequency",
                    String.valueOf(c.frequency())));
            cbs.append("\tcbs.")
                    .append(c.name())
                    .append("_clock_get_value = ")
                    .append(c.name())
                    .append("_clock_get_value;\n");
        }
        PlatformParts.OpenArgs open = PlatformParts.openArgs(d);
        files.put(
                file + "-platform-linux-file.c",
                t.fill(
                        "source",
                        "file",
                        file,
                        "platform",
                        pp,
                        "stream_ctx",
                        sctx,
                        "clock_functions",
                        String.valueOf(clocks),
                        "prefix",
                        p,
                        "stream",
                        d.name(),
                        "open_args",
                        open.args(),
                        "clock_init",
                        String.valueOf(cbs),
                        "open_decls",
                        open.decls()));
        return files;
    }

    /** A C expression of a zero value of {@code ft} (arrays: a static array of zeros declared in {@code decls}). */
    static String zero(FieldType ft, String name, StringBuilder decls) {
        return switch (ft) {
            case FieldType.StringType s -> "\"\"";
            case FieldType.StaticArrayType a -> zeroArray(a.element(), a.length(), name, decls);
            case FieldType.DynamicArrayType a -> zeroArray(a.element(), 1, name, decls);
            case FieldType.StructureType s -> throw new IllegalArgumentException("a structure is not a parameter");
            default -> "(" + TracerApi.cType(ft, false) + ") 0";
        };
    }

    private static String zeroArray(FieldType element, long length, String name, StringBuilder decls) {
        StringBuilder init = new StringBuilder();
        for (long i = 0; i < length; i++) {
            init.append(i == 0 ? "" : ", ").append(zero(element, name + "_" + i, decls));
        }
        decls.append("\tstatic ")
                .append(TracerApi.cType(element, true))
                .append(' ')
                .append(name)
                .append('[')
                .append(Math.max(1, length))
                .append("] = {")
                .append(length == 0 ? "0" : init)
                .append("};\n");
        return name;
    }
}

package dev.hetrace.tracer.c;

import static dev.hetrace.tracer.rpmsg.RemoteprocTraceLayout.*;

import dev.hetrace.tracer.config.Configuration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code remoteproc-trace} platform: a coprocessor started by Linux's remoteproc writes the
 * full packets of one data stream type (the default one, else the first) into the trace buffer
 * its resource table declares, cut into the slots of a ring ({@link
 * dev.hetrace.tracer.rpmsg.RemoteprocTraceLayout}) that {@code hetrace collect
 * --remoteproc-trace} reads from {@code /sys/kernel/debug/remoteproc/remoteprocN/traceM}. The
 * source also defines the buffer and a resource table declaring it. Freestanding like the tracer.
 */
public final class RemoteprocTracePlatform {
    private RemoteprocTracePlatform() {}

    public static Map<String, String> generate(Configuration config) {
        CTemplate t = CTemplate.of("remoteproc-trace-platform.c.in");
        PlatformParts.Names n = PlatformParts.names(config, "remoteproc_trace");
        Map<String, String> files = new LinkedHashMap<>();
        files.put(
                n.file() + "-platform-remoteproc-trace.h",
                t.fill(
                        "header",
                        n.header(
                                "prefix",
                                n.prefix(),
                                "MACRO",
                                n.macro(),
                                "slot_size",
                                String.valueOf(DEFAULT_SLOT_SIZE),
                                "buffer_size",
                                String.valueOf(DEFAULT_BUFFER_SIZE),
                                "version",
                                String.valueOf(VERSION),
                                "header_size",
                                String.valueOf(HEADER_SIZE))));
        files.put(
                n.file() + "-platform-remoteproc-trace.c",
                t.fill(
                        "source",
                        n.source(
                                "MACRO",
                                n.macro(),
                                "min_slot_size",
                                String.valueOf(MIN_SLOT_SIZE),
                                "max_slot_size",
                                String.valueOf(MAX_SLOT_SIZE),
                                "slot_data",
                                String.valueOf(SLOT_OFF_DATA),
                                "slot_trailer",
                                String.valueOf(SLOT_TRAILER),
                                "off_version",
                                String.valueOf(OFF_VERSION),
                                "off_slot_size",
                                String.valueOf(OFF_SLOT_SIZE),
                                "off_slot_count",
                                String.valueOf(OFF_SLOT_COUNT),
                                "off_wrap",
                                String.valueOf(OFF_WRAP),
                                "off_index",
                                String.valueOf(OFF_INDEX),
                                "off_done",
                                String.valueOf(OFF_DONE))));
        return files;
    }
}

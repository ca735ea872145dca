package dev.hetrace.ctf.metadata;

import java.util.List;

/**
 * LTTng's log levels: a number in CTF 1.8 metadata ({@code loglevel = 13;}), a name in the
 * {@code lttng.org,2009} attributes of CTF 2 event record classes ({@code "log-level":
 * "debug:line"}), as LTTng 2.15 writes them.
 */
public final class LttngLogLevel {
    /** The attribute namespace LTTng writes its own attributes under. */
    public static final String NAMESPACE = "lttng.org,2009";

    private static final List<String> NAMES = List.of(
            "emergency",
            "alert",
            "critical",
            "error",
            "warning",
            "notice",
            "info",
            "debug:system",
            "debug:program",
            "debug:process",
            "debug:module",
            "debug:unit",
            "debug:function",
            "debug:line",
            "debug");

    private LttngLogLevel() {}

    /** The level of a name LTTng writes, or null for a name it does not. */
    public static Long of(String name) {
        int i = NAMES.indexOf(name);
        return i < 0 ? null : (long) i;
    }

    /** The name LTTng writes for a level, or null for a level it has no name for. */
    public static String name(long level) {
        return level >= 0 && level < NAMES.size() ? NAMES.get((int) level) : null;
    }
}

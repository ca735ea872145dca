package dev.hetrace.tracer.config;

import java.util.List;

/** Paths into a configuration, written as {@code $.trace.type.data-stream-types.default}. */
final class ConfigPaths {
    private ConfigPaths() {}

    static String format(List<Object> path) {
        StringBuilder sb = new StringBuilder("$");
        for (Object p : path) {
            if (p instanceof Integer i) {
                sb.append('[').append(i).append(']');
            } else {
                sb.append('.').append(p);
            }
        }
        return sb.toString();
    }
}

package dev.hetrace.tracer.config;

/**
 * A barectf configuration barectf would reject: the message names the file, line and column of
 * the offending YAML value and its path in the (effective) configuration, e.g.
 * {@code config.yaml:12:5: $.trace.type.clock-types.default.frequency: expected an integer >= 1}.
 */
public final class ConfigException extends Exception {
    private final Mark mark;
    private final String path;
    private final String detail;

    public ConfigException(Mark mark, String path, String detail) {
        super((mark == null ? "" : mark + ": ") + (path == null ? "" : path + ": ") + detail);
        this.mark = mark;
        this.path = path;
        this.detail = detail;
    }

    /** Where the offending value starts, or null when no value is to blame (e.g. an unreadable file). */
    public Mark mark() {
        return mark;
    }

    /** JSON-path-like location in the configuration ({@code $.trace.type...}), or null. */
    public String path() {
        return path;
    }

    public String detail() {
        return detail;
    }
}

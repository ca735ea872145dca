package dev.hetrace.tracer.config;

import java.nio.file.Path;

/** Where a YAML value starts: file, 1-based line and column. */
public record Mark(Path file, int line, int column) {
    @Override
    public String toString() {
        return (file == null ? "<unknown>" : file.toString()) + ":" + line + ":" + column;
    }
}

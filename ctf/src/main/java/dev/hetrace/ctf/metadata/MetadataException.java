package dev.hetrace.ctf.metadata;

import java.nio.file.Path;

/**
 * The trace's metadata is not valid: says where and what was expected. Where is a line and
 * column in CTF 1.8 TSDL, a fragment and a JSON path in CTF 2 metadata.
 */
public class MetadataException extends Exception {
    private final transient Path file;
    private final int line;
    private final int column;
    private final String detail;
    private final Json json;

    /**
     * Where in CTF 2 metadata.
     *
     * @param fragment 0-based index of the fragment in the metadata stream
     * @param what     the fragment's type and name, if it has one ({@code event record class "open"})
     * @param path     JSON path in the fragment ({@code $.payload-field-class.member-classes[2]}), or null
     */
    public record Json(int fragment, String what, String path) {
        @Override
        public String toString() {
            return "fragment " + fragment + (what == null ? "" : " (" + what + ")") + (path == null ? "" : ": " + path);
        }
    }

    public MetadataException(Path file, int line, int column, String detail) {
        this(file, line, column, null, detail);
    }

    private MetadataException(Path file, int line, int column, Json json, String detail) {
        super(compose(file, line, column, json, detail));
        this.file = file;
        this.line = line;
        this.column = column;
        this.json = json;
        this.detail = detail;
    }

    public MetadataException(Json where, String detail) {
        this(null, 0, 0, where, detail);
    }

    public MetadataException(int line, int column, String detail) {
        this(null, line, column, detail);
    }

    public MetadataException(String detail) {
        this(null, 0, 0, detail);
    }

    private static String compose(Path file, int line, int column, Json json, String detail) {
        StringBuilder sb = new StringBuilder();
        if (file != null) {
            sb.append(file).append(": ");
        }
        if (json != null) {
            sb.append(json).append(": ");
        }
        if (line > 0) {
            sb.append("line ").append(line).append(", column ").append(column).append(": ");
        }
        return sb.append(detail).toString();
    }

    /** The same error, said of {@code metadataFile}. */
    public MetadataException in(Path metadataFile) {
        return new MetadataException(metadataFile, line, column, json, detail);
    }

    /** 1-based line of the error, or 0 when it is about the metadata as a whole. */
    public int line() {
        return line;
    }

    public int column() {
        return column;
    }

    /** What is wrong, without the position. */
    public String detail() {
        return detail;
    }

    /** Where in CTF 2 metadata, or null. */
    public Json json() {
        return json;
    }

    public Path file() {
        return file;
    }
}

package dev.hetrace.ctf.metadata;

import java.nio.file.Path;

/**
 * The trace's metadata is not valid TSDL: says where (file, line and column) and what was
 * expected.
 */
public class MetadataException extends Exception {
    private final transient Path file;
    private final int line;
    private final int column;
    private final String detail;

    public MetadataException(Path file, int line, int column, String detail) {
        super(compose(file, line, column, detail));
        this.file = file;
        this.line = line;
        this.column = column;
        this.detail = detail;
    }

    public MetadataException(int line, int column, String detail) {
        this(null, line, column, detail);
    }

    public MetadataException(String detail) {
        this(null, 0, 0, detail);
    }

    private static String compose(Path file, int line, int column, String detail) {
        StringBuilder sb = new StringBuilder();
        if (file != null) {
            sb.append(file).append(": ");
        }
        if (line > 0) {
            sb.append("line ").append(line).append(", column ").append(column).append(": ");
        }
        return sb.append(detail).toString();
    }

    /** The same error, said of {@code metadataFile}. */
    public MetadataException in(Path metadataFile) {
        return new MetadataException(metadataFile, line, column, detail);
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

    public Path file() {
        return file;
    }
}

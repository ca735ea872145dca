package dev.hetrace.ctf.metadata;

/** The trace's metadata is not valid TSDL: says where (line and column) and what was expected. */
public class MetadataException extends Exception {
    private final int line;
    private final int column;

    public MetadataException(int line, int column, String message) {
        super(line > 0 ? "line " + line + ", column " + column + ": " + message : message);
        this.line = line;
        this.column = column;
    }

    public MetadataException(String message) {
        this(0, 0, message);
    }

    /** 1-based line of the error, or 0 when it is about the metadata as a whole. */
    public int line() {
        return line;
    }

    public int column() {
        return column;
    }
}

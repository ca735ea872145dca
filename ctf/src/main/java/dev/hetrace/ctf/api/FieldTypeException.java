package dev.hetrace.ctf.api;

/** The field exists but cannot be read as asked: a string read as a number, a struct read as a value. */
public final class FieldTypeException extends IllegalArgumentException {
    FieldTypeException(String message) {
        super(message);
    }
}

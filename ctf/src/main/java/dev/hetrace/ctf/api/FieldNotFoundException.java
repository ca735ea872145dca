package dev.hetrace.ctf.api;

/**
 * The event has no field at the given path: its class declares none, or a variant on the way
 * selects another option in this event. The message lists the fields the event has.
 */
public final class FieldNotFoundException extends IllegalArgumentException {
    FieldNotFoundException(String message) {
        super(message);
    }
}

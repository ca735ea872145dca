package dev.hetrace.profile;

/** Bad profiling input (a malformed import, a campaign file, a formula) or a measurement that could not run, in one line that says where. */
public class ProfileException extends RuntimeException {

    public ProfileException(String message) {
        super(message);
    }

    public ProfileException(String message, Throwable cause) {
        super(message, cause);
    }
}

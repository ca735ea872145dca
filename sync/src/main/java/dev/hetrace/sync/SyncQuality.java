package dev.hetrace.sync;

import java.util.Locale;

/** How well two traces' clocks are related by their matches. */
public enum SyncQuality {
    /**
     * The two traces' clocks are one clock ({@link TraceClock}): related exactly by their
     * metadata, messages or not.
     */
    SAME_CLOCK,
    /** Matches in both directions bound the slope from both sides: the accuracy is finite. */
    ACCURATE,
    /** Matches in both directions, but none bound the slope from one side (too few, or all on one side in time). */
    APPROXIMATE,
    /** Matches in one direction only: the offset is bounded from one side; the slope is assumed to be 1. */
    INCOMPLETE,
    /** The bounds cross: no clock line keeps every message causal (a wrong match rule or a clock jump). */
    FAIL,
    /** No match at all. */
    ABSENT;

    /** The name the CLI and JSON use. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}

package dev.hetrace.sync;

import java.util.LinkedHashSet;
import java.util.List;

/**
 * Pairs a send event in one trace with a receive event in another: same key, field by field.
 * A message may be traced several ways (a generated tracer's event on one core, an LTTng-UST
 * tracepoint on Linux, a Zephyr named event on a coprocessor): a rule lists every way its
 * sends and its receives are traced, as {@link Side}s, and any send meets any receive of the
 * same rule whose key is equal.
 *
 * @param name     for reports
 * @param sends    the ways a send is traced, each with as many key fields as every other side
 * @param receives the ways a receive is traced, their key fields in the order of the sends'
 */
public record MatchRule(String name, List<Side> sends, List<Side> receives) {
    /**
     * One way a send or a receive is traced: an event, an optional condition on its fields, and
     * its key fields in order.
     *
     * <p>A key field is a path as {@link dev.hetrace.ctf.api.Event} reads it, or several
     * alternatives separated by {@code |} (the first the event has), optionally followed by
     * {@code >> N} and {@code & MASK} to take bits of an integer ({@code (arg0 >> 16) & 0xffff});
     * an event lacking a key field (a variant that selects another option, e.g. a UDP packet
     * under a TCP rule) is not a message. The condition ({@link FieldCondition}) selects the
     * events of a generic event class that are messages ({@code name == "rpmsg_send"}).
     *
     * @param event the event's name, exactly as in the metadata
     * @param when  a condition on its fields, or null for every event of that name
     * @param keys  its key fields
     */
    public record Side(String event, String when, List<String> keys) {
        public Side {
            keys = List.copyOf(keys);
            if (event == null || event.isBlank()) {
                throw new IllegalArgumentException("an event name is needed");
            }
            if (when != null && when.isBlank()) {
                when = null;
            }
            if (when != null) {
                FieldCondition.parse(when);
            }
            for (String k : keys) {
                KeyField.parse(k);
            }
        }

        public Side(String event, List<String> keys) {
            this(event, null, keys);
        }

        /** The event, and its condition if any, as reports name it. */
        public String label() {
            return when == null ? event : event + " [" + when + "]";
        }
    }

    public MatchRule {
        sends = List.copyOf(sends);
        receives = List.copyOf(receives);
        if (sends.isEmpty() || receives.isEmpty()) {
            throw new IllegalArgumentException("match rule " + name + ": needs a send and a receive");
        }
        int n = sends.getFirst().keys().size();
        for (Side s : java.util.stream.Stream.concat(sends.stream(), receives.stream())
                .toList()) {
            if (n == 0 || s.keys().size() != n) {
                throw new IllegalArgumentException("match rule " + name
                        + ": the send and receive events need as many key fields, at least one ("
                        + sends.getFirst().event() + ": " + n + ", " + s.event() + ": "
                        + s.keys().size() + ")");
            }
        }
    }

    /** A rule of one send event and one receive event, each without a condition. */
    public MatchRule(
            String name, String sendEvent, List<String> sendKeys, String receiveEvent, List<String> receiveKeys) {
        this(name, List.of(new Side(sendEvent, sendKeys)), List.of(new Side(receiveEvent, receiveKeys)));
    }

    /** The first send's event name. */
    public String sendEvent() {
        return sends.getFirst().event();
    }

    /** The first receive's event name. */
    public String receiveEvent() {
        return receives.getFirst().event();
    }

    /** The first send's key fields. */
    public List<String> sendKeys() {
        return sends.getFirst().keys();
    }

    /** The first receive's key fields. */
    public List<String> receiveKeys() {
        return receives.getFirst().keys();
    }

    /** Every event the rule names, sends first, each once. */
    public List<String> events() {
        LinkedHashSet<String> out = new LinkedHashSet<>();
        sends.forEach(s -> out.add(s.event()));
        receives.forEach(s -> out.add(s.event()));
        return List.copyOf(out);
    }
}

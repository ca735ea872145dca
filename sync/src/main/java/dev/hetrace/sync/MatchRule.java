package dev.hetrace.sync;

import java.util.List;

/**
 * Pairs a send event in one trace with a receive event in another: same key, field by field.
 * A key field is a path as {@link dev.hetrace.ctf.api.Event} reads it, or several alternatives
 * separated by {@code |} (the first the event has); an event lacking a key field (a variant that
 * selects another option, e.g. a UDP packet under a TCP rule) is not a message.
 *
 * @param name        for reports
 * @param sendEvent   the send event's name, exactly as in the metadata
 * @param sendKeys    the send event's key fields
 * @param receiveEvent the receive event's name
 * @param receiveKeys the receive event's key fields, in the order of {@code sendKeys}
 */
public record MatchRule(
        String name, String sendEvent, List<String> sendKeys, String receiveEvent, List<String> receiveKeys) {
    public MatchRule {
        sendKeys = List.copyOf(sendKeys);
        receiveKeys = List.copyOf(receiveKeys);
        if (sendKeys.isEmpty() || sendKeys.size() != receiveKeys.size()) {
            throw new IllegalArgumentException(
                    "match rule " + name + ": the send and receive events need as many key fields," + " at least one ("
                            + sendKeys.size() + " and " + receiveKeys.size() + ")");
        }
    }
}

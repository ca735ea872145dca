package dev.hetrace.profile.metric;

import dev.hetrace.profile.ProfileException;

/** A named metric, {@code NAME=FORMULA} on a command line or in a saved configuration. */
public record Metric(String name, Formula formula) {

    /** Parses {@code ipc=instructions/cycles}; a bare counter name is the metric of that counter. */
    public static Metric parse(String text) {
        int eq = text.indexOf('=');
        if (eq < 0) {
            Formula f = Formula.parse(text);
            return new Metric(text.strip(), f);
        }
        String name = text.substring(0, eq).strip();
        if (name.isEmpty()) {
            throw new ProfileException("metric '" + text + "': the name before '=' is missing");
        }
        return new Metric(name, Formula.parse(text.substring(eq + 1)));
    }

    @Override
    public String toString() {
        return name + "=" + formula;
    }
}

package dev.hetrace.sim;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A fault injected into a simulated board, as {@code --inject KIND:CORES} names it. Slave
 * cores are {@code dsp0}, {@code dsp1}, ... (index from 0).
 */
public sealed interface Fault {
    /** The help text of the {@code --inject} syntax. */
    String SYNTAX = "preempt:dspA,dspB,... | hang:dspN | crash:dspN | drift-jump:dspN";

    /** The slave cores the fault acts on. */
    List<Integer> slaves();

    String kind();

    /** A high-priority task preempts the processing of these cores and makes them exchange messages. */
    record Preempt(List<Integer> slaves) implements Fault {
        public Preempt {
            slaves = List.copyOf(slaves);
        }

        @Override
        public String kind() {
            return "preempt";
        }
    }

    /** The core's worker waits forever for a message that never comes. */
    record Hang(int slave) implements Fault {
        @Override
        public List<Integer> slaves() {
            return List.of(slave);
        }

        @Override
        public String kind() {
            return "hang";
        }
    }

    /** The core stops: it neither traces nor answers from then on. */
    record Crash(int slave) implements Fault {
        @Override
        public List<Integer> slaves() {
            return List.of(slave);
        }

        @Override
        public String kind() {
            return "crash";
        }
    }

    /** The core's clock changes its drift mid-trace. */
    record DriftJump(int slave) implements Fault {
        @Override
        public List<Integer> slaves() {
            return List.of(slave);
        }

        @Override
        public String kind() {
            return "drift-jump";
        }
    }

    /**
     * Parses one {@code --inject} value for a board of {@code slaves} slave cores.
     *
     * @throws IllegalArgumentException with a one-line message saying what is wrong
     */
    static Fault parse(String spec, int slaves) {
        int colon = spec.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("--inject " + spec + ": expected KIND:CORES, one of " + SYNTAX);
        }
        String kind = spec.substring(0, colon).strip().toLowerCase(Locale.ROOT);
        List<Integer> cores = new ArrayList<>();
        Set<Integer> seen = new LinkedHashSet<>();
        for (String name : spec.substring(colon + 1).split(",", -1)) {
            int core = slave(spec, name.strip(), slaves);
            if (!seen.add(core)) {
                throw new IllegalArgumentException("--inject " + spec + ": dsp" + core + " is named twice");
            }
            cores.add(core);
        }
        return switch (kind) {
            case "preempt" -> new Preempt(cores);
            case "hang", "crash", "drift-jump" -> {
                if (cores.size() != 1) {
                    throw new IllegalArgumentException("--inject " + spec + ": " + kind + " takes one core (repeat --inject"
                        + " for more)");
                }
                yield switch (kind) {
                    case "hang" -> new Hang(cores.getFirst());
                    case "crash" -> new Crash(cores.getFirst());
                    default -> new DriftJump(cores.getFirst());
                };
            }
            default -> throw new IllegalArgumentException("--inject " + spec + ": unknown fault '" + kind + "', expected "
                + SYNTAX);
        };
    }

    private static int slave(String spec, String name, int slaves) {
        if (!name.matches("dsp\\d{1,9}")) {
            throw new IllegalArgumentException("--inject " + spec + ": '" + name + "' is not a slave core (dsp0 to dsp"
                + (slaves - 1) + ")");
        }
        int i = Integer.parseInt(name.substring(3));
        if (i >= slaves) {
            throw new IllegalArgumentException("--inject " + spec + ": the board has no " + name + " (dsp0 to dsp"
                + (slaves - 1) + ")");
        }
        return i;
    }
}

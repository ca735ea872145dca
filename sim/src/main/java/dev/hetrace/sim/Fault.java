package dev.hetrace.sim;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * A fault injected into a simulated board, as {@code --inject KIND:CORES[@TIME]} names it.
 * Slave cores are {@code dsp0}, {@code dsp1}, ... (index from 0). Without a time, each fault
 * strikes where the scenario puts it.
 */
public sealed interface Fault {
    /** The help text of the {@code --inject} syntax. */
    String SYNTAX = "preempt:dspA,dspB,... | hang:dspN | crash:dspN | drift-jump:dspN, each optionally @TIME";

    /** {@link #atNanos()} when no time was given: the scenario chooses. */
    long SCENARIO_TIME = -1;

    /** The slave cores the fault acts on. */
    List<Integer> slaves();

    String kind();

    /** When it strikes (true ns), or {@link #SCENARIO_TIME}. */
    long atNanos();

    /** A high-priority task preempts the processing of these cores and makes them exchange messages. */
    record Preempt(List<Integer> slaves, long atNanos) implements Fault {
        public Preempt {
            slaves = List.copyOf(slaves);
        }

        @Override
        public String kind() {
            return "preempt";
        }
    }

    /** The core's worker waits forever for a message that never comes (on the first image from its time on). */
    record Hang(int slave, long atNanos) implements Fault {
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
    record Crash(int slave, long atNanos) implements Fault {
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
    record DriftJump(int slave, long atNanos) implements Fault {
        @Override
        public List<Integer> slaves() {
            return List.of(slave);
        }

        @Override
        public String kind() {
            return "drift-jump";
        }
    }

    /** Parses one {@code --inject} value without a time for a board of {@code slaves} slave cores. */
    static Fault parse(String spec, int slaves) {
        return parse(spec, slaves, time -> {
            throw new IllegalArgumentException("no time expected");
        });
    }

    /**
     * Parses one {@code --inject} value for a board of {@code slaves} slave cores.
     *
     * @param durations reads the time after {@code @} (e.g. {@code 1.5s}) into ns, or throws
     *                  IllegalArgumentException saying why it cannot
     * @throws IllegalArgumentException with a one-line message saying what is wrong
     */
    static Fault parse(String spec, int slaves, ToLongFunction<String> durations) {
        int colon = spec.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("--inject " + spec + ": expected KIND:CORES[@TIME], one of " + SYNTAX);
        }
        String kind = spec.substring(0, colon).strip().toLowerCase(Locale.ROOT);
        String coresPart = spec.substring(colon + 1);
        long at = SCENARIO_TIME;
        int atSign = coresPart.indexOf('@');
        if (atSign >= 0) {
            String time = coresPart.substring(atSign + 1).strip();
            try {
                at = durations.applyAsLong(time);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(
                        "--inject " + spec + ": '" + time + "' is not a time (e.g. 500ms," + " 1.5s)");
            }
            coresPart = coresPart.substring(0, atSign);
        }
        List<Integer> cores = new ArrayList<>();
        Set<Integer> seen = new LinkedHashSet<>();
        for (String name : coresPart.split(",", -1)) {
            int core = slave(spec, name.strip(), slaves);
            if (!seen.add(core)) {
                throw new IllegalArgumentException("--inject " + spec + ": dsp" + core + " is named twice");
            }
            cores.add(core);
        }
        long time = at;
        return switch (kind) {
            case "preempt" -> new Preempt(cores, time);
            case "hang", "crash", "drift-jump" -> {
                if (cores.size() != 1) {
                    throw new IllegalArgumentException(
                            "--inject " + spec + ": " + kind + " takes one core (repeat --inject" + " for more)");
                }
                yield switch (kind) {
                    case "hang" -> new Hang(cores.getFirst(), time);
                    case "crash" -> new Crash(cores.getFirst(), time);
                    default -> new DriftJump(cores.getFirst(), time);
                };
            }
            default ->
                throw new IllegalArgumentException(
                        "--inject " + spec + ": unknown fault '" + kind + "', expected " + SYNTAX);
        };
    }

    private static int slave(String spec, String name, int slaves) {
        if (!name.matches("dsp\\d{1,9}")) {
            throw new IllegalArgumentException(
                    "--inject " + spec + ": '" + name + "' is not a slave core (dsp0 to dsp" + (slaves - 1) + ")");
        }
        int i = Integer.parseInt(name.substring(3));
        if (i >= slaves) {
            throw new IllegalArgumentException(
                    "--inject " + spec + ": the board has no " + name + " (dsp0 to dsp" + (slaves - 1) + ")");
        }
        return i;
    }
}

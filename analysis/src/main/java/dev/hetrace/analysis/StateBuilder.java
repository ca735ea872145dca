package dev.hetrace.analysis;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.EventClass;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.StreamClass;
import dev.hetrace.sync.ClockTransform;
import dev.hetrace.sync.PiecewiseMap;
import dev.hetrace.sync.Synchronizer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Builds the {@link StateModel} of one or several traces: one pass over each trace's events
 * ({@link TracePass}), on its own thread when there are several cores (each trace's state is its
 * own; only messages cross traces), then the passes put together ({@link PassCombiner}): cores,
 * tasks and names numbered as one, messages linked in the merged order of their events.
 *
 * <p>The clocks: the traces are synchronized first ({@link #synchronize}, the {@link Input}'s
 * maps), and each pass puts every time on the reference clock as its reader gives it, through
 * its trace's {@link PiecewiseMap} ({@link TracePass#map}; a loss's time range likewise, as the
 * reader tells it). That is the one place times change clocks: everything after the passes
 * (the combiner, the tables, the listeners told of the events, the index) takes the times as
 * they are, on the reference clock.
 *
 * <p>Per event: its class's rule found by identity, field reads through handles resolved once
 * per class (read in place), and appends to row-stored tables. Names are read only when new:
 * known ones are recognized by their id (task ids, addresses, interrupt numbers) or by a 64-bit
 * hash of their bytes (task and function names), so that the pass allocates nothing per event
 * beyond the tables' growth.
 */
public final class StateBuilder {
    /** The traces of an input, synchronized when there are several, with the report (null for one trace). */
    public record Input(List<Path> traces, List<PiecewiseMap> maps, Synchronizer.Report sync) {}

    /**
     * Told of every event the state pass reads, so that other tables can be made in the same pass
     * rather than by reading the traces again: a trace's events in their order, on the thread
     * that reads that trace (different traces' on different threads at once).
     */
    @FunctionalInterface
    public interface EventListener {
        /**
         * @param trace  the event's trace (index in the input)
         * @param reader that trace's reader, standing on the event
         * @param time   the event's time on the reference clock (meaningless when the event has none)
         */
        void event(int trace, CtfReader reader, long time) throws StreamDecodingException;

        /**
         * Told of each trace before any event, on the calling thread, in the traces' order: its
         * reader, opened, and the mapping it is read with (the given one restricted to its events,
         * or the preset detected).
         */
        default void opened(int trace, CtfReader reader, Mapping mapping) {}
    }

    private StateBuilder() {}

    /**
     * How the traces are put on one clock.
     *
     * @param sync  the synchronization's rules, method, reference and pieces
     * @param apart whether a trace that cannot be put on the reference clock is analysed on its own
     *              clock, its first event placed at the reference trace's first event (times
     *              across it and the others then mean nothing), rather than refused
     */
    public record Clocks(Synchronizer.Options sync, boolean apart) {
        /** {@link Synchronizer.Options#DEFAULT}, every trace on the reference clock or none analysed. */
        public static final Clocks DEFAULT = new Clocks(Synchronizer.Options.DEFAULT, false);
    }

    /** The traces on one clock as {@link Clocks#DEFAULT} says: see {@link #synchronize(List, Clocks, Consumer)}. */
    public static Input synchronize(List<Path> traces, Consumer<String> warnings)
            throws IOException, MetadataException, StreamDecodingException {
        return synchronize(traces, Clocks.DEFAULT, warnings);
    }

    /**
     * The traces on one clock: one trace as it is; several synchronized as {@code clocks} say.
     *
     * @throws UnsynchronizedTraceException when a trace cannot be put on the reference clock and
     *                                      {@code clocks} does not say to analyse it apart
     */
    public static Input synchronize(List<Path> traces, Clocks clocks, Consumer<String> warnings)
            throws IOException, MetadataException, StreamDecodingException {
        return synchronize(traces, clocks, warnings, warnings);
    }

    /** As {@link #synchronize(List, Clocks, Consumer)}, the readers' warnings told to {@code readerWarnings}. */
    private static Input synchronize(
            List<Path> traces, Clocks clocks, Consumer<String> warnings, Consumer<String> readerWarnings)
            throws IOException, MetadataException, StreamDecodingException {
        if (traces.size() == 1) {
            return new Input(traces, List.of(PiecewiseMap.of(ClockTransform.IDENTITY)), null);
        }
        // the matched messages kept: the index's sync_messages table
        Synchronizer.Report r =
                Synchronizer.run(traces, clocks.sync(), readerWarnings, Synchronizer.Progress.NONE, true);
        long[] begins = new long[traces.size()];
        if (clocks.apart() && r.traces().stream().anyMatch(t -> !t.connected())) {
            for (int i = 0; i < begins.length; i++) {
                begins[i] = begin(traces.get(i));
            }
        }
        return input(traces, r, clocks, begins, warnings);
    }

    /** The time of the trace's first event that has one, on its own clock (Long.MAX_VALUE when none has). */
    private static long begin(Path trace) throws IOException, MetadataException, StreamDecodingException {
        try (CtfReader reader = CtfReader.open(List.of(trace), w -> {})) {
            while (reader.next()) {
                if (reader.event().hasTime()) {
                    return reader.event().timeNanos();
                }
            }
        }
        return Long.MAX_VALUE;
    }

    /**
     * The traces on the clocks of a synchronization; a trace it did not connect refused, or, when
     * {@code clocks} says so, on its own clock shifted to begin with the reference ({@code begins}:
     * each trace's first time on its own clock, read when some trace is apart).
     */
    private static Input input(
            List<Path> traces, Synchronizer.Report r, Clocks clocks, long[] begins, Consumer<String> warnings)
            throws UnsynchronizedTraceException {
        List<PiecewiseMap> maps = new ArrayList<>();
        Path reference = r.traces().get(r.reference()).path();
        for (int i = 0; i < r.traces().size(); i++) {
            Synchronizer.TraceSync t = r.traces().get(i);
            Optional<String> why = r.notConnected(i);
            if (why.isEmpty()) {
                maps.add(t.map());
                continue;
            }
            if (!clocks.apart()) {
                throw new UnsynchronizedTraceException(t.path() + " cannot be put on the clock of " + reference + ": "
                        + why.get() + "; --apart analyses it on its own clock");
            }
            warnings.accept(t.path() + ": analysed apart, on its own clock (its first event at the first of "
                    + reference + "): " + why.get());
            long own = begins[i];
            long ref = begins[r.reference()];
            maps.add(PiecewiseMap.of(
                    own == Long.MAX_VALUE || ref == Long.MAX_VALUE
                            ? ClockTransform.IDENTITY
                            : new ClockTransform(own, ref, 0)));
        }
        return new Input(traces, maps, r);
    }

    /**
     * How {@link #build} reads the traces.
     *
     * @param mapping   the mapping to read them with (restricted to each trace's events), or null:
     *                  each with the preset its metadata selects ({@link Mapping#detect})
     * @param fromNanos where to begin, on the reference clock ({@link Long#MIN_VALUE}: at the
     *                  beginning): what was under way then (tasks running, calls, interrupts) is
     *                  seen as a trace that began there sees it, marked {@link StateModel#START_UNKNOWN}
     * @param warnings  told of what the reading finds amiss
     * @param listener  told of each trace opened, then of every event (null: none)
     * @param threads   how many threads read the traces (0: one per available core; 1: the calling
     *                  thread). Each trace is read by one thread, on its own: the listener is told
     *                  of one trace's events on one thread, of different traces' on different
     *                  threads at once. The model is the same whatever the number of threads.
     */
    public record Options(
            Mapping mapping, long fromNanos, Consumer<String> warnings, EventListener listener, int threads) {
        /** The whole traces with the detected presets, on one thread per core, warnings told to {@code warnings}. */
        public static Options of(Consumer<String> warnings) {
            return new Options(null, Long.MIN_VALUE, warnings, null, 0);
        }

        public Options withMapping(Mapping m) {
            return new Options(m, fromNanos, warnings, listener, threads);
        }

        public Options withFrom(long nanos) {
            return new Options(mapping, nanos, warnings, listener, threads);
        }

        public Options withListener(EventListener l) {
            return new Options(mapping, fromNanos, warnings, l, threads);
        }

        public Options withThreads(int n) {
            return new Options(mapping, fromNanos, warnings, listener, n);
        }
    }

    /**
     * The state of the traces, read as {@code options} say.
     *
     * @throws MappingException when no preset fits a trace
     */
    public static StateModel build(Input input, Options options)
            throws IOException, MetadataException, StreamDecodingException {
        List<Path> traces = input.traces();
        Mapping mapping = options.mapping();
        long fromNanos = options.fromNanos();
        EventListener listener = options.listener();
        int n = traces.size();
        Object lock = new Object();
        Consumer<String> told = w -> {
            synchronized (lock) {
                options.warnings().accept(w);
            }
        };
        CtfReader[] readers = new CtfReader[n];
        try {
            for (int i = 0; i < n; i++) {
                readers[i] = CtfReader.open(List.of(traces.get(i)), told);
                if (fromNanos != Long.MIN_VALUE) {
                    readers[i].seek(input.maps().get(i).inverse().apply(fromNanos));
                }
            }
            TracePass[] passes = new TracePass[n];
            List<String> names = traceNames(traces);
            for (int i = 0; i < n; i++) {
                passes[i] = new TracePass(
                        i, traces.get(i), names.get(i), readers[i], input.maps().get(i), mapping);
                passes[i].listener = listener;
                if (passes[i].eventsOnly) {
                    told.accept(traces.get(i) + ": "
                            + (mapping == null
                                    ? "no preset maps its events"
                                    : "the mapping " + mapping.name() + " maps none of its events")
                            + " (" + TracePass.abridged(eventNames(readers[i].traces()))
                            + ") to tasks, calls or interrupts: each of its streams is a row of its events. For states"
                            + " and calls, give a mapping with --mapping FILE, e.g. a file holding:\n"
                            + "  events: [{event: my_entry, does: enter, func: =my}, {event: my_exit, does: exit, func: =my}]\n"
                            + "  (see 'hetrace stats --help', \"Mapping files\")");
                }
            }
            if (listener != null) {
                for (TracePass p : passes) {
                    listener.opened(p.trace, p.reader, p.mapping);
                }
            }
            int threads = options.threads();
            int workers =
                    Math.min(n, threads > 0 ? threads : Runtime.getRuntime().availableProcessors());
            // the largest traces first, so that the threads end together
            long[] sizes = workers > 1 ? sizes(traces) : new long[n];
            Integer[] order = new Integer[n];
            Arrays.setAll(order, k -> k);
            Arrays.sort(order, (a, b) -> Long.compare(sizes[b], sizes[a]));
            List<Parallel.Work> ordered = new ArrayList<>();
            for (int k : order) {
                ordered.add(passes[k]::run);
            }
            Parallel.run(ordered, workers, () -> {
                for (TracePass p : passes) {
                    p.cancelled = true;
                }
            });
            return new PassCombiner(passes).model(workers);
        } finally {
            for (CtfReader r : readers) {
                if (r != null) {
                    r.close();
                }
            }
        }
    }

    /** Traces put on one clock, and their state. */
    public record Built(Input input, StateModel model) {}

    /**
     * The traces synchronized as {@link #synchronize} does, then their state as {@link #build}
     * makes it. The readers' warnings are told once, by the state's pass (the synchronization
     * reads the traces too).
     *
     * @throws UnsynchronizedTraceException when a trace cannot be put on the reference clock and
     *                                      {@code clocks} does not say to analyse it apart
     */
    public static Built synchronizeAndBuild(List<Path> traces, Clocks clocks, Options options)
            throws IOException, MetadataException, StreamDecodingException {
        Input in = synchronize(traces, clocks, options.warnings(), w -> {});
        return new Built(in, build(in, options));
    }

    /**
     * The traces' names: each trace directory's name, after as many of its parents' names as it
     * takes for no two traces to have the same one (two hosts' LTTng sessions: server/kernel and
     * client/kernel).
     */
    public static List<String> traceNames(List<Path> traces) {
        int n = traces.size();
        Path[] paths = new Path[n];
        int[] depth = new int[n];
        for (int i = 0; i < n; i++) {
            paths[i] = traces.get(i).toAbsolutePath().normalize();
            depth[i] = 1;
        }
        String[] names = new String[n];
        for (boolean again = true; again; ) {
            again = false;
            Map<String, List<Integer>> byName = new HashMap<>();
            for (int i = 0; i < n; i++) {
                int c = paths[i].getNameCount();
                names[i] = c == 0
                        ? paths[i].toString()
                        : paths[i].subpath(Math.max(0, c - depth[i]), c).toString();
                byName.computeIfAbsent(names[i], k -> new ArrayList<>()).add(i);
            }
            for (List<Integer> same : byName.values()) {
                for (int i : same.size() < 2 ? List.<Integer>of() : same) {
                    if (depth[i] < paths[i].getNameCount()) {
                        depth[i]++;
                        again = true;
                    }
                }
            }
        }
        return Arrays.asList(names);
    }

    /** Each trace directory's size in bytes (0 when it cannot be read). */
    private static long[] sizes(List<Path> traces) {
        long[] out = new long[traces.size()];
        for (int i = 0; i < out.length; i++) {
            try (var files = Files.list(traces.get(i))) {
                out[i] = files.mapToLong(f -> f.toFile().length()).sum();
            } catch (IOException | RuntimeException e) {
                out[i] = 0;
            }
        }
        return out;
    }

    /** The event names of a trace's metadata. */
    public static Set<String> eventNames(List<CtfTrace> traces) {
        Set<String> names = new TreeSet<>();
        for (CtfTrace t : traces) {
            for (StreamClass s : t.metadata().streams().values()) {
                for (EventClass e : s.events().values()) {
                    if (e.name() != null) {
                        names.add(e.name());
                    }
                }
            }
        }
        return names;
    }

    /**
     * The names of the context fields every event of a trace's streams carries (the stream event
     * context's members, as babeltrace2 names them: one leading underscore removed), in the
     * streams that have events.
     */
    public static Set<String> contextFieldNames(List<CtfTrace> traces) {
        Set<String> names = null;
        for (CtfTrace t : traces) {
            for (StreamClass s : t.metadata().streams().values()) {
                if (s.events().isEmpty()) {
                    continue;
                }
                Set<String> these = new TreeSet<>();
                if (s.eventContext() != null) {
                    for (var m : s.eventContext().members()) {
                        these.add(m.name().startsWith("_") ? m.name().substring(1) : m.name());
                    }
                }
                if (names == null) {
                    names = these;
                } else {
                    names.retainAll(these);
                }
            }
        }
        return names == null ? Set.of() : names;
    }

    /** The name of the mapping of a trace whose events no rule maps: its streams' point events only. */
    public static final String EVENTS_ONLY = "events-only";
}

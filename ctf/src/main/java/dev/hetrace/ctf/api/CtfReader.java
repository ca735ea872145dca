package dev.hetrace.ctf.api;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;

/**
 * Reads the events of one or more CTF traces, merged in time order as babeltrace2 merges them.
 * See the package documentation for an example.
 *
 * <p>Times never go back within a stream: an event recorded earlier than the event before it in
 * its stream (which babeltrace2 refuses) is read with that event's time, so that intervals
 * between events never have a negative length; the warnings say, once per stream, where it
 * happened first. A packet that begins before the previous one ends is read as it is, and said
 * once per stream too.
 */
public final class CtfReader implements AutoCloseable {
    /**
     * Platform threads whose stack holds fields nested as deep as the metadata may nest them:
     * for any thread of an application that decodes or prints events (a default thread's stack
     * holds about 2,000 levels).
     */
    public static Thread.Builder.OfPlatform decodingThreads() {
        return dev.hetrace.ctf.decode.TracePlan.threads();
    }

    private final List<CtfTrace> traces;
    private final EventCursor cursor;
    private final Event event;
    private final List<String> warnings;

    private CtfReader(List<CtfTrace> traces, List<String> warnings) {
        this.traces = traces;
        this.cursor = new EventCursor(traces);
        cursor.monotonicTimes();
        this.event = new Event(cursor);
        this.warnings = warnings;
    }

    /**
     * Throws {@code failure}, caught on a thread that read traces, as what reading throws (its
     * own checked exceptions, unchecked ones as they are; any other wrapped in an IOException);
     * nothing when null.
     */
    public static void rethrow(Throwable failure) throws IOException, MetadataException, StreamDecodingException {
        switch (failure) {
            case null -> {}
            case IOException e -> throw e;
            case MetadataException e -> throw e;
            case StreamDecodingException e -> throw e;
            case RuntimeException e -> throw e;
            case Error e -> throw e;
            default -> throw new IOException(failure);
        }
    }

    /**
     * Opens every trace found at or under the paths (a trace is a directory holding a
     * {@code metadata} file). Warnings (metadata oddities, unusable index files, packet UUIDs
     * that differ from the trace's) are kept in {@link #warnings()}.
     *
     * @throws IOException               when a path holds no trace or cannot be read
     * @throws MetadataException         when a trace's metadata is invalid
     * @throws StreamDecodingException   when a stream file's first packet is invalid
     */
    public static CtfReader open(Path... paths) throws IOException, MetadataException, StreamDecodingException {
        List<String> warnings = Collections.synchronizedList(new ArrayList<>());
        return open(List.of(paths), warnings::add, warnings);
    }

    /** Like {@link #open(Path...)}, telling warnings to {@code warnings} (from any thread). */
    public static CtfReader open(List<Path> paths, Consumer<String> warnings)
            throws IOException, MetadataException, StreamDecodingException {
        return open(paths, warnings, List.of());
    }

    private static CtfReader open(List<Path> paths, Consumer<String> sink, List<String> kept)
            throws IOException, MetadataException, StreamDecodingException {
        List<CtfTrace> traces = new ArrayList<>();
        CtfTrace.Opener opener = new CtfTrace.Opener(sink);
        try {
            for (Path p : paths) {
                List<Path> found = CtfTrace.find(p);
                if (found.isEmpty()) {
                    throw new IOException(p + ": no CTF trace here (no 'metadata' file at any depth)");
                }
                for (Path dir : found) {
                    traces.add(opener.open(dir, p));
                }
            }
        } catch (IOException | MetadataException | StreamDecodingException | RuntimeException e) {
            traces.forEach(CtfTrace::close);
            throw e;
        }
        return new CtfReader(List.copyOf(traces), Collections.unmodifiableList(kept));
    }

    /**
     * Moves to the next event in time order.
     *
     * @return false at the end of every stream
     * @throws StreamDecodingException when a stream is damaged (the events before are read)
     */
    public boolean next() throws StreamDecodingException {
        event.valid(false);
        boolean more = cursor.next();
        event.valid(more);
        return more;
    }

    /** The current event, valid until the next call to {@link #next()} or {@link #seek(long)}. */
    public Event event() {
        return event;
    }

    /**
     * Makes {@link #next()} continue from the first event at or after {@code timeNanos}
     * (nanoseconds from the epoch), in the order a full read would give. Builds the packet
     * indexes on first use, so that each stream starts at the right packet without decoding
     * what precedes it. Streams without a clock are not positioned: all their events remain.
     */
    public void seek(long timeNanos) throws StreamDecodingException {
        event.valid(false);
        cursor.seek(timeNanos);
    }

    /**
     * Makes {@link #next()} stop after the events at {@code timeNanos}.
     */
    public void stopAfter(long timeNanos) {
        cursor.stopAfter(timeNanos);
    }

    /** Tells {@code listener} of the events and packets tracers lost, in time order among the events. */
    public void onDiscarded(EventCursor.DiscardedListener listener) {
        cursor.onDiscarded(listener);
    }

    /**
     * The cursor under the reader, for what reads the current event whole rather than by field
     * (a formatter such as {@code JsonText}); valid as {@link #event()} is. Move on with
     * {@link #next()} and {@link #seek}, never through the cursor: the event would keep reading
     * the one it stood on.
     */
    public EventCursor cursor() {
        return cursor;
    }

    /** The traces read, in the order they were found. */
    public List<CtfTrace> traces() {
        return traces;
    }

    /** Warnings so far (when opened without a warning consumer). */
    public List<String> warnings() {
        return warnings;
    }

    @Override
    public void close() {
        event.valid(false);
        traces.forEach(CtfTrace::close);
    }
}

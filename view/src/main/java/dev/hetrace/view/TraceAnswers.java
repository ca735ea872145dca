package dev.hetrace.view;

import dev.hetrace.analysis.Diagnosis;
import dev.hetrace.analysis.PatternSearch;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Statistics;
import dev.hetrace.analysis.index.DiagnosisTables;
import dev.hetrace.analysis.index.RangeQueries;
import dev.hetrace.analysis.index.TraceIndex;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What the viewer answers that its timeline does not hold: the statistics, the pattern search
 * and the diagnosis. From the trace set's store, its index ({@link #of(TraceIndex)}: SQL over its
 * tables, the traces never read again), or, when nothing is kept ({@code --no-cache}, a demo),
 * from the state model and the traces in memory ({@link #of(StateModel, StateBuilder.Input)}).
 * Both give the same answers ({@code RangeQueriesTest}).
 */
public interface TraceAnswers extends AutoCloseable {
    /** The statistics of [begin, end] (ns on the reference clock); {@code whole}: that is the whole span. */
    Statistics.Table statistics(long begin, long end, boolean whole) throws IOException;

    /** The pattern search of {@code spec} over every event. */
    PatternSearch.Result pattern(PatternSearch.Spec spec) throws IOException;

    /** The diagnosis ({@code hetrace diagnose}), with its {@code longest} longest outliers. */
    DiagnosisTables.Rows diagnosis(int longest) throws IOException;

    /**
     * The point events named {@code name} at {@code time} (ns on the reference clock), at most 8:
     * their trace, core and fields as the store decodes them ({@code events.fields}, JSON); null
     * when nothing is kept of the events (a model in memory).
     */
    default List<EventAt> eventsAt(long time, String name) throws IOException {
        return null;
    }

    /** A point event: its trace, its core (null: none), its fields (a JSON object's text). */
    record EventAt(String trace, String core, String fields) {}

    /** The diagnosis itself, with the model it refers to: only of the answers of a model (null otherwise). */
    default Diagnosis.Report report() {
        return null;
    }

    @Override
    void close();

    /** The answers of the index (one connection; a request at a time). */
    static TraceAnswers of(TraceIndex index) throws IOException {
        return of(index, null);
    }

    /**
     * The answers of the index, whose diagnosis (made at its first use: {@link
     * DiagnosisTables#ensure}) is under way from here on, from {@code built} (the model the index
     * was just built from, null: the stored one), so that it is ready or nearly when the page
     * asks for it; the model is let go once it is made.
     */
    static TraceAnswers of(TraceIndex index, StateModel built) throws IOException {
        CompletableFuture<Void> diagnosed = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("hetrace-diagnosis").start(() -> {
            try {
                index.diagnose(built);
                diagnosed.complete(null);
            } catch (IOException | RuntimeException e) {
                diagnosed.completeExceptionally(e);
            }
        });
        RangeQueries q;
        try {
            q = new RangeQueries(index);
        } catch (SQLException e) {
            throw new IOException(index.folder() + ": " + TraceIndex.firstLine(e.getMessage()), e);
        }
        return new TraceAnswers() {
            /** For the fields of point events: a connection of its own, opened at the first. */
            private Connection fields;

            @Override
            public synchronized List<EventAt> eventsAt(long time, String name) throws IOException {
                try {
                    if (fields == null) {
                        fields = index.connect();
                    }
                    try (PreparedStatement s =
                            fields.prepareStatement("SELECT trace::VARCHAR, core::VARCHAR, fields::VARCHAR FROM events"
                                    + " WHERE time_ns = ? AND name::VARCHAR = ? LIMIT 8")) {
                        s.setLong(1, time);
                        s.setString(2, name);
                        List<EventAt> out = new ArrayList<>();
                        try (ResultSet r = s.executeQuery()) {
                            while (r.next()) {
                                out.add(new EventAt(r.getString(1), r.getString(2), r.getString(3)));
                            }
                        }
                        return out;
                    }
                } catch (SQLException e) {
                    throw new IOException(index.folder() + ": " + TraceIndex.firstLine(e.getMessage()), e);
                }
            }

            @Override
            public synchronized Statistics.Table statistics(long begin, long end, boolean whole) throws IOException {
                try {
                    return q.statistics(begin, end, whole);
                } catch (SQLException e) {
                    throw new IOException(index.folder() + ": " + TraceIndex.firstLine(e.getMessage()), e);
                }
            }

            @Override
            public synchronized PatternSearch.Result pattern(PatternSearch.Spec spec) throws IOException {
                try {
                    return q.pattern(spec);
                } catch (SQLException e) {
                    throw new IOException(index.folder() + ": " + TraceIndex.firstLine(e.getMessage()), e);
                }
            }

            @Override
            public synchronized DiagnosisTables.Rows diagnosis(int longest) throws IOException {
                try {
                    joined(diagnosed);
                    return q.diagnosis(longest);
                } catch (SQLException e) {
                    throw new IOException(index.folder() + ": " + TraceIndex.firstLine(e.getMessage()), e);
                }
            }

            @Override
            public synchronized void close() {
                try {
                    q.close();
                    if (fields != null) {
                        fields.close();
                    }
                } catch (SQLException e) {
                    // closing a read-only connection: nothing to lose
                }
            }
        };
    }

    /**
     * Answers still being opened by {@code opening} (the store's index checked while the timeline
     * is read and the view code warmed up): each question waits for them; closed once they are.
     */
    static TraceAnswers when(CompletableFuture<TraceAnswers> opening) {
        return new TraceAnswers() {
            @Override
            public Statistics.Table statistics(long begin, long end, boolean whole) throws IOException {
                return joined(opening).statistics(begin, end, whole);
            }

            @Override
            public PatternSearch.Result pattern(PatternSearch.Spec spec) throws IOException {
                return joined(opening).pattern(spec);
            }

            @Override
            public DiagnosisTables.Rows diagnosis(int longest) throws IOException {
                return joined(opening).diagnosis(longest);
            }

            @Override
            public List<EventAt> eventsAt(long time, String name) throws IOException {
                return joined(opening).eventsAt(time, name);
            }

            @Override
            public Diagnosis.Report report() {
                try {
                    return opening.join().report();
                } catch (CompletionException e) {
                    return null; // told by the questions
                }
            }

            @Override
            public void close() {
                opening.thenAccept(TraceAnswers::close);
            }
        };
    }

    /** What {@code f} gives once done; its failure as the IOException it was, else wrapped in one. */
    private static <T> T joined(CompletableFuture<T> f) throws IOException {
        try {
            return f.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof IOException io
                    ? io
                    : new IOException(e.getCause().getMessage(), e.getCause());
        }
    }

    /**
     * The answers of a state model and its traces, read again for each pattern search (null: no
     * pattern search); the diagnosis is under way from here on (it takes a while on big boards:
     * meanwhile the first views are drawn).
     */
    static TraceAnswers of(StateModel model, StateBuilder.Input input) {
        CompletableFuture<Diagnosis.Report> diagnosis =
                CompletableFuture.supplyAsync(() -> Diagnosis.of(model, Diagnosis.DEFAULT_K));
        return new TraceAnswers() {
            @Override
            public DiagnosisTables.Rows diagnosis(int longest) {
                return DiagnosisTables.of(diagnosis.join(), model, longest);
            }

            @Override
            public Diagnosis.Report report() {
                return diagnosis.join();
            }

            @Override
            public Statistics.Table statistics(long begin, long end, boolean whole) {
                return Statistics.of(model, begin, end);
            }

            @Override
            public PatternSearch.Result pattern(PatternSearch.Spec spec) throws IOException {
                if (input == null) {
                    throw new IllegalArgumentException(
                            "pattern search needs the traces, which this server was not given");
                }
                try {
                    return PatternSearch.run(input, spec, w -> {});
                } catch (MetadataException | StreamDecodingException e) {
                    throw new IOException(e.getMessage(), e);
                }
            }

            @Override
            public void close() {}
        };
    }
}

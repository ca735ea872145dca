package dev.hetrace.cli;

import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.index.TraceIndex;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.sync.Synchronizer;
import dev.hetrace.view.PerfettoTrace;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A board for {@code export --format perfetto}, read from its traces' index: the state model,
 * the sync handshake's messages (the {@code sync_messages} table) and each trace's accuracy bound
 * (the {@code traces} table); with own clocks, each trace's map to the reference clock too, which
 * the index does not keep: the traces' messages are then matched again, as {@code hetrace sync}
 * matches them.
 */
final class PerfettoBoard {
    private PerfettoBoard() {}

    static PerfettoTrace.Board read(
            List<Path> inputs, ClockOptions clock, Path mapping, IndexOptions index, boolean ownClocks, PrintStream err)
            throws IOException, MetadataException, StreamDecodingException, SQLException {
        TraceIndex ix = index.open(inputs, clock, mapping, err);
        StateModel m = BoardInput.timed(ix.model());
        List<String> names = m.traceNames();
        Map<String, Integer> byName = new HashMap<>();
        for (int i = 0; i < names.size(); i++) {
            byName.put(names.get(i), i);
        }
        PerfettoTrace.SyncMessages sync = new PerfettoTrace.SyncMessages();
        long[] accuracy = new long[names.size()];
        boolean[] reference = new boolean[names.size()];
        try (Connection c = ix.connect();
                Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT sender::VARCHAR, receiver::VARCHAR, send_ns, receive_ns,"
                    + " send_ref_ns, receive_ref_ns FROM sync_messages")) {
                while (r.next()) {
                    sync.add(
                            byName.get(r.getString(1)),
                            byName.get(r.getString(2)),
                            r.getLong(3),
                            r.getLong(4),
                            r.getLong(5),
                            r.getLong(6));
                }
            }
            try (ResultSet r = s.executeQuery("SELECT trace, reference, accuracy_ns FROM traces")) {
                while (r.next()) {
                    int t = byName.get(r.getString(1));
                    reference[t] = r.getBoolean(2);
                    long a = r.getLong(3);
                    accuracy[t] = r.wasNull() ? -1 : a;
                }
            }
        }
        List<PerfettoTrace.Clock> clocks = new ArrayList<>();
        if (ownClocks) {
            List<Path> traces = BoardInput.traces(inputs);
            // the index told the readers' warnings when it was built: not again
            StateBuilder.Input in = StateBuilder.synchronize(traces, clock.clocks(traces), w -> {});
            for (int t = 0; t < traces.size(); t++) {
                Synchronizer.TraceSync ts =
                        in.sync() == null ? null : in.sync().traces().get(t);
                clocks.add(new PerfettoTrace.Clock(
                        in.maps().get(t),
                        ts == null ? -1 : ts.accuracyNanos().orElse(-1L),
                        ts == null || t == in.sync().reference()));
            }
        } else {
            for (int t = 0; t < names.size(); t++) {
                clocks.add(new PerfettoTrace.Clock(null, accuracy[t], reference[t]));
            }
        }
        String name = inputs.stream().map(Path::toString).collect(Collectors.joining(" "));
        return new PerfettoTrace.Board(name, m, sync, clocks);
    }
}

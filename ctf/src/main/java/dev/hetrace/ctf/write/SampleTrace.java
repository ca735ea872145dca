package dev.hetrace.ctf.write;

import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A synthetic trace in the style of LTTng-UST on a small board: compact 32-bit event headers
 * (5-bit id, 27-bit timestamp) and extended ones when the gap or the id needs them, one stream
 * per CPU, and a mix of event types of 2 to 4 integers and a short string (about 24 bytes per
 * event). Each CPU is busy in bursts of about a thousand events separated by long idles.
 * Deterministic for given arguments. The reader benchmark and the JVM's start-up training
 * read it.
 */
public final class SampleTrace {
    /** The trace's TSDL metadata. */
    public static final String METADATA =
            UstTsdl.head("le", "3b8d6c1e-5a2f-4e7d-9c0b-1f2e3d4c5b6a") + """
            env { hostname = "keystone2"; domain = "ust"; tracer_name = "hetrace-bench"; };
            clock { name = monotonic; uuid = "5f1c2b3a-4d5e-6f70-8192-a3b4c5d6e7f8"; description = "Monotonic Clock";
                    freq = 1000000000; precision = 1; offset_s = 1763700000; offset = 0; absolute = false; };
            """ + UstTsdl.stream(null) + """
            event { name = "sched_switch"; id = 0; stream_id = 0; loglevel = 13;
                    fields := struct { uint32_t prev_tid; uint32_t next_tid; int32_t next_prio; uint16_t cpu; string next_comm; }; };
            event { name = "msgq_put"; id = 1; stream_id = 0; loglevel = 13;
                    fields := struct { uint16_t queue; uint32_t size; uint64_t msg_id; string sender; }; };
            event { name = "func_entry"; id = 2; stream_id = 0; loglevel = 13;
                    fields := struct { uint64_hex_t addr; uint64_hex_t call_site; string func; }; };
            event { name = "irq_handler_entry"; id = 3; stream_id = 0; loglevel = 13;
                    fields := struct { int32_t irq; uint8_t line; string name; }; };
            event { name = "sync_pair"; id = 40; stream_id = 0; loglevel = 13;
                    fields := struct { uint32_t seq; uint8_t core; uint64_t remote_time; string role; }; };
            """;

    private static final String[] COMMS = {"sobel", "idle", "msgq_rx", "dsp_task", "kworker", "app"};
    private static final String[] FUNCS = {"main", "process_tile", "convolve", "queue_put", "isr"};

    private SampleTrace() {}

    /**
     * Writes {@code events} events spread over {@code streams} streams (one per CPU, written in
     * parallel) into {@code out}, in packets of {@code packetBytes}.
     *
     * @return the size of the stream files in bytes
     */
    public static long write(Path out, long events, int streams, int packetBytes) throws IOException {
        try (CtfWriter trace = CtfWriter.create(out, METADATA)) {
            List<StreamWriter> writers = new ArrayList<>();
            for (int s = 0; s < streams; s++) {
                writers.add(trace.stream(0).packetSize(packetBytes).packetContext("cpu_id", s));
            }
            ExecutorService pool = Executors.newFixedThreadPool(
                    Math.min(streams, Runtime.getRuntime().availableProcessors()));
            try {
                List<Future<Long>> done = new ArrayList<>();
                for (int s = 0; s < streams; s++) {
                    final int stream = s;
                    long count = events / streams + (s < events % streams ? 1 : 0);
                    done.add(pool.submit(() -> fill(writers.get(stream), stream, count)));
                }
                for (Future<Long> f : done) {
                    f.get();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while writing " + out, e);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            } finally {
                pool.shutdown();
            }
            long bytes = 0;
            for (StreamWriter w : writers) {
                w.close();
                bytes += Files.size(w.file());
            }
            return bytes;
        } catch (MetadataException e) {
            throw new IllegalStateException("the sample metadata does not parse", e);
        }
    }

    private static long fill(StreamWriter w, int stream, long count) throws IOException {
        SplittableRandom random = new SplittableRandom(0x5EED + stream);
        long t = 1_000_000L + stream * 37L;
        Object[] sched = new Object[5];
        Object[] msg = new Object[4];
        Object[] func = new Object[3];
        Object[] irq = new Object[3];
        Object[] sync = new Object[4];
        for (long i = 0; i < count; i++) {
            // Mostly sub-microsecond gaps (compact headers); now and then a long idle (extended).
            t += random.nextInt(1000) == 0 ? 200_000_000L + random.nextInt(1_000_000) : 50 + random.nextInt(400);
            int kind = random.nextInt(100);
            if (kind < 35) {
                sched[0] = (long) random.nextInt(4096);
                sched[1] = (long) random.nextInt(4096);
                sched[2] = (long) (random.nextInt(140) - 20);
                sched[3] = (long) stream;
                sched[4] = COMMS[random.nextInt(COMMS.length)];
                w.event(0, t, sched);
            } else if (kind < 60) {
                msg[0] = (long) random.nextInt(16);
                msg[1] = (long) random.nextInt(65536);
                msg[2] = i;
                msg[3] = COMMS[random.nextInt(COMMS.length)];
                w.event(1, t, msg);
            } else if (kind < 85) {
                func[0] = 0x400000L + random.nextInt(1 << 20);
                func[1] = 0x400000L + random.nextInt(1 << 20);
                func[2] = FUNCS[random.nextInt(FUNCS.length)];
                w.event(2, t, func);
            } else if (kind < 99) {
                irq[0] = (long) random.nextInt(256);
                irq[1] = (long) random.nextInt(8);
                irq[2] = "irq" + random.nextInt(4);
                w.event(3, t, irq);
            } else {
                sync[0] = i;
                sync[1] = (long) stream;
                sync[2] = t + random.nextInt(5000);
                sync[3] = (i & 1) == 0 ? "send" : "ack";
                w.event(40, t, sync);
            }
        }
        return count;
    }
}

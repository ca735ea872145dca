package dev.hetrace.bench;

import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.StreamWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Writes the end-to-end sync benchmark's traces: a master and a DSP that ran the sync handshake
 * N/2 times (N matched messages, half each way), their clocks 40 min and 37 ppm apart, as
 * hetrace's generated tracers write them (hetrace_sync_send/recv with seq, core, peer).
 *
 * <pre>java -cp hetrace-bench.jar dev.hetrace.bench.SyncTraces OUT_DIR [MESSAGES (default 10000000)]</pre>
 */
public final class SyncTraces {
    private static final String METADATA = """
        /* CTF 1.8 */
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
        typealias integer { size = 64; align = 8; signed = false; map = clock.sys.value; } := uint64_clock_t;
        trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; uint32_t stream_id; }; };
        clock { name = sys; freq = 1000000000; offset_s = %d; offset = 0; };
        stream {
            id = 0;
            packet.context := struct { uint64_clock_t timestamp_begin; uint64_clock_t timestamp_end;
                uint64_t content_size; uint64_t packet_size; uint64_t events_discarded; };
            event.header := struct { uint32_t id; uint64_clock_t timestamp; };
        };
        event { name = "hetrace_sync_recv"; id = 0; stream_id = 0;
                fields := struct { uint32_t seq; uint32_t core; uint32_t peer; }; };
        event { name = "hetrace_sync_send"; id = 1; stream_id = 0;
                fields := struct { uint32_t seq; uint32_t core; uint32_t peer; }; };
        """;

    private SyncTraces() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: SyncTraces OUT_DIR [MESSAGES (default 10000000)]");
            System.exit(2);
        }
        Path out = Path.of(args[0]);
        long messages = args.length > 1 ? Long.parseLong(args[1].replace("_", "")) : 10_000_000L;
        if (Files.exists(out)) {
            System.err.println(out + " exists; remove it first");
            System.exit(1);
        }
        long start = System.nanoTime();
        try (CtfWriter master = CtfWriter.create(out.resolve("master"), METADATA.formatted(1_763_700_000L));
                CtfWriter dsp = CtfWriter.create(out.resolve("dsp"), METADATA.formatted(0))) {
            StreamWriter m = master.stream(0).packetSize(256 * 1024);
            StreamWriter d = dsp.stream(0).packetSize(256 * 1024);
            SplittableRandom r = new SplittableRandom(2026);
            double rate = 1 + 37e-6;
            double origin = 2_400e9;
            for (long n = 0; n < messages / 2; n++) {
                // one handshake every 50 µs: master send, DSP receive and send, master receive
                double t = n * 50_000.0;
                double l1 = Math.min(20_000, 1_000 - Math.log(1 - r.nextDouble()) * 3_000);
                double l2 = Math.min(20_000, 1_000 - Math.log(1 - r.nextDouble()) * 3_000);
                long seq = 2 * n + 1;
                m.event(1, (long) t, List.of(seq, 0L, 1L));
                d.event(0, (long) (origin + (t + l1) * rate), List.of(seq, 1L, 0L));
                d.event(1, (long) (origin + (t + l1 + 500) * rate), List.of(seq + 1, 1L, 0L));
                m.event(0, (long) (t + l1 + 500 + l2), List.of(seq + 1, 0L, 1L));
            }
        }
        System.err.printf("%s: %,d messages in %.1f s%n", out, messages, (System.nanoTime() - start) / 1e9);
    }
}

package dev.hetrace.bench;

import dev.hetrace.ctf.write.SampleTrace;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the reader benchmark's trace with hetrace's CTF writer ({@link SampleTrace}: LTTng-UST
 * layout, one stream per CPU, 256 KiB packets, a mix of event types of 2 to 4 integers and a
 * short string). Deterministic for given arguments.
 *
 * <pre>java -jar bench/target/hetrace-bench.jar OUT_DIR [EVENTS] [STREAMS]</pre>
 */
public final class BenchTrace {
    private BenchTrace() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: BenchTrace OUT_DIR [EVENTS (default 36000000)] [STREAMS (default 4)]");
            System.exit(2);
        }
        Path out = Path.of(args[0]);
        long events = args.length > 1 ? Long.parseLong(args[1].replace("_", "")) : 36_000_000L;
        int streams = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        if (Files.exists(out.resolve("metadata"))) {
            System.err.println(out + " already holds a trace; remove it first");
            System.exit(1);
        }
        long start = System.nanoTime();
        long bytes = SampleTrace.write(out, events, streams, 256 * 1024);
        System.err.printf(
                "%s: %,d events, %,d bytes of streams, in %.1f s%n",
                out, events, bytes, (System.nanoTime() - start) / 1e9);
    }
}

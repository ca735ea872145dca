package dev.hetrace.ctf.api;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.PacketIndex;
import dev.hetrace.ctf.ParallelMerge;
import dev.hetrace.ctf.text.BabeltraceText;
import dev.hetrace.ctf.text.JsonText;
import dev.hetrace.ctf.text.TextSink;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.function.Supplier;

/**
 * Prints the events of traces as babeltrace2's text or as JSON lines, decoded and formatted on
 * worker threads and merged in time order: the same lines, in the same order, as printing the
 * events of a {@link dev.hetrace.ctf.EventCursor} one by one, when {@link #suits} says the
 * traces allow it.
 */
public final class ParallelPrint {
    /** How each event is printed. */
    public enum Format {
        /** babeltrace2's text, with its deltas between events. */
        TEXT,
        /** One JSON object per line. */
        JSON,
        /** Nothing: every event decoded, nothing printed. */
        NONE
    }

    /** Beyond this many streams, one thread merges them (each stream in flight costs buffers). */
    private static final int MAX_STREAMS = 256;
    /** Events of larger packets may format into lines too long to hold in memory while merging. */
    private static final long MAX_PACKET_BITS = 8L * 4 * 1024 * 1024;
    /** So may events with structs nested this deep (each level prints its member name), whatever their size. */
    private static final long MAX_NESTING = 100_000;
    /** Packets whose indexes (about 100 bytes each) the parallel print may hold, in all. */
    private static final long MAX_INDEXED_PACKETS = 1 << 20;

    private ParallelPrint() {}

    /**
     * Whether worker threads can decode the traces' streams: not too many of them, packets of at
     * most 4 MiB, and packet indexes that show no damage and no loss (losses are told among the
     * events, which the sequential cursor does). Indexes the traces' packets.
     */
    public static boolean suits(List<CtfTrace> traces) {
        if (ParallelMerge.streamCount(traces) > MAX_STREAMS) {
            return false;
        }
        for (CtfTrace t : traces) {
            if (t.plan().deepestChain > MAX_NESTING) {
                return false; // a line may be gigabytes long: write it in pieces instead
            }
        }
        if (!CtfTrace.indexAll(traces, MAX_INDEXED_PACKETS)) {
            return false; // the indexes would take too much memory (a million tiny packets)
        }
        for (CtfTrace t : traces) {
            for (int s = 0; s < t.streams().size(); s++) {
                PacketIndex idx = t.index(s);
                if (idx.damage() != null) {
                    return false;
                }
                for (int k = 0; k < idx.size(); k++) {
                    if (idx.packetBits(k) > MAX_PACKET_BITS) {
                        return false; // an event may format into a huge line: write it in pieces instead
                    }
                }
                for (int k = 0; k < idx.size(); k++) {
                    long discarded = idx.eventsDiscarded(k);
                    if (discarded != PacketInfo.ABSENT && discarded != (k == 0 ? 0 : idx.eventsDiscarded(k - 1))) {
                        return false;
                    }
                    long seq = idx.sequenceNumber(k);
                    if (k > 0
                            && seq != PacketInfo.ABSENT
                            && idx.sequenceNumber(k - 1) != PacketInfo.ABSENT
                            && seq != idx.sequenceNumber(k - 1) + 1) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    /**
     * Prints every event of {@code traces} (which {@link #suits}) to {@code sink}, a line each,
     * on {@code threads} worker threads; warnings (time going back, clock values out of range)
     * go to {@code err}. The events before a decoding error are printed before it is thrown.
     */
    public static void print(List<CtfTrace> traces, Format format, TextSink sink, PrintStream err, int threads)
            throws IOException, StreamDecodingException {
        Supplier<ParallelMerge.Formatter> formatters = switch (format) {
            case TEXT ->
                () -> {
                    BabeltraceText text = new BabeltraceText(null, err);
                    return (trace, d, hasTime, t, out) -> {
                        text.to(out);
                        if (hasTime) {
                            text.time(t);
                        }
                        int split = out.length();
                        text.body(trace, d);
                        return split;
                    };
                };
            case JSON ->
                () -> {
                    JsonText json = new JsonText(null);
                    return (trace, d, hasTime, t, out) -> {
                        json.to(out).print(trace, d, hasTime, t);
                        return out.length();
                    };
                };
            case NONE -> () -> null;
        };
        try (ParallelMerge merge = new ParallelMerge(traces, formatters, threads)) {
            BabeltraceText deltas = new BabeltraceText(sink, err);
            boolean text = format == Format.TEXT;
            while (merge.next()) {
                if (format == Format.NONE) {
                    continue;
                }
                byte[] b = merge.bytes();
                int start = merge.start();
                int split = merge.split();
                if (text && merge.hasTime()) {
                    sink.put(b, start, split - start);
                    deltas.delta(merge.timeNanos());
                    sink.put(b, split, merge.end() - split);
                } else {
                    sink.put(b, start, merge.end() - start);
                }
                sink.lineDone();
            }
        }
    }
}

package dev.hetrace.tracer.rpmsg;

import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.StreamWriter;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The master of the sync handshake over RPMsg (the request and answer layouts of the
 * generated {@code PREFIX-sync.h}): when the link has been idle for the period (no answer and
 * no other message received), sends a request on the endpoint and records its own
 * {@code hetrace_sync_send}; the collector's reader gives it each answer it finds among the
 * trace messages, with the time its read returned, for the {@code hetrace_sync_recv}. The
 * events go, when the collector stops, into a CTF trace of their own on the clock LTTng's
 * traces use, {@code CLOCK_MONOTONIC} ({@link System#nanoTime()} on Linux), so that
 * {@code hetrace sync} relates the core's trace to it (and to LTTng traces of the same host).
 */
public final class RpmsgSyncMaster {
    /** "HTSQ": a request; "HTSA": an answer. */
    static final byte[] MAGIC = {'H', 'T', 'S'};

    static final byte REQUEST = 'Q';
    static final byte ANSWER = 'A';
    static final int VERSION = 1;
    static final int REQUEST_SIZE = 12;
    public static final int ANSWER_SIZE = 20;

    /** Event class ids in the trace written. */
    private static final long SEND = 0;

    private static final long RECV = 1;

    private static final String METADATA = """
        /* CTF 1.8 */
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
        typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_t;
        trace { major = 1; minor = 8; byte_order = le;
                packet.header := struct { uint32_t magic; uint32_t stream_id; }; };
        env { hostname = "%s"; tracer_name = "hetrace-collect"; };
        clock { name = monotonic; %s description = "CLOCK_MONOTONIC of the host the collector ran on, as LTTng's";
                freq = 1000000000; precision = 1; offset_s = %d; offset = %d; absolute = false; };
        stream {
            id = 0;
            packet.context := struct { uint64_clock_t timestamp_begin; uint64_clock_t timestamp_end;
                uint64_t content_size; uint64_t packet_size; uint64_t events_discarded; };
            event.header := struct { uint32_t id; uint64_clock_t timestamp; };
        };
        event { name = "hetrace_sync_send"; id = 0; stream_id = 0;
                fields := struct { uint32_t seq; uint32_t core; uint32_t peer; }; };
        event { name = "hetrace_sync_recv"; id = 1; stream_id = 0;
                fields := struct { uint32_t seq; uint32_t core; uint32_t peer; }; };
        """;

    /** One exchange: the request's time and seq; the answer's time and ids once it came. */
    private record Exchange(long sent, int seq, long received, int core, int peer) {}

    private final FileOutputStream out;
    private final long periodNanos;
    private final Path traceDir;
    /** Realtime minus monotonic when the collector started: the clock's offset, as LTTng's. */
    private final long offsetNanos;

    private final List<Exchange> exchanges = new ArrayList<>();
    private final ByteBuffer request = ByteBuffer.allocate(REQUEST_SIZE).order(ByteOrder.LITTLE_ENDIAN);

    /** Guards the fields below. */
    private final Object lock = new Object();

    private long lastActivity;
    private int outstanding; // seq of the request not answered yet, 0 if none
    private int lastSeq = -1;
    private long requests;
    private long answered;
    private long late;

    /**
     * @param out         writes to the endpoint
     * @param periodNanos how long the link stays idle before a request
     * @param traceDir    where the master's trace is written (created; must not exist or be empty)
     */
    public RpmsgSyncMaster(FileOutputStream out, long periodNanos, Path traceDir) {
        this.out = out;
        this.periodNanos = periodNanos;
        this.traceDir = traceDir;
        Instant now = Instant.now();
        long mono = System.nanoTime();
        long real = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        this.offsetNanos = real - mono;
        this.lastActivity = mono;
    }

    /** The directory the master's trace is written to. */
    public Path traceDir() {
        return traceDir;
    }

    /** Something other than an answer was received at {@code now}: the link is not idle. */
    void activity(long now) {
        synchronized (lock) {
            lastActivity = Math.max(lastActivity, now);
        }
    }

    /**
     * Whether {@code m} (at {@code p}, {@code remaining} bytes there) starts like an answer:
     * the reader then waits for its {@link #ANSWER_SIZE} bytes and gives them to {@link #answer}.
     */
    static boolean isAnswer(ByteBuffer m, int p, int remaining) {
        return remaining >= 6
                && m.get(p) == MAGIC[0]
                && m.get(p + 1) == MAGIC[1]
                && m.get(p + 2) == MAGIC[2]
                && m.get(p + 3) == ANSWER
                && m.get(p + 4) == VERSION
                && m.get(p + 5) == ANSWER_SIZE;
    }

    /**
     * An answer (its {@link #ANSWER_SIZE} bytes at {@code p}) read at {@code now}. An answer to
     * a request given up on (the next one went out) still makes a pair, a looser one: its
     * receive is still after the core's send.
     */
    void answer(ByteBuffer m, int p, long now) {
        int seq = m.getInt(p + 8);
        int core = m.getInt(p + 12);
        int peer = m.getInt(p + 16);
        synchronized (lock) {
            lastActivity = Math.max(lastActivity, now);
            for (int i = exchanges.size() - 1; i >= 0; i--) {
                Exchange e = exchanges.get(i);
                if (e.seq() + 1 == seq) {
                    if (e.received() < 0) {
                        exchanges.set(i, new Exchange(e.sent(), e.seq(), now, core, peer));
                        answered++;
                        if (seq != outstanding + 1) {
                            late++;
                        }
                    }
                    break;
                }
            }
            if (seq == outstanding + 1) {
                outstanding = 0;
            }
        }
    }

    /**
     * Sends requests while the link is idle until {@code stopped} says so; runs in a thread of
     * its own. A request not answered within a period is given up on.
     */
    void run(BooleanSupplier stopped) {
        while (!stopped.getAsBoolean()) {
            long wait;
            int seq = 0;
            synchronized (lock) {
                wait = lastActivity + periodNanos - System.nanoTime();
                if (wait <= 0) {
                    seq = lastSeq = lastSeq < 0 ? 1 : lastSeq + 2;
                    // the send is timestamped before the request leaves
                    long sent = System.nanoTime();
                    exchanges.add(new Exchange(sent, seq, -1, 0, 0));
                    outstanding = seq;
                    requests++;
                    lastActivity = sent;
                    wait = periodNanos;
                }
            }
            if (seq != 0) {
                // written without the lock: a write that blocks (no RPMsg buffer free) does not
                // hold up the reader
                request.clear();
                request.put(MAGIC).put(REQUEST).put((byte) VERSION).put((byte) REQUEST_SIZE);
                request.putShort((short) 0).putInt(seq);
                try {
                    out.write(request.array(), 0, REQUEST_SIZE);
                } catch (IOException e) {
                    synchronized (lock) {
                        exchanges.removeLast(); // never sent: the reader sees the endpoint gone too
                        requests--;
                        outstanding = 0;
                    }
                    return;
                }
                synchronized (lock) {
                    lastActivity = Math.max(lastActivity, System.nanoTime());
                }
            }
            try {
                Thread.sleep(Math.max(1, wait / 1_000_000));
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * The boot's id, which LTTng gives its monotonic clock as UUID: with it, {@code hetrace sync}
     * takes this trace and an LTTng trace of the same boot as one clock.
     */
    static Optional<String> bootId() {
        try {
            String id =
                    Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip();
            return id.matches("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
                    ? Optional.of(id)
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * Requests sent, answers received (each a pair in each direction), and among them those
     * that came after the next request went out.
     */
    public record Stats(long requests, long answered, long late) {}

    public Stats stats() {
        synchronized (lock) {
            return new Stats(requests, answered, late);
        }
    }

    /**
     * Writes the master's trace: both events of each answered exchange, and the send of each
     * unanswered one once the ids are known from an answer.
     */
    void write() throws IOException {
        List<Exchange> all;
        synchronized (lock) {
            all = List.copyOf(exchanges);
        }
        int core = -1;
        int peer = -1;
        for (Exchange e : all) {
            if (e.received() >= 0) {
                core = e.peer(); // the answer's peer is the master
                peer = e.core();
                break;
            }
        }
        if (core < 0) {
            return; // no answer: nothing that can be paired
        }
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName().replace("\"", "");
        } catch (IOException e) {
            host = "localhost";
        }
        String metadata = METADATA.formatted(
                host,
                bootId().map(id -> "uuid = \"" + id + "\";").orElse(""),
                Math.floorDiv(offsetNanos, 1_000_000_000L),
                Math.floorMod(offsetNanos, 1_000_000_000L));
        try (CtfWriter trace = CtfWriter.create(traceDir, metadata)) {
            StreamWriter s = trace.stream(0, 0, "stream");
            // in time order: a late answer's receive comes after the next request's send
            List<long[]> events = new ArrayList<>();
            for (Exchange e : all) {
                events.add(new long[] {e.sent(), SEND, Integer.toUnsignedLong(e.seq())});
                if (e.received() >= 0) {
                    events.add(new long[] {e.received(), RECV, Integer.toUnsignedLong(e.seq() + 1)});
                }
            }
            events.sort(Comparator.comparingLong(e -> e[0]));
            for (long[] e : events) {
                s.event(e[1], e[0], List.of(e[2], (long) core, (long) peer));
            }
        } catch (MetadataException e) {
            throw new UncheckedIOException(new IOException("the sync trace's metadata: " + e.getMessage(), e));
        }
    }
}

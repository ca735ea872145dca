package dev.hetrace.tracer.rpmsg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.tracer.Processes;
import dev.hetrace.tracer.c.RpmsgPlatform;
import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.metadata.BarectfMetadata;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rpmsg platform and its collector together: a producer process built with gcc (C99,
 * strict warnings, address and undefined-behaviour sanitizers) sends its packets as messages
 * through a FIFO (standing in for /dev/rpmsgN) or a pseudo-terminal (for /dev/ttyRPMSGN); the
 * collector reassembles them, and the trace holds every event emitted, or the loss is counted.
 */
class RpmsgCollectorTest {
    @TempDir
    Path dir;

    private Configuration config;
    private final TickProducers.Started started = new TickProducers.Started();

    @AfterEach
    void killProducers() throws InterruptedException {
        started.killAll();
    }

    @BeforeEach
    void buildProducer() throws Exception {
        config = TickProducers.build(dir, RpmsgPlatform::generate, "producer.c");
    }

    @Test
    void everyEventSentThroughAFifoIsInTheTrace() throws Exception {
        Path fifo = dir.resolve("rpmsg0");
        Processes.run(dir, List.of("mkfifo", fifo.toString()));
        Process p = start(List.of("./producer", "fifo", fifo.toString(), "3000", "0", "2048"));
        Path trace = dir.resolve("trace");
        RpmsgCollector.Stats s = collect(fifo, trace);
        Sent sent = sent(p);

        assertThat(sent.dropped).isZero();
        // 2048-byte packets in messages of 496 bytes: 5 messages each
        assertThat(s.messages()).isEqualTo(sent.messages).isEqualTo(5L * sent.packets);
        assertThat(s.packets()).isEqualTo(sent.packets);
        assertThat(s.bytes()).isEqualTo(sent.packets * 2048);
        assertThat(s.messagesLost()).isZero();
        assertThat(s.packetsLost()).isZero();
        assertThat(s.packetsRefused()).isZero();
        assertThat(s.bytesSkipped()).isZero();
        assertThat(s.partialAtEnd()).isZero();
        TickProducers.assertEveryEvent(trace, 3000);
    }

    @Test
    void everyEventSentThroughAPseudoTerminalIsInTheTrace() throws Exception {
        Process p = start(List.of("./producer", "pty", "3000", "0", "1024"));
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        Path slave = Path.of(out.readLine());
        Path trace = dir.resolve("trace");
        RpmsgCollector collector = new RpmsgCollector(slave, List.of(), trace, first -> metadata());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                collector.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        OutputStream in = p.getOutputStream();
        in.write("go\n".getBytes(StandardCharsets.UTF_8));
        in.flush();
        String[] sent = out.readLine().split(" ");
        long messages = Long.parseLong(sent[1]);
        long packets = Long.parseLong(sent[2]);
        // the pty's buffer is drained before the producer closes its side
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (collector.stats().messages() < messages && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        in.write("bye\n".getBytes(StandardCharsets.UTF_8));
        in.flush();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        reader.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(reader.isAlive())
                .as("the collector ends when the pty hangs up")
                .isFalse();
        collector.close();
        assertThat(failure.get()).isNull();

        RpmsgCollector.Stats s = collector.stats();
        assertThat(s.messages()).isEqualTo(messages);
        assertThat(s.packets()).isEqualTo(packets);
        assertThat(s.messagesLost()).isZero();
        assertThat(s.packetsLost()).isZero();
        assertThat(s.bytesSkipped()).as("raw: no byte translated").isZero();
        TickProducers.assertEveryEvent(trace, 3000);
    }

    @Test
    void messagesDroppedOnTheWayAreCountedAndOnlyWholePacketsAreWritten() throws Exception {
        Path fifo = dir.resolve("rpmsg0");
        Processes.run(dir, List.of("mkfifo", fifo.toString()));
        Process p = start(List.of("./producer", "fifo", fifo.toString(), "3000", "7", "2048"));
        Path trace = dir.resolve("trace");
        RpmsgCollector.Stats s = collect(fifo, trace);
        Sent sent = sent(p);

        assertThat(sent.dropped).isPositive();
        assertThat(s.messagesLost()).isEqualTo(sent.dropped);
        assertThat(s.messages()).isEqualTo(sent.messages - sent.dropped);
        // a packet of 5 messages, every 7th dropped: no packet loses two
        assertThat(s.packetsLost()).isEqualTo(sent.dropped);
        assertThat(s.packets() + s.packetsLost()).isEqualTo(sent.packets);
        assertThat(s.packetsRefused()).isZero();
        // the events of the packets written are whole and in order
        long events = 0;
        long last = -1;
        try (CtfReader reader = CtfReader.open(trace)) {
            while (reader.next()) {
                Event e = reader.event();
                long seq = e.getLong("seq");
                assertThat(seq).isGreaterThan(last);
                assertThat(e.getString("msg")).isEqualTo("event " + seq);
                last = seq;
                events++;
            }
        }
        assertThat(events).isPositive().isLessThan(3000);
    }

    @Test
    void bytesThatAreNoMessageAreSkippedAndTheNextMessageFound() throws Exception {
        Path file = dir.resolve("rpmsg0");
        Path fifo = dir.resolve("fifo");
        Processes.run(dir, List.of("mkfifo", fifo.toString()));
        Process p = start(List.of("./producer", "fifo", fifo.toString(), "500", "0", "1024"));
        byte[] messages;
        try (InputStream in = Files.newInputStream(fifo)) {
            messages = in.readAllBytes();
        }
        Sent sent = sent(p);
        // noise before the first message and a stray "HTRM" with a bad version
        byte[] noise = {'x', 'H', 'T', 'R', 'M', 9, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
        byte[] all = new byte[noise.length + messages.length];
        System.arraycopy(noise, 0, all, 0, noise.length);
        System.arraycopy(messages, 0, all, noise.length, messages.length);
        Files.write(file, all);
        Path trace = dir.resolve("trace");
        RpmsgCollector.Stats s = collect(file, trace);

        assertThat(s.bytesSkipped()).isEqualTo(noise.length);
        assertThat(s.packets()).isEqualTo(sent.packets);
        assertThat(s.messagesLost()).isZero();
        TickProducers.assertEveryEvent(trace, 500);
    }

    @Test
    void aProducerThatRestartsIsNoLossAndBothRunsAreInTheTrace() throws Exception {
        Path fifo = dir.resolve("fifo");
        Processes.run(dir, List.of("mkfifo", fifo.toString()));
        byte[][] runs = new byte[2][];
        long packets = 0;
        for (int r = 0; r < 2; r++) {
            Process p = start(List.of("./producer", "fifo", fifo.toString(), "400", "0", "1024"));
            try (InputStream in = Files.newInputStream(fifo)) {
                runs[r] = in.readAllBytes();
            }
            packets += sent(p).packets;
        }
        // the firmware restarted by remoteproc: its numbers start from 0 again
        Path file = dir.resolve("rpmsg0");
        Files.write(file, runs[0]);
        Files.write(file, runs[1], StandardOpenOption.APPEND);
        RpmsgCollector.Stats s = collect(file, dir.resolve("trace"));

        assertThat(s.packets()).isEqualTo(packets);
        assertThat(s.messagesLost()).isZero();
        assertThat(s.packetsLost()).isZero();
        long events = 0;
        try (CtfReader reader = CtfReader.open(dir.resolve("trace"))) {
            while (reader.next()) {
                events++;
            }
        }
        assertThat(events).isEqualTo(800);
    }

    private record Sent(long messages, long packets, long dropped) {}

    private Process start(List<String> cmd) throws IOException {
        return started.start(dir, cmd);
    }

    private static Sent sent(Process p) throws Exception {
        String[] f = TickProducers.sent(p, 60);
        return new Sent(Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]));
    }

    /** Collects until the input ends. */
    private RpmsgCollector.Stats collect(Path device, Path trace) throws IOException {
        try (RpmsgCollector c = new RpmsgCollector(device, List.of(), trace, first -> metadata())) {
            c.run();
            return c.stats();
        }
    }

    private byte[] metadata() {
        return BarectfMetadata.of(config).getBytes(StandardCharsets.UTF_8);
    }
}

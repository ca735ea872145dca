package dev.hetrace.ctf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.ctf.testing.ZephyrTraces;
import dev.hetrace.ctf.testing.ZephyrTraces.Written;
import dev.hetrace.ctf.write.TraceReading;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Zephyr's CTF traces (its metadata, packetless streams of events with a 32-bit timestamp
 * that wraps) written as {@code ctf_top.h} lays them out: read exactly, the same as
 * babeltrace2 reads them, and from a capture that begins in the middle of an event.
 */
class ZephyrTraceTest {
    /** 20 ms before the 32-bit nanosecond timestamp wraps (4.29 s): the scenario wraps it several times. */
    private static final long START = (1L << 32) - 20_000_000L;

    @TempDir
    Path tmp;

    /** One event as read: name, time in ns, warnings told. */
    private record Read(String name, long time) {}

    private static List<Read> read(Path dir, List<String> warnings) throws Exception {
        List<Read> events = new ArrayList<>();
        try (CtfTrace trace = CtfTrace.open(dir, warnings::add)) {
            assertEquals(1, trace.streams().size());
            StreamDecoder d = trace.decoder(0);
            while (d.next()) {
                events.add(new Read(d.event().cls.name(), d.clockValue()));
            }
        }
        return events;
    }

    /** Equal lists, else the first difference (the lists run to thousands of events). */
    private static void assertSameEvents(List<Read> expected, List<Read> actual, String where) {
        for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
            assertEquals(expected.get(i), actual.get(i), where + ": event " + i);
        }
        assertEquals(expected.size(), actual.size(), where + ": events read");
    }

    /** Equal texts, else the first line that differs. */
    private static void assertSameText(String expected, String actual) {
        List<String> e = expected.lines().toList();
        List<String> a = actual.lines().toList();
        for (int i = 0; i < Math.min(e.size(), a.size()); i++) {
            assertEquals(e.get(i), a.get(i), "line " + (i + 1));
        }
        assertEquals(e.size(), a.size(), "lines");
    }

    private static List<Read> truth(List<Written> written, long shift) {
        return written.stream().map(w -> new Read(w.name(), w.time() - shift)).toList();
    }

    @Test
    void posixFileReadsAsWrittenWithTheTimestampExtendedPastEachWrap() throws Exception {
        ZephyrTraces z = ZephyrTraces.scenario(7, START, 9000);
        Path dir = z.writePosix(tmp.resolve("posix"));
        List<String> warnings = new ArrayList<>();
        List<Read> events = read(dir, warnings);
        assertSameEvents(truth(z.written(), 0), events, "POSIX file");
        assertEquals(List.of(), warnings);
        long last = events.getLast().time();
        assertTrue(last > 2 * (1L << 32), "the scenario wraps the 32-bit timestamp at least twice: " + last);
        for (int i = 1; i < events.size(); i++) {
            assertTrue(events.get(i).time() >= events.get(i - 1).time(), "time goes back at event " + i);
        }
    }

    @Test
    void readsAsBabeltrace2Does() throws Exception {
        Path dir = ZephyrTraces.scenario(11, START, 400).writePosix(tmp.resolve("bt"));
        if (!Required.ifPresent(Required.hasBabeltrace2(), "babeltrace2")) {
            return;
        }
        TraceReading.Babeltrace bt = TraceReading.babeltrace(dir);
        assertEquals(0, bt.exit(), bt.err());
        assertTrue(bt.out().lines().count() > 1000, "babeltrace2 printed the events");
        assertSameText(bt.out(), TraceReading.hetraceText(dir));
    }

    @Test
    void captureStartingInTheMiddleOfAnEventIsReadFromTheNextEvent() throws Exception {
        for (long seed = 1; seed <= 4; seed++) {
            captureFromEveryByte(ZephyrTraces.scenario(seed, START, 300), "seed " + seed);
        }
    }

    /** Captures from every byte of a run of 40 events, of every kind the scenario writes. */
    private void captureFromEveryByte(ZephyrTraces z, String scenario) throws Exception {
        List<Written> written = z.written();
        int from = written.get(20).offset();
        int to = written.get(60).offset();
        for (int cut = from; cut <= to; cut++) {
            int first = 0;
            while (written.get(first).offset() < cut) {
                first++;
            }
            Written w = written.get(first);
            long shift = w.time() - (w.time() & 0xFFFF_FFFFL);
            Path dir = z.writeCapture(tmp.resolve("capture"), cut);
            List<String> warnings = new ArrayList<>();
            List<Read> events = read(dir, warnings);
            String where = scenario + ", capture from byte " + cut;
            assertSameEvents(truth(written.subList(first, written.size()), shift), events, where);
            int skipped = w.offset() - cut;
            assertEquals(
                    skipped == 0
                            ? List.of()
                            : List.of(dir.resolve(ZephyrTraces.STREAM_FILE)
                                    + ": the capture begins in the middle of an event: " + skipped
                                    + " bytes skipped before the first event that decodes"),
                    warnings,
                    where);
        }
    }

    @Test
    void fileWhoseFirstEventsAreFarApartInTimeIsReadFromItsFirstByte() throws Exception {
        ZephyrTraces z = new ZephyrTraces();
        z.thread(1_000, ZephyrTraces.THREAD_SWITCHED_IN, 0x2000, "main");
        z.event(2_000, ZephyrTraces.ISR_ENTER);
        z.event(2_500, ZephyrTraces.ISR_EXIT);
        z.thread(3_000, ZephyrTraces.THREAD_SWITCHED_OUT, 0x2000, "main");
        z.event(3_100, ZephyrTraces.IDLE);
        // 4.29 s of idle: more than half the 32-bit timestamp's range
        z.objectTimeout(0xFFFF_FFF0L, ZephyrTraces.SEMAPHORE_TAKE_ENTER, 7, 100);
        z.objectResult(0x1_0000_0010L, ZephyrTraces.SEMAPHORE_TAKE_EXIT, 7, 100, 0);
        List<String> warnings = new ArrayList<>();
        List<Read> events = read(z.writePosix(tmp.resolve("far")), warnings);
        assertSameEvents(truth(z.written(), 0), events, "far apart");
        assertEquals(List.of(), warnings);
    }

    @Test
    void captureCutAtAnEventReadsAsBabeltrace2Does() throws Exception {
        ZephyrTraces z = ZephyrTraces.scenario(5, START, 200);
        Path dir = z.writeCapture(tmp.resolve("at-event"), z.written().get(33).offset());
        if (!Required.ifPresent(Required.hasBabeltrace2(), "babeltrace2")) {
            return;
        }
        TraceReading.Babeltrace bt = TraceReading.babeltrace(dir);
        assertEquals(0, bt.exit(), bt.err());
        assertSameText(bt.out(), TraceReading.hetraceText(dir));
    }

    @Test
    void smpTraceReadsAsWrittenEachEventWithItsCoreId() throws Exception {
        ZephyrTraces z = ZephyrTraces.smpScenario(3, START, 3000);
        Path dir = z.writePosix(tmp.resolve("smp"));
        List<String> warnings = new ArrayList<>();
        List<Written> written = z.written();
        int i = 0;
        try (CtfTrace trace = CtfTrace.open(dir, warnings::add)) {
            StreamDecoder d = trace.decoder(0);
            while (d.next()) {
                Written w = written.get(i++);
                assertEquals(w.name(), d.event().cls.name(), "event " + i);
                assertEquals(w.time(), d.clockValue(), "event " + i);
            }
        }
        assertEquals(written.size(), i, "events read");
        assertEquals(List.of(), warnings);
        assertEquals(2, written.stream().mapToInt(Written::core).distinct().count());
        String text = TraceReading.hetraceText(dir);
        List<String> lines = text.lines().toList();
        assertEquals(written.size(), lines.size());
        for (int k = 0; k < lines.size(); k++) {
            assertTrue(lines.get(k).endsWith("core_id = " + written.get(k).core() + " }"), lines.get(k));
        }
        if (!Required.ifPresent(Required.hasBabeltrace2(), "babeltrace2")) {
            return;
        }
        TraceReading.Babeltrace bt = TraceReading.babeltrace(dir);
        assertEquals(0, bt.exit(), bt.err());
        assertSameText(bt.out(), text);
    }

    // ------------------------------------------------------------------ the circular RAM capture

    /** Zephyr's defaults: a 4 KiB buffer of 32 slots of 128 bytes. */
    private static final int RAM = 4096;

    private static final int SLOTS = 32;

    private static List<Read> truth(ZephyrTraces z, List<Integer> events) {
        List<Written> w = z.written();
        return events.stream()
                .map(i -> new Read(w.get(i).name(), w.get(i).time()))
                .toList();
    }

    @Test
    void wrappedRingDumpIsReadAsItsPacketsInTheOrderWritten() throws Exception {
        ZephyrTraces z = ZephyrTraces.scenario(ZephyrTraces.Layout.CIRCULAR, 9, 5_000_000_000L, 700);
        ZephyrTraces.RingDump dump = z.ring(RAM, SLOTS, 0);
        List<Integer> slots = dump.survivingSlots();
        assertTrue(slots.getFirst() > 0, "the ring wrapped: its oldest packet is not in slot 0: " + slots);
        assertEquals(SLOTS, slots.size(), "every slot holds a packet of the last ones written");
        List<String> warnings = new ArrayList<>();
        List<Read> events = read(dump.write(tmp.resolve("ring")), warnings);
        List<Read> expected = truth(z, dump.surviving());
        assertTrue(
                expected.size() > 100 && expected.size() < z.written().size() / 4, "events kept: " + expected.size());
        assertSameEvents(expected, events, "ring dump");
        assertEquals(List.of(), warnings);
    }

    @Test
    void ringDumpBeforeTheBufferWrappedSkipsTheSlotsNeverWritten() throws Exception {
        ZephyrTraces z = ZephyrTraces.scenario(ZephyrTraces.Layout.CIRCULAR, 4, 5_000_000_000L, 3);
        ZephyrTraces.RingDump dump = z.ring(RAM, SLOTS, 0);
        assertEquals(z.written().size(), dump.surviving().size(), "nothing overwritten yet");
        assertTrue(dump.survivingSlots().size() < SLOTS / 2, "slots left empty: " + dump.survivingSlots());
        List<String> warnings = new ArrayList<>();
        assertSameEvents(truth(z, dump.surviving()), read(dump.write(tmp.resolve("ring")), warnings), "ring dump");
        assertEquals(List.of(), warnings);
    }

    @Test
    void tornOldestPacketIsLeftOutWithAWarningNamingItsSlotAndBytes() throws Exception {
        ZephyrTraces z = ZephyrTraces.scenario(ZephyrTraces.Layout.CIRCULAR, 9, 5_000_000_000L, 700);
        // the next packet's magic and timestamp_begin written over the oldest packet's
        ZephyrTraces.RingDump dump = z.ring(RAM, SLOTS, 12);
        List<String> warnings = new ArrayList<>();
        Path dir = dump.write(tmp.resolve("torn"));
        List<Read> events = read(dir, warnings);
        assertSameEvents(truth(z, dump.surviving()), events, "torn ring dump");
        int slot = dump.torn();
        int size = RAM / SLOTS;
        assertEquals(1, warnings.size(), warnings.toString());
        String w = warnings.getFirst();
        assertTrue(
                w.startsWith(dir.resolve(ZephyrTraces.RING_FILE) + ": ring buffer dump: the packet in slot " + slot
                        + " (bytes " + slot * size + " to " + ((slot + 1) * size - 1) + ") is torn (timestamp_begin "),
                w);
        assertTrue(w.endsWith("): its " + size + " bytes are skipped"), w);
    }

    @Test
    void tornFirstSlotOfARingWhoseNewestPacketIsItsLastIsLeftOut() throws Exception {
        // a run that ends in the last slot: the packets are in order in the file, but for the oldest
        ZephyrTraces z = null;
        ZephyrTraces.RingDump dump = null;
        for (int switches = 300; dump == null || dump.torn() != 0; switches++) {
            z = ZephyrTraces.scenario(ZephyrTraces.Layout.CIRCULAR, 9, 5_000_000_000L, switches);
            dump = z.ring(RAM, SLOTS, 12);
        }
        List<String> warnings = new ArrayList<>();
        List<Read> events = read(dump.write(tmp.resolve("torn0")), warnings);
        assertSameEvents(truth(z, dump.surviving()), events, "torn first slot");
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.getFirst().contains("the packet in slot 0 (bytes 0 to 127) is torn"), warnings.getFirst());
    }

    /**
     * A dump that tore the oldest packet after any number of bytes of the next one's header:
     * every event read is one written, in order; the packets the dump did not touch are read
     * whole; the torn one is either read whole (the bytes written over it changed none of its
     * events) or left out, with a warning when it had events.
     */
    @Test
    void ringDumpTornAfterAnyNumberOfBytesYieldsOnlyEventsWritten() throws Exception {
        ZephyrTraces z = ZephyrTraces.scenario(ZephyrTraces.Layout.CIRCULAR, 13, 5_000_000_000L, 500);
        for (int torn = 1; torn <= ZephyrTraces.RING_HEADER_BYTES; torn++) {
            ZephyrTraces.RingDump dump = z.ring(RAM, SLOTS, torn);
            int slot = dump.torn();
            List<Integer> with = new ArrayList<>();
            for (int e = dump.from()[slot]; e < dump.to()[slot]; e++) {
                with.add(e);
            }
            with.addAll(dump.surviving());
            List<String> warnings = new ArrayList<>();
            List<Read> events = read(dump.write(tmp.resolve("torn" + torn)), warnings);
            String where = torn + " bytes written over slot " + slot;
            List<Read> without = truth(z, dump.surviving());
            if (events.equals(without)) {
                int contentBits = java.nio.ByteBuffer.wrap(dump.bytes())
                        .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                        .getInt(slot * dump.slotSize() + 20);
                if (contentBits > ZephyrTraces.RING_HEADER_BYTES * 8) {
                    assertEquals(1, warnings.size(), where + ": " + warnings);
                    assertTrue(
                            warnings.getFirst().contains("the packet in slot " + slot + " "), where + ": " + warnings);
                } else {
                    assertEquals(List.of(), warnings, where);
                }
            } else {
                assertSameEvents(truth(z, with), events, where);
                assertEquals(List.of(), warnings, where);
            }
        }
    }

    @Test
    void ringDumpReadsAsBabeltrace2ReadsItsPacketsSorted() throws Exception {
        ZephyrTraces z = ZephyrTraces.scenario(ZephyrTraces.Layout.CIRCULAR, 17, 5_000_000_000L, 900);
        ZephyrTraces.RingDump dump = z.ring(RAM, SLOTS, 12);
        Path raw = dump.write(tmp.resolve("raw"));
        Path sorted = dump.writeSorted(tmp.resolve("sorted"));
        if (!Required.ifPresent(Required.hasBabeltrace2(), "babeltrace2")) {
            return;
        }
        TraceReading.Babeltrace bt = TraceReading.babeltrace(sorted);
        assertEquals(0, bt.exit(), bt.err());
        assertEquals(dump.surviving().size(), bt.out().lines().count(), "babeltrace2 printed the events");
        assertSameText(bt.out(), TraceReading.hetraceText(raw));
    }
}

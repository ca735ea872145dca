package dev.hetrace.analysis.index;

import dev.hetrace.analysis.ClassCache;
import dev.hetrace.analysis.LongIntMap;
import dev.hetrace.analysis.LongRows;
import dev.hetrace.analysis.Mapping;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.EventPosition;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * The narrow row of every event, taken from the state pass as it reads them (each trace's
 * in its own log, filled by the thread that reads the trace): small numbers only (the trace,
 * event name and core as their ENUM's ordinals, the event's position to decode it again),
 * kept in chunks of native memory (the positions per run of events in one packet, and per
 * event its distance from the one before) until the pass is over and the core names known.
 * The {@code events} view adds the names and the fields ({@link EventFields}).
 */
public final class EventLog implements StateBuilder.EventListener {
    /**
     * An event's row ({@link TraceLog}), one long: the time since the trace's last timed
     * event (32 bits), the name's id and the core's (16 bits each); {@link #OTHER} in the
     * time's place when the event is told in full in the trace's other rows (no time, a
     * difference or id that does not fit).
     */
    private static final long OTHER = 0xFFFFFFFFL;

    private static final int EXCEPTION_TIME = 0;
    private static final int EXCEPTION_IDS = 1;
    /** The fields of a run's row ({@link TraceLog}). */
    private static final int RUN_FIRST_FILE = 0;

    private static final int RUN_STREAM = 1;
    private static final int RUN_PACKET = 2;
    private static final int RUN_OFFSET = 3;
    /** The largest distance in bits from an event to the next in its run ({@link TraceLog#distances}); past it, a run ends. */
    private static final long MAX_DISTANCE = 0xFFFF;

    final String[] traceNames;
    /** The event names of every trace's metadata (filled before the pass), the ENUM's values. */
    final Set<String> eventNames = new LinkedHashSet<>();

    final Map<String, Integer> nameIds = new HashMap<>();
    final TraceLog[] logs;
    final LongConsumer progress;
    final AtomicLong read = new AtomicLong();

    EventLog(int traces, List<String> traceNames, LongConsumer progress) {
        this.traceNames = traceNames.toArray(String[]::new);
        this.progress = progress;
        logs = new TraceLog[traces];
    }

    @Override
    public void opened(int i, CtfReader r, Mapping m) {
        for (String e : StateBuilder.eventNames(r.traces())) {
            if (eventNames.add(e)) {
                nameIds.put(e, nameIds.size());
            }
        }
        logs[i] = new TraceLog(m.core() == null ? null : Event.field(m.core()), new EventPosition.Tracker(r.traces()));
    }

    @Override
    public void event(int trace, CtfReader reader, long t) {
        logs[trace].event(reader, t);
    }

    /** An event name's id: the metadata's names are known before the pass; another (a class without a name) is added. */
    synchronized int nameId(String name) {
        Integer id = nameIds.get(name);
        if (id == null) {
            id = nameIds.size();
            nameIds.put(name, id);
            eventNames.add(name);
        }
        return id;
    }

    /** Events of trace {@code i} read (once the pass is over). */
    long count(int i) {
        return logs[i] == null ? 0 : logs[i].rows.size();
    }

    /** The first and last times of trace {@code i}'s timed events (MAX_VALUE, MIN_VALUE: none). */
    long[] span(int i) {
        return logs[i] == null ? new long[] {Long.MAX_VALUE, Long.MIN_VALUE} : new long[] {logs[i].first, logs[i].last};
    }

    /** Events of every trace read. */
    long total() {
        long n = 0;
        for (int i = 0; i < logs.length; i++) {
            n += count(i);
        }
        return n;
    }

    /**
     * One trace's rows, written by the one thread that reads the trace: per event its time,
     * name and core; its position (stream, stream file, packet, offset in the packet) kept
     * per run of events that follow each other in one packet, as they mostly do, and for the
     * events after a run's first their distance from the event before (2 bytes each, where
     * an offset would take 4 or 8).
     */
    final class TraceLog {
        final Event.Field coreField;
        final EventPosition.Tracker where;
        /** The name id of each event class met. */
        final ClassCache<Integer> classNames = new ClassCache<>(e -> nameId(e.name()));
        /** CPUs met (−1: none), numbered in order of appearance. */
        final LongIntMap coreIds = new LongIntMap();

        final List<Long> cpus = new ArrayList<>();
        /** Per event, its row ({@link #OTHER}); 8 bytes, where the whole time and ids took 16. */
        final LongRows rows = new LongRows(1);
        /**
         * The events told in full, in order ({@link #EXCEPTION_TIME}, {@link #EXCEPTION_IDS}):
         * the time (Long.MIN_VALUE: none), the name's id and the core's.
         */
        final LongRows others = new LongRows(2);
        /** The time of the last timed event, from which the next one's is told. */
        long previous;
        /**
         * Per run ({@link #RUN_FIRST_FILE}...): its first event and the stream file, the
         * stream's id, the packet's offset in bytes, the first event's offset in the packet
         * in bits.
         */
        final LongRows runs = new LongRows(4);
        /**
         * Per event, four to a long from the low bits up, its offset less the offset of the
         * event before it in its run, in bits (0 for a run's first): events of up to 8 KiB
         * follow each other in a run; a larger one begins a run. A long is written once its
         * four are known, the last by {@link #flushDistances}.
         */
        final LongRows distances = new LongRows(1);
        /** The distances of the events since the last long of {@code distances}, fewer than four. */
        long pendingDistances;

        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        /** The CPU of the last event, and its number; an event of a trace without a core field has CPU −1, number 0. */
        long lastCpu = Long.MIN_VALUE;

        int lastCore;
        /** The current run's stream file and packet, and the offset of its last event in the packet. */
        int runFile = -1;

        long runPacket = -1;
        long runLast;

        TraceLog(Event.Field coreField, EventPosition.Tracker where) {
            this.coreField = coreField;
            this.where = where;
            if (coreField == null) {
                core(-1);
            }
        }

        void event(CtfReader reader, long t) {
            Event e = reader.event();
            EventCursor cursor = reader.cursor();
            int name = classNames.of(e);
            if (coreField != null) {
                long cpu = e.has(coreField) ? e.getLong(coreField) : -1;
                if (cpu != lastCpu) {
                    core(cpu);
                }
            }
            boolean follows = where.update(cursor);
            long at = where.eventOffset();
            long distance = at - runLast;
            // a stream parked and resumed goes on in its packet: the same run
            if (distance > MAX_DISTANCE
                    || !follows
                            && (distance <= 0 || where.streamFile() != runFile || where.packetOffset() != runPacket)) {
                run(cursor.trace().streamId(cursor.stream()), at);
                distance = 0;
            }
            runLast = at;
            long since = OTHER;
            long time = Long.MIN_VALUE;
            if (cursor.hasTime()) {
                first = Math.min(first, t);
                last = Math.max(last, t);
                time = t;
                since = t - previous;
                previous = t;
            }
            int o = rows.append();
            int k = o & 3;
            pendingDistances = k == 0 ? distance : pendingDistances | distance << (k << 4);
            if (k == 3) {
                int d = distances.append();
                distances.lastChunk().setAtIndex(LongRows.L, d, pendingDistances);
            }
            if (since >= 0 && since < OTHER && (name | lastCore) < 0x10000) {
                rows.lastChunk().setAtIndex(LongRows.L, o, since << 32 | (long) name << 16 | lastCore);
            } else {
                rows.lastChunk().setAtIndex(LongRows.L, o, OTHER << 32);
                int x = others.append();
                MemorySegment c = others.lastChunk();
                c.setAtIndex(LongRows.L, x + EXCEPTION_TIME, time);
                c.setAtIndex(LongRows.L, x + EXCEPTION_IDS, LongRows.pair(name, lastCore));
            }
            if ((rows.size() & 0xFFFF) == 0) {
                progress.accept(read.addAndGet(0x10000));
            }
        }

        /** The core of the events from here on is CPU {@code cpu} (−1: none). */
        private void core(long cpu) {
            lastCpu = cpu;
            int id = coreIds.get(cpu);
            if (id == LongIntMap.ABSENT) {
                id = cpus.size();
                coreIds.put(cpu, id);
                cpus.add(cpu);
            }
            lastCore = id;
        }

        /** A run of events in one packet begins with this one, {@code at} bits into its packet. */
        private void run(long streamId, long at) {
            runFile = where.streamFile();
            runPacket = where.packetOffset();
            int o = runs.append();
            MemorySegment c = runs.lastChunk();
            c.setAtIndex(LongRows.L, o + RUN_FIRST_FILE, LongRows.pair(rows.size(), runFile));
            c.setAtIndex(LongRows.L, o + RUN_STREAM, streamId);
            c.setAtIndex(LongRows.L, o + RUN_PACKET, runPacket);
            c.setAtIndex(LongRows.L, o + RUN_OFFSET, at);
        }

        /** Writes the distances of the last events, fewer than four, once the pass is over. */
        void flushDistances() {
            if ((long) distances.size() * 4 < rows.size()) {
                int d = distances.append();
                distances.lastChunk().setAtIndex(LongRows.L, d, pendingDistances);
            }
        }

        /** The first event of run {@code r}, or the count of events past the last run. */
        int runFirst(int r) {
            return r < runs.size() ? LongRows.high(runs.get(r, RUN_FIRST_FILE)) : rows.size();
        }
    }

    /** The events' columns, the cores named as {@code coreNames} (the ENUM's values). */
    List<ParquetFile.Column> columns(List<String> coreNames) {
        return List.of(
                ParquetFile.Column.names("trace", false, Arrays.asList(traceNames)),
                ParquetFile.Column.longs("stream", false),
                ParquetFile.Column.longs("time_ns", true),
                ParquetFile.Column.names("name", false, new ArrayList<>(eventNames)),
                ParquetFile.Column.names("core", true, coreNames),
                ParquetFile.Column.ints("trace_index", false),
                ParquetFile.Column.ints("stream_file", false),
                ParquetFile.Column.longs("packet", false),
                ParquetFile.Column.longs("event_offset", false));
    }

    /** The rows, trace by trace, the cores numbered as {@code coreNames}: a core not in it is NULL. */
    ParquetFile.Rows rows(List<String> coreNames) {
        for (TraceLog l : logs) {
            if (l != null) {
                l.flushDistances();
            }
        }
        Map<String, Integer> byName = new HashMap<>();
        for (String c : coreNames) {
            byName.putIfAbsent(c, byName.size());
        }
        int[][] core = new int[logs.length][];
        for (int t = 0; t < logs.length; t++) {
            List<Long> cpus = logs[t] == null ? List.of() : logs[t].cpus;
            core[t] = new int[cpus.size()];
            for (int k = 0; k < cpus.size(); k++) {
                long cpu = cpus.get(k);
                // named as the state model names its cores; one it does not know (no event of it mapped) is NULL
                core[t][k] = byName.getOrDefault(traceNames[t] + (cpu < 0 ? "" : "/cpu" + cpu), -1);
            }
        }
        return new ParquetFile.Rows() {
            final long[] block = new long[1024];
            /** The distances of the events of {@code block}, four to a long. */
            final long[] distance = new long[block.length / 4 + 1];

            int trace;
            int next;
            int run;
            /** The current trace's next row told in full, and the time its next event's is told from. */
            int other;

            long previous;
            /** The offset of the event before {@code next} in its packet. */
            long offset;

            @Override
            public int fill(ParquetFile.Group out, int capacity) {
                int row = 0;
                while (row < capacity && trace < logs.length) {
                    TraceLog l = logs[trace];
                    if (l == null || next >= l.rows.size()) {
                        trace++;
                        next = 0;
                        run = 0;
                        other = 0;
                        previous = 0;
                        continue;
                    }
                    int from = row;
                    while (row < capacity && next < l.rows.size()) {
                        // rows within one run, read a block at a time
                        while (l.runFirst(run + 1) <= next) {
                            run++;
                        }
                        int n = l.rows.read(next, Math.min(capacity - row, l.runFirst(run + 1) - next), block);
                        positions(out, l, row, n);
                        events(out, l, core[trace], row, n);
                        row += n;
                        next += n;
                    }
                    Arrays.fill(out.ints[0], from, row, trace);
                    Arrays.fill(out.longs[5], from, row, trace);
                }
                return row;
            }

            // each step a method of its own: small loops, each quick for the JIT to compile

            /** Rows {@code row} on: the positions of the {@code n} events from {@code next} on, all in run {@code run}. */
            private void positions(ParquetFile.Group out, TraceLog l, int row, int n) {
                long firstFile = l.runs.get(run, RUN_FIRST_FILE);
                Arrays.fill(out.longs[1], row, row + n, l.runs.get(run, RUN_STREAM));
                Arrays.fill(out.longs[7], row, row + n, l.runs.get(run, RUN_PACKET));
                Arrays.fill(out.longs[6], row, row + n, LongRows.low(firstFile));
                // each offset the one before plus its distance (0 for the run's first)
                int d0 = next >>> 2;
                l.distances.read(d0, ((next + n - 1) >>> 2) - d0 + 1, distance);
                long at = next == LongRows.high(firstFile) ? l.runs.get(run, RUN_OFFSET) : offset;
                long[] vOffset = out.longs[8];
                for (int j = 0; j < n; j++) {
                    int e = next + j;
                    at += (distance[(e >>> 2) - d0] >>> ((e & 3) << 4)) & MAX_DISTANCE;
                    vOffset[row + j] = at;
                }
                offset = at;
            }

            /** Rows {@code row} on: the times, names and cores of the {@code n} events of {@code block}. */
            private void events(ParquetFile.Group out, TraceLog l, int[] cores, int row, int n) {
                long[] vTime = out.longs[2];
                int[] vName = out.ints[3];
                int[] vCore = out.ints[4];
                for (int j = 0; j < n; j++) {
                    int r = row + j;
                    long v = block[j];
                    long time;
                    int name;
                    int core;
                    if (v >>> 32 != OTHER) {
                        time = previous + (v >>> 32);
                        previous = time;
                        name = (int) (v >>> 16) & 0xFFFF;
                        core = (int) v & 0xFFFF;
                    } else {
                        time = l.others.get(other, EXCEPTION_TIME);
                        long ids = l.others.get(other, EXCEPTION_IDS);
                        other++;
                        name = LongRows.high(ids);
                        core = LongRows.low(ids);
                        if (time != Long.MIN_VALUE) {
                            previous = time;
                        }
                    }
                    if (time == Long.MIN_VALUE) {
                        out.setNull(2, r);
                    }
                    vTime[r] = time;
                    vName[r] = name;
                    int cr = cores[core];
                    if (cr < 0) {
                        out.setNull(4, r);
                    }
                    vCore[r] = cr;
                }
            }
        };
    }
}

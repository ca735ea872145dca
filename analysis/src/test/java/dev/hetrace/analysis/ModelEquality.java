package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Two state models compared table by table, column by column, value by value: every list, every
 * per-trace array, every row of every table, every count. The first difference fails with where
 * it is (table, row, column) and both values.
 */
public final class ModelEquality {
    private ModelEquality() {}

    public static void assertEqual(StateModel expected, StateModel actual) {
        assertThat(actual.traceNames).as("trace names").isEqualTo(expected.traceNames);
        assertThat(actual.mappingNames).as("mapping names").isEqualTo(expected.mappingNames);
        assertThat(actual.cores).as("cores").isEqualTo(expected.cores);
        assertThat(actual.tasks).as("tasks").isEqualTo(expected.tasks);
        assertThat(actual.names).as("function and interrupt names").isEqualTo(expected.names);
        assertThat(actual.eventNames).as("point event names").isEqualTo(expected.eventNames);
        assertThat(actual.traceFirst).as("traces' first events").isEqualTo(expected.traceFirst);
        assertThat(actual.traceLast).as("traces' last events").isEqualTo(expected.traceLast);
        assertThat(actual.traceLongestGap).as("traces' longest gaps").isEqualTo(expected.traceLongestGap);
        assertThat(actual.osThreads).as("traces' OS threads").isEqualTo(expected.osThreads);
        assertThat(actual.places).as("traces' places").isEqualTo(expected.places);
        assertThat(actual.begin).as("begin").isEqualTo(expected.begin);
        assertThat(actual.end).as("end").isEqualTo(expected.end);
        assertThat(actual.events).as("events").isEqualTo(expected.events);
        assertThat(actual.untimed).as("untimed events").isEqualTo(expected.untimed);
        assertThat(actual.discarded).as("discarded events").isEqualTo(expected.discarded);
        intervals("runs", expected.runs, actual.runs);
        intervals("task states", expected.taskStates, actual.taskStates);
        intervals("calls", expected.calls, actual.calls);
        intervals("irqs", expected.irqs, actual.irqs);
        messages(expected.messages, actual.messages);
        rows("marks", expected.marks, actual.marks);
        rows("wake-ups", expected.wakeups, actual.wakeups);
        rows("forks", expected.forks, actual.forks);
        assertThat(actual.counters).as("counter series").isEqualTo(expected.counters);
        rows("counter samples", expected.samples, actual.samples);
    }

    private static void intervals(String table, IntervalTable e, IntervalTable a) {
        assertThat(a.size()).as("%s: rows", table).isEqualTo(e.size());
        for (int i = 0; i < e.size(); i++) {
            same(table, i, "start", e.start(i), a.start(i));
            same(table, i, "end", e.end(i), a.end(i));
            same(table, i, "owner", e.owner(i), a.owner(i));
            same(table, i, "subject", e.subject(i), a.subject(i));
            same(table, i, "state", e.state(i), a.state(i));
            same(table, i, "depth", e.depth(i), a.depth(i));
            same(table, i, "flags", e.flags(i), a.flags(i));
            same(table, i, "self", e.self(i), a.self(i));
        }
    }

    private static void messages(MessageTable e, MessageTable a) {
        String table = "messages";
        assertThat(a.size()).as("messages: rows").isEqualTo(e.size());
        for (int i = 0; i < e.size(); i++) {
            same(table, i, "send time", e.sendTime(i), a.sendTime(i));
            same(table, i, "send core", e.sendCore(i), a.sendCore(i));
            same(table, i, "send task", e.sendTask(i), a.sendTask(i));
            same(table, i, "send call", e.sendCall(i), a.sendCall(i));
            same(table, i, "receive time", e.receiveTime(i), a.receiveTime(i));
            same(table, i, "receive core", e.receiveCore(i), a.receiveCore(i));
            same(table, i, "receive task", e.receiveTask(i), a.receiveTask(i));
            same(table, i, "receive call", e.receiveCall(i), a.receiveCall(i));
            same(table, i, "queue", e.queue(i), a.queue(i));
            same(table, i, "id", e.id(i), a.id(i));
            same(table, i, "flags", e.flags(i), a.flags(i));
        }
    }

    /** Rows of longs, every field of every row (marks, wake-ups and forks pack their ids two to a long). */
    private static void rows(String table, LongRows e, LongRows a) {
        assertThat(a.size()).as("%s: rows", table).isEqualTo(e.size());
        int width = 0;
        for (int w = 1; w <= 16 && e.size() > 0; w++) {
            long[] probe = new long[w];
            if (e.read(0, 1, probe) == 1) {
                width = w;
                break;
            }
        }
        for (int i = 0; i < e.size(); i++) {
            for (int f = 0; f < width; f++) {
                same(table, i, "field " + f, e.get(i, f), a.get(i, f));
            }
        }
    }

    private static void same(String table, int row, String column, long e, long a) {
        if (e != a) {
            fail("%s: row %d, %s: expected %d, was %d", table, row, column, e, a);
        }
    }
}

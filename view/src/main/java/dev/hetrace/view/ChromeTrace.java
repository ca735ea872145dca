package dev.hetrace.view;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.MessageTable;
import dev.hetrace.analysis.StateModel;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;

/**
 * The synchronized timeline in Chrome's trace event format (the JSON that Perfetto UI and
 * chrome://tracing open): a process per trace; in it, a track per core with the tasks that ran
 * on it, a track per core with its interrupts, and two tracks per task, its calls (nested) and
 * its states (running, preempted, blocked, waiting); messages as flow arrows from the send to the
 * receive. Times are microseconds from the first event, to the nanosecond.
 */
public final class ChromeTrace {
    /** Thread ids: cores' tracks from 1, interrupts' from IRQ_BASE, tasks' from TASK_BASE (two per task). */
    static final int IRQ_BASE = 100_000;

    static final int TASK_BASE = 200_000;

    private ChromeTrace() {}

    /** Writes {@code m}'s timeline to {@code out} (not closed). */
    public static void write(StateModel m, OutputStream out) throws IOException {
        try (JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
            g.configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
            new Writer(m, g).write();
        }
    }

    /** The process of a trace. */
    static int pid(int trace) {
        return trace + 1;
    }

    /** The track of a task's calls; its states are on the next one. */
    static int callTrack(int task) {
        return TASK_BASE + 2 * task;
    }

    private static final class Writer {
        final StateModel m;
        final JsonGenerator g;
        final boolean[] scheduled;

        Writer(StateModel m, JsonGenerator g) {
            this.m = m;
            this.g = g;
            scheduled = new boolean[m.tasks().size()];
            for (int i = 0; i < m.runs().size(); i++) {
                scheduled[m.runs().subject(i)] = true;
            }
        }

        void write() throws IOException {
            g.writeStartObject();
            g.writeStringField("displayTimeUnit", "ns");
            g.writeObjectFieldStart("otherData");
            g.writeStringField("generator", "hetrace");
            g.writeNumberField("begin_ns", m.begin());
            g.writeEndObject();
            g.writeArrayFieldStart("traceEvents");
            names();
            IntervalTable runs = m.runs();
            for (int i = 0; i < runs.size(); i++) {
                int core = runs.owner(i);
                int task = runs.subject(i);
                String name = m.tasks().get(task).name();
                int pid = pid(m.cores().get(core).trace());
                if (runs.state(i) != StateModel.IDLE) {
                    slice(pid, core + 1, "run", name, runs.start(i), runs.end(i), runs.flags(i));
                }
                // the task's own state track shows where it ran
                slice(
                        pid,
                        callTrack(task) + 1,
                        "state",
                        "running on " + m.cores().get(core).name(),
                        runs.start(i),
                        runs.end(i),
                        runs.flags(i));
            }
            IntervalTable states = m.taskStates();
            for (int i = 0; i < states.size(); i++) {
                int task = states.owner(i);
                String name = StateModel.stateName(states.state(i))
                        + (states.subject(i) >= 0 ? " (queue " + states.subject(i) + ")" : "");
                slice(
                        pid(m.tasks().get(task).trace()),
                        callTrack(task) + 1,
                        "state",
                        name,
                        states.start(i),
                        states.end(i),
                        states.flags(i));
            }
            IntervalTable calls = m.calls();
            for (int i = 0; i < calls.size(); i++) {
                int task = calls.owner(i);
                slice(
                        pid(m.tasks().get(task).trace()),
                        callTrack(task),
                        "call",
                        m.name(calls.subject(i)),
                        calls.start(i),
                        calls.end(i),
                        calls.flags(i));
            }
            IntervalTable irqs = m.irqs();
            for (int i = 0; i < irqs.size(); i++) {
                int core = irqs.owner(i);
                slice(
                        pid(m.cores().get(core).trace()),
                        IRQ_BASE + core,
                        "irq",
                        m.name(irqs.subject(i)),
                        irqs.start(i),
                        irqs.end(i),
                        irqs.flags(i));
            }
            messages();
            g.writeEndArray();
            g.writeEndObject();
        }

        /** Process and thread names, in the board's order. */
        private void names() throws IOException {
            for (int t = 0; t < m.traceNames().size(); t++) {
                meta("process_name", pid(t), 0, "name", m.traceNames().get(t));
                meta("process_sort_index", pid(t), 0, "sort_index", t);
            }
            for (int c = 0; c < m.cores().size(); c++) {
                int pid = pid(m.cores().get(c).trace());
                meta("thread_name", pid, c + 1, "name", m.cores().get(c).name());
                meta("thread_sort_index", pid, c + 1, "sort_index", c);
                meta("thread_name", pid, IRQ_BASE + c, "name", m.cores().get(c).name() + " interrupts");
                meta(
                        "thread_sort_index",
                        pid,
                        IRQ_BASE + c,
                        "sort_index",
                        m.cores().size() + c);
            }
            for (int t = 0; t < m.tasks().size(); t++) {
                StateModel.Task task = m.tasks().get(t);
                String name = task.name() + (task.id() >= 0 ? " [" + task.id() + "]" : "");
                int pid = pid(task.trace());
                meta("thread_name", pid, callTrack(t), "name", name + " calls");
                meta(
                        "thread_sort_index",
                        pid,
                        callTrack(t),
                        "sort_index",
                        2 * m.cores().size() + 2 * t);
                meta("thread_name", pid, callTrack(t) + 1, "name", name + " state");
                meta(
                        "thread_sort_index",
                        pid,
                        callTrack(t) + 1,
                        "sort_index",
                        2 * m.cores().size() + 2 * t + 1);
            }
        }

        private void meta(String what, int pid, int tid, String key, Object value) throws IOException {
            g.writeStartObject();
            g.writeStringField("ph", "M");
            g.writeStringField("name", what);
            g.writeNumberField("pid", pid);
            g.writeNumberField("tid", tid);
            g.writeObjectFieldStart("args");
            if (value instanceof Integer i) {
                g.writeNumberField(key, i);
            } else {
                g.writeStringField(key, value.toString());
            }
            g.writeEndObject();
            g.writeEndObject();
        }

        private void slice(int pid, int tid, String cat, String name, long start, long end, int flags)
                throws IOException {
            g.writeStartObject();
            g.writeStringField("ph", "X");
            g.writeStringField("cat", cat);
            g.writeStringField("name", name);
            g.writeNumberField("pid", pid);
            g.writeNumberField("tid", tid);
            g.writeFieldName("ts");
            g.writeNumber(micros(start - m.begin()));
            g.writeFieldName("dur");
            g.writeNumber(micros(end - start));
            if (flags != 0) {
                g.writeObjectFieldStart("args");
                g.writeBooleanField("start_unknown", (flags & StateModel.START_UNKNOWN) != 0);
                g.writeBooleanField("end_unknown", (flags & StateModel.END_UNKNOWN) != 0);
                g.writeBooleanField("events_lost", (flags & StateModel.EVENTS_LOST) != 0);
                g.writeEndObject();
            }
            g.writeEndObject();
        }

        /** Flow arrows, bound to the slice that encloses each end: the task's state track, or its calls when its scheduling is not traced. */
        private void messages() throws IOException {
            MessageTable msg = m.messages();
            for (int i = 0; i < msg.size(); i++) {
                if (msg.sendTask(i) < 0 || msg.receiveTask(i) < 0) {
                    continue;
                }
                flow("s", i, msg.sendTask(i), msg.sendTime(i), msg);
                flow("f", i, msg.receiveTask(i), msg.receiveTime(i), msg);
            }
        }

        private void flow(String ph, int id, int task, long t, MessageTable msg) throws IOException {
            g.writeStartObject();
            g.writeStringField("ph", ph);
            g.writeStringField("cat", "message");
            g.writeStringField("name", "message" + (msg.queue(id) >= 0 ? " on queue " + msg.queue(id) : ""));
            g.writeNumberField("id", id);
            g.writeNumberField("pid", pid(m.tasks().get(task).trace()));
            g.writeNumberField("tid", scheduled[task] ? callTrack(task) + 1 : callTrack(task));
            g.writeFieldName("ts");
            g.writeNumber(micros(t - m.begin()));
            if (ph.equals("f")) {
                g.writeStringField("bp", "e");
            }
            g.writeObjectFieldStart("args");
            g.writeNumberField("message_id", msg.id(id));
            g.writeEndObject();
            g.writeEndObject();
        }
    }

    /** Nanoseconds as microseconds with three decimals, exactly. */
    static BigDecimal micros(long nanos) {
        return BigDecimal.valueOf(nanos, 3);
    }
}

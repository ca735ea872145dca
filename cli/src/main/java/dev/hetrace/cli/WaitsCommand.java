package dev.hetrace.cli;

import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Waits;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code hetrace waits}: who waited for whom across the board, and the critical path of a request. */
@Command(
        name = "waits",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Show who waited for whom across cores, and the critical path of a request.",
            "",
            "A wait is a stretch in which a task waited for a message: blocked until it came when",
            "its scheduling is traced (an RTOS core, a kernel trace), else from its last traced",
            "activity (a call's entry or exit, a send) until it received it. Each wait is linked to",
            "the core and task that sent the message and to what the sender was doing then.",
            "The table sums them per waiter (core, task, call) and per sender (core, task, call).",
            "",
            "The critical path of a request (a call, e.g. the master's process_image) goes back",
            "from its end through the last message each waiting task got, to its sender, and so",
            "on until the request's start: the chain of work across cores that set its length.",
            "Without --path, the longest call of the task that waited longest for other cores.",
            "",
            "On a kernel trace (Linux: sched_waking/sched_wakeup), it also shows who woke whom:",
            "per woken thread and waker (a thread, or an interrupt: a device, a timer), the",
            "wake-ups and the time they ended the thread's blocks. The critical path of a thread",
            "(--task, over --range; or of the call --path names), as Trace Compass's OS critical",
            "path: back from its end, each stretch is what the thread did (running on a CPU,",
            "waiting for a CPU while another thread ran there) and, where it was blocked, what it",
            "waited for: the thread that woke it (whose own path is followed, back to the start of",
            "the block), the sender of a message it got then (across cores), or the interrupt",
            "that woke it. Without --task or --path, the thread that ran longest.",
            "",
            "Examples:",
            "  hetrace waits hetrace-demo",
            "  hetrace waits --path process_image hetrace-demo",
            "  hetrace waits --format csv board/master board/dsp*",
            "  hetrace waits --task 'multithread[2673]' --range 100ms,200ms kernel-trace/"
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:the waits were printed",
            "1:a trace could not be read or put on the reference clock, no mapping fits it,"
                    + " or no call has that name",
            "2:usage error"
        })
final class WaitsCommand extends HetraceCommand {
    enum Format {
        text,
        csv,
        json
    }

    @CommandLine.Mixin
    BoardOptions board = new BoardOptions();

    @CommandLine.Mixin
    IndexOptions index = new IndexOptions();

    @Option(
            names = "--path",
            paramLabel = "FUNCTION",
            description = "The critical path of the longest complete call of FUNCTION.")
    String path;

    @Option(
            names = "--task",
            paramLabel = "TASK",
            description = "The critical path of this thread (a name, name[tid] as the statistics show it, or a tid).")
    String task;

    @Option(
            names = "--range",
            paramLabel = "START,END",
            description =
                    "With --task: the path over this range, from the first event (e.g. 100ms,200ms; default: all).")
    String range;

    @Option(
            names = "--limit",
            paramLabel = "N",
            description =
                    "Rows of the tables (the largest first) and stretches of a path shown (default: ${DEFAULT-VALUE}; 0: all).")
    int limit = 20;

    @Option(
            names = "--format",
            paramLabel = "FORMAT",
            description = "text (default), csv (every wait; with --task, every stretch of the path) or json.")
    Format format = Format.text;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException, MetadataException, StreamDecodingException {
        long[] relative = range == null ? null : StatsCommand.parseRange(spec, range);
        if (range != null && task == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--range goes with --task");
        }
        String text;
        StateModel m = board.stored(index, main.err);
        Waits w = Waits.of(m);
        ThreadPaths threads = ThreadPaths.of(m, w, task, path, relative);
        if (threads != null) {
            return print(
                    switch (format) {
                        case text -> threads.text(limit);
                        case csv -> threads.csv();
                        case json -> threads.json();
                    });
        }
        int request = request(m, w);
        List<Waits.Step> steps = request < 0
                ? List.of()
                : w.criticalPath(
                        m.calls().owner(request),
                        w.coreOf(
                                m.calls().owner(request),
                                m.calls().start(request),
                                m.calls().end(request)),
                        m.calls().start(request),
                        m.calls().end(request));
        text = switch (format) {
            case text -> text(m, w, request, steps);
            case csv -> csv(m, w);
            case json -> json(m, w, request, steps);
        };
        return print(text);
    }

    /** The call whose critical path to show: the longest of --path, else the longest of the task that waited longest for other cores. */
    private int request(StateModel m, Waits w) {
        IntervalTable c = m.calls();
        if (path != null) {
            return ThreadPaths.longestCall(m, path);
        }
        long[] crossCore = new long[m.tasks().size()];
        for (Waits.Wait x : w.all()) {
            int sender = m.messages().sendCore(x.message());
            if (sender >= 0 && sender != x.core()) {
                crossCore[x.task()] += x.duration();
            }
        }
        int task = -1;
        for (int t = 0; t < crossCore.length; t++) {
            if (crossCore[t] > 0 && (task < 0 || crossCore[t] > crossCore[task])) {
                task = t;
            }
        }
        int best = -1;
        for (int i = 0; i < c.size() && task >= 0; i++) {
            if (c.owner(i) == task
                    && c.depth(i) == 0
                    && c.flags(i) == 0
                    && (best < 0 || c.duration(i) > c.duration(best))) {
                best = i;
            }
        }
        return best;
    }

    /** A wait summed per waiter and sender. */
    private record Pair(String waiter, String in, String sender, String doing) {}

    private static Map<Pair, long[]> pairs(StateModel m, Waits w) {
        Map<Pair, long[]> out = new LinkedHashMap<>();
        for (Waits.Wait x : w.all()) {
            int msg = x.message();
            Pair p = new Pair(
                    who(m, x.core(), x.task()),
                    call(m, w.receivedIn(msg)),
                    who(m, m.messages().sendCore(msg), m.messages().sendTask(msg)),
                    call(m, w.sentIn(msg)));
            long[] a = out.computeIfAbsent(p, k -> new long[] {0, 0, Long.MAX_VALUE, 0});
            a[0]++;
            a[1] += x.duration();
            a[2] = Math.min(a[2], x.duration());
            a[3] = Math.max(a[3], x.duration());
        }
        return out;
    }

    private static String who(StateModel m, int core, int task) {
        if (task < 0) {
            return "(before the traces)";
        }
        String c = core >= 0
                ? m.cores().get(core).name()
                : m.traceNames().get(m.tasks().get(task).trace());
        return c + "/" + m.tasks().get(task).name();
    }

    private static String call(StateModel m, int row) {
        return row < 0 ? "-" : m.name(m.calls().subject(row));
    }

    private String text(StateModel m, Waits w, int request, List<Waits.Step> steps) {
        StringBuilder sb = new StringBuilder();
        Map<Pair, long[]> pairs = pairs(m, w);
        sb.append(String.format(
                Locale.ROOT,
                "%d waits for messages, %d trace(s), %.3f s%n",
                w.all().size(),
                m.traceNames().size(),
                (m.end() - m.begin()) / 1e9));
        if (!pairs.isEmpty()) {
            List<Map.Entry<Pair, long[]>> sorted = new ArrayList<>(pairs.entrySet());
            sorted.sort((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]));
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {
                "waiter", "in", "waited for", "doing", "count", "total ms", "min ms", "avg ms", "max ms"
            });
            for (var e : sorted) {
                long[] a = e.getValue();
                rows.add(new String[] {
                    e.getKey().waiter(),
                    e.getKey().in(),
                    e.getKey().sender(),
                    e.getKey().doing(),
                    Long.toString(a[0]),
                    DiagnoseCommand.ms(a[1]),
                    DiagnoseCommand.ms(a[2]),
                    DiagnoseCommand.ms(a[1] / a[0]),
                    DiagnoseCommand.ms(a[3])
                });
            }
            sb.append('\n').append(TextTable.render(rows, "  ", i -> i >= 4));
        }
        if (request >= 0) {
            IntervalTable c = m.calls();
            sb.append(String.format(
                    Locale.ROOT,
                    "%ncritical path of %s's %s at %s s (%s ms):%n",
                    who(m, w.coreOf(c.owner(request), c.start(request), c.end(request)), c.owner(request)),
                    m.name(c.subject(request)),
                    DiagnoseCommand.sec(m, c.start(request)),
                    DiagnoseCommand.ms(c.duration(request))));
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"from s", "to s", "ms", "on", "doing", "preempted ms", "by", "then sent"});
            for (Waits.Step s : steps) {
                List<Waits.Share> by = w.preemptedBy(s.task(), s.core(), s.start(), s.end());
                long preempted = by.stream().mapToLong(Waits.Share::nanos).sum();
                rows.add(new String[] {
                    DiagnoseCommand.sec(m, s.start()),
                    DiagnoseCommand.sec(m, s.end()),
                    DiagnoseCommand.ms(s.end() - s.start()),
                    who(m, s.core(), s.task()),
                    call(m, s.call()),
                    DiagnoseCommand.ms(preempted),
                    by.isEmpty() ? "-" : m.tasks().get(by.get(0).task()).name(),
                    s.message() < 0
                            ? "-"
                            : "message " + m.messages().id(s.message())
                                    + (m.messages().queue(s.message()) >= 0
                                            ? " (queue " + m.messages().queue(s.message()) + ")"
                                            : "")
                });
            }
            sb.append(TextTable.render(rows, "  ", i -> i <= 2 || i == 5));
        } else if (path == null) {
            sb.append("\nno task waited for another core: no critical path to show\n");
        }
        return sb.toString();
    }

    private static String csv(StateModel m, Waits w) {
        StringBuilder sb = new StringBuilder("waiter_core,waiter_task,start_ns,end_ns,blocked,sender_core,sender_task,"
                + "send_ns,queue,message_id\n");
        for (Waits.Wait x : w.all()) {
            int msg = x.message();
            int sc = m.messages().sendCore(msg);
            int st = m.messages().sendTask(msg);
            sb.append(csvText(x.core() >= 0 ? m.cores().get(x.core()).name() : ""))
                    .append(',')
                    .append(csvText(m.tasks().get(x.task()).name()))
                    .append(',')
                    .append(x.start())
                    .append(',')
                    .append(x.end())
                    .append(',')
                    .append(x.blocked())
                    .append(',')
                    .append(sc >= 0 ? csvText(m.cores().get(sc).name()) : "")
                    .append(',')
                    .append(st >= 0 ? csvText(m.tasks().get(st).name()) : "")
                    .append(',')
                    .append(
                            m.messages().sendTime(msg) >= 0
                                    ? Long.toString(m.messages().sendTime(msg))
                                    : "")
                    .append(',')
                    .append(
                            m.messages().queue(msg) >= 0
                                    ? Long.toString(m.messages().queue(msg))
                                    : "")
                    .append(',')
                    .append(m.messages().id(msg))
                    .append('\n');
        }
        return sb.toString();
    }

    private static String csvText(String s) {
        return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }

    private String json(StateModel m, Waits w, int request, List<Waits.Step> steps) {
        StringBuilder sb = new StringBuilder("{\"waits\": [");
        String sep = "\n  ";
        for (var e : pairs(m, w).entrySet()) {
            long[] a = e.getValue();
            sb.append(sep)
                    .append("{\"waiter\": ")
                    .append(TextTable.quote(e.getKey().waiter()))
                    .append(", \"in\": ")
                    .append(TextTable.quote(e.getKey().in()))
                    .append(", \"waited_for\": ")
                    .append(TextTable.quote(e.getKey().sender()))
                    .append(", \"doing\": ")
                    .append(TextTable.quote(e.getKey().doing()))
                    .append(", \"count\": ")
                    .append(a[0])
                    .append(", \"total_ns\": ")
                    .append(a[1])
                    .append(", \"min_ns\": ")
                    .append(a[2])
                    .append(", \"max_ns\": ")
                    .append(a[3])
                    .append('}');
            sep = ",\n  ";
        }
        sb.append("\n],\n\"critical_path\": ");
        if (request < 0) {
            return sb.append("null}\n").toString();
        }
        IntervalTable c = m.calls();
        sb.append("{\"call\": ")
                .append(TextTable.quote(m.name(c.subject(request))))
                .append(", \"task\": ")
                .append(TextTable.quote(m.tasks().get(c.owner(request)).name()))
                .append(", \"start_ns\": ")
                .append(c.start(request))
                .append(", \"end_ns\": ")
                .append(c.end(request))
                .append(", \"steps\": [");
        sep = "\n  ";
        for (Waits.Step s : steps) {
            List<Waits.Share> by = w.preemptedBy(s.task(), s.core(), s.start(), s.end());
            sb.append(sep)
                    .append("{\"on\": ")
                    .append(TextTable.quote(who(m, s.core(), s.task())))
                    .append(", \"start_ns\": ")
                    .append(s.start())
                    .append(", \"end_ns\": ")
                    .append(s.end())
                    .append(", \"doing\": ")
                    .append(s.call() < 0 ? "null" : TextTable.quote(call(m, s.call())))
                    .append(", \"preempted_ns\": ")
                    .append(by.stream().mapToLong(Waits.Share::nanos).sum())
                    .append(", \"then_sent\": ")
                    .append(
                            s.message() < 0
                                    ? "null"
                                    : Long.toString(m.messages().id(s.message())))
                    .append('}');
            sep = ",\n  ";
        }
        return sb.append("\n]}}\n").toString();
    }
}

package dev.hetrace.cli;

import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Statistics;
import dev.hetrace.analysis.Statistics.Context;
import dev.hetrace.analysis.Statistics.Row;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code hetrace stats}: KPTrace's statistics table per context, from the state model of the traces. */
@Command(
        name = "stats",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Print run-time statistics per core, idle, task, interrupt and function.",
            "",
            "The traces' events become a state model (which task ran on which core,",
            "the calls of every task, the interrupts) through the mappings their",
            "metadata selects: hetrace's RTOS hooks and the simulator's slaves",
            "(task_switch, func_entry/exit, irq_entry/exit, msgq_put/get), Zephyr's CTF",
            "tracing (thread_switched_in, isr_enter/exit; on SMP builds one core per",
            "core_id), LTTng kernel (sched_switch, irq_handler_entry/exit,",
            "softirq_entry/exit), LTTng-UST function tracing (lttng_ust_cyg_profile), and",
            "generic X_entry/X_exit pairs; or --mapping FILE (see \"Mapping files\" below).",
            "",
            "A folder stands for the traces in it, at any depth (a directory holding a",
            "'metadata' file is a trace), 'master' first, then in path order: a folder",
            "of 'hetrace sim' or 'hetrace demo', of 'hetrace sync --out' copies, an LTTng",
            "session's kernel/ and ust/ traces. Several traces are put on the reference",
            "clock (the first trace's, or --reference) as 'hetrace sync' puts them, with",
            "the same options (--match, --piecewise, --method): traces on one clock (the",
            "same clock UUID, as LTTng's kernel and user-space traces of one host) exactly,",
            "the others from the messages they exchanged. A trace that cannot be put on",
            "it is an error (exit status 1), unless --apart.",
            "",
            "Per element: total run time in the range, its %% of the range, times",
            "switched to (fired, called), min/max/avg run time, min/max/avg interval",
            "between the starts of consecutive occurrences; for functions also the self",
            "time (callees excluded). Intervals the traces do not show whole (begun",
            "before the trace, open at its end) count up to where the trace shows them.",
            "",
            "Examples:",
            "  hetrace stats board/dsp1",
            "  hetrace stats hetrace-demo                      # the demo's whole board",
            "  hetrace stats --range 100ms,500ms --format csv board/master board/dsp*",
            "",
            "Mapping files (--mapping FILE, YAML) say what events mean:",
            "  name: my-rtos",
            "  core: packet_context.cpu_id        # optional: each event's CPU (a field)",
            "  task: {id: vtid, name: procname}   # optional: every event's task",
            "  events:",
            "    - {event: task_switch, does: switch, next: next_task, prev: prev_task}",
            "    - {event: func_entry, does: enter, func: func}",
            "    - {event: func_exit, does: exit, func: func}",
            "    - {event: irq_entry, does: irq-entry, irq: irq, name: name}",
            "    - {event: irq_exit, does: irq-exit, irq: irq}",
            "    - {event: msgq_put, does: send, queue: queue, id: msg_id}",
            "    - {event: msgq_get, does: receive, queue: queue, id: msg_id}",
            "    - {event: \"syscall_entry_*\", does: enter, func: \"=*\"}",
            "'does' is switch, enter, exit, irq-entry, irq-exit, send, receive, wait,",
            "wake, fork, exec, rename, task-exit, task-free or task-info. A role's value",
            "is a field path (payload.x, packet_context.cpu_id, vtid), or =TEXT for a",
            "constant; in an event name, * matches anything, and =* in a role is what it",
            "matched. Errors name the file and line."
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:the table was printed",
            "1:a trace could not be read or put on the reference clock, or no mapping fits it",
            "2:usage error"
        })
final class StatsCommand extends HetraceCommand {
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
            names = "--range",
            paramLabel = "START,END",
            description = "Only this range, from the first event: durations such as 0,250ms or 1.5s,2s (default: all).")
    String range;

    @Option(names = "--format", paramLabel = "FORMAT", description = "text (default), csv or json.")
    Format format = Format.text;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException, MetadataException, StreamDecodingException {
        long[] relative = range == null ? null : parseRange(spec, range);
        StateModel model = board.stored(index, main.err);
        long begin = model.begin();
        long end = model.end();
        if (relative != null) {
            begin = model.begin() + relative[0];
            end = Math.min(model.end(), model.begin() + relative[1]);
            if (begin > model.end()) {
                throw new IllegalArgumentException("--range " + range + ": starts after the traces end ("
                        + seconds(model.end() - model.begin()) + " s after their first event)");
            }
        }
        Statistics.Table table = Statistics.of(model, begin, end);
        String text = switch (format) {
            case text -> text(table, model);
            case csv -> csv(table);
            case json -> json(table);
        };
        return print(text);
    }

    /** The traces of the inputs: see {@link BoardInput#traces}. */
    static List<Path> traces(List<Path> inputs) throws IOException {
        return BoardInput.traces(inputs);
    }

    /** The function addresses a sim or demo folder names: see {@link BoardInput#symbols}. */
    static Map<String, String> symbols(List<Path> inputs) throws IOException {
        return BoardInput.symbols(inputs);
    }

    /** A --range value, START,END as durations from the first event, in ns; a usage error otherwise. */
    static long[] parseRange(CommandLine.Model.CommandSpec spec, String value) {
        String[] parts = value.split(",", -1);
        if (parts.length != 2) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--range " + value + ": expected START,END (e.g. 0,250ms or 1.5s,2s)");
        }
        long[] r = {duration(spec, value, parts[0]), duration(spec, value, parts[1])};
        if (r[1] < r[0]) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--range " + value + ": ends before it starts");
        }
        return r;
    }

    private static long duration(CommandLine.Model.CommandSpec spec, String range, String v) {
        if (v.strip().equals("0")) {
            return 0;
        }
        try {
            return new SyncCommand.DurationConverter().convert(v);
        } catch (CommandLine.TypeConversionException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--range " + range + ": " + e.getMessage(), e);
        }
    }

    private static String seconds(long ns) {
        return String.format(Locale.ROOT, "%.6f", ns / 1e9);
    }

    private static String ms(long ns) {
        return ns < 0 ? "-" : String.format(Locale.ROOT, "%.3f", ns / 1e6);
    }

    private static String ms(double ns) {
        return Double.isNaN(ns) ? "-" : String.format(Locale.ROOT, "%.3f", ns / 1e6);
    }

    static String text(Statistics.Table t, StateModel m) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(
                Locale.ROOT,
                "range: %s s (%s ms), %d events from %d trace(s): %s%n",
                seconds(t.begin()),
                ms(t.end() - t.begin()),
                m.events(),
                m.traceNames().size(),
                String.join(", ", mappings(m))));
        String[] head = {
            "name", "total ms", "%", "count", "min ms", "max ms", "avg ms", "int min", "int max", "int avg", "self ms"
        };
        for (Context c : Context.values()) {
            List<Row> rows = t.rows(c);
            if (rows.isEmpty()) {
                continue;
            }
            List<String[]> lines = new ArrayList<>();
            boolean points = points(c);
            lines.add(
                    points
                            ? new String[] {"name", "count", "int min", "int max", "int avg"}
                            : c == Context.FUNCTION ? head : Arrays.copyOf(head, head.length - 1));
            for (Row r : rows) {
                String[] l = {
                    r.name(),
                    ms(r.totalNanos()),
                    String.format(Locale.ROOT, "%.2f", r.percent()),
                    Long.toString(r.count()),
                    ms(r.minNanos()),
                    ms(r.maxNanos()),
                    ms(r.avgNanos()),
                    ms(r.minIntervalNanos()),
                    ms(r.maxIntervalNanos()),
                    ms(r.avgIntervalNanos()),
                    ms(r.selfNanos())
                };
                lines.add(
                        points
                                ? new String[] {l[0], l[3], l[7], l[8], l[9]}
                                : c == Context.FUNCTION ? l : Arrays.copyOf(l, l.length - 1));
            }
            sb.append('\n').append(c.label).append('\n').append(TextTable.render(lines, "  ", i -> i > 0));
        }
        return sb.toString();
    }

    /** Whether the context's rows are point events: counts and intervals, no durations. */
    private static boolean points(Context c) {
        return c == Context.EVENT || c == Context.STREAM;
    }

    private static List<String> mappings(StateModel m) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < m.traceNames().size(); i++) {
            out.add(m.traceNames().get(i) + " (" + m.mappingNames().get(i) + ")");
        }
        return out;
    }

    static String csv(Statistics.Table t) {
        StringBuilder sb = new StringBuilder("context,name,total_ns,percent,count,min_ns,max_ns,avg_ns,"
                + "interval_min_ns,interval_max_ns,interval_avg_ns,self_ns\n");
        for (Row r : t.rows()) {
            String name = r.name();
            if (name.contains(",") || name.contains("\"")) {
                name = "\"" + name.replace("\"", "\"\"") + "\"";
            }
            boolean points = points(r.context());
            sb.append(r.context().label)
                    .append(',')
                    .append(name)
                    .append(',')
                    .append(points ? "" : Long.toString(r.totalNanos()))
                    .append(',')
                    .append(points ? "" : String.format(Locale.ROOT, "%.4f", r.percent()))
                    .append(',')
                    .append(r.count())
                    .append(',')
                    .append(points ? "" : Long.toString(r.minNanos()))
                    .append(',')
                    .append(points ? "" : Long.toString(r.maxNanos()))
                    .append(',')
                    .append(num(r.avgNanos()))
                    .append(',')
                    .append(r.count() > 1 ? Long.toString(r.minIntervalNanos()) : "")
                    .append(',')
                    .append(r.count() > 1 ? Long.toString(r.maxIntervalNanos()) : "")
                    .append(',')
                    .append(num(r.avgIntervalNanos()))
                    .append(',')
                    .append(r.selfNanos())
                    .append('\n');
        }
        return sb.toString();
    }

    private static String num(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.1f", v);
    }

    static String json(Statistics.Table t) {
        StringBuilder sb = new StringBuilder("{\"begin_ns\": ")
                .append(t.begin())
                .append(", \"end_ns\": ")
                .append(t.end())
                .append(", \"rows\": [");
        String sep = "\n  ";
        for (Row r : t.rows()) {
            sb.append(sep)
                    .append("{\"context\": \"")
                    .append(r.context().label)
                    .append("\", \"name\": ")
                    .append(quote(r.name()))
                    .append(", \"total_ns\": ")
                    .append(points(r.context()) ? "null" : r.totalNanos())
                    .append(", \"percent\": ")
                    .append(points(r.context()) ? "null" : String.format(Locale.ROOT, "%.4f", r.percent()))
                    .append(", \"count\": ")
                    .append(r.count())
                    .append(", \"min_ns\": ")
                    .append(points(r.context()) ? "null" : r.minNanos())
                    .append(", \"max_ns\": ")
                    .append(points(r.context()) ? "null" : r.maxNanos())
                    .append(", \"avg_ns\": ")
                    .append(jnum(r.avgNanos()))
                    .append(", \"interval_min_ns\": ")
                    .append(r.count() > 1 ? Long.toString(r.minIntervalNanos()) : "null")
                    .append(", \"interval_max_ns\": ")
                    .append(r.count() > 1 ? Long.toString(r.maxIntervalNanos()) : "null")
                    .append(", \"interval_avg_ns\": ")
                    .append(jnum(r.avgIntervalNanos()))
                    .append(", \"self_ns\": ")
                    .append(points(r.context()) ? "null" : r.selfNanos())
                    .append('}');
            sep = ",\n  ";
        }
        return sb.append("\n]}\n").toString();
    }

    private static String jnum(double v) {
        return Double.isNaN(v) ? "null" : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String quote(String s) {
        return TextTable.quote(s);
    }
}

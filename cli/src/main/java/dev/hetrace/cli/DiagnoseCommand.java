package dev.hetrace.cli;

import dev.hetrace.analysis.Diagnosis;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Waits;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code hetrace diagnose}: the outliers of the traces, each with its cause, the silent cores and the stuck tasks. */
@Command(
        name = "diagnose",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Find what went wrong, and say why.",
            "",
            "From the state model of the traces (see 'hetrace stats --help'), it finds:",
            "  outliers  calls, interrupts and task activations that took more than K",
            "            times the median of the same function (task) on every core, each",
            "            explained by what happened meanwhile on its core: which task",
            "            preempted it and for how long, whom it waited for (blocked until",
            "            a message came), interrupts, lost events; and who waited for its",
            "            result (a task that got its message after waiting). A Linux",
            "            thread's call (a kernel trace, or user space traced per thread)",
            "            is compared with the same thread's calls of the same function,",
            "            without the time it was blocked when the kernel's scheduling is",
            "            traced (a system call is not slow for waiting for I/O or a lock),",
            "            and must also lie beyond the far fence of their durations (third",
            "            quartile + 3 x interquartile range); it is explained only by what",
            "            the traces show: the time it waited for a CPU and who ran there,",
            "            interrupts, the time it ran, what woke it;",
            "  silent    cores whose events stop long before the others' (a crash): more",
            "            than 3 times their longest silence before, and 5 %% of the span;",
            "  stuck     tasks blocked (or silent) inside a call until the traces end,",
            "            with the requests they sent that were never answered (a hang).",
            "Findings come first, in sentences, the most time lost first (--findings),",
            "alike outliers told together, others by their range; then the outliers one",
            "per line, the longest first (--limit). Times 'at' are seconds from the first",
            "event. Several traces are put on one clock first (see 'hetrace stats --help':",
            "inputs, --match, --piecewise, --apart).",
            "",
            "Examples:",
            "  hetrace diagnose hetrace-demo                 # the demo's board",
            "  hetrace diagnose --k 1.5 board/master board/dsp*",
            "  hetrace diagnose --check board/          # exit status 3 if anything stands out"
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:the diagnosis was printed",
            "1:a trace could not be read or put on the reference clock, or no mapping fits it",
            "2:usage error",
            "3:with --check: something stands out"
        })
final class DiagnoseCommand extends HetraceCommand {
    enum Format {
        text,
        json
    }

    @CommandLine.Mixin
    BoardOptions board = new BoardOptions();

    @CommandLine.Mixin
    IndexOptions index = new IndexOptions();

    @Option(
            names = "--k",
            paramLabel = "K",
            description = "Outlier threshold: more than K times the median (default: ${DEFAULT-VALUE}).")
    double k = Diagnosis.DEFAULT_K;

    @Option(
            names = "--findings",
            paramLabel = "N",
            description = "Findings told in sentences, the most time lost first (default: ${DEFAULT-VALUE}; 0: all).")
    int findings = 6;

    @Option(
            names = "--limit",
            paramLabel = "N",
            description = "Outliers listed one per line, the longest first (default: ${DEFAULT-VALUE}; 0: all).")
    int limit = 8;

    @Option(names = "--format", paramLabel = "FORMAT", description = "text (default) or json.")
    Format format = Format.text;

    @Option(names = "--check", description = "Exit with status 3 when there is any finding.")
    boolean check;

    @Override
    public Integer call() throws IOException, MetadataException, StreamDecodingException {
        if (!(k > 1)) {
            throw CommandFailure.usage("--k " + k + ": must be more than 1 (1 is the median itself)");
        }
        StateModel model = board.stored(index, main.err);
        Diagnosis.Report r = Diagnosis.of(model, k);
        print(format == Format.text ? text(r, findings, limit) : json(r));
        boolean any =
                !r.outliers().isEmpty() || !r.silent().isEmpty() || !r.stuck().isEmpty();
        return check && any ? 3 : 0;
    }

    static String text(Diagnosis.Report r, int findings, int limit) {
        StateModel m = r.model();
        StringBuilder sb = new StringBuilder();
        List<String> names = m.traceNames();
        String traces = names.size() <= 10
                ? String.join(", ", names)
                : String.join(", ", names.subList(0, 3)) + ", ..., " + names.getLast();
        sb.append(String.format(
                Locale.ROOT,
                "%d trace(s) (%s), %.3f s, %,d events%n%n",
                names.size(),
                traces,
                (m.end() - m.begin()) / 1e9,
                m.events()));
        sb.append("findings\n");
        List<String> f = Diagnosis.summary(r);
        int told = findings <= 0 ? f.size() : Math.min(findings, f.size());
        for (int i = 0; i < told; i++) {
            sb.append(wrap(
                            f.size() > 1 ? String.format(Locale.ROOT, "%3d. ", i + 1) : "  ",
                            f.get(i),
                            100,
                            f.size() > 1 ? "     " : "  "))
                    .append('\n');
        }
        if (told < f.size()) {
            sb.append(String.format(
                    Locale.ROOT,
                    "     ... and %d more finding%s, less time lost (--findings 0 tells them all)%n",
                    f.size() - told,
                    f.size() - told == 1 ? "" : "s"));
        }
        if (!r.outliers().isEmpty()) {
            List<Diagnosis.Outlier> sorted = new ArrayList<>(r.outliers());
            sorted.sort((a, b) -> Long.compare(b.duration(), a.duration()));
            int shown = limit <= 0 ? sorted.size() : Math.min(limit, sorted.size());
            sb.append(String.format(
                    Locale.ROOT,
                    "%noutliers: over %s× the median of the same function (%d%s)%n",
                    fmt(r.k()),
                    sorted.size(),
                    shown < sorted.size() ? ", the " + shown + " longest" : ""));
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {
                "core", "task", "call", "at s", "ms", "median ms", "×", "preempted ms", "by", "blocked ms", "irq ms"
            });
            for (Diagnosis.Outlier o : sorted.subList(0, shown)) {
                String by = o.preemptedBy().isEmpty()
                        ? "-"
                        : m.tasks().get(o.preemptedBy().get(0).task()).name() + " ("
                                + o.preemptedBy().get(0).times() + ")";
                rows.add(new String[] {
                    o.core() >= 0 ? m.cores().get(o.core()).name() : "-",
                    o.task() >= 0 ? m.tasks().get(o.task()).name() : "-",
                    o.kind() == Diagnosis.Kind.ACTIVATION
                            ? "(activation)"
                            : (o.kind() == Diagnosis.Kind.INTERRUPT ? "irq " : "") + m.name(o.name()),
                    sec(m, o.start()),
                    ms(o.duration()),
                    ms(o.median()),
                    Double.isFinite(o.ratio()) ? fmt(o.ratio()) : "-",
                    ms(o.preempted()),
                    by,
                    ms(o.blocked()),
                    ms(o.irqNanos())
                });
            }
            sb.append(TextTable.render(rows, "  ", i -> i >= 3 && i != 8));
        }
        return sb.toString();
    }

    static String json(Diagnosis.Report r) {
        StateModel m = r.model();
        StringBuilder sb = new StringBuilder("{\"k\": ")
                .append(r.k())
                .append(", \"begin_ns\": ")
                .append(m.begin())
                .append(", \"end_ns\": ")
                .append(m.end())
                .append(",\n\"findings\": [");
        String sep = "\n  ";
        for (String f : Diagnosis.summary(r)) {
            sb.append(sep).append(TextTable.quote(f));
            sep = ",\n  ";
        }
        sb.append("\n],\n\"outliers\": [");
        sep = "\n  ";
        for (Diagnosis.Outlier o : r.outliers()) {
            sb.append(sep)
                    .append("{\"core\": ")
                    .append(
                            o.core() >= 0
                                    ? TextTable.quote(m.cores().get(o.core()).name())
                                    : "null")
                    .append(", \"task\": ")
                    .append(
                            o.task() >= 0
                                    ? TextTable.quote(m.tasks().get(o.task()).name())
                                    : "null")
                    .append(", \"kind\": \"")
                    .append(o.kind().label)
                    .append("\", \"name\": ")
                    .append(o.name() >= 0 ? TextTable.quote(m.name(o.name())) : "null")
                    .append(", \"start_ns\": ")
                    .append(o.start())
                    .append(", \"end_ns\": ")
                    .append(o.end())
                    .append(", \"duration_ns\": ")
                    .append(o.duration())
                    .append(", \"median_ns\": ")
                    .append(o.median())
                    .append(", \"peers\": ")
                    .append(o.peers())
                    .append(", \"preempted_ns\": ")
                    .append(o.preempted())
                    .append(", \"preempted_by\": [");
            String s2 = "";
            for (Waits.Share s : o.preemptedBy()) {
                sb.append(s2)
                        .append("{\"task\": ")
                        .append(TextTable.quote(m.tasks().get(s.task()).name()))
                        .append(", \"ns\": ")
                        .append(s.nanos())
                        .append(", \"times\": ")
                        .append(s.times())
                        .append('}');
                s2 = ", ";
            }
            sb.append("], \"blocked_ns\": ").append(o.blocked()).append(", \"waited_for\": [");
            s2 = "";
            for (Waits.Wait w : o.waits()) {
                sb.append(s2)
                        .append(waitJson(
                                m,
                                w,
                                m.messages().sendCore(w.message()),
                                m.messages().sendTask(w.message())));
                s2 = ", ";
            }
            sb.append("], \"irq_ns\": ")
                    .append(o.irqNanos())
                    .append(", \"events_lost\": ")
                    .append(o.eventsLost())
                    .append(", \"waited_for_it\": [");
            s2 = "";
            for (Waits.Wait w : o.waitedForIt()) {
                sb.append(s2).append(waitJson(m, w, w.core(), w.task()));
                s2 = ", ";
            }
            sb.append("]}");
            sep = ",\n  ";
        }
        sb.append("\n],\n\"silent\": [");
        sep = "\n  ";
        for (Diagnosis.Silent s : r.silent()) {
            sb.append(sep)
                    .append("{\"trace\": ")
                    .append(TextTable.quote(m.traceNames().get(s.trace())))
                    .append(", \"core\": ")
                    .append(
                            s.core() >= 0
                                    ? TextTable.quote(m.cores().get(s.core()).name())
                                    : "null")
                    .append(", \"last_ns\": ")
                    .append(s.last())
                    .append(", \"quiet_ns\": ")
                    .append(m.end() - s.last())
                    .append(", \"longest_gap_ns\": ")
                    .append(s.longestGap())
                    .append(", \"in\": [");
            String s2 = "";
            for (int c : s.openCalls()) {
                sb.append(s2).append(TextTable.quote(m.name(m.calls().subject(c))));
                s2 = ", ";
            }
            sb.append("]}");
            sep = ",\n  ";
        }
        sb.append("\n],\n\"stuck\": [");
        sep = "\n  ";
        for (Diagnosis.Stuck s : r.stuck()) {
            sb.append(sep)
                    .append("{\"core\": ")
                    .append(
                            s.core() >= 0
                                    ? TextTable.quote(m.cores().get(s.core()).name())
                                    : "null")
                    .append(", \"task\": ")
                    .append(TextTable.quote(m.tasks().get(s.task()).name()))
                    .append(", \"since_ns\": ")
                    .append(s.since())
                    .append(", \"in\": ")
                    .append(s.call() >= 0 ? TextTable.quote(m.name(m.calls().subject(s.call()))) : "null")
                    .append(", \"blocked\": ")
                    .append(s.blocked())
                    .append(", \"queue\": ")
                    .append(s.queue() >= 0 ? Long.toString(s.queue()) : "null")
                    .append(", \"no_reply\": [");
            String s2 = "";
            for (int k = 0; k < s.noReply().size(); k++) {
                int msg = s.noReply().get(k);
                int to = s.to().get(k);
                sb.append(s2)
                        .append("{\"message_id\": ")
                        .append(m.messages().id(msg))
                        .append(", \"queue\": ")
                        .append(m.messages().queue(msg))
                        .append(", \"sent_ns\": ")
                        .append(m.messages().sendTime(msg))
                        .append(", \"to\": ")
                        .append(to >= 0 ? TextTable.quote(m.cores().get(to).name()) : "null")
                        .append('}');
                s2 = ", ";
            }
            sb.append("]}");
            sep = ",\n  ";
        }
        return sb.append("\n]}\n").toString();
    }

    private static String waitJson(StateModel m, Waits.Wait w, int core, int task) {
        return "{\"core\": " + (core >= 0 ? TextTable.quote(m.cores().get(core).name()) : "null")
                + ", \"task\": "
                + (task >= 0 ? TextTable.quote(m.tasks().get(task).name()) : "null")
                + ", \"start_ns\": " + w.start() + ", \"end_ns\": " + w.end() + ", \"message_id\": "
                + m.messages().id(w.message()) + "}";
    }

    /** {@code prefix} then {@code text} wrapped at {@code width} columns, continuation lines indented by {@code indent}. */
    static String wrap(String prefix, String text, int width, String indent) {
        StringBuilder out = new StringBuilder(prefix);
        int col = prefix.length();
        boolean lineEmpty = true;
        for (String word : text.split(" +")) {
            if (!lineEmpty && col + 1 + word.length() > width) {
                out.append('\n').append(indent);
                col = indent.length();
                lineEmpty = true;
            }
            if (!lineEmpty) {
                out.append(' ');
                col++;
            }
            out.append(word);
            col += word.length();
            lineEmpty = false;
        }
        return out.toString();
    }

    static String sec(StateModel m, long t) {
        return String.format(Locale.ROOT, "%.3f", (t - m.begin()) / 1e9);
    }

    static String ms(long ns) {
        return String.format(Locale.ROOT, "%.3f", ns / 1e6);
    }

    private static String fmt(double x) {
        return String.format(Locale.ROOT, "%.1f", x);
    }
}

package dev.hetrace.analysis;

import dev.hetrace.analysis.Diagnosis.Kind;
import dev.hetrace.analysis.Diagnosis.Outlier;
import dev.hetrace.analysis.Diagnosis.Report;
import dev.hetrace.analysis.Diagnosis.Silent;
import dev.hetrace.analysis.Diagnosis.Stuck;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** The findings of a {@link Diagnosis} in sentences, as a user reads them: grouped, the most important first. */
final class DiagnosisText {
    private DiagnosisText() {}

    /** The findings in sentences, the most important first: what a user reads first. */
    static List<String> summary(Report r) {
        List<String> out = new ArrayList<>();
        StateModel m = r.model();
        for (Group g : groups(r)) {
            out.add(g.sentence(r));
        }
        for (Silent s : r.silent()) {
            StringBuilder b = new StringBuilder();
            b.append(coreName(m, s.core(), s.trace()))
                    .append(" went silent at ")
                    .append(at(m, s.last()))
                    .append(": no event in the last ")
                    .append(seconds(m.end() - s.last()))
                    .append(" of the traces, where its events had never been more than ")
                    .append(duration(s.longestGap()))
                    .append(" apart");
            if (!s.openCalls().isEmpty()) {
                b.append("; it was in ").append(callPath(m, s.openCalls()));
            }
            b.append('.');
            out.add(b.toString());
        }
        for (Stuck s : r.stuck()) {
            StringBuilder b = new StringBuilder();
            String core = s.core() >= 0
                    ? m.cores().get(s.core()).name()
                    : m.traceNames().get(m.tasks().get(s.task()).trace());
            b.append(core)
                    .append(": task ")
                    .append(m.tasks().get(s.task()).name())
                    .append(s.blocked() ? " has been blocked" : " has been waiting")
                    .append(" since ")
                    .append(at(m, s.since()));
            if (s.call() >= 0) {
                b.append(" in ").append(m.name(m.calls().subject(s.call())));
            }
            if (s.queue() >= 0) {
                b.append(" on queue ").append(s.queue());
            }
            b.append(", until the traces end (")
                    .append(seconds(m.end() - s.since()))
                    .append(")");
            if (s.noReply().isEmpty()) {
                b.append(
                        s.queue() >= 0
                                ? "; no message came on that queue" + senders(m, s.queue())
                                : "; no message came to wake it");
            } else {
                Map<String, List<Integer>> byCore = new LinkedHashMap<>();
                for (int k = 0; k < s.noReply().size(); k++) {
                    int c = s.to().get(k);
                    byCore.computeIfAbsent(
                                    c >= 0 ? m.cores().get(c).name() : "a core the traces do not show",
                                    x -> new ArrayList<>())
                            .add(s.noReply().get(k));
                }
                List<String> parts = new ArrayList<>();
                byCore.forEach((c, rows) -> {
                    int first = rows.get(0);
                    parts.add(c + ", which never answered its message "
                            + m.messages().id(first)
                            + (m.messages().queue(first) >= 0
                                    ? " (queue " + m.messages().queue(first) + ")"
                                    : "")
                            + " sent at " + at(m, m.messages().sendTime(first))
                            + (rows.size() > 1 ? " (and " + (rows.size() - 1) + " more)" : ""));
                });
                b.append(": it waits for ").append(String.join("; ", parts));
            }
            b.append('.');
            out.add(b.toString());
        }
        if (out.isEmpty()) {
            out.add("Nothing stands out: no call took more than " + fmt(r.k())
                    + "× the median of its peers, no core went silent, no task is stuck.");
        }
        return out;
    }

    /** Who sent on {@code queue} before, if anyone: the cores a message there would come from. */
    private static String senders(StateModel m, long queue) {
        List<String> from = new ArrayList<>();
        MessageTable msg = m.messages();
        for (int i = 0; i < msg.size(); i++) {
            if (msg.queue(i) == queue && msg.sendCore(i) >= 0) {
                String c = m.cores().get(msg.sendCore(i)).name();
                if (!from.contains(c)) {
                    from.add(c);
                }
            }
        }
        return from.isEmpty() ? " (nobody ever sent on it)" : " (earlier messages on it came from " + cores(from) + ")";
    }

    /**
     * Outliers told together: the same function and the same cause, on several cores (an OS
     * thread's per thread). Outliers alike (within 1.25× of each other) are told by their typical
     * duration and their causes per call; others by their range and their causes in all, never
     * averaged into one figure.
     */
    private record Group(int name, Kind kind, String cause, List<Outlier> members) {
        long excess() {
            return members.stream().mapToLong(o -> o.measured() - o.median()).sum();
        }

        private long[] measured() {
            long[] v = members.stream().mapToLong(Outlier::measured).toArray();
            Arrays.sort(v);
            return v;
        }

        private boolean alike() {
            long[] v = measured();
            return v[v.length - 1] <= 1.25 * v[0];
        }

        /** " took X", " took about X", or " took from X to Y". */
        private String took() {
            long[] v = measured();
            return v.length == 1
                    ? " took " + duration(v[0])
                    : alike()
                            ? " took about " + duration(Diagnosis.median(v))
                            : " took from " + duration(v[0]) + " to " + duration(v[v.length - 1]);
        }

        /** How many times the median: "3.1×", or "2.5× to 20.1×". */
        private String ratio() {
            long med = members.get(0).median();
            if (med <= 0) {
                return "";
            }
            long[] v = measured();
            return ", "
                    + (alike()
                            ? fmt((double) Diagnosis.median(v) / med)
                            : fmt((double) v[0] / med) + "× to " + fmt((double) v[v.length - 1] / med))
                    + "×";
        }

        /** A part of the outliers' time summed over them: per call ("about X of each call") when alike, else in all. */
        private String amount(long total) {
            int n = members.size();
            return n == 1
                    ? duration(total)
                    : alike() ? "about " + duration(total / n) + " of each call" : duration(total) + " in all";
        }

        private String count(String one, String many) {
            return members.size() + " " + (members.size() == 1 ? one : many);
        }

        String sentence(Report r) {
            if (members.get(0).ownPeers()) {
                return threadSentence(r);
            }
            StateModel m = r.model();
            List<String> cores = new ArrayList<>();
            for (Outlier o : members) {
                String c = o.core() >= 0 ? m.cores().get(o.core()).name() : "?";
                if (!cores.contains(c)) {
                    cores.add(c);
                }
            }
            cores.sort(NATURAL);
            long med = members.get(0).median();
            long total = members.stream().mapToLong(Outlier::duration).sum();
            StringBuilder b = new StringBuilder();
            String what = switch (kind) {
                case CALL -> m.name(name);
                case INTERRUPT -> "interrupt " + m.name(name);
                case ACTIVATION ->
                    "task " + m.tasks().get(members.get(0).task()).name() + "'s activations";
            };
            b.append(cores(cores))
                    .append(": ")
                    .append(what)
                    .append(took())
                    .append(" instead of about ")
                    .append(duration(med))
                    .append(" (the median of its ")
                    .append(members.get(0).peers())
                    .append(" complete ")
                    .append(
                            kind == Kind.CALL
                                    ? "calls"
                                    : kind == Kind.INTERRUPT
                                            ? "occurrences"
                                            : "activations (from a wake-up to the next wait)")
                    .append("; ")
                    .append(
                            kind == Kind.CALL
                                    ? count("call", "calls")
                                    : kind == Kind.INTERRUPT
                                            ? count("occurrence", "occurrences")
                                            : count("activation", "activations"))
                    .append(ratio())
                    .append(")");
            long preempted = members.stream().mapToLong(Outlier::preempted).sum();
            long blocked = members.stream().mapToLong(Outlier::blocked).sum();
            long irqs = members.stream().mapToLong(Outlier::irqNanos).sum();
            List<String> why = new ArrayList<>();
            if (preempted > 0) {
                Map<String, Long> by = new LinkedHashMap<>();
                for (Outlier o : members) {
                    for (Waits.Share s : o.preemptedBy()) {
                        by.merge(m.tasks().get(s.task()).name(), s.nanos(), Long::sum);
                    }
                }
                List<String> names = by.entrySet().stream()
                        .sorted((x, y) -> Long.compare(y.getValue(), x.getValue()))
                        .limit(3)
                        .map(e -> "task " + e.getKey())
                        .toList();
                why.add((names.isEmpty() ? "other tasks" : and(names)) + " preempted "
                        + (cores.size() > 1 ? "them" : "it") + " for " + amount(preempted) + " ("
                        + Math.round(100.0 * preempted / total) + "%)");
            }
            if (blocked > 0) {
                Map<String, Long> waitedFor = new LinkedHashMap<>();
                for (Outlier o : members) {
                    for (Waits.Wait w : o.waits()) {
                        int sc = m.messages().sendCore(w.message());
                        int act = r.waits().sentIn(w.message());
                        String who = sc < 0
                                ? "a message sent before the traces began"
                                : m.cores().get(sc).name()
                                        + (act >= 0 ? " (" + m.name(m.calls().subject(act)) + ")" : "");
                        waitedFor.merge(who, w.duration(), Long::sum);
                    }
                }
                long longest = waitedFor.values().stream()
                        .mapToLong(Long::longValue)
                        .max()
                        .orElse(0);
                List<String> whom = waitedFor.entrySet().stream()
                        .filter(e -> e.getValue() * 2 >= longest)
                        .sorted((x, y) -> Long.compare(y.getValue(), x.getValue()))
                        .map(Map.Entry::getKey)
                        .toList();
                why.add((members.get(0).task() >= 0
                                        && r.waits().scheduled(members.get(0).task())
                                ? "it was blocked"
                                : "it waited")
                        + " for " + amount(blocked) + (whom.isEmpty() ? "" : ", for " + cores(whom)));
            }
            if (irqs > total / 10) {
                why.add((kind == Kind.INTERRUPT ? "interrupts nested in it took " : "interrupts took ") + amount(irqs));
            }
            if (members.stream().anyMatch(Outlier::eventsLost)) {
                why.add("the tracer lost events meanwhile, so part of it is unseen");
            }
            if (why.isEmpty()) {
                int task = members.get(0).task();
                why.add(
                        kind == Kind.INTERRUPT
                                ? "nothing interrupted it: its handler ran longer"
                                : task >= 0 && !r.waits().scheduled(task)
                                        ? "the traces do not show why: its task's scheduling is not traced (its preemptions are not seen)"
                                        : "it was neither preempted nor blocked: it ran longer");
            }
            b.append(": ").append(String.join("; ", why)).append('.');
            consequences(r, b, cores.size() > 1);
            int nested = members.stream().mapToInt(Outlier::nested).sum();
            if (nested > 0) {
                b.append(" The ")
                        .append(nested)
                        .append(" slow calls inside ")
                        .append(members.size() > 1 ? "them" : "it")
                        .append(" are part of the same delay.");
            }
            return b.toString();
        }

        /**
         * An OS thread's outliers in words: what they took against the thread's own calls, and
         * only the causes the traces show (the time it waited for a core and who ran there, the
         * interrupts while it ran, the time it was running; what woke it from what it was blocked
         * in, which is not counted against it).
         */
        private String threadSentence(Report r) {
            StateModel m = r.model();
            Outlier first = members.get(0);
            List<String> cores = members.stream()
                    .filter(o -> o.core() >= 0)
                    .map(o -> m.cores().get(o.core()).name())
                    .distinct()
                    .sorted(NATURAL)
                    .toList();
            long blocked = members.stream().mapToLong(Outlier::blocked).sum();
            boolean notBlocked = members.stream().anyMatch(o -> o.measured() != o.duration());
            String what = kind == Kind.INTERRUPT ? "interrupt " + m.name(name) : m.name(name);
            StringBuilder b = new StringBuilder();
            b.append(first.task() >= 0 ? r.waits().taskName(first.task()) : what)
                    .append(cores.isEmpty() ? "" : " on " + cores(cores))
                    .append(": ")
                    .append(what)
                    .append(took());
            if (notBlocked && blocked > 0) {
                b.append(" without the time it was blocked (")
                        .append(amount(blocked))
                        .append(")");
            }
            b.append(" instead of about ")
                    .append(duration(first.median()))
                    .append(" (the median of its ")
                    .append(first.peers())
                    .append(kind == Kind.INTERRUPT ? " occurrences" : " calls")
                    .append(notBlocked ? ", each without the time it was blocked" : "")
                    .append("; ")
                    .append(kind == Kind.INTERRUPT ? count("occurrence", "occurrences") : count("call", "calls"))
                    .append(ratio())
                    .append(")");
            List<String> why = new ArrayList<>();
            long preempted = members.stream().mapToLong(Outlier::preempted).sum();
            long runnable = members.stream().mapToLong(Outlier::runnable).sum();
            long irqs = members.stream().mapToLong(Outlier::irqNanos).sum();
            long running = first.running() < 0
                    ? -1
                    : members.stream().mapToLong(Outlier::running).sum();
            long measured = members.stream().mapToLong(Outlier::measured).sum();
            if (preempted > 0) {
                Map<String, Long> by = new LinkedHashMap<>();
                for (Outlier o : members) {
                    for (Waits.Share x : o.preemptedBy()) {
                        by.merge("task " + r.waits().taskName(x.task()), x.nanos(), Long::sum);
                    }
                }
                List<String> names = by.entrySet().stream()
                        .sorted((x, y) -> Long.compare(y.getValue(), x.getValue()))
                        .limit(3)
                        .map(Map.Entry::getKey)
                        .toList();
                why.add("it waited " + amount(preempted) + " for a CPU"
                        + (runnable == preempted
                                ? " after it was woken"
                                : runnable > 0 ? " (" + duration(runnable) + " after it was woken)" : "")
                        + (names.isEmpty() ? "" : " while " + and(names) + " ran"));
            }
            if (irqs > 0 && irqs * 10 >= measured) {
                Map<String, Long> by = new LinkedHashMap<>();
                members.forEach(o -> o.interruptedBy().forEach(x -> by.merge(x.name(), x.nanos(), Long::sum)));
                List<String> names = by.entrySet().stream()
                        .sorted((x, y) -> Long.compare(y.getValue(), x.getValue()))
                        .limit(2)
                        .map(Map.Entry::getKey)
                        .toList();
                why.add("interrupts took " + amount(irqs) + " (" + and(names) + ")");
            }
            if (running >= 0 && running - irqs > 0 && running - irqs >= preempted && running - irqs >= irqs) {
                why.add("it was running for " + amount(running - irqs)
                        + (preempted == 0 && irqs == 0 ? ", never preempted nor interrupted" : ""));
            }
            if (running < 0 && kind != Kind.INTERRUPT) {
                why.add(
                        "the traces do not show why: its thread's scheduling is not traced (a kernel trace of the same run"
                                + " would show preemptions and interrupts)");
            }
            if (notBlocked && blocked > 0) {
                Map<String, Long> by = new LinkedHashMap<>();
                members.forEach(o -> o.wokenBy().forEach(x -> by.merge(x.name(), x.nanos(), Long::sum)));
                List<String> names = by.entrySet().stream()
                        .sorted((x, y) -> Long.compare(y.getValue(), x.getValue()))
                        .limit(2)
                        .map(Map.Entry::getKey)
                        .toList();
                if (!names.isEmpty()) {
                    why.add("it was woken by " + and(names));
                }
            }
            if (members.stream().anyMatch(Outlier::eventsLost)) {
                why.add("the tracer lost events meanwhile, so part of it is unseen");
            }
            if (!why.isEmpty()) {
                b.append(": ").append(String.join("; ", why));
            }
            b.append('.');
            consequences(r, b, false);
            return b.toString();
        }

        /** Who waited for the results: the receivers' waits, against their waits for the other senders. */
        private void consequences(Report r, StringBuilder b, boolean severalCores) {
            StateModel m = r.model();
            // by the waiting task's name and the function it waited in, across cores
            Map<String, List<Waits.Wait>> byWaiter = new LinkedHashMap<>();
            Set<Integer> senders = new HashSet<>();
            for (Outlier o : members) {
                senders.add(o.task());
                for (Waits.Wait w : o.waitedForIt()) {
                    int act = r.waits().receivedIn(w.message());
                    String key = m.tasks().get(w.task()).name() + "\u0000"
                            + (act >= 0 ? m.name(m.calls().subject(act)) : "");
                    byWaiter.computeIfAbsent(key, x -> new ArrayList<>()).add(w);
                }
            }
            // the two that waited longest, the others counted
            List<Map.Entry<String, List<Waits.Wait>>> sorted = new ArrayList<>(byWaiter.entrySet());
            sorted.sort((x, y) -> Long.compare(
                    y.getValue().stream().mapToLong(Waits.Wait::duration).sum(),
                    x.getValue().stream().mapToLong(Waits.Wait::duration).sum()));
            sorted.stream().limit(2).forEach(entry -> {
                String key = entry.getKey();
                List<Waits.Wait> ws = entry.getValue();
                String task = key.substring(0, key.indexOf('\u0000'));
                String in = key.substring(key.indexOf('\u0000') + 1);
                long[] d = ws.stream().mapToLong(Waits.Wait::duration).toArray();
                List<String> waiters = ws.stream()
                        .map(w -> w.core() >= 0
                                ? m.cores().get(w.core()).name()
                                : m.traceNames().get(m.tasks().get(w.task()).trace()))
                        .distinct()
                        .toList();
                Set<Integer> waiterTasks = new HashSet<>();
                ws.forEach(w -> waiterTasks.add(w.task()));
                b.append(" ")
                        .append(cores(waiters))
                        .append(waiters.size() > 1 ? " waited for " : " waited for ")
                        .append(severalCores ? "them" : "it")
                        .append(": ")
                        .append(waiters.size() > 1 ? "their" : "its")
                        .append(" task ")
                        .append(task)
                        .append(" got ")
                        .append(severalCores ? "their" : "its")
                        .append(" message")
                        .append(d.length > 1 ? "s" : "")
                        .append(in.isEmpty() ? "" : " in " + in)
                        .append(" about ")
                        .append(duration(Diagnosis.median(d)))
                        .append(" after it began waiting");
                // the same waiters' waits, in the same function, for other senders' messages
                List<Long> others = new ArrayList<>();
                for (int waiter : waiterTasks) {
                    for (Waits.Wait w : r.waits().of(waiter, Long.MIN_VALUE, Long.MAX_VALUE)) {
                        if (!senders.contains(m.messages().sendTask(w.message()))) {
                            int act = r.waits().receivedIn(w.message());
                            if ((act >= 0 ? m.name(m.calls().subject(act)) : "").equals(in)) {
                                others.add(w.duration());
                            }
                        }
                    }
                }
                if (!others.isEmpty()) {
                    b.append(", against about ")
                            .append(duration(Diagnosis.median(
                                    others.stream().mapToLong(Long::longValue).toArray())))
                            .append(" for the others'");
                }
                b.append('.');
            });
            if (sorted.size() > 2) {
                b.append(" ")
                        .append(sorted.size() - 2)
                        .append(" other tasks waited for ")
                        .append(severalCores ? "them" : "it")
                        .append(" less.");
            }
        }
    }

    /** Names in natural order: dsp2 before dsp10. */
    static final Comparator<String> NATURAL = (a, b) -> {
        String pa = a.replaceAll("\\d+$", "");
        String pb = b.replaceAll("\\d+$", "");
        if (!pa.equals(pb) || pa.length() == a.length() || pb.length() == b.length()) {
            return a.compareTo(b);
        }
        return Long.compare(Long.parseLong(a.substring(pa.length())), Long.parseLong(b.substring(pb.length())));
    };

    /** Core names joined, abridged past 4: "dsp0, dsp1, ..., dsp1023 (1024 cores)". */
    static String cores(List<String> names) {
        if (names.size() <= 4) {
            return and(names);
        }
        return names.get(0) + ", " + names.get(1) + ", ..., " + names.getLast() + " (" + names.size() + " cores)";
    }

    /**
     * Outliers grouped by name and cause (the main preempting task, or the kind of delay; an OS
     * thread's per thread); the most time lost first.
     */
    private static List<Group> groups(Report r) {
        Map<String, List<Outlier>> byCause = new LinkedHashMap<>();
        StateModel m = r.model();
        for (Outlier o : r.outliers()) {
            String cause;
            if (o.ownPeers() && o.running() >= 0) {
                long run = o.running() - o.irqNanos();
                cause = o.preempted() >= Math.max(run, o.irqNanos()) ? "cpu" : o.irqNanos() >= run ? "irq" : "ran";
            } else if (!o.preemptedBy().isEmpty() && o.preempted() >= o.blocked()) {
                cause = "preempted:"
                        + m.tasks().get(o.preemptedBy().get(0).task()).name();
            } else if (o.blocked() > 0) {
                cause = "blocked";
            } else {
                cause = "ran";
            }
            String key = o.kind() + "/"
                    + (o.kind() == Kind.ACTIVATION ? m.tasks().get(o.task()).name() : o.name()) + "/" + cause
                    + (o.ownPeers() ? "/" + o.task() : "");
            byCause.computeIfAbsent(key, x -> new ArrayList<>()).add(o);
        }
        List<Group> out = new ArrayList<>();
        byCause.forEach((key, members) -> {
            String cause = key.substring(key.indexOf('/', key.indexOf('/') + 1) + 1);
            out.add(new Group(members.get(0).name(), members.get(0).kind(), cause, members));
        });
        out.sort((a, b) -> Long.compare(b.excess(), a.excess()));
        return out;
    }

    private static String callPath(StateModel m, List<Integer> calls) {
        List<Integer> sorted = new ArrayList<>(calls);
        sorted.sort((a, b) -> Integer.compare(m.calls().depth(a), m.calls().depth(b)));
        List<String> names = new ArrayList<>();
        for (int c : sorted) {
            names.add(m.name(m.calls().subject(c)));
        }
        return String.join(" > ", names);
    }

    private static String coreName(StateModel m, int core, int trace) {
        return core >= 0 ? m.cores().get(core).name() : m.traceNames().get(trace);
    }

    static String and(List<String> items) {
        if (items.size() <= 1) {
            return items.isEmpty() ? "" : items.get(0);
        }
        return String.join(", ", items.subList(0, items.size() - 1)) + " and " + items.get(items.size() - 1);
    }

    /** A time as seconds from the first event of the traces. */
    static String at(StateModel m, long t) {
        return String.format(Locale.ROOT, "%.3f s", (t - m.begin()) / 1e9);
    }

    static String seconds(long ns) {
        return ns >= 1_000_000_000L ? String.format(Locale.ROOT, "%.2f s", ns / 1e9) : duration(ns);
    }

    /** A duration with a unit that keeps 2 or 3 significant digits. */
    static String duration(long ns) {
        if (ns >= 1_000_000_000L) {
            return String.format(Locale.ROOT, "%.2f s", ns / 1e9);
        }
        if (ns >= 1_000_000L) {
            return ns >= 100_000_000L ? Math.round(ns / 1e6) + " ms" : String.format(Locale.ROOT, "%.1f ms", ns / 1e6);
        }
        if (ns >= 1_000L) {
            return ns >= 100_000L ? Math.round(ns / 1e3) + " µs" : String.format(Locale.ROOT, "%.1f µs", ns / 1e3);
        }
        return ns + " ns";
    }

    private static String fmt(double x) {
        return String.format(Locale.ROOT, "%.1f", x);
    }
}

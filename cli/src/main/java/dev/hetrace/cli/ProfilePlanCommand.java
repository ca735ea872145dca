package dev.hetrace.cli;

import dev.hetrace.profile.plan.CounterPlan;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code hetrace profile plan}: which events to count in which run. */
@Command(
        name = "plan",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Plan the runs that count every event, or every pair of events together.",
            "",
            "A core counts at most R events at once (R counter registers, 4 to 6 on typical",
            "ARM and PowerPC cores). Without --pairs the plan counts every event",
            "once in the fewest runs, ceil(N/R). With --pairs every two events are",
            "counted together in some run, so that their correlation can be measured:",
            "the plan is compared with the Schonheim lower bound",
            "ceil(N/R * ceil((N-1)/(R-1))), which no plan can beat (50 events on 6",
            "registers: 97 runs for a bound of 84).",
            "",
            "Examples:",
            "  hetrace profile plan --count 50 --registers 6",
            "  hetrace profile plan --count 50 --registers 6 --pairs --format csv",
            "  hetrace profile plan --events cycles,instructions,l2_refill,l2_access,bus_access \\",
            "      --registers 4 --pairs"
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:the plan was printed", "1:no plan is possible (pairs on one register)", "2:usage error"})
final class ProfilePlanCommand extends ProfileAnalysisCommand {
    enum Format {
        text,
        csv,
        json
    }

    static final class Events {
        @Option(names = "--events", paramLabel = "E1,E2,...", split = ",", description = "The events to count.")
        List<String> names;

        @Option(names = "--count", paramLabel = "N", description = "N events, named ev1 to evN.")
        Integer count;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Events events;

    @Option(names = "--registers", paramLabel = "R", required = true, description = "Counter registers per run.")
    int registers;

    @Option(names = "--pairs", description = "Count every pair of events together in some run.")
    boolean pairs;

    @Option(names = "--format", paramLabel = "FORMAT", description = "text (default), csv (run,event) or json.")
    Format format = Format.text;

    @Override
    int run() throws IOException {
        List<String> names = events.names;
        if (names == null) {
            if (events.count < 1) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "--count " + events.count + ": at least one event");
            }
            names = new ArrayList<>();
            for (int i = 1; i <= events.count; i++) {
                names.add("ev" + i);
            }
        }
        names = names.stream().map(String::strip).toList();
        CounterPlan p = pairs ? CounterPlan.everyPair(names, registers) : CounterPlan.everyEvent(names, registers);
        return print(
                switch (format) {
                    case text -> text(p);
                    case csv -> csv(p);
                    case json -> json(p);
                });
    }

    static String text(CounterPlan p) {
        StringBuilder sb = new StringBuilder();
        int n = p.events().size();
        if (p.pairs()) {
            sb.append(String.format(
                    Locale.ROOT,
                    "%d events, %d registers: %d runs count every pair together"
                            + " (Schonheim lower bound %d, %.3f times it)%n",
                    n,
                    p.registers(),
                    p.runs().size(),
                    p.lowerBound(),
                    p.factor()));
        } else {
            sb.append(String.format(
                    Locale.ROOT,
                    "%d events, %d registers: %d runs count every event (the minimum," + " ceil(%d/%d))%n",
                    n,
                    p.registers(),
                    p.runs().size(),
                    n,
                    p.registers()));
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"run", "events"});
        for (int i = 0; i < p.runs().size(); i++) {
            rows.add(new String[] {
                Integer.toString(i + 1), String.join(",", p.runs().get(i))
            });
        }
        return sb.append(TextTable.render(rows, "", c -> c == 0)).toString();
    }

    static String csv(CounterPlan p) {
        StringBuilder sb = new StringBuilder("run,event\n");
        for (int i = 0; i < p.runs().size(); i++) {
            for (String e : p.runs().get(i)) {
                sb.append(i + 1)
                        .append(',')
                        .append(e.contains(",") || e.contains("\"") ? "\"" + e.replace("\"", "\"\"") + "\"" : e)
                        .append('\n');
            }
        }
        return sb.toString();
    }

    static String json(CounterPlan p) {
        StringBuilder sb = new StringBuilder("{\"events\": ")
                .append(p.events().size())
                .append(", \"registers\": ")
                .append(p.registers())
                .append(", \"pairs\": ")
                .append(p.pairs())
                .append(", \"lower_bound\": ")
                .append(p.lowerBound())
                .append(String.format(Locale.ROOT, ", \"factor\": %.4f", p.factor()))
                .append(", \"runs\": [");
        String sep = "\n  ";
        for (List<String> run : p.runs()) {
            sb.append(sep).append('[');
            sb.append(String.join(", ", run.stream().map(TextTable::quote).toList()));
            sb.append(']');
            sep = ",\n  ";
        }
        return sb.append("\n]}\n").toString();
    }
}

package dev.hetrace.cli;

import com.sun.management.OperatingSystemMXBean;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/** The {@code hetrace} command. */
@Command(
        name = "hetrace",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = {
            "Tracing for heterogeneous embedded systems: read, correlate and understand CTF traces",
            "of every core of a board on one clock."
        },
        subcommands = {
            DemoCommand.class,
            PrintCommand.class,
            TracerCommand.class,
            CollectCommand.class,
            SyncCommand.class,
            SimCommand.class,
            StatsCommand.class,
            DiagnoseCommand.class,
            WaitsCommand.class,
            PatternCommand.class,
            QueryCommand.class,
            ExportCommand.class,
            CacheCommand.class,
            ViewCommand.class,
            ReportCommand.class,
            TrainCommand.class,
            ProfileCommand.class,
            MonitorCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Main implements Runnable {
    @Spec
    CommandSpec spec;

    /** Where commands write their results (bytes, so that text is passed through unchanged). */
    OutputStream out;
    /** Where commands write errors and warnings. */
    PrintStream err;

    /**
     * Stack of the thread that runs the command: deeply nested field types are walked
     * recursively (up to the nesting limit), which the default 1 MB stack may not hold. The
     * memory is reserved, and only used as deep as the trace's types go.
     */
    private static final long STACK_BYTES = 1L << 30;

    public static void main(String[] args) throws InterruptedException {
        int[] status = {1};
        Thread t = new Thread(
                null,
                () -> {
                    try {
                        status[0] = run(new FileOutputStream(FileDescriptor.out), System.err, args);
                    } catch (OutOfMemoryError e) { // the work's data dropped as it unwound: there is room to say so
                        System.err.println(outOfMemory(e));
                        if (Arrays.asList(args).contains("--debug")) {
                            e.printStackTrace();
                        }
                        status[0] = 1;
                    }
                },
                "hetrace",
                STACK_BYTES);
        t.start();
        t.join();
        System.exit(status[0]);
    }

    /**
     * What to do when memory is short: the limit reached (the heap, or the native memory the
     * analyses' tables live in, which the JVM limits to the heap's size), the machine's memory,
     * and the option that raises both.
     */
    static String outOfMemory(OutOfMemoryError e) {
        long heap = Runtime.getRuntime().maxMemory();
        long machine = ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
        long suggest = Math.max(2 * heap, 1L << 30) >> 30;
        String message = e.getMessage() == null ? "" : e.getMessage();
        long limitBytes = heap;
        String what = "the Java heap's %.1f GB (this machine has %.1f GB)";
        if (message.contains("direct buffer memory")) {
            // "Cannot reserve N bytes of direct buffer memory (allocated: A, limit: L)"
            Matcher limit = Pattern.compile("limit: (\\d+)").matcher(message);
            limitBytes = limit.find() ? Long.parseLong(limit.group(1)) : heap;
            what = "the %.1f GB the JVM allows the analyses' tables outside its heap (by default the heap's size;"
                    + " this machine has %.1f GB)";
        }
        return String.format(
                Locale.ROOT,
                "hetrace: out of memory: these traces need more than " + what
                        + "; give it more, e.g. HETRACE_JAVA_OPTS=-Xmx%dg ./hetrace ...",
                limitBytes / 1e9,
                machine / 1e9,
                suggest);
    }

    /** The width of --help: that of the longest line of a command's description. */
    static final int USAGE_WIDTH = 100;

    /** Runs the command line and returns the exit status (0 ok, 1 error, 2 usage error). */
    public static int run(OutputStream out, PrintStream err, String... args) {
        Main main = new Main();
        main.out = out;
        main.err = err;
        CommandLine cl = new CommandLine(main);
        // the descriptions are written to this width (HelpTest): picocli's 80 would break their lines
        cl.setUsageHelpWidth(USAGE_WIDTH);
        cl.setOut(new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true));
        cl.setErr(new PrintWriter(err, true));
        ErrorReport report = new ErrorReport(err);
        cl.setParameterExceptionHandler(report);
        cl.setExecutionExceptionHandler(report);
        try {
            return cl.execute(args);
        } catch (OutOfMemoryError e) {
            throw e; // told by main() once the work's data is dropped
        } catch (Error e) {
            // errors pass picocli by (a mapped file that shrank faults wherever it is read): told the same way
            ParseResult parsed = cl.getParseResult();
            CommandSpec command = ErrorReport.command(parsed);
            return report.failed(e, command != null ? command : cl.getCommandSpec(), ErrorReport.debug(parsed));
        }
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"hetrace " + (v == null ? "(development build)" : v)};
        }
    }
}

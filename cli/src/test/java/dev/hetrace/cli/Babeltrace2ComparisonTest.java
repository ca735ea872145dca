package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.testing.Required;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hetrace print} with {@code --begin}/{@code --end}, and the warnings about lost events
 * and packets, against what babeltrace2 2.0.4 printed for the same command
 * ({@code src/test/resources/babeltrace2/cases.tsv} says what each case proves): the same
 * standard output, the same warnings on the standard error, and, when both go to one terminal,
 * the warnings at the same place among the events.
 */
class Babeltrace2ComparisonTest {
    private static final String DIR = "/babeltrace2/";

    record Case(String name, String trace, List<String> args) {}

    record Run(int status, String out, String err) {}

    @TempDir
    Path tmp;

    @TestFactory
    Stream<DynamicTest> printsWhatBabeltrace2Prints() throws IOException {
        Path lossy = LossyTrace.write(tmp.resolve("lossy"));
        Path corpus = ConformanceTest.corpus();
        return cases().stream()
                .map(c -> DynamicTest.dynamicTest(c.name(), () -> {
                    Path trace;
                    if (c.trace().equals("@lossy")) {
                        trace = lossy;
                    } else {
                        trace = corpus.resolve(c.trace());
                        Required.that(Files.isDirectory(trace), "the corpus has no " + c.trace());
                    }
                    List<String> args = new ArrayList<>(List.of("print", trace.toString()));
                    args.addAll(c.args());
                    Run run = run(false, args);
                    assertThat(run.status())
                            .as("exit status; stderr: %s", run.err())
                            .isZero();
                    assertThat(run.out()).as("standard output").isEqualTo(resource(c.name() + ".out"));
                    String expectedErr = resource(c.name() + ".err")
                            .replace("{lossy}", lossy.toString())
                            .replace("{corpus}", corpus.toString());
                    assertThat(withoutHetraceWarnings(run.err())).as("warnings").isEqualTo(expectedErr);
                    String tty = optionalResource(c.name() + ".tty");
                    if (tty != null) {
                        assertThat(run(true, args).out())
                                .as("events and warnings on one terminal")
                                .isEqualTo(tty.replace("{lossy}", lossy.toString()));
                    }
                }));
    }

    /** Lines hetrace adds about the trace itself (packet UUIDs and the like); babeltrace2 says nothing. */
    private static String withoutHetraceWarnings(String err) {
        StringBuilder sb = new StringBuilder();
        err.lines()
                .filter(l -> !l.startsWith("hetrace: warning: "))
                .forEach(l -> sb.append(l).append('\n'));
        return sb.toString();
    }

    /** Runs the command; with {@code oneTerminal}, standard output and error go to the same place. */
    static Run run(boolean oneTerminal, List<String> args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = oneTerminal ? out : new ByteArrayOutputStream();
        int status;
        try (PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8)) {
            status = Main.run(out, err, args.toArray(String[]::new));
        }
        return new Run(status, out.toString(StandardCharsets.UTF_8), errBytes.toString(StandardCharsets.UTF_8));
    }

    private static List<Case> cases() throws IOException {
        List<Case> cases = new ArrayList<>();
        for (String line : resource("cases.tsv").lines().toList()) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t");
            cases.add(new Case(f[0], f[1], Arrays.asList(f).subList(2, f.length)));
        }
        return cases;
    }

    private static String resource(String name) throws IOException {
        String s = optionalResource(name);
        if (s == null) {
            throw new IOException("missing test resource " + DIR + name);
        }
        return s;
    }

    private static String optionalResource(String name) throws IOException {
        try (InputStream in = Babeltrace2ComparisonTest.class.getResourceAsStream(DIR + name)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}

package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Every command's --help renders as written: picocli formats descriptions, so a lone '%' breaks them. */
class HelpTest {

    @Test
    void everyCommandsHelpRendersWithoutPicocliWarnings() {
        List<String> commands = new ArrayList<>();
        collect(new CommandLine(new Main()), "hetrace", commands);
        assertThat(commands).contains("hetrace profile sweep", "hetrace monitor", "hetrace tracer generate");
        for (String c : commands) {
            String[] args = (c.substring("hetrace".length()).strip() + " --help")
                    .strip()
                    .split(" ");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            PrintStream saved = System.err;
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            try {
                Main.run(out, new PrintStream(err, true, StandardCharsets.UTF_8), args);
            } finally {
                System.setErr(saved);
            }
            String said = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
            assertThat(said).as(c + " --help").doesNotContain("picocli WARN").contains("Usage: " + c);
        }
    }

    @Test
    void everyDescriptionLineFitsTheHelpWidthSoThatNoneIsBrokenInTwo() {
        List<CommandLine> all = new ArrayList<>();
        tree(new CommandLine(new Main()), all);
        for (CommandLine cl : all) {
            for (String line : cl.getCommandSpec().usageMessage().description()) {
                assertThat(line.length())
                        .as("%s: '%s'", cl.getCommandSpec().qualifiedName(), line)
                        .isLessThanOrEqualTo(Main.USAGE_WIDTH);
            }
        }
        assertThat(all).hasSizeGreaterThan(20);
    }

    private static void tree(CommandLine cl, List<CommandLine> out) {
        out.add(cl);
        cl.getSubcommands().forEach((sub, child) -> {
            if (!sub.equals("help")) {
                tree(child, out);
            }
        });
    }

    private static void collect(CommandLine cl, String name, List<String> out) {
        out.add(name);
        cl.getSubcommands().forEach((sub, child) -> {
            if (!sub.equals("help") && !child.getCommandSpec().usageMessage().hidden()) {
                collect(child, name + " " + sub, out);
            }
        });
    }
}

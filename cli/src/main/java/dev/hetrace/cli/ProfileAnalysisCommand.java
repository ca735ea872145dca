package dev.hetrace.cli;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.CampaignFile;
import dev.hetrace.profile.ProfileException;
import dev.hetrace.profile.metric.Metric;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/**
 * What {@code hetrace profile import}, {@code plan}, {@code stats} and {@code report} share beyond
 * {@link ProfileSubcommand}: reading campaigns, metrics and thresholds as users write them.
 */
abstract class ProfileAnalysisCommand extends ProfileSubcommand {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public final Integer call() throws IOException {
        return run();
    }

    abstract int run() throws IOException;

    static Campaign campaign(Path file) throws IOException {
        mustExist(file);
        return CampaignFile.read(file);
    }

    /** Fails with "FILE: no such file" when {@code file} is not there. */
    static void mustExist(Path file) throws IOException {
        if (!Files.exists(file)) {
            throw new IOException(file + ": no such file");
        }
    }

    static List<Metric> metrics(List<String> specs) {
        List<Metric> out = new ArrayList<>();
        for (String s : specs) {
            try {
                out.add(Metric.parse(s));
            } catch (ProfileException e) {
                throw new ProfileException("--metric " + s + ": " + e.getMessage(), e);
            }
        }
        return out;
    }

    /** {@code 10%} or {@code 0.1}. */
    static double threshold(String text) {
        String t = text.strip();
        try {
            double v = t.endsWith("%")
                    ? Double.parseDouble(t.substring(0, t.length() - 1).strip()) / 100
                    : Double.parseDouble(t);
            if (!(v >= 0) || Double.isInfinite(v)) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new ProfileException("--threshold " + text + ": expected a slowdown such as 10% or 0.1");
        }
    }
}

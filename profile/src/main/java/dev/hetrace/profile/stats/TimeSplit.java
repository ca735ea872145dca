package dev.hetrace.profile.stats;

import dev.hetrace.profile.Run;
import java.util.List;

/**
 * Where the runtime went, xTRACT's user vs system split: the medians of user and system CPU
 * time over the runs that give them, and the share of CPU time spent in the kernel. A run
 * with several threads can use more CPU time than wall-clock time.
 *
 * @param runs          runs that give both times
 * @param user          user time over those runs
 * @param system        system time over those runs
 * @param systemShare   median of system / (user + system) per run, NaN without CPU time
 */
public record TimeSplit(int runs, Distribution user, Distribution system, double systemShare) {

    public static TimeSplit of(List<Run> runs) {
        List<Run> with = runs.stream()
                .filter(r -> !Double.isNaN(r.userSeconds()) && !Double.isNaN(r.systemSeconds()))
                .toList();
        double[] u = with.stream().mapToDouble(Run::userSeconds).toArray();
        double[] s = with.stream().mapToDouble(Run::systemSeconds).toArray();
        double[] share = with.stream()
                .filter(r -> r.userSeconds() + r.systemSeconds() > 0)
                .mapToDouble(r -> r.systemSeconds() / (r.userSeconds() + r.systemSeconds()))
                .toArray();
        return new TimeSplit(with.size(), Distribution.of(u), Distribution.of(s), Distribution.quantile(share, 0.5));
    }
}

package dev.hetrace.profile;

import java.util.Map;

/**
 * One sample of a thread's counters over an interval (PMCTrack's {@code nsample pid event pmc0
 * ...} line, a {@code perf stat --per-thread -I} interval, a probe): the counts accumulated since
 * the thread's previous sample.
 *
 * @param timeSeconds  when the sample was taken, from the start of the run
 * @param pid          the process
 * @param tid          the thread (equal to pid for a single-threaded process)
 * @param thread       the thread's name, empty when unknown
 * @param cpu          the CPU the thread ran on when sampled, -1 when unknown
 * @param trigger      what took the sample: {@code tick} for time-based sampling, else the
 *                     counter whose overflow did (event-based sampling)
 * @param counters     counter name to its count over the interval
 */
public record Sample(
        double timeSeconds, long pid, long tid, String thread, int cpu, String trigger, Map<String, Double> counters) {

    public Sample {
        counters = Map.copyOf(counters);
    }
}

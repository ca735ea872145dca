package dev.hetrace.profile.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.hetrace.profile.ProfileException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** /proc's per-thread files and perf stat's per-thread interval lines, as captured on this machine (Linux 6.1, perf 6.1). */
class ProcParsingTest {

    // a busy `sh -c 'while :; do :; done'`, 0.5 s after its start: /proc/8791/task/8791/{stat,schedstat,status,sched}
    static final String STAT =
            "8791 (sh) R 8790 8786 31591 0 -1 4194304 117 0 0 0 26 0 0 0 20 0 1 0 4076248 2654208 347"
                    + " 18446744073709551615 94548545396736 94548545473465 140736138597072 0 0 0 0 6 65536 0 0 0 17 0 0 0 0 0 0"
                    + " 94548545502768 94548545507904 94548961689600 140736138603228 140736138603254 140736138603254 140736138604524 0\n";
    static final String SCHEDSTAT = "265664245 267546506 81\n";
    static final String STATUS = "Name:\tsh\nUmask:\t0022\nState:\tR (running)\nTgid:\t8791\nThreads:\t1\n"
            + "voluntary_ctxt_switches:\t0\nnonvoluntary_ctxt_switches:\t81\n";
    static final String SCHED =
            "sh (8791, #threads: 1)\n-------------------------------------------------------------------\n"
                    + "se.exec_start                                :       4076754.318226\n"
                    + "se.nr_migrations                             :                    0\nnr_switches                                  :   81\n";

    @Test
    void aThreadsStatSchedstatAndStatusGiveItsNameCpuTimesFaultsAndSwitches() {
        ThreadStat t = ThreadStat.parse(8791, STAT, SCHEDSTAT, STATUS, SCHED);
        assertThat(t.name()).isEqualTo("sh");
        assertThat(t.state()).isEqualTo('R');
        assertThat(t.cpu()).isZero();
        assertThat(t.runNs()).isEqualTo(265_664_245L);
        assertThat(t.utimeTicks()).isEqualTo(26);
        assertThat(t.stimeTicks()).isZero();
        assertThat(t.minorFaults()).isEqualTo(117);
        assertThat(t.majorFaults()).isZero();
        assertThat(t.voluntarySwitches()).isZero();
        assertThat(t.involuntarySwitches()).isEqualTo(81);
        assertThat(t.migrations()).isZero();
    }

    @Test
    void aNameWithSpacesAndParenthesesIsReadUpToTheLastParenthesis() {
        String stat = STAT.replace("(sh)", "(my (odd) name)");
        ThreadStat t = ThreadStat.parse(8791, stat, SCHEDSTAT, STATUS, SCHED);
        assertThat(t.name()).isEqualTo("my (odd) name");
        assertThat(t.minorFaults()).isEqualTo(117);
        assertThat(t.cpu()).isZero();
    }

    @Test
    void aSampleIsTheDifferenceOfTwoReadsWithTimesInMilliseconds() {
        ThreadStat before = ThreadStat.parse(8791, STAT, SCHEDSTAT, STATUS, SCHED);
        ThreadStat after = new ThreadStat(8791, "sh", 'R', 1, 765_664_245L, 76, 1, 120, 1, 2, 90, 3);
        Map<String, Double> c = after.counters(before);
        assertThat(c.get("task-clock")).isCloseTo(500.0, within(1e-9));
        assertThat(c.get("user-time")).isEqualTo(500.0);
        assertThat(c.get("system-time")).isEqualTo(10.0);
        assertThat(c.get("context-switches")).isEqualTo(11.0);
        assertThat(c.get("voluntary-switches")).isEqualTo(2.0);
        assertThat(c.get("involuntary-switches")).isEqualTo(9.0);
        assertThat(c.get("page-faults")).isEqualTo(4.0);
        assertThat(c.get("major-faults")).isEqualTo(1.0);
        assertThat(c.get("cpu-migrations")).isEqualTo(3.0);
        assertThat(c.keySet()).containsExactlyElementsOf(ThreadStat.COUNTERS);
    }

    @Test
    void withoutTheSchedFileMigrationsAreUnknownNotZero() {
        ThreadStat t = ThreadStat.parse(8791, STAT, SCHEDSTAT, STATUS, "");
        assertThat(t.migrations()).isEqualTo(-1);
        assertThat(t.counters(null).get("cpu-migrations")).isNaN();
    }

    @Test
    void aTruncatedStatSaysWhatIsWrong() {
        assertThatThrownBy(() -> ThreadStat.parse(5, "5 (x) R 1 2 3", SCHEDSTAT, STATUS, SCHED))
                .isInstanceOf(ProfileException.class)
                .hasMessageContaining("task/5/stat")
                .hasMessageContaining("fields");
    }

    // perf stat -x, --per-thread -I 500 -e task-clock,context-switches,page-faults,cycles -p <busy sh>
    static final List<String> PERF_BUSY = List.of(
            "     0.500907974,sh-462,500.84,msec,task-clock,500843410,100.00,1.002,CPUs utilized",
            "     0.500907974,sh-462,3,,context-switches,500854469,100.00,5.990,/sec",
            "     0.500907974,sh-462,0,,page-faults,500853137,100.00,0.000,/sec",
            "     0.500907974,sh-462,<not supported>,,cycles,0,100.00,,");

    @Test
    void perfStatPerThreadLinesGiveTheThreadTheEventAndItsCount() {
        PerfThreads.Line l = PerfThreads.Line.parse(PERF_BUSY.get(0));
        assertThat(l.time()).isCloseTo(0.500907974, within(1e-12));
        assertThat(l.thread()).isEqualTo("sh");
        assertThat(l.tid()).isEqualTo(462);
        assertThat(l.event()).isEqualTo("task-clock");
        assertThat(l.value()).isEqualTo(500.84);
        assertThat(l.supported()).isTrue();
        assertThat(PerfThreads.Line.parse(PERF_BUSY.get(1)).value()).isEqualTo(3.0);
        PerfThreads.Line cycles = PerfThreads.Line.parse(PERF_BUSY.get(3));
        assertThat(cycles.supported()).isFalse();
        assertThat(cycles.value()).isNaN();
    }

    @Test
    void anIdleThreadIsNotCountedButSupportedAndADashedNameKeepsItsDashes() {
        // perf stat ... -p <idle bash>: the thread did not run in the interval
        PerfThreads.Line l =
                PerfThreads.Line.parse("     0.500564362,bash-31591,<not counted>,msec,task-clock,0,100.00,,");
        assertThat(l.supported()).isTrue();
        assertThat(l.value()).isNaN();
        PerfThreads.Line d =
                PerfThreads.Line.parse("     1.001232728,C2 Compiler-Th-8812,12.5,msec,cpu-clock,0,100.00,,");
        assertThat(d.thread()).isEqualTo("C2 Compiler-Th");
        assertThat(d.tid()).isEqualTo(8812);
    }

    @Test
    void perfsErrorsAndHeadersAreNotIntervalLines() {
        assertThat(PerfThreads.Line.parse("event syntax error: 'nosuchevent'")).isNull();
        assertThat(PerfThreads.Line.parse("#           time comm-pid counts unit events"))
                .isNull();
        assertThat(PerfThreads.Line.parse("")).isNull();
    }
}

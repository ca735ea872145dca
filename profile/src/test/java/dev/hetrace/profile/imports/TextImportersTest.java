package dev.hetrace.profile.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.CampaignFile;
import dev.hetrace.profile.ProfileException;
import dev.hetrace.profile.Run;
import dev.hetrace.profile.Sample;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** pmctrack output, perf stat -x, CSV and probe CSV, written as their documentation shows them, read into campaigns. */
class TextImportersTest {

    @TempDir
    Path dir;

    Path write(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void pmctrackTimeBasedOutputAsItsDocumentationShowsIt() throws Exception {
        Path f = write("mcf.txt", """
                [Event-to-counter mappings]
                pmc1=instr
                pmc2=llc_misses
                [Event counts]
                nsample  pid      event      pmc1      pmc2
                  1  11960    tick      797055120  8912054
                  2  11960    tick      316689383 11242700
                  3  11960    tick      282149642 10327292
                ...
                """);
        List<Run> runs = PmctrackImport.read(f);
        assertThat(runs).hasSize(1);
        Run r = runs.get(0);
        assertThat(r.counters())
                .containsEntry("instr", 797055120.0 + 316689383 + 282149642)
                .containsEntry("llc_misses", 8912054.0 + 11242700 + 10327292);
        assertThat(r.samples()).hasSize(3);
        Sample s = r.samples().get(1);
        assertThat(s.pid()).isEqualTo(11960);
        assertThat(s.trigger()).isEqualTo("tick");
        assertThat(s.timeSeconds()).isEqualTo(2.0);
        assertThat(s.counters()).containsEntry("instr", 316689383.0);
        assertThat(r.runtimeSeconds()).isEqualTo(3.0);
        assertThat(r.config()).containsEntry("sampling", "time");
    }

    @Test
    void pmctrackEventBasedAndMultithreadedWithoutMappings() throws Exception {
        Path f = write("ebs.txt", """
                nsample  pid      event      pmc0      pmc1     virt0
                  1  200    pmc0      1000000  3000  5
                  2  201    pmc0      1000000  1000  7
                  3  200    pmc0      1000000  2000  6
                """);
        Run r = PmctrackImport.read(f).get(0);
        assertThat(r.samples()).extracting(Sample::tid).containsExactly(200L, 201L, 200L);
        assertThat(r.samples()).allSatisfy(s -> assertThat(s.timeSeconds()).isNaN());
        assertThat(r.counters())
                .containsEntry("pmc0", 3e6)
                .containsEntry("pmc1", 6000.0)
                .containsEntry("virt0", 18.0);
        assertThat(r.runtimeSeconds()).isNaN();
        assertThat(r.config()).containsEntry("sampling", "event");
    }

    @Test
    void pmctrackMalformedRowsNameFileLineAndWhat() throws Exception {
        Path f = write("bad.txt", """
                nsample  pid      event      pmc0
                  1  200    tick      1000
                  2  200    tick      12x
                """);
        assertThatThrownBy(() -> PmctrackImport.read(f))
                .isInstanceOf(ProfileException.class)
                .hasMessage(f + ":3: pmc0 is not a number: '12x'");
        Path g = write("short.txt", "nsample pid event pmc0\n1 200 tick\n");
        assertThatThrownBy(() -> PmctrackImport.read(g))
                .hasMessage(g + ":2: expected 4 columns (nsample pid event pmc0), found 3");
        Path h = write("none.txt", "hello\n");
        assertThatThrownBy(() -> PmctrackImport.read(h)).hasMessageStartingWith(h + ":1: expected pmctrack's header");
    }

    @Test
    void perfStatPlainWithUnsupportedEvents() throws Exception {
        // as perf 6.1 writes it with -o (this machine's VM counts no hardware events)
        Path f = write("plain.csv", """
                # started on Sun Nov 22 12:45:01 2026

                10834590,ns,duration_time,10834590,100.00,12.488,G/sec
                2096333,ns,user_time,2096333,100.00,2.416,G/sec
                <not counted>,ns,system_time,0,100.00,,
                0.79,msec,task-clock,793951,100.00,218.358,CPUs utilized
                0,,context-switches,793951,100.00,0.000,/sec
                <not supported>,,cycles,0,100.00,,
                """);
        Run r = PerfStatImport.read(f).get(0);
        assertThat(r.runtimeSeconds()).isCloseTo(0.01083459, within(1e-12));
        assertThat(r.userSeconds()).isCloseTo(0.002096333, within(1e-12));
        assertThat(r.systemSeconds()).isZero();
        assertThat(r.counters())
                .containsOnlyKeys("task-clock", "context-switches")
                .containsEntry("task-clock", 0.79);
        assertThat(r.unsupported()).containsEntry("cycles", "not supported").doesNotContainKey("system_time");
        assertThat(r.samples()).isEmpty();
    }

    @Test
    void perfStatRepeatedIntervalsAndPerThread() throws Exception {
        Path rep = write("repeat.csv", """
                0.86,msec,task-clock,4.69%,856487,100.00,0.084,CPUs utilized
                49,,page-faults,0.68%,856487,100.00,56.478,K/sec
                <not supported>,,instructions,0.00%,0,100.00,,
                """);
        Run r = PerfStatImport.read(rep).get(0);
        assertThat(r.counters()).containsEntry("task-clock", 0.86).containsEntry("page-faults", 49.0);
        assertThat(r.unsupported()).containsOnlyKeys("instructions");

        Path iv = write("intervals.csv", """
                     0.128625410,50.17,msec,task-clock,50173816,100.00,0.502,CPUs utilized
                     0.128625410,63,,page-faults,50173816,100.00,1.256,K/sec
                     0.245433666,66.60,msec,task-clock,66598048,100.00,0.666,CPUs utilized
                     0.245433666,0,,page-faults,66598048,100.00,0.000,/sec
                """);
        Run i = PerfStatImport.read(iv).get(0);
        assertThat(i.samples()).hasSize(2);
        assertThat(i.samples().get(1).timeSeconds()).isEqualTo(0.245433666);
        assertThat(i.samples().get(1).counters())
                .containsEntry("task-clock", 66.60)
                .containsEntry("page-faults", 0.0);
        assertThat(i.counters()).containsEntry("task-clock", 50.17 + 66.60).containsEntry("page-faults", 63.0);
        assertThat(i.runtimeSeconds()).isEqualTo(0.245433666);

        Path th = write("threads.csv", """
                     0.200272434,sh-6749,76.76,msec,task-clock,76755942,100.00,0.384,CPUs utilized
                     0.200272434,sh-6749,<not supported>,,cycles,0,100.00,,
                     0.200272434,C2 CompilerThre-6719,44.25,msec,task-clock,44253605,100.00,0.416,CPUs utilized
                     0.432292948,sh-6749,89.11,msec,task-clock,89111434,100.00,0.446,CPUs utilized
                """);
        Run t = PerfStatImport.read(th).get(0);
        assertThat(t.samples()).extracting(Sample::tid).containsExactly(6749L, 6719L, 6749L);
        assertThat(t.samples().get(1).thread()).isEqualTo("C2 CompilerThre");
        assertThat(t.unsupported()).containsOnlyKeys("cycles");

        Path pt = write("pt.csv", "java-6612,33.34,msec,task-clock,33343416,100.00,0.314,CPUs utilized\n");
        assertThat(PerfStatImport.read(pt).get(0).samples())
                .singleElement()
                .satisfies(s -> assertThat(s.thread()).isEqualTo("java"));
    }

    @Test
    void perfStatMalformedLinesSayWhere() throws Exception {
        Path f = write("bad.csv", "0.79,msec,task-clock,793951,100.00\nhello world\n");
        assertThatThrownBy(() -> PerfStatImport.read(f)).hasMessageStartingWith(f + ":2: not a perf stat -x, line");
        Path g = write("empty.csv", "# started on Sun\n\n");
        assertThatThrownBy(() -> PerfStatImport.read(g)).hasMessageContaining("no perf stat -x, counter lines");
    }

    @Test
    void probeCsvGivesRunsRuntimesSamplesAndDeltas() throws Exception {
        Path f = write("probes.csv", """
                # hetrace probes 1
                run,config,time_ns,pid,tid,cpu,thread,probe,l2_read,inst
                0,stress=0;cpu=1,1000,100,100,1,ctrl,begin,10,0
                0,stress=0;cpu=1,41000,100,100,1,ctrl,mid,60,20000
                0,stress=0;cpu=1,91000,100,100,1,ctrl,end,110,45000
                0,stress=0;cpu=1,5000,100,101,1,io,begin,0,0
                0,stress=0;cpu=1,9000,100,101,1,io,end,7,,
                1,stress=3;cpu=1,2000,100,100,1,ctrl,begin,0,0
                1,stress=3;cpu=1,152000,100,100,1,ctrl,end,400,45000
                """.replace("7,,\n", "7,\n"));
        List<Run> runs = ProbeImport.read(f);
        assertThat(runs).hasSize(2);
        Run a = runs.get(0);
        assertThat(a.config()).containsEntry("stress", "0").containsEntry("cpu", "1");
        assertThat(a.runtimeSeconds()).isCloseTo(90e-6, within(1e-15));
        assertThat(a.counters()).containsEntry("l2_read", 100.0 + 7).containsEntry("inst", 45000.0);
        assertThat(a.samples()).hasSize(3);
        assertThat(a.samples().get(0).timeSeconds()).isCloseTo(40e-6, within(1e-15));
        assertThat(a.samples().get(0).trigger()).isEqualTo("mid");
        assertThat(a.samples().get(2).counters()).containsOnlyKeys("l2_read");
        assertThat(runs.get(1).counters()).containsEntry("l2_read", 400.0);
    }

    @Test
    void probeCsvErrorsNameTheLine() throws Exception {
        Path f = write("p.csv", "run,time_ns,tid,probe,c\n0,10,1,a,5\n0,20,1,b,3\n");
        assertThatThrownBy(() -> ProbeImport.read(f))
                .hasMessage(f + ":3: counter c of thread 1 went backwards (5 then 3): readings must be cumulative");
        Path g = write("q.csv", "run,tid,probe\n");
        assertThatThrownBy(() -> ProbeImport.read(g))
                .hasMessage(g + ":1: the probe CSV header lacks the 'time_ns' column (needs run, time_ns, tid, probe)");
        Path h = write("r.csv", "run,time_ns,tid,probe\n0,10,1\n");
        assertThatThrownBy(() -> ProbeImport.read(h)).hasMessage(h + ":2: expected 4 fields as in the header, found 3");
    }

    @Test
    void severalFilesMakeOneCampaignThatSurvivesItsFile() throws Exception {
        Path a = write("a.csv", "1.5,msec,task-clock,1,100.00,,\n");
        Path b = write("b.csv", "2.5,msec,task-clock,1,100.00,,\n");
        Campaign c = Importer.named("perf-stat").campaign("two", List.of(a, b), java.util.Map.of("stress", "2"));
        assertThat(c.runs()).extracting(Run::workload).containsExactly("a.csv", "b.csv");
        assertThat(c.runs()).extracting(r -> r.config().get("stress")).containsExactly("2", "2");
        assertThat(c.runs()).extracting(Run::repetition).containsExactly(0, 1);
        Path out = dir.resolve("c.json");
        CampaignFile.write(c, out);
        assertThat(CampaignFile.read(out)).isEqualTo(c);
        assertThatThrownBy(() -> Importer.named("xml")).hasMessageContaining("pmctrack, perf-stat, ctf or probes");
    }
}

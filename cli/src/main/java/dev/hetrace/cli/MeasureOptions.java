package dev.hetrace.cli;

import dev.hetrace.profile.ProfileException;
import dev.hetrace.profile.perf.CampaignRunner;
import dev.hetrace.profile.perf.Cpus;
import dev.hetrace.profile.perf.MemoryKernel;
import dev.hetrace.profile.perf.PerfStat;
import dev.hetrace.profile.perf.WorkloadSpec;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** What {@code profile run} and {@code profile sweep} share: the workload, its events, repetitions and placement. */
final class MeasureOptions {
    @Option(
            names = "--events",
            paramLabel = "E1,E2...",
            split = ",",
            description =
                    "perf events to count besides the software events task-clock, page-faults, context-switches and cpu-migrations (always counted), e.g. cycles,instructions. Events this machine cannot count are named once in the summary.")
    List<String> events = new ArrayList<>();

    @Option(
            names = "--repeat",
            paramLabel = "N",
            description = "Repetitions per configuration (default: ${DEFAULT-VALUE}).")
    int repeat = 5;

    @Option(
            names = "--cpu",
            paramLabel = "C",
            description =
                    "Pin the workload to CPU C (through taskset). Default: anywhere, or CPU 0 when a stressor runs.")
    Integer cpu;

    @Option(
            names = "--stress-cpus",
            paramLabel = "LIST",
            description =
                    "CPUs of the stressor, one co-runner each, e.g. 1 or 1,2 or 1-3 (default: every CPU but the workload's).")
    String stressCpus;

    @Option(
            names = {"-o", "--output"},
            paramLabel = "DIR",
            description = "Folder for campaign.json and workload.log (default: ${DEFAULT-VALUE}).")
    Path output = Path.of("hetrace-profile");

    @Option(
            names = "--workload",
            paramLabel = "SPEC",
            description =
                    "Run hetrace's built-in memory-bound workload instead of a command: chase|stream[:size=TARGET][:accesses=N][:stride=BYTES][:rw=read|write|rmw] (chase: a random pointer chase, one line per access, latency-bound; stream: strided accesses, bandwidth-bound; TARGET as for --stressor, default dram; accesses default 10M). Needs gcc.")
    String workloadSpec;

    @Parameters(
            paramLabel = "CMD",
            arity = "0..*",
            description = "The workload, after '--': the command and its arguments.")
    List<String> command = new ArrayList<>();

    /** The runner for these options; {@code stressing}: a co-runner will run, so placement defaults apply. */
    CampaignRunner runner(boolean stressing, PrintStream err) {
        if (repeat < 1) {
            throw new ProfileException("--repeat " + repeat + ": at least one repetition");
        }
        PerfStat.requireInstalled();
        List<Integer> allowed = Cpus.allowed();
        int wcpu = cpu != null ? cpu : stressing ? allowed.getFirst() : -1;
        if (wcpu >= 0 && !allowed.contains(wcpu)) {
            throw new ProfileException(
                    "--cpu " + wcpu + ": not a CPU hetrace may run on here (CPUs " + Cpus.format(allowed) + ")");
        }
        List<Integer> scpus = new ArrayList<>();
        if (stressing) {
            if (stressCpus != null) {
                try {
                    scpus.addAll(Cpus.parse(stressCpus));
                } catch (ProfileException e) {
                    throw new ProfileException("--stress-cpus " + e.getMessage(), e);
                }
            } else {
                allowed.stream().filter(c -> c != wcpu).forEach(scpus::add);
            }
            for (int c : scpus) {
                if (!allowed.contains(c)) {
                    throw new ProfileException("--stress-cpus: CPU " + c
                            + " is not a CPU hetrace may run on here (CPUs " + Cpus.format(allowed) + ")");
                }
            }
            if (scpus.isEmpty()) {
                throw new ProfileException("no CPU left for the stressor: hetrace may run on CPUs "
                        + Cpus.format(allowed) + " only; give --stress-cpus");
            }
            if (scpus.contains(wcpu)) {
                err.println("hetrace: warning: the stressor shares CPU " + wcpu + " with the workload: it competes for"
                        + " the core, not only for memory");
            }
        }
        Optional<MemoryKernel> kernel = MemoryKernel.cached();
        List<String> cmd;
        String label;
        if (workloadSpec != null) {
            if (!command.isEmpty()) {
                throw new ProfileException(
                        "--workload " + workloadSpec + " and a command after '--': give one of them");
            }
            WorkloadSpec w = WorkloadSpec.parse(workloadSpec);
            MemoryKernel k = kernel.orElseThrow(() -> new ProfileException(
                    "--workload needs gcc to compile hetrace's memory kernel, and gcc is not installed"));
            cmd = k.command(w.arguments());
            label = "hetrace workload " + w;
        } else {
            if (command.isEmpty()) {
                throw new ProfileException(
                        "no workload: give a command after '--' (e.g. -- ./bench 512) or --workload SPEC");
            }
            cmd = List.copyOf(command);
            label = String.join(" ", command);
        }
        if (stressing && kernel.isEmpty()) {
            err.println("hetrace: gcc is not installed: the stressor is hetrace's Java fallback (a thread striding an"
                    + " array), less precise than the compiled one");
        }
        List<String> ev = new ArrayList<>(new LinkedHashSet<>(PerfStat.SOFTWARE_EVENTS));
        for (String e : events) {
            if (!e.isBlank() && !ev.contains(e.strip())) {
                ev.add(e.strip());
            }
        }
        return new CampaignRunner(
                cmd, label, ev, repeat, wcpu, scpus, output, kernel, line -> err.println("hetrace: " + line));
    }

    /** The campaign's name: the built-in workload's kind, or the command's file name. */
    String name() {
        if (workloadSpec != null) {
            return workloadSpec.split(":")[0];
        }
        return command.isEmpty()
                ? "workload"
                : Path.of(command.getFirst()).getFileName().toString();
    }
}

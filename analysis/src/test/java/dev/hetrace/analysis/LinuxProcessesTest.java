package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.analysis.index.TraceIndex;
import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.StreamWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each thread of a Linux kernel trace belongs to its process (its thread group), as the trace
 * tells it: the state dump's {@code pid}, a fork's {@code child_pid} (the parent's own process for
 * a thread, made with {@code CLONE_THREAD}; the child's own id for a new process), the {@code pid}
 * context of the task a switch leaves; the process is named after its leader, even one renamed by
 * {@code exec} or listed after its threads, and a reused thread id names another process.
 */
class LinuxProcessesTest {
    @TempDir
    Path dir;

    private static final String TSDL = """
        /* CTF 1.8 */
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 32; align = 8; signed = true; } := int32_t;
        typealias integer { size = 64; align = 8; signed = true; } := int64_t;
        typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_monotonic_t;
        trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; uint32_t stream_id; }; };
        env { hostname = "box"; domain = "kernel"; sysname = "Linux"; kernel_release = "6.1.0";
            tracer_name = "lttng-modules"; tracer_major = 2; tracer_minor = 13; };
        clock { name = "monotonic"; freq = 1000000000; };
        stream { id = 0; packet.context := struct { uint32_t cpu_id; };
            event.header := struct { uint32_t id; uint64_clock_monotonic_t timestamp; };
            event.context := struct { int32_t _pid; }; };
        event { name = "sched_switch"; id = 0; stream_id = 0; fields := struct { string _prev_comm; int32_t _prev_tid;
            int64_t _prev_state; string _next_comm; int32_t _next_tid; }; };
        event { name = "sched_process_fork"; id = 1; stream_id = 0; fields := struct { string _parent_comm;
            int32_t _parent_tid; int32_t _parent_pid; string _child_comm; int32_t _child_tid; int32_t _child_pid; }; };
        event { name = "lttng_statedump_process_state"; id = 2; stream_id = 0; fields := struct { int32_t _tid;
            int32_t _pid; int32_t _ppid; string _name; }; };
        event { name = "sched_process_exec"; id = 3; stream_id = 0; fields := struct { string _filename;
            int32_t _tid; int32_t _old_tid; }; };
        event { name = "sched_process_exit"; id = 4; stream_id = 0; fields := struct { string _comm; int32_t _tid; }; };
        event { name = "sched_process_free"; id = 5; stream_id = 0; fields := struct { string _comm; int32_t _tid; }; };
        """;

    private static final long BLOCKED = 1;
    private static final long DEAD = 16;

    /** One CPU: a state dump, threads and processes forked, an exec, a thread reaped and its id reused. */
    private Path trace() throws Exception {
        Path t = dir.resolve("kernel");
        try (CtfWriter w = CtfWriter.create(t, TSDL)) {
            StreamWriter s = w.stream(0, 0, "channel0_0").packetContext("cpu_id", 0L);
            // the state dump: a thread before its process's leader (db), another after it (server)
            event(s, 2, 1000, 0, 100L, 100L, 1L, "server");
            event(s, 2, 1010, 0, 101L, 100L, 1L, "server");
            event(s, 2, 1020, 0, 301L, 300L, 1L, "db-worker");
            event(s, 2, 1030, 0, 300L, 300L, 1L, "db");
            event(s, 2, 1040, 0, 200L, 200L, 1L, "shell");
            event(s, 0, 2000, 0, "swapper/0", 0L, 0L, "server", 100L);
            // a thread of server's (CLONE_THREAD: child_pid is the parent's process)
            event(s, 1, 3000, 100, "server", 100L, 100L, "server", 102L, 100L);
            event(s, 0, 4000, 100, "server", 100L, BLOCKED, "server", 102L);
            event(s, 0, 5000, 100, "server", 102L, 0x100L, "shell", 200L);
            // a new process (child_pid its own id), which runs ls and makes a thread
            event(s, 1, 6000, 200, "shell", 200L, 200L, "shell", 210L, 210L);
            event(s, 0, 7000, 200, "shell", 200L, BLOCKED, "shell", 210L);
            event(s, 3, 8000, 210, "/bin/ls", 210L, 210L);
            event(s, 1, 9000, 210, "ls", 210L, 210L, "ls", 211L, 210L);
            event(s, 0, 10000, 210, "ls", 210L, BLOCKED, "ls", 211L);
            event(s, 0, 11000, 210, "ls", 211L, BLOCKED, "server", 102L);
            // server's thread 102 dies and is reaped
            event(s, 4, 12000, 100, "server", 102L);
            event(s, 0, 12100, 100, "server", 102L, DEAD, "db-worker", 301L);
            event(s, 5, 13000, 300, "server", 102L);
            // a thread neither dumped nor forked: its process from the pid context when it leaves
            event(s, 0, 14000, 300, "db-worker", 301L, BLOCKED, "mystery", 400L);
            event(s, 0, 15000, 399, "mystery", 400L, BLOCKED, "shell", 200L);
            // id 102 again: a new process, cat
            event(s, 1, 16000, 200, "shell", 200L, 200L, "cat", 102L, 102L);
            event(s, 0, 17000, 200, "shell", 200L, BLOCKED, "cat", 102L);
            event(s, 0, 18000, 102, "cat", 102L, BLOCKED, "swapper/0", 0L);
        }
        return t;
    }

    private static void event(StreamWriter s, int id, long time, long pid, Object... fields) throws Exception {
        s.event(id, time, List.of(pid), null, List.of(fields));
    }

    /** Per task, "name[tid] pid:process" ("-" when unknown), in the model's order. */
    private static List<String> processes(StateModel m) {
        int[] leader = m.processLeaders();
        List<String> out = new ArrayList<>();
        for (int k = 0; k < m.tasks().size(); k++) {
            StateModel.Task t = m.tasks().get(k);
            out.add(t.name() + "[" + t.id() + "] " + (t.process() < 0 ? "-" : t.process()) + ":"
                    + (leader[k] < 0 ? "-" : m.tasks().get(leader[k]).name()));
        }
        return out;
    }

    @Test
    void threadsBelongToTheProcessTheStateDumpForksAndPidContextSay() throws Exception {
        Path t = trace();
        StateModel m =
                StateBuilder.build(StateBuilder.synchronize(List.of(t), w -> {}), StateBuilder.Options.of(w -> {}));
        assertThat(m.mappingNames().getFirst()).startsWith("lttng-kernel");
        assertThat(processes(m))
                .containsExactlyInAnyOrder(
                        "server[100] 100:server",
                        "server[101] 100:server",
                        "db-worker[301] 300:db",
                        "db[300] 300:db",
                        "shell[200] 200:shell",
                        "swapper/0[0] -:-",
                        "server[102] 100:server",
                        "ls[210] 210:ls",
                        "ls[211] 210:ls",
                        "mystery[400] 399:-",
                        "cat[102] 102:cat");
        // kept by the index and read back as it was
        TraceIndex index = TraceIndex.open(dir.resolve("cache"), List.of(t), null, Map.of(), n -> {});
        assertThat(processes(index.model())).isEqualTo(processes(m));
        assertThat(index.model().tasks()).isEqualTo(m.tasks());
    }
}

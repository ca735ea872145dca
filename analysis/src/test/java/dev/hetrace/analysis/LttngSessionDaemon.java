package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.fail;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.testing.Required;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A private LTTng session daemon that records real LTTng-UST traces of programs, for the tests.
 * It has an {@code LTTNG_HOME} of its own, so that it meets neither a developer's daemons nor
 * those of tests running at the same time. A root session daemon always takes the machine's one
 * {@code /var/run/lttng}, so when the tests run as root, the daemon, the {@code lttng} commands
 * and the traced programs run as an unprivileged user (a per-user daemon traces that user's
 * programs). Closing it kills it and its consumer daemons.
 */
final class LttngSessionDaemon implements AutoCloseable {
    /** The user the daemon and the programs run as when the tests run as root ({@code nobody}). */
    private static final int UNPRIVILEGED = 65534;

    private static final long TIMEOUT_SECONDS = 120;

    /** A channel's ring buffer on each CPU: {@code subbuffers} sub-buffers of {@code subbufferBytes} (a power of 2, at least a page). */
    record Channel(long subbufferBytes, int subbuffers) {
        /** Room enough that the tests' programs lose nothing: 8 MiB per CPU. */
        static final Channel AMPLE = new Channel(1 << 20, 8);
        /** The smallest LTTng allows: 8 KiB per CPU, overflowed by a burst of a few hundred events. */
        static final Channel SMALL = new Channel(4096, 2);
    }

    /** What a recording left: the trace, and the directory the program ran in (the files it wrote). */
    record Recording(Path trace, Path directory) {}

    private final Path root;
    private final Path home;
    private final boolean asRoot;
    private final long pid;
    private final Thread killer;

    private LttngSessionDaemon(Path root, Path home, boolean asRoot, long pid) {
        this.root = root;
        this.home = home;
        this.asRoot = asRoot;
        this.pid = pid;
        // a test run interrupted between start and close does not leave the daemon behind
        this.killer = new Thread(this::kill, "lttng-sessiond " + pid);
        Runtime.getRuntime().addShutdownHook(killer);
    }

    /**
     * Fails in CI without LTTng's tools and LTTng-UST's development files (.ci/run installs them);
     * skips elsewhere, saying what to install.
     */
    static void require() {
        List<String> missing = new ArrayList<>();
        for (String tool : List.of("lttng", "lttng-sessiond", "gcc")) {
            if (onPath(tool) == null) {
                missing.add(tool);
            }
        }
        if (!Files.isRegularFile(Path.of("/usr/include/lttng/tracepoint.h"))
                && glob("/usr/include", "lttng/tracepoint.h") == null) {
            missing.add("lttng/tracepoint.h");
        }
        for (String lib : List.of("liblttng-ust-cyg-profile.so", "liblttng-ust-cyg-profile-fast.so")) {
            if (library(lib) == null) {
                missing.add(lib);
            }
        }
        if (isRoot() && onPath("setpriv") == null) {
            missing.add("setpriv");
        }
        if (!missing.isEmpty()) {
            String why = "the recorded LTTng-UST tests need " + String.join(", ", missing)
                    + ": apt-get install lttng-tools liblttng-ust-dev gcc (.ci/run does)";
            Required.missing(why);
        }
    }

    /** A library of LTTng-UST's, by its file name, in the system's library directories (for LD_PRELOAD). */
    static Path library(String name) {
        for (String dir : List.of("/usr/lib", "/usr/lib64", "/usr/local/lib")) {
            if (Files.isRegularFile(Path.of(dir, name))) {
                return Path.of(dir, name);
            }
            Path p = glob(dir, name);
            if (p != null) {
                return p;
            }
        }
        return null;
    }

    /** {@code DIR/ * /relative}: the first subdirectory of {@code dir} holding {@code relative} (multiarch directories). */
    private static Path glob(String dir, String relative) {
        try (Stream<Path> s = Files.list(Path.of(dir))) {
            return s.map(p -> p.resolve(relative))
                    .filter(Files::isRegularFile)
                    .findFirst()
                    .orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    /** The executable {@code tool} on the PATH, or null. */
    static Path onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, tool);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    private static boolean isRoot() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Starts a session daemon whose home, recordings and programs' files are under {@code root}
     * (created), a directory in the test's temporary directory.
     */
    static LttngSessionDaemon start(Path root) throws IOException, InterruptedException {
        boolean asRoot = isRoot();
        Files.createDirectories(root);
        Path home = root.resolve("home");
        if (asRoot) {
            // the unprivileged user reaches its directories through the test's temporary directory
            Files.setPosixFilePermissions(root.getParent(), PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        ownDirectory(home, asRoot);
        ownDirectory(root, asRoot);
        Path log = root.resolve("lttng-sessiond.log");
        run(home, root, log, asRoot, Map.of(), List.of("lttng-sessiond", "--daemonize"));
        Path pidFile = home.resolve(".lttng/lttng-sessiond.pid");
        if (!Files.isRegularFile(pidFile)) {
            fail("lttng-sessiond --daemonize left no %s; its output:%n%s", pidFile, Files.readString(log));
        }
        return new LttngSessionDaemon(
                root, home, asRoot, Long.parseLong(Files.readString(pidFile).strip()));
    }

    private static Path ownDirectory(Path dir, boolean asRoot) throws IOException {
        Files.createDirectories(dir);
        if (asRoot) {
            Files.setAttribute(dir, "unix:uid", UNPRIVILEGED);
            Files.setAttribute(dir, "unix:gid", UNPRIVILEGED);
        }
        return dir;
    }

    /**
     * Records {@code command}, run in a new directory {@code name} (its working directory), into a
     * session of its own: one channel of this size in discard mode, the {@code events} enabled in
     * it, with the {@code vtid}, {@code vpid} and {@code procname} contexts. The program starts
     * once the session has (LTTng-UST waits for the daemon before {@code main}); the session is
     * then stopped (its buffers flushed) and destroyed, and destroyed too when anything failed.
     */
    Recording record(String name, Channel channel, List<String> events, Map<String, String> env, List<String> command)
            throws IOException, InterruptedException {
        return record(name, channel, events, List.of(), env, command);
    }

    /** As {@link #record(String, Channel, List, Map, List)}, with more contexts ({@code perf:thread:instructions}). */
    Recording record(
            String name,
            Channel channel,
            List<String> events,
            List<String> contexts,
            Map<String, String> env,
            List<String> command)
            throws IOException, InterruptedException {
        Path dir = ownDirectory(root.resolve(name), asRoot);
        Path out = dir.resolve("trace");
        Path log = dir.resolve("lttng.log");
        lttng(log, "create", name, "--output=" + out);
        try {
            lttng(
                    log,
                    "enable-channel",
                    "--userspace",
                    "--discard",
                    "--subbuf-size=" + channel.subbufferBytes(),
                    "--num-subbuf=" + channel.subbuffers(),
                    "channel0");
            for (String e : events) {
                lttng(log, "enable-event", "--userspace", "--channel=channel0", e);
            }
            lttng(
                    log,
                    "add-context",
                    "--userspace",
                    "--channel=channel0",
                    "--type=vtid",
                    "--type=vpid",
                    "--type=procname");
            for (String c : contexts) {
                lttng(log, "add-context", "--userspace", "--channel=channel0", "--type=" + c);
            }
            lttng(log, "start", name);
            Map<String, String> all = new HashMap<>(env);
            // wait for the daemon however long it takes to answer: no event before main is lost
            all.put("LTTNG_UST_REGISTER_TIMEOUT", "-1");
            run(home, dir, dir.resolve("program.log"), asRoot, all, command);
            lttng(log, "stop", name);
        } finally {
            lttng(log, "destroy", name);
        }
        List<Path> traces = CtfTrace.find(out);
        if (traces.size() != 1) {
            fail("expected one trace under %s, found %s", out, traces);
        }
        return new Recording(traces.getFirst(), dir);
    }

    private void lttng(Path log, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("lttng", "--no-sessiond", "--quiet"));
        cmd.addAll(List.of(args));
        run(home, root, log, asRoot, Map.of(), cmd);
    }

    /** Runs a command as the tracing user with the daemon's home, its output appended to {@code log}; fails unless it succeeds. */
    private static void run(
            Path home, Path dir, Path log, boolean asRoot, Map<String, String> env, List<String> command)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        if (asRoot) {
            cmd.addAll(List.of("setpriv", "--reuid=" + UNPRIVILEGED, "--regid=" + UNPRIVILEGED, "--clear-groups"));
        }
        // the command's own variables set past setpriv: an LD_PRELOAD'ed LTTng-UST would start its
        // threads in setpriv itself, whose change of user then aborts
        cmd.add("env");
        env.forEach((k, v) -> cmd.add(k + "=" + v));
        cmd.addAll(command);
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().put("LTTNG_HOME", home.toString());
        pb.environment().put("HOME", home.toString());
        Process p = pb.start();
        // a file, not a pipe: the daemonized session daemon keeps its parent's output open
        if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail(
                    "%s did not finish in %d s; output:%n%s",
                    command, TIMEOUT_SECONDS, Files.readString(log, StandardCharsets.UTF_8));
        }
        if (p.exitValue() != 0) {
            fail(
                    "%s exited with %d; output:%n%s",
                    command, p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        }
    }

    /** Kills the session daemon and its consumer daemons. */
    @Override
    public void close() {
        kill();
        Runtime.getRuntime().removeShutdownHook(killer);
    }

    private void kill() {
        ProcessHandle.of(pid).ifPresent(daemon -> {
            List<ProcessHandle> children = daemon.descendants().toList();
            daemon.destroy();
            try {
                daemon.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                daemon.destroyForcibly();
            }
            // it ends its consumer daemons itself; any it left are ended here
            children.forEach(ProcessHandle::destroyForcibly);
        });
    }
}

package dev.hetrace.cli;

import dev.hetrace.analysis.index.TraceIndex;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A hidden folder inside a command's output folder where the command writes everything first,
 * moving it into place only once all is written ({@code export --parquet}'s tables,
 * {@code sync --out}'s copies): what a failed or stopped run leaves is the output folder as it
 * was.
 *
 * <ul>
 *   <li>An error: {@link #close()} removes the folder (and the output folder, if this run made
 *       it and it is left empty).
 *   <li>Ctrl-C or SIGTERM: a shutdown hook interrupts the writing thread, waits a moment for it
 *       to stop, removes the same, and says so in one line; the command then says nothing more
 *       ({@link #aborted()}).
 *   <li>kill -9 or a crash: the folder stays, named {@code .hetrace-KIND-PID-N}; the next run into
 *       the same output folder removes it once its process is gone, saying so.
 * </ul>
 *
 * The move into place ({@link #commit}) and the hook exclude each other: a stop either comes
 * before it, and nothing is moved, or waits for it to end.
 */
final class UnfinishedOutput implements AutoCloseable {
    /** An action on files, run at the commit. */
    interface Moves {
        void run() throws IOException;
    }

    private final Path dir;
    private final Path work;
    private final boolean madeDir;
    private final String what;
    private final PrintStream err;
    private final long stopWaitMillis;
    private final Thread writer = Thread.currentThread();
    private final Thread hook;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private boolean committed;
    private boolean aborted;
    private boolean closed;

    private UnfinishedOutput(Path dir, Path work, boolean madeDir, String what, PrintStream err, long stopWaitMillis) {
        this.dir = dir;
        this.work = work;
        this.madeDir = madeDir;
        this.what = what;
        this.err = err;
        this.stopWaitMillis = stopWaitMillis;
        this.hook = new Thread(this::interrupted, "hetrace-unfinished-output");
    }

    /**
     * Makes {@code dir} (when absent) and the folder to write into inside it, first removing the
     * folders of the same kind that runs no longer alive left there (saying so on {@code err}).
     *
     * @param kind           what writes ({@code sync}, {@code export}): the folder's name
     * @param what           what is written, for the line said when stopped ("copies", "tables")
     * @param stopWaitMillis how long a stop waits for the writing thread to end before removing
     *                       the folder under it
     */
    static UnfinishedOutput begin(Path dir, String kind, String what, PrintStream err, long stopWaitMillis)
            throws IOException {
        boolean made = !Files.exists(dir);
        Files.createDirectories(dir);
        removeStale(dir, kind, err);
        Path work = Files.createTempDirectory(
                dir, prefix(kind) + ProcessHandle.current().pid() + "-");
        UnfinishedOutput out = new UnfinishedOutput(dir, work, made, what, err, stopWaitMillis);
        Runtime.getRuntime().addShutdownHook(out.hook);
        return out;
    }

    /** The start of the names of the folders of {@code kind}. */
    static String prefix(String kind) {
        return ".hetrace-" + kind + "-";
    }

    /** Whether {@code name} is that of a folder of {@code kind} (alive or not). */
    static boolean isWorkFolder(String name, String kind) {
        return name.startsWith(prefix(kind));
    }

    /** Removes the folders of {@code kind} in {@code dir} whose process is gone (killed with -9, crashed). */
    private static void removeStale(Path dir, String kind, PrintStream err) throws IOException {
        Pattern named = Pattern.compile(Pattern.quote(prefix(kind)) + "(\\d+)-\\d+");
        try (var entries = Files.list(dir)) {
            for (Path p : entries.toList()) {
                Matcher m = named.matcher(p.getFileName().toString());
                if (!m.matches() || !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                long pid;
                try {
                    pid = Long.parseLong(m.group(1));
                } catch (NumberFormatException e) {
                    continue;
                }
                if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    continue; // another run writing now
                }
                TraceIndex.deleteTree(p);
                err.println("hetrace: removed " + p + ", left unfinished by a run that was killed");
            }
        }
    }

    /** The folder to write into. */
    Path path() {
        return work;
    }

    /** The output folder. */
    Path dir() {
        return dir;
    }

    /** Whether the run was stopped (Ctrl-C, SIGTERM): the stop said so, the command has nothing more to say. */
    synchronized boolean aborted() {
        return aborted;
    }

    /** Throws if the run was stopped: called between the steps of the writing. */
    void check() throws InterruptedIOException {
        if (aborted() || Thread.currentThread().isInterrupted()) {
            throw new InterruptedIOException("stopped");
        }
    }

    /** Runs {@code moves} (the work's files into place) unless the run was stopped; a stop then waits for them. */
    void commit(Moves moves) throws IOException {
        synchronized (this) {
            if (aborted) {
                throw new InterruptedIOException("stopped");
            }
            moves.run();
            committed = true;
        }
    }

    /** Removes what was not moved into place (all when not committed); the hook is no longer needed. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        try {
            removeWork();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down: the hook runs, and finds the work removed
            }
        } finally {
            stopped.countDown();
        }
    }

    private void removeWork() {
        try {
            TraceIndex.deleteTree(work);
            if (madeDir && !committed) {
                try (var left = Files.list(dir)) {
                    if (left.findAny().isEmpty()) {
                        Files.deleteIfExists(dir);
                    }
                }
            }
        } catch (IOException e) {
            // what cannot be removed stays: a hidden folder the next run removes
        }
    }

    /** The shutdown hook: Ctrl-C or SIGTERM before the end. */
    private void interrupted() {
        synchronized (this) {
            if (committed || closed) {
                return;
            }
            aborted = true;
        }
        writer.interrupt();
        try {
            stopped.await(stopWaitMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // the writer may still be between two files: remove until nothing comes back
        for (int i = 0; i < 50 && Files.exists(work, LinkOption.NOFOLLOW_LINKS); i++) {
            removeWork();
            if (Files.exists(work, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    break;
                }
            }
        }
        removeWork();
        err.println("hetrace: interrupted: removed the unfinished " + what
                + (madeDir ? " and " + dir + ", which this run" + " had made" : "; " + dir + " is as it was"));
        err.flush();
    }
}

package dev.hetrace.profile.monitor;

import java.io.BufferedReader;
import java.io.InputStreamReader;

/**
 * The process the monitor tests watch: a thread "spin" that never stops computing and a thread
 * "nap" that sleeps; each line "late" on its standard input starts a thread "late" that computes
 * for 0.5 s and ends. It exits when its standard input closes (or after 60 s without input).
 */
public final class Spinner {
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        Thread.ofPlatform().daemon().name("spin").start(Spinner::spin);
        Thread.ofPlatform().daemon().name("nap").start(() -> {
            try {
                Thread.sleep(600_000);
            } catch (InterruptedException e) {
                // exit
            }
        });
        System.out.println("ready");
        System.out.flush();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                return;
            }
            System.exit(1);
        });
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.equals("late")) {
                Thread.ofPlatform().name("late").start(() -> {
                    long end = System.nanoTime() + 500_000_000L;
                    while (System.nanoTime() < end) {
                        sink += end;
                    }
                });
            }
        }
        System.exit(0);
    }

    private static void spin() {
        for (long i = 0; ; i++) {
            sink += i;
        }
    }

    /** Starts a Spinner in a JVM of its own and waits until its threads run. */
    static Process start() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(
                        java,
                        "-Xshare:auto",
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        System.getProperty("java.class.path"),
                        Spinner.class.getName())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        int c = p.getInputStream().read(); // "ready"
        if (c < 0) {
            throw new IllegalStateException("the spinner did not start");
        }
        return p;
    }

    /** Tells a Spinner to start a thread "late". */
    static void late(Process spinner) {
        try {
            spinner.getOutputStream().write("late\n".getBytes());
            spinner.getOutputStream().flush();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}

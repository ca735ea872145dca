package dev.hetrace.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Option;

/**
 * Serving a page on this machine, as {@code hetrace view}, {@code demo --serve} and {@code
 * monitor} do: the one-line error when the port cannot be had, the URL said (and opened), and
 * serving until Ctrl-C.
 */
final class Serving {
    private Serving() {}

    /** The options of a command that serves a page (a picocli mixin): where, and whether to open it. */
    static final class Options {
        @Option(names = "--port", paramLabel = "P", description = "The port to serve on (default: a free one).")
        int port = 0;

        @Option(
                names = "--bind",
                paramLabel = "ADDR",
                description =
                        "The address to listen on (default: ${DEFAULT-VALUE}, this machine only; 0.0.0.0: every interface)."
                                + " Requests must name the server (localhost, an IP address, ADDR, or beyond the loopback this machine's"
                                + " name, with the port); others, and other sites' pages, get a 403.")
        String bind = "127.0.0.1";

        @Option(names = "--open", description = "Open the page in the desktop's browser (xdg-open).")
        boolean open;

        /** The usage error of these options (a port out of range), or null. */
        String invalid() {
            return port < 0 || port > 65535 ? "--port " + port + ": must be within 0..65535" : null;
        }
    }

    /**
     * A server that did not start, in one line: the address and the deepest cause (the OS's
     * words; the server's own layers repeat them with advice for its developers).
     */
    static CommandFailure cannotServe(String bind, int port, RuntimeException e) {
        Throwable cause = e;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return CommandFailure.said("cannot serve on " + bind + ":" + port + ": " + cause.getMessage(), e);
    }

    /** The URL to open for a server on {@code bind}:{@code port} (every interface: the loopback). */
    static String url(String bind, int port) {
        String host = bind.contains(":") ? "[" + bind + "]" : bind;
        return "http://" + ("0.0.0.0".equals(bind) ? "127.0.0.1" : host) + ":" + port + "/";
    }

    /** Says where to open the page, and opens it in the desktop's browser when asked. */
    static void announce(PrintStream err, String who, String url, boolean open) {
        err.println(who + ": open " + url + "  (Ctrl-C to stop)");
        if (open) {
            try {
                new ProcessBuilder("xdg-open", url).inheritIO().start();
            } catch (IOException e) {
                err.println(who + ": --open: xdg-open is not available here; open " + url + " in a browser");
            }
        }
        err.flush();
    }

    /** Waits for Ctrl-C (or this thread's interruption), then {@code close}s the server. */
    static void untilStopped(Runnable close) {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            close.run();
            stopped.countDown();
        }));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            close.run();
            Thread.currentThread().interrupt();
        }
    }
}

package dev.hetrace.web;

import io.javalin.Javalin;
import io.javalin.http.ForbiddenResponse;
import io.javalin.http.staticfiles.Location;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * How hetrace's local web apps are set up (the viewer, the profile monitor, a served page): no
 * banner, an app folder of plain files from the classpath at {@code /}, no compression when
 * only this machine is served (on the loopback, compressing a megabyte of JSON costs more than
 * sending it), and only requests that name this server and come from its own pages answered
 * ({@link AllowedHosts}).
 */
public final class WebApps {
    private WebApps() {}

    /** A Javalin to be started on {@code host}, serving the classpath folder {@code appFolder} at {@code /} (none if null). */
    public static Javalin create(String host, String appFolder) {
        boolean loopback = loopback(host);
        AllowedHosts allowed = new AllowedHosts(host);
        Javalin app = Javalin.create(config -> {
            config.showJavalinBanner = false;
            if (loopback) {
                config.http.disableCompression();
            }
            if (appFolder != null) {
                config.staticFiles.add(files -> {
                    files.hostedPath = "/";
                    files.directory = appFolder;
                    files.location = Location.CLASSPATH;
                });
            }
        });
        // before any page, file or API answer: a rebound name or another site's page gets nothing
        app.before(ctx -> {
            String why = allowed.refusal(
                    ctx.header("Host"), ctx.header("Origin"), ctx.req().getLocalPort());
            if (why != null) {
                throw new ForbiddenResponse("hetrace: refused: " + why);
            }
        });
        return app;
    }

    private static boolean loopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false; // starting on it tells
        }
    }
}

package dev.hetrace.web;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which requests a local web app answers. Listening on the loopback keeps other machines out,
 * but not a web page the user opens: its script can point its own DNS name at 127.0.0.1 (DNS
 * rebinding) and read the app's answers as same-origin. Such a request names the attacker's host
 * in its {@code Host} header, so only a {@code Host} that names this server is answered:
 * {@code localhost}, an IP address (a page cannot rebind an address, only a name), or the name
 * the server was told to listen on (and, listening beyond the loopback, this machine's own
 * name), with the server's port. A request from a page ({@code Origin}) must come from such a
 * host and port too: another site's page gets nothing either.
 */
final class AllowedHosts {
    private final String listenName;
    private final boolean loopback;
    private final Set<String> machineNames;

    /** For a server listening on {@code listenHost} (a name or an address). */
    AllowedHosts(String listenHost) {
        this.listenName = bare(listenHost);
        this.loopback = isLoopback(listenHost);
        this.machineNames = loopback ? Set.of() : machineNames();
    }

    /**
     * Why a request with these headers, received on {@code port}, is refused; null when it is
     * answered. {@code host}: the {@code Host} header (null when absent: an HTTP/1.0 client that
     * names no host cannot be a browser's rebound page); {@code origin}: the {@code Origin}
     * header, or null.
     */
    String refusal(String host, String origin, int port) {
        if (host != null && !names(host, port)) {
            return "Host '" + printable(host) + "' does not name this server";
        }
        if (origin != null && !origin.equals("null")) {
            URI o;
            try {
                o = new URI(origin);
            } catch (URISyntaxException e) {
                return "Origin '" + printable(origin) + "' is not an origin";
            }
            String authority = o.getRawAuthority();
            if (!"http".equalsIgnoreCase(o.getScheme()) || authority == null || !names(authority, port)) {
                return "Origin '" + printable(origin) + "' is another site";
            }
        }
        return null;
    }

    /** Whether {@code authority} ({@code host[:port]}) names this server on {@code port}. */
    private boolean names(String authority, int port) {
        String a = authority.trim().toLowerCase(Locale.ROOT);
        String name = a;
        int colon = a.lastIndexOf(':');
        if (colon >= 0 && (a.startsWith("[") ? colon > a.indexOf(']') : a.indexOf(':') == colon)) {
            String p = a.substring(colon + 1);
            name = a.substring(0, colon);
            if (!p.equals(Integer.toString(port))) {
                return false;
            }
        } else if (port != 80) {
            return false;
        }
        name = bare(name);
        if (name.isEmpty()) {
            return false;
        }
        if (name.equals("localhost") || name.equals(listenName) || isAddress(name)) {
            return true;
        }
        return machineNames.contains(name);
    }

    /** {@code [::1]} → {@code ::1}, a trailing dot dropped, lower case. */
    private static String bare(String host) {
        String h = host.trim().toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        if (h.endsWith(".")) {
            h = h.substring(0, h.length() - 1);
        }
        return h;
    }

    /** An IPv4 address in dotted decimal or an IPv6 address: never looked up. */
    private static boolean isAddress(String name) {
        if (name.indexOf(':') >= 0) {
            return name.matches("[0-9a-f:.]+");
        }
        String[] parts = name.split("\\.", -1);
        if (parts.length != 4) {
            return false;
        }
        for (String p : parts) {
            if (!p.matches("[0-9]{1,3}") || Integer.parseInt(p) > 255) {
                return false;
            }
        }
        return true;
    }

    private static boolean isLoopback(String host) {
        String h = bare(host);
        if (h.equals("localhost")) {
            return true;
        }
        try {
            return isAddress(h) && InetAddress.getByName(h).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** This machine's name and its fully qualified name, as a user on the network may type them. */
    private static Set<String> machineNames() {
        try {
            InetAddress local = InetAddress.getLocalHost();
            return Set.of(bare(local.getHostName()), bare(local.getCanonicalHostName())).stream()
                    .filter(n -> !n.isEmpty())
                    .collect(Collectors.toUnmodifiableSet());
        } catch (UnknownHostException e) {
            return Set.of();
        }
    }

    /** A header value as it may be shown in a message: control bytes escaped, at most 100 characters. */
    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < 100; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7F) {
                b.append(String.format("\\x%02x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}

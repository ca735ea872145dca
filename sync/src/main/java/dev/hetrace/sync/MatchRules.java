package dev.hetrace.sync;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/** The built-in match rules, and rules read from a YAML file or an inline spec. */
public final class MatchRules {
    private MatchRules() {}

    /** The sync-pair events of hetrace's generated tracers: a send (seq, core, peer) meets the receive (seq, peer, core). */
    public static final List<MatchRule> HETRACE_SYNC = List.of(new MatchRule(
            "hetrace-sync",
            "hetrace_sync_send",
            List.of("seq", "core", "peer"),
            "hetrace_sync_recv",
            List.of("seq", "peer", "core")));

    private static final String TCP =
            "network_header.ipv4.transport_header.tcp.|network_header.ipv6.transport_header.tcp.";

    /**
     * TCP segments in LTTng kernel traces: the net_data addons' {@code inet_sock_local_out/in}
     * and lttng-modules ≥ 2.6's {@code net_dev_queue}/{@code netif_receive_skb} with the TCP
     * header, keyed by (seq, ack_seq, flags) as Trace Compass does.
     */
    public static final List<MatchRule> TCP_RULES = List.of(
            new MatchRule(
                    "tcp-sock",
                    "inet_sock_local_out",
                    List.of("seq", "ack_seq", "flags"),
                    "inet_sock_local_in",
                    List.of("seq", "ack_seq", "flags")),
            new MatchRule("tcp-netif", "net_dev_queue", tcpKeys(), "netif_receive_skb", tcpKeys()));

    private static List<String> tcpKeys() {
        List<String> keys = new ArrayList<>();
        for (String f : List.of("seq", "ack_seq", "flags")) {
            keys.add(String.join(
                    "|", Arrays.stream(TCP.split("\\|")).map(p -> p + f).toList()));
        }
        return keys;
    }

    /**
     * The rules used when none are given: hetrace's sync handshake and TCP, which cost nothing on
     * traces that have neither.
     */
    public static final List<MatchRule> DEFAULT =
            Stream.concat(HETRACE_SYNC.stream(), TCP_RULES.stream()).toList();

    /** What {@code --match} accepts, for help texts. */
    public static final String SPEC_HELP = "hetrace-sync, tcp, messages:SEND,RECEIVE,KEY[+KEY...], or a YAML file";

    /**
     * Rules from a {@code --match} value: a preset name ({@code hetrace-sync}, {@code tcp}), a
     * {@code messages:SEND,RECEIVE,KEY[+KEY...]} spec (the same key fields on both events), or a
     * YAML file of rules.
     */
    public static List<MatchRule> parse(String spec) throws IOException {
        switch (spec) {
            case "hetrace-sync":
                return HETRACE_SYNC;
            case "tcp":
                return TCP_RULES;
            default:
                break;
        }
        if (spec.startsWith("messages:")) {
            String[] parts = spec.substring("messages:".length()).split(",", -1);
            if (parts.length != 3 || Arrays.stream(parts).anyMatch(String::isBlank)) {
                throw new IllegalArgumentException("--match " + spec + ": expected messages:SEND,RECEIVE,KEY[+KEY...],"
                        + " e.g. messages:msgq_put,msgq_get,queue+msg_id");
            }
            List<String> keys = List.of(parts[2].split("\\+"));
            return List.of(new MatchRule("messages", parts[0], keys, parts[1], keys));
        }
        Path file = Path.of(spec);
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("--match " + spec + ": not a preset (" + SPEC_HELP + ") nor a file");
        }
        return read(file);
    }

    /**
     * Rules from a YAML file:
     * <pre>
     * rules:
     *   - name: msgq
     *     send: {event: msgq_put, keys: [queue, msg_id]}
     *     receive: {event: msgq_get, keys: [queue, msg_id]}
     * </pre>
     */
    public static List<MatchRule> read(Path file) throws IOException {
        Object root;
        try {
            root = new Yaml(new SafeConstructor(new LoaderOptions())).load(Files.readString(file));
        } catch (MarkedYAMLException e) {
            throw new IllegalArgumentException(file + ":" + (e.getProblemMark().getLine() + 1) + ":"
                    + (e.getProblemMark().getColumn() + 1) + ": " + e.getProblem());
        }
        if (!(root instanceof Map<?, ?> map) || !(map.get("rules") instanceof List<?> rules) || rules.isEmpty()) {
            throw new IllegalArgumentException(file + ": expected a mapping with a non-empty list `rules`");
        }
        List<MatchRule> out = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            String where = file + ": rules[" + i + "]";
            if (!(rules.get(i) instanceof Map<?, ?> r)) {
                throw new IllegalArgumentException(where + ": expected a mapping with send and receive");
            }
            String name = r.get("name") instanceof String n ? n : "rule " + (i + 1);
            Object[] send = side(r.get("send"), where + ".send");
            Object[] receive = side(r.get("receive"), where + ".receive");
            try {
                out.add(new MatchRule(name, (String) send[0], keys(send[1]), (String) receive[0], keys(receive[1])));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
            }
        }
        return out;
    }

    private static Object[] side(Object o, String where) {
        if (!(o instanceof Map<?, ?> m)
                || !(m.get("event") instanceof String event)
                || event.isBlank()
                || !(m.get("keys") instanceof List<?> keys)
                || keys.isEmpty()
                || !keys.stream().allMatch(k -> k instanceof String s && !s.isBlank())) {
            throw new IllegalArgumentException(where + ": expected {event: NAME, keys: [FIELD, ...]}");
        }
        return new Object[] {event, keys};
    }

    private static List<String> keys(Object o) {
        return ((List<?>) o).stream().map(String.class::cast).toList();
    }
}

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

    /** The RPMsg key: the message's number in its direction, then the low 16 bits of the source and destination addresses. */
    private static final List<String> RPMSG_KEYS = List.of("seq", "src & 0xffff", "dst & 0xffff");

    /**
     * RPMsg messages traced on both sides, whichever tracer traced each side: hetrace's generated
     * tracer and barectf tracers ({@code hetrace_rpmsg_send}/{@code hetrace_rpmsg_recv}), the
     * LTTng-UST provider {@code hetrace_rpmsg} on Linux ({@code hetrace_rpmsg:send}/{@code
     * hetrace_rpmsg:recv}), each with {@code src}, {@code dst}, {@code seq} and {@code len}, and
     * Zephyr's {@code sys_trace_named_event("rpmsg_send" or "rpmsg_recv", src << 16 | dst, seq)}.
     * A message is keyed by (seq, src, dst), {@code seq} counting the messages of its direction
     * from the endpoint's creation on each side (RPMsg over virtio loses and reorders none); the
     * addresses are compared on their low 16 bits, all a Zephyr named event carries.
     */
    public static final List<MatchRule> RPMSG = List.of(new MatchRule(
            "rpmsg",
            List.of(
                    new MatchRule.Side("hetrace_rpmsg_send", RPMSG_KEYS),
                    new MatchRule.Side("hetrace_rpmsg:send", RPMSG_KEYS),
                    new MatchRule.Side("named_event", "name == \"rpmsg_send\"", zephyrRpmsgKeys())),
            List.of(
                    new MatchRule.Side("hetrace_rpmsg_recv", RPMSG_KEYS),
                    new MatchRule.Side("hetrace_rpmsg:recv", RPMSG_KEYS),
                    new MatchRule.Side("named_event", "name == \"rpmsg_recv\"", zephyrRpmsgKeys()))));

    /** A Zephyr named event's arg1 is the seq, arg0 (src & 0xffff) << 16 | (dst & 0xffff). */
    private static List<String> zephyrRpmsgKeys() {
        return List.of("arg1", "(arg0 >> 16) & 0xffff", "arg0 & 0xffff");
    }

    /**
     * The rules used when none are given: hetrace's sync handshake, RPMsg messages and TCP, which
     * cost nothing on traces that have none of their events.
     */
    public static final List<MatchRule> DEFAULT =
            Stream.of(HETRACE_SYNC, RPMSG, TCP_RULES).flatMap(List::stream).toList();

    /** What {@code --match} accepts, for help texts. */
    public static final String SPEC_HELP =
            "hetrace-sync, rpmsg, tcp, messages:SEND,RECEIVE,KEY[+KEY...], or a YAML file";

    /**
     * Rules from a {@code --match} value: a preset name ({@code hetrace-sync}, {@code rpmsg},
     * {@code tcp}), a
     * {@code messages:SEND,RECEIVE,KEY[+KEY...]} spec (the same key fields on both events), or a
     * YAML file of rules.
     */
    public static List<MatchRule> parse(String spec) throws IOException {
        switch (spec) {
            case "hetrace-sync":
                return HETRACE_SYNC;
            case "rpmsg":
                return RPMSG;
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
     *   - name: zephyr-rpmsg
     *     send: {event: named_event, when: 'name == "rpmsg_send"', keys: [arg1, "arg0 &gt;&gt; 16", "arg0 &amp; 0xffff"]}
     *     receive:
     *       - {event: hetrace_rpmsg:recv, keys: [seq, src, dst]}
     *       - {event: named_event, when: 'name == "rpmsg_recv"', keys: [arg1, "arg0 &gt;&gt; 16", "arg0 &amp; 0xffff"]}
     * </pre>
     * A side is one mapping or a list of them (the ways the message is traced).
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
            List<MatchRule.Side> send = sides(r.get("send"), where + ".send");
            List<MatchRule.Side> receive = sides(r.get("receive"), where + ".receive");
            try {
                out.add(new MatchRule(name, send, receive));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
            }
        }
        return out;
    }

    private static List<MatchRule.Side> sides(Object o, String where) {
        if (o instanceof List<?> list && !list.isEmpty()) {
            List<MatchRule.Side> out = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                out.add(side(list.get(i), where + "[" + i + "]"));
            }
            return out;
        }
        return List.of(side(o, where));
    }

    private static MatchRule.Side side(Object o, String where) {
        if (!(o instanceof Map<?, ?> m)
                || !(m.get("event") instanceof String event)
                || event.isBlank()
                || !(m.get("keys") instanceof List<?> keys)
                || keys.isEmpty()
                || !keys.stream().allMatch(k -> k instanceof String s && !s.isBlank())
                || (m.get("when") != null && !(m.get("when") instanceof String))) {
            throw new IllegalArgumentException(
                    where + ": expected {event: NAME, keys: [FIELD, ...]} and optionally when: CONDITION");
        }
        try {
            return new MatchRule.Side(
                    event,
                    (String) m.get("when"),
                    keys.stream().map(String.class::cast).toList());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
    }
}

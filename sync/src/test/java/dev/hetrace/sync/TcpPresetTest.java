package dev.hetrace.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.testing.Required;
import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.StreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code tcp} preset on two LTTng kernel traces in lttng-modules' layout (≥ 2.6:
 * {@code net_dev_queue} and {@code netif_receive_skb} with the IPv4/IPv6 and TCP headers in
 * nested variants, compact event headers, field names with LTTng's leading underscore), written
 * by the CTF writer for two hosts whose clocks the test knows. UDP datagrams (no TCP header) are
 * not messages; a retransmitted segment is counted, not matched.
 */
class TcpPresetTest {
    private static final String METADATA = """
        /* CTF 1.8 */
        typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
        typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
        typealias integer { size = 5; align = 1; signed = false; } := uint5_t;
        typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; } := uint27_clock_monotonic_t;
        typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_monotonic_t;
        typealias integer { size = 16; align = 8; signed = false; byte_order = be; } := be16;
        typealias integer { size = 32; align = 8; signed = false; byte_order = be; } := be32;
        typealias integer { size = 4; align = 1; signed = false; byte_order = be; } := be4;

        trace { major = 1; minor = 8; byte_order = le;
            packet.header := struct { uint32_t magic; uint32_t stream_id; }; };
        env { hostname = "%s"; domain = "kernel"; tracer_name = "lttng-modules"; tracer_major = 2; tracer_minor = 12; };
        clock { name = "monotonic"; description = "Monotonic Clock"; freq = 1000000000; precision = 1;
            offset_s = %d; offset = %d; absolute = false; };
        stream {
            id = 0;
            event.header := struct {
                enum : uint5_t { compact = 0 ... 30, extended = 31 } id;
                variant <id> {
                    struct { uint27_clock_monotonic_t timestamp; } compact;
                    struct { uint32_t id; uint64_clock_monotonic_t timestamp; } extended;
                } v;
            } align(8);
            packet.context := struct {
                uint64_clock_monotonic_t timestamp_begin; uint64_clock_monotonic_t timestamp_end;
                uint64_t content_size; uint64_t packet_size; uint64_t packet_seq_num;
                uint64_t events_discarded; uint32_t cpu_id; };
        };
        event { name = "sched_switch"; id = 0; stream_id = 0;
            fields := struct { uint32_t _prev_tid; uint32_t _next_tid; }; };
        event { name = "net_dev_queue"; id = 1; stream_id = 0; fields := NET_DEV; };
        event { name = "netif_receive_skb"; id = 2; stream_id = 0; fields := NET_DEV; };
        """.replace("NET_DEV", netDev());

    /** lttng-modules writes every type inline: variants find their tags by relative path. */
    private static String netDev() {
        String tcp = """
            struct {
                    be16 _source_port; be16 _dest_port; be32 _seq; be32 _ack_seq;
                    be4 _data_offset; integer { size = 3; align = 1; signed = false; byte_order = be; } _reserved;
                    integer { size = 9; align = 1; signed = false; byte_order = be; base = 16; } _flags;
                    be16 _window_size; be16 _checksum; be16 _urg_ptr;
                } align(32)""";
        String transport = """
                    enum : uint8_t { "_unknown" = 0, "_tcp" = 1 } _transport_header_type;
                    variant <_transport_header_type> { struct { } _unknown; TCP _tcp; } _transport_header;
            """.replace("TCP", tcp);
        String ipv4 = """
            struct {
                    be4 _version; be4 _ihl; uint8_t _tos; be16 _tot_len; be16 _id; be16 _frag_off; uint8_t _ttl;
                    enum : uint8_t { "_unknown" = 0 ... 5, "_tcp" = 6, "_unknown" = 7 ... 255 } _protocol;
                    be16 _checksum; uint8_t _saddr[4]; uint8_t _daddr[4];
            TRANSPORT    } align(16)""".replace("TRANSPORT", transport);
        String ipv6 = """
            struct {
                    be4 _version; be4 _prio; uint8_t _flow_lbl[3]; be16 _payload_len;
                    enum : uint8_t { "_unknown" = 0 ... 5, "_tcp" = 6, "_unknown" = 7 ... 255 } _nexthdr;
                    uint8_t _hop_limit; be16 _saddr[8]; be16 _daddr[8];
            TRANSPORT    } align(16)""".replace("TRANSPORT", transport);
        return """
            struct {
                uint64_t _skbaddr; uint32_t _len; string _name;
                enum : uint8_t { "_unknown" = 0, "_ipv4" = 1, "_ipv6" = 2 } _network_header_type;
                variant <_network_header_type> { struct { } _unknown; IPV4 _ipv4; IPV6 _ipv6; } _network_header;
            }""".replace("IPV4", ipv4).replace("IPV6", ipv6);
    }

    @TempDir
    Path dir;

    /** A host: its monotonic clock reads origin + true × (1 + drift) ns after its boot. */
    record Host(String name, long bootS, double origin, double drift) {
        long local(double t) {
            return Math.round(origin + t * (1 + drift));
        }

        long reported(double t) {
            return bootS * 1_000_000_000L + local(t);
        }
    }

    private static final Host A = new Host("server", 1_763_700_000L, 2e12, 0);
    private static final Host B = new Host("client", 1_763_690_000L, 9e11, 85e-6);

    private static Map<String, Object> segment(long seq, long ack, int flags, boolean ipv6) {
        Map<String, Object> tcp = new LinkedHashMap<>();
        tcp.put("source_port", 443L);
        tcp.put("dest_port", 51234L);
        tcp.put("seq", seq);
        tcp.put("ack_seq", ack);
        tcp.put("data_offset", 5L);
        tcp.put("reserved", 0L);
        tcp.put("flags", (long) flags);
        tcp.put("window_size", 502L);
        tcp.put("checksum", 0xbeefL);
        tcp.put("urg_ptr", 0L);
        return network(ipv6, 1, tcp);
    }

    private static Map<String, Object> datagram() {
        return network(false, 0, Map.of());
    }

    private static Map<String, Object> network(boolean ipv6, long transport, Map<String, Object> transportHeader) {
        Map<String, Object> ip = new LinkedHashMap<>();
        ip.put("version", ipv6 ? 6L : 4L);
        if (ipv6) {
            ip.put("prio", 0L);
            ip.put("flow_lbl", List.of(0L, 0L, 0L));
            ip.put("payload_len", 40L);
            ip.put("nexthdr", transport == 1 ? 6L : 17L);
            ip.put("hop_limit", 64L);
            ip.put("saddr", List.of(0xfe80L, 0L, 0L, 0L, 0L, 0L, 0L, 1L));
            ip.put("daddr", List.of(0xfe80L, 0L, 0L, 0L, 0L, 0L, 0L, 2L));
        } else {
            ip.put("ihl", 5L);
            ip.put("tos", 0L);
            ip.put("tot_len", 52L);
            ip.put("id", 0x1234L);
            ip.put("frag_off", 0L);
            ip.put("ttl", 64L);
            ip.put("protocol", transport == 1 ? 6L : 17L);
            ip.put("checksum", 0L);
            ip.put("saddr", List.of(10L, 0L, 0L, 1L));
            ip.put("daddr", List.of(10L, 0L, 0L, 2L));
        }
        ip.put("transport_header_type", transport);
        ip.put("transport_header", transportHeader);
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("skbaddr", 0xffff888012345678L);
        p.put("len", 66L);
        p.put("name", "eth0");
        p.put("network_header_type", ipv6 ? 2L : 1L);
        p.put("network_header", ip);
        return p;
    }

    @Test
    void tcpSegmentsSeenOnBothHostsSynchronizeTheirKernelTraces() throws Exception {
        // {true ns, host (0 = A), class id, payload}
        List<Object[]> events = new ArrayList<>();
        Random r = new Random(5);
        long seq = 1000;
        long ack = 77;
        int segments = 0;
        for (double t = 1e6; t < 20e9; t += 10e6) {
            boolean ipv6 = segments % 3 == 0;
            double l1 = 30_000 + r.nextInt(200_000);
            double l2 = 30_000 + r.nextInt(200_000);
            Map<String, Object> data = segment(seq, ack, 0x018, ipv6);
            events.add(new Object[] {t, 0, 1L, data});
            if (segments == 17) {
                events.add(new Object[] {t + 5_000, 0, 1L, data}); // a retransmission
            }
            events.add(new Object[] {t + l1, 1, 2L, data});
            seq += 1448;
            Map<String, Object> reply = segment(ack, seq, 0x010, ipv6);
            events.add(new Object[] {t + l1 + 20_000, 1, 1L, reply});
            events.add(new Object[] {t + l1 + 20_000 + l2, 0, 2L, reply});
            // a UDP datagram each way, not a TCP message
            events.add(new Object[] {t + 3e6, 0, 1L, datagram()});
            events.add(new Object[] {t + 3e6 + 50_000, 1, 2L, datagram()});
            events.add(new Object[] {t + 4e6, 1, 0L, List.of(1L, 2L)});
            segments++;
        }
        events.sort((a, b) -> Double.compare((double) a[0], (double) b[0]));
        List<Path> traces = new ArrayList<>();
        for (int h = 0; h < 2; h++) {
            Host host = h == 0 ? A : B;
            Path trace = dir.resolve(host.name());
            try (CtfWriter w = CtfWriter.create(trace, METADATA.formatted(host.name(), host.bootS(), 0))) {
                StreamWriter s = w.stream(0).packetSize(8192).packetContext("cpu_id", 0);
                for (Object[] e : events) {
                    if ((int) e[1] == h) {
                        s.event((long) e[2], host.local((double) e[0]), e[3]);
                    }
                }
            }
            traces.add(trace);
        }

        // the layout is real CTF: babeltrace2 reads the TCP header through both variants
        if (Required.hasBabeltrace2()) {
            Process bt = new ProcessBuilder("babeltrace2", traces.get(0).toString())
                    .redirectErrorStream(true)
                    .start();
            String text = new String(bt.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(bt.waitFor()).as(text).isZero();
            assertThat(text)
                    .contains("transport_header = { { source_port = 443, dest_port = 51234, seq = 1000, ack_seq = 77,");
        }

        Synchronizer.Report report =
                Synchronizer.run(traces, MatchRules.parse("tcp"), ConvexHullSync.Method.BISECTOR, 0, w -> {});
        MessageMatcher.RuleStats netif = report.rules().get(1);
        assertThat(netif.matched()).isEqualTo(2L * segments);
        assertThat(netif.repeats()).isEqualTo(1);
        assertThat(netif.unmatchedSends() + netif.unmatchedReceives()).isZero();
        assertThat(report.rules().get(0).matched()).isZero(); // no net_data addon events

        Synchronizer.TraceSync client = report.traces().get(1);
        assertThat(client.quality()).isEqualTo(SyncQuality.ACCURATE);
        assertThat(client.violations()).isZero();
        assertThat(client.matchesOut()).isEqualTo(segments);
        assertThat(client.matchesIn()).isEqualTo(segments);
        long accuracy = client.accuracyNanos().orElseThrow();
        assertThat(accuracy).isBetween(1L, 200_000L);
        for (double t = 0; t < 20e9; t += 1e9) {
            long truth = A.reported(t);
            long mapped = client.transform().apply(B.reported(t));
            assertThat(Math.abs(mapped - truth)).isLessThanOrEqualTo(accuracy + 2);
        }
    }
}

package dev.hetrace.tracer.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.hetrace.ctf.metadata.EventClass;
import dev.hetrace.ctf.metadata.MetadataReader;
import dev.hetrace.ctf.metadata.StreamClass;
import dev.hetrace.ctf.metadata.TraceClass;
import dev.hetrace.tracer.config.Configuration.DataStreamType;
import dev.hetrace.tracer.config.Configuration.EventRecordType;
import dev.hetrace.tracer.config.Configuration.SyncHandshake;
import dev.hetrace.tracer.config.FieldType.IntegerType;
import dev.hetrace.tracer.config.FieldType.Member;
import dev.hetrace.tracer.metadata.BarectfMetadata;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * hetrace's own configuration section, {@code hetrace: {sync: ...}}: it gives a data stream type
 * the sync handshake's two event record types, like any of the configuration's own, or says
 * precisely why it cannot.
 */
class SyncOptionTest {
    @TempDir
    Path dir;

    /** Two data stream types, `a` (no clock) and `b` (clocked, the default unless told otherwise). */
    private static String config(String hetrace, String isDefault) {
        return """
            --- !<tag:barectf.org,2020/3/config>
            %s
            trace:
              type:
                $include: [stdint.yaml]
                native-byte-order: le
                clock-types:
                  clk: {}
                data-stream-types:
                  a:
                    event-record-types:
                      only: {payload-field-type: {class: struct, members: [{x: uint8}]}}
                  b:
                    $is-default: %s
                    $default-clock-type-name: clk
                    event-record-types:
                      zeta: {payload-field-type: {class: struct, members: [{x: uint8}]}}
                      alpha: {payload-field-type: {class: struct, members: [{y: uint16}]}}
            """.formatted(hetrace.stripTrailing(), isDefault);
    }

    private Configuration read(String yaml) throws Exception {
        return ConfigReader.read(write(yaml), List.of(dir));
    }

    private String error(String yaml) throws Exception {
        Path file = write(yaml);
        try {
            ConfigReader.read(file, List.of(dir));
        } catch (ConfigException e) {
            return e.getMessage().replace(file.toString(), "config.yaml");
        }
        throw new AssertionError("accepted:\n" + yaml);
    }

    private Path write(String yaml) throws IOException {
        return Files.writeString(dir.resolve("config.yaml"), yaml);
    }

    private static DataStreamType dst(Configuration c, String name) {
        return c.trace().type().dataStreamTypes().stream()
                .filter(d -> d.name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    private static List<String> names(DataStreamType d) {
        return d.eventRecordTypes().stream().map(e -> e.id() + " " + e.name()).toList();
    }

    @Test
    void syncTrueGivesTheDefaultDataStreamTypeBothEventRecordTypesNumberedByNameAsBarectfNumbersThem()
            throws Exception {
        Configuration c = read(config("hetrace:\n  sync: true", "true"));

        assertThat(c.sync()).contains(new SyncHandshake("b"));
        assertThat(names(dst(c, "b")))
                .containsExactly("0 alpha", "1 hetrace_sync_recv", "2 hetrace_sync_send", "3 zeta");
        assertThat(names(dst(c, "a"))).containsExactly("0 only");
        for (String name : List.of(SyncHandshake.SEND, SyncHandshake.RECV)) {
            EventRecordType e = dst(c, "b").eventRecordTypes().stream()
                    .filter(x -> x.name().equals(name))
                    .findFirst()
                    .orElseThrow();
            assertThat(e.payload().orElseThrow().members())
                    .containsExactly(
                            new Member("seq", IntegerType.unsigned(32)),
                            new Member("core", IntegerType.unsigned(32)),
                            new Member("peer", IntegerType.unsigned(32)));
            assertThat(e.specificContext()).isEmpty();
            assertThat(e.logLevel()).isEmpty();
        }
    }

    @Test
    void theSyncEventsAreInTheMetadataWithTheirIdsAndPayload() throws Exception {
        Configuration c = read(config("hetrace: {sync: {data-stream-type: b}}", "false"));
        String metadata = BarectfMetadata.of(c);

        TraceClass tc = MetadataReader.parse(metadata.getBytes(StandardCharsets.UTF_8), w -> {});
        StreamClass b = tc.stream(dst(c, "b").id());
        assertThat(b.events().values().stream()
                        .map(e -> e.id() + " " + e.name())
                        .toList())
                .containsExactly("0 alpha", "1 hetrace_sync_recv", "2 hetrace_sync_send", "3 zeta");
        EventClass send = b.events().get(2L);
        assertThat(send.payload().toString()).contains("seq").contains("core").contains("peer");
    }

    @Test
    void theDataStreamTypeIsTheNamedOneElseTheDefaultElseTheOnlyOne() throws Exception {
        assertThat(read(config("hetrace: {sync: {data-stream-type: b}}", "false"))
                        .sync())
                .contains(new SyncHandshake("b"));
        assertThat(read(config("hetrace: {sync: {}}", "true")).sync()).contains(new SyncHandshake("b"));
        assertThat(read("""
            --- !<tag:barectf.org,2020/3/config>
            hetrace: {sync: true}
            trace:
              type:
                $include: [stdint.yaml]
                native-byte-order: le
                clock-types: {clk: {}}
                data-stream-types:
                  solo:
                    $default-clock-type-name: clk
                    event-record-types:
                      ev: {payload-field-type: {class: struct, members: [{x: uint8}]}}
            """).sync()).contains(new SyncHandshake("solo"));
    }

    @Test
    void withoutTheSectionOrWithSyncFalseTheConfigurationIsBarectfs() throws Exception {
        for (String section : List.of("", "hetrace: {sync: false}", "hetrace:", "hetrace: {sync: null}")) {
            Configuration c = read(config(section, "true"));
            assertThat(c.sync()).as(section).isEmpty();
            assertThat(names(dst(c, "b"))).as(section).containsExactly("0 alpha", "1 zeta");
        }
    }

    @Test
    void aFormat2ConfigurationTakesTheSectionToo() throws Exception {
        Configuration c = read("""
            version: '2.2'
            hetrace:
              sync: true
            metadata:
              trace:
                byte-order: le
              type-aliases:
                u32: {class: int, size: 32}
              clocks:
                clk: {}
              streams:
                main:
                  $default: true
                  packet-context-type:
                    class: struct
                    fields:
                      timestamp_begin: {class: int, size: 64, property-mappings: [{type: clock, name: clk, property: value}]}
                      timestamp_end: {class: int, size: 64, property-mappings: [{type: clock, name: clk, property: value}]}
                      packet_size: u32
                      content_size: u32
                  event-header-type:
                    class: struct
                    fields:
                      id: u32
                      timestamp: {class: int, size: 64, property-mappings: [{type: clock, name: clk, property: value}]}
                  events:
                    ev:
                      payload-type: {class: struct, fields: {x: u32}}
            """);
        assertThat(c.sync()).contains(new SyncHandshake("main"));
        assertThat(names(dst(c, "main"))).containsExactly("0 ev", "1 hetrace_sync_recv", "2 hetrace_sync_send");
    }

    @Test
    void errorsNameTheFileLineColumnAndPath() throws Exception {
        assertThat(error(config("hetrace: {sink: true}", "true")))
                .isEqualTo("config.yaml:2:17: $.hetrace.sink: unknown property `sink` (known: sync)");
        assertThat(error(config("hetrace: [sync]", "true")))
                .isEqualTo("config.yaml:2:10: $.hetrace: expected a mapping, got a sequence");
        assertThat(error(config("hetrace:\n  sync: 1", "true")))
                .isEqualTo("config.yaml:3:9: $.hetrace.sync: expected a boolean or a mapping, got an integer");
        assertThat(error(config("hetrace:\n  sync: {data-stream: b}", "true")))
                .isEqualTo(
                        "config.yaml:3:23: $.hetrace.sync.data-stream: unknown property `data-stream` (known: data-stream-type)");
        assertThat(error(config("hetrace:\n  sync: {data-stream-type: 2}", "true")))
                .isEqualTo("config.yaml:3:28: $.hetrace.sync.data-stream-type: expected a string, got an integer");
        assertThat(error(config("hetrace:\n  sync: {data-stream-type: c}", "true")))
                .isEqualTo(
                        "config.yaml:3:28: $.hetrace.sync.data-stream-type: data stream type `c` does not exist (known: a, b)");
        assertThat(error(config("hetrace:\n  sync: true", "false")))
                .isEqualTo("config.yaml:3:9: $.hetrace.sync: the trace"
                        + " type has 2 data stream types and none is the default: name the one for the sync events"
                        + " (`sync: {data-stream-type: NAME}`)");
    }

    @Test
    void syncEventsNeedTimestamps() throws Exception {
        assertThat(error(config("hetrace:\n  sync: {data-stream-type: a}", "true")))
                .isEqualTo(
                        "config.yaml:3:28: $.hetrace.sync.data-stream-type: data stream type `a` has no default clock"
                                + " type: the sync events need timestamps");
        assertThat(
                        error(
                                config("hetrace: {sync: true}", "true")
                                        .replace(
                                                "$default-clock-type-name: clk",
                                                "$default-clock-type-name: clk\n        $features: {event-record: {timestamp-field-type: false}}")))
                .endsWith(
                        "$.hetrace.sync: data stream type `b` has no event record timestamp (`timestamp-field-type: false`):"
                                + " the sync events need timestamps");
    }

    @Test
    void theEventRecordTypesMustBeFreeAndNumberable() throws Exception {
        assertThat(error(config("hetrace: {sync: true}", "true").replace("zeta:", "hetrace_sync_recv:")))
                .isEqualTo(
                        "config.yaml:2:17: $.hetrace.sync: data stream type `b` already has an event record type named"
                                + " `hetrace_sync_recv`, which the sync handshake needs");
        assertThat(
                        error(
                                config("hetrace: {sync: true}", "true")
                                        .replace(
                                                "$default-clock-type-name: clk",
                                                "$default-clock-type-name: clk\n        $features: {event-record: {type-id-field-type: {class: uint, size: 1}}}")))
                .endsWith("$.hetrace.sync: the event record type ID field type of data stream type `b` (1 bits) is too"
                        + " small to accommodate 4 event record types with the sync events");
        String oneEvent = config("hetrace: {sync: true}", "true")
                .replace("      alpha: {payload-field-type: {class: struct, members: [{y: uint16}]}}\n", "");
        assertThat(read(oneEvent.replace(
                                "$default-clock-type-name: clk",
                                "$default-clock-type-name: clk\n"
                                        + "        $features: {event-record: {type-id-field-type: {class: uint, size: 2}}}"))
                        .sync())
                .isPresent();
        assertThat(error(oneEvent.replace(
                        "$default-clock-type-name: clk",
                        "$default-clock-type-name: clk\n"
                                + "        $features: {event-record: {type-id-field-type: false}}")))
                .endsWith(
                        "$.hetrace.sync: data stream type `b` has no event record type ID (`type-id-field-type: false`),"
                                + " which its 3 event record types with the sync events need");
    }

    @Test
    void theCommandLineRequestNamesItsOption() throws Exception {
        Configuration plain = read(config("", "false"));

        ConfigException e = assertThrows(
                ConfigException.class,
                () -> SyncOption.commandLine(Optional.empty(), "--sync").applyTo(plain));
        assertThat(e.getMessage())
                .isEqualTo("--sync: the trace type has 2 data stream types and none is the default:"
                        + " name the one for the sync events (--sync-stream NAME)");
        assertThat(SyncOption.commandLine(Optional.of("b"), "--sync-stream")
                        .applyTo(plain)
                        .sync())
                .contains(new SyncHandshake("b"));
    }
}

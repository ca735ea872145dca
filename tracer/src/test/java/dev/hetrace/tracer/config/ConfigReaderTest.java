package dev.hetrace.tracer.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.tracer.config.Configuration.DataStreamType;
import dev.hetrace.tracer.config.Configuration.EventRecordType;
import dev.hetrace.tracer.config.FieldType.DisplayBase;
import dev.hetrace.tracer.config.FieldType.DynamicArrayType;
import dev.hetrace.tracer.config.FieldType.EnumerationType;
import dev.hetrace.tracer.config.FieldType.IntegerType;
import dev.hetrace.tracer.config.FieldType.Member;
import dev.hetrace.tracer.config.FieldType.Range;
import dev.hetrace.tracer.config.FieldType.RealType;
import dev.hetrace.tracer.config.FieldType.StaticArrayType;
import dev.hetrace.tracer.config.FieldType.StringType;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How barectf configurations are read: defaults, both formats, inclusions, aliases, inheritance, and errors. */
class ConfigReaderTest {
    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }

    private Configuration read(String yaml) throws Exception {
        return ConfigReader.read(write("config.yaml", yaml), List.of(dir));
    }

    private ConfigException error(String yaml) throws Exception {
        Path file = write("config.yaml", yaml);
        try {
            ConfigReader.read(file, List.of(dir));
        } catch (ConfigException e) {
            return e;
        }
        throw new AssertionError("accepted:\n" + yaml);
    }

    /** A barectf 3 configuration with one data stream type whose event record type has PAYLOAD as members. */
    private static String v3(String traceTypeExtra, String payloadMembers) {
        return """
            --- !<tag:barectf.org,2020/3/config>
            trace:
              type:
                native-byte-order: le
            %s
                data-stream-types:
                  main:
                    $is-default: true
                    event-record-types:
                      ev:
                        payload-field-type:
                          class: struct
                          members:
            %s
            """.formatted(
                        traceTypeExtra.indent(4).stripTrailing(),
                        payloadMembers.indent(14).stripTrailing());
    }

    private static List<Member> payload(Configuration c) {
        return c.trace()
                .type()
                .dataStreamTypes()
                .getFirst()
                .eventRecordTypes()
                .getFirst()
                .payload()
                .orElseThrow()
                .members();
    }

    @Test
    void defaultsAreBarectfs() throws Exception {
        Configuration c = read(
                v3("""
            clock-types:
              clk: {}""", """
            - a: {field-type: {class: uint, size: 3}}
            - b: {field-type: {class: sint, size: 16, preferred-display-base: hex}}
            - c: {field-type: {class: real, size: 64}}""").replace("$is-default: true", "$is-default: true\n        $default-clock-type-name: clk"));
        Configuration.TraceType tt = c.trace().type();
        assertThat(tt.uuid()).isEmpty();
        assertThat(tt.features().magic()).contains(IntegerType.unsigned(32));
        assertThat(tt.features().uuid()).isEmpty();
        assertThat(tt.features().dataStreamTypeId()).contains(IntegerType.unsigned(64));
        assertThat(tt.clockTypes()).singleElement().satisfies(clk -> {
            assertThat(clk.frequency()).isEqualTo(1_000_000_000L);
            assertThat(clk.precision()).isZero();
            assertThat(clk.originIsUnixEpoch()).isFalse();
        });
        DataStreamType d = tt.dataStreamTypes().getFirst();
        IntegerType u64 = IntegerType.unsigned(64);
        assertThat(d.packetFeatures())
                .isEqualTo(new Configuration.PacketFeatures(
                        u64, u64, Optional.of(u64), Optional.of(u64), Optional.of(u64), Optional.empty()));
        assertThat(d.eventRecordFeatures())
                .isEqualTo(new Configuration.EventRecordFeatures(Optional.of(u64), Optional.of(u64)));
        assertThat(payload(c))
                .containsExactly(
                        new Member("a", new IntegerType(false, 3, 1, DisplayBase.DECIMAL)),
                        new Member("b", new IntegerType(true, 16, 8, DisplayBase.HEXADECIMAL)),
                        new Member("c", new RealType(64, 8)));
        assertThat(c.options().identifierPrefix()).isEqualTo("barectf_");
        assertThat(c.options().fileNamePrefix()).isEqualTo("barectf");
        assertThat(c.options().defaultDataStreamTypeName()).contains("main");
        assertThat(c.options().clockTypeCTypes()).containsEntry("clk", "uint32_t");
    }

    @Test
    void aTraceUuidBringsTheUuidPacketHeaderMember() throws Exception {
        Configuration c = read(v3("uuid: 01234567-89ab-cdef-0123-456789abcdef", "- s: {field-type: {class: str}}"));
        assertThat(c.trace().type().uuid()).map(Object::toString).contains("01234567-89ab-cdef-0123-456789abcdef");
        assertThat(c.trace().type().features().uuid()).contains(new StaticArrayType(16, IntegerType.unsigned(8)));
    }

    @Test
    void formats2And3OfTheSameConfigurationGiveTheSameTraceType() throws Exception {
        Configuration three = read("""
            --- !<tag:barectf.org,2020/3/config>
            options:
              code-generation:
                prefix: {identifier: my_, file-name: my}
            trace:
              type:
                $include: [stdint.yaml]
                native-byte-order: be
                clock-types:
                  clk: {frequency: 1000, $c-type: uint64_t}
                data-stream-types:
                  main:
                    $default-clock-type-name: clk
                    $features:
                      packet:
                        discarded-event-records-counter-snapshot-field-type: uint32
                      event-record:
                        type-id-field-type: uint8
                        timestamp-field-type: uint32
                    event-record-types:
                      ev:
                        payload-field-type:
                          class: struct
                          members:
                            - x: uint16
                            - e:
                                field-type:
                                  class: uenum
                                  size: 8
                                  mappings: {A: [0], B: [1, [5, 9]]}
                            - arr:
                                field-type:
                                  class: dynamic-array
                                  element-field-type: {class: str}
            """);
        Configuration two = ConfigReader.read(write("v2.yaml", """
            version: '2.2'
            prefix: my_
            metadata:
              $include: [stdint.yaml]
              trace:
                byte-order: be
                packet-header-type:
                  class: struct
                  fields:
                    magic: {class: int, size: 32, align: 8}
                    stream_id: {class: int, size: 64, align: 8}
              clocks:
                clk: {freq: 1000, $return-ctype: uint64_t}
              streams:
                main:
                  packet-context-type:
                    class: struct
                    fields:
                      packet_size: {class: int, size: 64, align: 8}
                      content_size: {class: int, size: 64, align: 8}
                      timestamp_begin: {class: int, size: 64, align: 8, property-mappings: [{type: clock, name: clk, property: value}]}
                      timestamp_end: {class: int, size: 64, align: 8, property-mappings: [{type: clock, name: clk, property: value}]}
                      events_discarded: uint32
                  event-header-type:
                    class: struct
                    fields:
                      id: uint8
                      timestamp: {class: int, size: 32, align: 32, property-mappings: [{type: clock, name: clk, property: value}]}
                  events:
                    ev:
                      payload-type:
                        class: struct
                        fields:
                          x: uint16
                          e: {class: enum, value-type: uint8, members: [A, {label: B, value: 1}, {label: B, value: [5, 9]}]}
                          arr: {class: array, length: dynamic, element-type: {class: string}}
            """), List.of(dir));
        assertThat(two.trace().type()).isEqualTo(three.trace().type());
        assertThat(two.options().identifierPrefix()).isEqualTo("my_");
        assertThat(two.options().fileNamePrefix()).isEqualTo("my");
        assertThat(two.options()).isEqualTo(three.options());
        assertThat(payload(three)).extracting(Member::name).containsExactly("x", "e", "__arr_len", "arr");
        assertThat(payload(three).get(1).type())
                .isEqualTo(new EnumerationType(
                        new IntegerType(false, 8, 8, DisplayBase.DECIMAL),
                        List.of(
                                new FieldType.Mapping("A", List.of(new Range(BigInteger.ZERO, BigInteger.ZERO))),
                                new FieldType.Mapping(
                                        "B",
                                        List.of(
                                                new Range(BigInteger.ONE, BigInteger.ONE),
                                                new Range(BigInteger.valueOf(5), BigInteger.valueOf(9)))))));
        assertThat(payload(three).get(3).type()).isEqualTo(new DynamicArrayType(new StringType()));
    }

    @Test
    void aliasesInheritanceAndMemberOverlaysApply() throws Exception {
        Configuration c = read("""
            --- !<tag:barectf.org,2020/3/config>
            trace:
              type:
                native-byte-order: le
                $field-type-aliases:
                  base: {class: uint, size: 8, preferred-display-base: hex}
                  wide: {$inherit: base, size: 32}
                  pair:
                    class: struct
                    members:
                      - first: base
                      - second: base
                  pair2:
                    $inherit: pair
                    members:
                      - first: wide
                data-stream-types:
                  main:
                    event-record-types:
                      ev:
                        specific-context-field-type: pair2
                        payload-field-type:
                          class: struct
                          members:
                            - w: wide
                            - s: {field-type: {class: static-array, length: 2, element-field-type: wide}}
            """);
        IntegerType wide = new IntegerType(false, 32, 8, DisplayBase.HEXADECIMAL);
        assertThat(payload(c)).containsExactly(new Member("w", wide), new Member("s", new StaticArrayType(2, wide)));
        EventRecordType ev =
                c.trace().type().dataStreamTypes().getFirst().eventRecordTypes().getFirst();
        // the overlay's `first` replaced the base's, in place
        assertThat(ev.specificContext().orElseThrow().members())
                .containsExactly(
                        new Member("first", wide),
                        new Member("second", new IntegerType(false, 8, 8, DisplayBase.HEXADECIMAL)));
    }

    @Test
    void inclusionsSearchTheDirectoriesInOrderThenTheStandardOnes() throws Exception {
        write("a/part.yaml", "clock-types: {clk: {frequency: 111}}\n");
        write("b/part.yaml", "clock-types: {clk: {frequency: 222}}\n");
        String yaml = v3("$include: [part.yaml, lttng-ust-log-levels.yaml]", "- s: {field-type: {class: str}}")
                .replace("$is-default: true", "$is-default: true\n        $default-clock-type-name: clk")
                .replace("      ev:\n", "      ev:\n            log-level: WARNING\n");
        Path file = write("config.yaml", yaml);
        Configuration c = ConfigReader.read(file, List.of(dir.resolve("b"), dir.resolve("a")));
        assertThat(c.trace().type().clockTypes().getFirst().frequency()).isEqualTo(222);
        assertThat(c.trace()
                        .type()
                        .dataStreamTypes()
                        .getFirst()
                        .eventRecordTypes()
                        .getFirst()
                        .logLevel())
                .contains(4L);
    }

    @Test
    void recursiveInclusionIsAnError() throws Exception {
        write("x.yaml", "$include: [y.yaml]\n");
        write("y.yaml", "$include: [x.yaml]\n");
        ConfigException e = error(v3("$include: [x.yaml]", "- s: {field-type: {class: str}}"));
        assertThat(e.detail()).contains("recursively");
        assertThat(e.mark().file().getFileName().toString()).isEqualTo("y.yaml");
    }

    @Test
    void yaml11ScalarsAreTypedAsBarectfsLoaderTypesThem() throws Exception {
        // `010` is octal (8) and `yes` a boolean in YAML 1.1, as PyYAML reads them
        Configuration c = read(
                v3("", "- a: {field-type: {class: uint, size: 010}}").replace("$is-default: true", "$is-default: yes"));
        assertThat(payload(c).getFirst().type()).isEqualTo(new IntegerType(false, 8, 8, DisplayBase.DECIMAL));
        assertThat(c.options().defaultDataStreamTypeName()).contains("main");
    }

    @Test
    void modelErrorsNameTheFileLinePathAndReason() throws Exception {
        ConfigException e = error(v3("", "- a: {field-type: {class: uint, size: 8, alignment: 3}}"));
        assertThat(e.getMessage())
                .isEqualTo(dir.resolve("config.yaml")
                        + ":14:67: $.trace.type.data-stream-types.main.event-record-types.ev.payload-field-type.members[0].a"
                        + ".field-type.alignment: invalid alignment (not a power of two): 3");
        assertThat(error(v3("", "- a: {field-type: {class: struct}}")).detail())
                .isEqualTo("nested structure field types are not supported");
        assertThat(error(v3(
                                "",
                                "- a: {field-type: {class: dynamic-array, element-field-type: "
                                        + "{class: dynamic-array, element-field-type: {class: str}}}}"))
                        .detail())
                .isEqualTo("nested structure and dynamic array field types are not supported");
        assertThat(error(v3("", "- a: {field-type: {class: str}}\n- a: {field-type: {class: str}}"))
                        .detail())
                .isEqualTo("duplicate member `a`");
        assertThat(error(v3("", "- align: {field-type: {class: str}}")).detail())
                .contains("CTF keyword")
                .contains("`align`");
        assertThat(error(v3("", "- a-b: {field-type: {class: str}}")).detail()).contains("not a C identifier");
        assertThat(error(v3("$field-type-aliases: {x: {class: str}}", "- a: nope"))
                        .detail())
                .isEqualTo("field type alias `nope` does not exist");
        assertThat(error(v3("""
            $field-type-aliases:
              x: y
              y: x""", "- a: x")).detail()).contains("cycle");
        assertThat(error(v3("", "- a: {field-type: {class: str}}")
                                .replace("$is-default: true", "$default-clock-type-name: nope"))
                        .detail())
                .isEqualTo("clock type `nope` does not exist");
        ConfigException empty = error(events("false", "ev").replace("[{m: {field-type: {class: str}}}]", "[]"));
        assertThat(empty.detail()).isEqualTo("event record type is empty (no members)");
    }

    private static String events(String typeIdFeature, String... names) {
        StringBuilder erts = new StringBuilder();
        for (String n : names) {
            erts.append("          ")
                    .append(n)
                    .append(": {payload-field-type: {class: struct, members: [{m: {field-type: {class: str}}}]}}\n");
        }
        return """
            --- !<tag:barectf.org,2020/3/config>
            trace:
              type:
                native-byte-order: le
                data-stream-types:
                  main:
                    $features: {event-record: {type-id-field-type: %s}}
                    event-record-types:
            %s""".formatted(typeIdFeature, erts);
    }

    @Test
    void eventRecordTypeIdFeatureMustFitTheEventRecordTypes() throws Exception {
        assertThat(error(events("false", "ev", "ev0")).detail()).contains("more than one event record type");
        String oneBit = "{class: uint, size: 1}";
        assertThat(read(events(oneBit, "ev0", "ev"))
                        .trace()
                        .type()
                        .dataStreamTypes()
                        .getFirst()
                        .eventRecordTypes())
                .extracting(EventRecordType::name, EventRecordType::id)
                .containsExactly(Tuple.tuple("ev", 0), Tuple.tuple("ev0", 1));
        assertThat(error(events(oneBit, "a", "b", "c")).detail())
                .isEqualTo("field type's size (1 bits) is too small to accommodate 3 event record types");
    }

    /** Where barectf 3.1.1 crashes or writes metadata no reader parses, hetrace rejects the configuration cleanly. */
    @Test
    void gapsInBarectfsSchemasAreRejectedCleanly() throws Exception {
        assertThat(error(v3(
                                "",
                                "- a: {field-type: {class: dynamic-array, element-field-type: "
                                        + "{class: static-array, length: -1, element-field-type: {class: str}}}}"))
                        .getMessage())
                .endsWith("members[0].a.field-type.element-field-type.length: expected a value >= 0, got `-1`");
        assertThat(error(v3("", "- a: {field-type: {class: dynamic-array}}")).detail())
                .isEqualTo("missing required property `element-field-type`");
        assertThat(error(v3("", "- a: {field-type: {class: static-array, element-field-type: {class: str}}}"))
                        .detail())
                .isEqualTo("missing required property `length`");
        assertThat(error(v3("", "- a: {field-type: {class: uenum, size: 8, mappings: }}"))
                        .detail())
                .isEqualTo("missing required property `mappings`");
        assertThat(error(v3("clock-types: {c: {frequency: 18446744073709551616}}", "- a: {field-type: {class: str}}"))
                        .getMessage())
                .contains("$.trace.type.clock-types.c.frequency: value too large: 18446744073709551616");
        assertThat(error("--- !<tag:barectf.org,2020/3/config>\ntrace:\n  typo: {}\n")
                        .getMessage())
                .endsWith("config.yaml:3:3: $.trace: missing required property `type`");
    }

    private static String v2(String packetContextFields, String payload) {
        return """
            version: '2.2'
            metadata:
              type-aliases:
                u8: {class: int, size: 8}
              trace:
                byte-order: le
              streams:
                s:
                  packet-context-type:
                    class: struct
                    fields:%s
                  events:
                    ev:
                      payload-type:
                        class: struct
                        fields:%s
            """.formatted(packetContextFields, payload);
    }

    /** Format 2 null member lists: barectf crashes on some (alias resolution, packet context); hetrace says why. */
    @Test
    void nullStructureFieldsAreRejectedWhereBarectfCannotProcessThem() throws Exception {
        String sizes = "\n              packet_size: u8\n              content_size: u8";
        assertThat(read(v2(sizes, "\n              x: u8")).trace().type().dataStreamTypes())
                .hasSize(1);
        assertThat(error(v2(sizes, "")).detail())
                .isEqualTo(
                        "`fields` of a structure field type must be a mapping when field type aliases are in use, got null");
        String noAliases = v2("", "\n              x: {class: int, size: 8}")
                .replace("  type-aliases:\n    u8: {class: int, size: 8}\n", "");
        assertThat(error(noAliases).getMessage())
                .contains("$.metadata.streams.s.packet-context-type.fields: expected a mapping holding `packet_size`");
    }
}

package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.testing.Required;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The CTF 2 twins of CTF 1.8 corpus traces ({@code ../shared/corpus/ctf2}: the same data streams,
 * the metadata as CTF 2 JSON fragments) print exactly what babeltrace2 printed for the CTF 1.8
 * trace.
 */
class Ctf2CorpusTest {
    static Path ctf2(String name) {
        return Required.corpus("ctf2", name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"barectf-event-before-packet", "meta-variant-no-underscore", "smalltrace", "succeed1"})
    void aCtf2TwinPrintsWhatBabeltracePrintedForItsCtf18Trace(String name) throws IOException {
        Path trace = ctf2(name);
        Cli.Run run = Cli.run("print", trace.toString());
        assertThat(run.status()).as("stderr: %s", run.err()).isZero();
        String expected = Files.readString(
                ConformanceTest.corpus().resolve("expected/babeltrace/succeed/" + name + ".out"),
                StandardCharsets.UTF_8);
        assertThat(run.out()).isEqualTo(expected);
    }

    @Test
    void variableLengthIntegersReadAsTheirBytesSay() {
        Path trace = ctf2("vl-ints");
        Cli.Run run = Cli.run("print", trace.toString());
        assertThat(run.status()).as("stderr: %s", run.err()).isZero();
        // Decoded by hand from the stream's bytes (LEB128: 7 bits a byte, least significant first,
        // bit 7 set while more bytes follow; signed: bit 6 of the last byte is the sign):
        //   vu1a 00 = 0; vu1b 4d = 77; vu2 b1 01 = 0x31 + 1*128 = 177;
        //   vu3 f3 d0 02 = 0x73 + 0x50*2^7 + 2*2^14 = 43123;
        //   vu4 86 ae b4 0a = 6 + 0x2e*2^7 + 0x34*2^14 + 0x0a*2^21 = 21829382;
        //   vu10 ff x9 01 = 2^63 - 1 + 2^63 = 18446744073709551615 (the 10th byte holds bit 63 only);
        //   vi1a 00 = 0; vi1b 7f = -1; vi1c 17 = 23; vi2 e4 7e = 0x64 + 0x7e*2^7 - 2^14 = -156;
        //   vi10c 80 x9 7f = bit 63 and the sign bits above it set = -2^63.
        assertThat(run.out())
                .isEqualTo("test: { vu1a = 0, vu1b = 77, vu2 = 177, vu3 = 43123, vu4 = 21829382,"
                        + " vu5 = 5121829382, vu6 = 95121829382, vu7 = 13895121829382, vu8 = 913895121855555,"
                        + " vu9 = 333333333333333333, vu10 = 18446744073709551615, vi1a = 0, vi1b = -1, vi1c = 23, vi2 = -156,"
                        + " vi3 = 8556, vi4 = -100101001, vi5 = 8288491823, vi6 = -171717171717, vi7 = 123456787654321,"
                        + " vi8 = -1121231234123450, vi9 = 99999999999999999, vi10a = 9223372036853775807,"
                        + " vi10b = 9223372036854775807, vi10c = -9223372036854775808 }\n");
    }

    private static Path resource(String name) throws URISyntaxException {
        return Path.of(Ctf2CorpusTest.class
                        .getResource("/ctf2/" + name + "/metadata")
                        .toURI())
                .getParent();
    }

    @Test
    void aHandWrittenCtf2TraceWithLengthsAndAnIntegerSelectedVariantPrints() throws Exception {
        Cli.Run run = Cli.run("print", resource("valid").toString());
        assertThat(run.status()).as("stderr: %s", run.err()).isZero();
        assertThat(run.out()).isEqualTo("""
            sched_switch: { n = 2, vals = [ [0] = 7, [1] = 8 ], sel = 1, v = { "hi" } }
            sched_switch: { n = 0, vals = [ ], sel = 0, v = { 42 } }
            """);
    }

    @Test
    void stringsOfALengthInBytesPrintAsBabeltracePrintsTextArraysAndSequences() throws Exception {
        // babeltrace2 2.0.4 printed this line for the same data stream described in CTF 1.8, with
        // a text array name[8] and a text sequence text[n] (make-traces.py writes that twin too).
        Cli.Run run = Cli.run("print", resource("strings").toString());
        assertThat(run.status()).as("stderr: %s", run.err()).isZero();
        assertThat(run.out()).isEqualTo("strs: { name = \"bash\", n = 5, text = \"hello\" }\n");
    }

    @Test
    void booleansPrintAsBabeltrace21PrintsThem() throws Exception {
        // Bytes 00 | 00 01 | 01: an 8-bit false, a 16-bit true (its high byte), then a 1-bit true
        // and a 7-bit false in one byte; babeltrace2 2.1's pretty format says true and false.
        Cli.Run run = Cli.run("print", resource("booleans").toString());
        assertThat(run.status()).as("stderr: %s", run.err()).isZero();
        assertThat(run.out()).isEqualTo("bools: { f = false, t = true, one = true, rest = false }\n");
        Cli.Run json = Cli.run("print", "--format=json", resource("booleans").toString());
        assertThat(json.out()).contains("\"payload\":{\"f\":false,\"t\":true,\"one\":true,\"rest\":false}");
    }

    /** What the specification says must fail: one line, where (fragment and JSON path, or stream offset) and what. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
        malformed-json         | metadata: fragment 3: malformed JSON: Unexpected character ('"' (code 34)): was expecting comma
        missing-property       | metadata: fragment 3 (event record class "sched_switch"): $.payload-field-class.member-classes[1].field-class: missing required property "element-field-class"
        unknown-extension      | metadata: fragment 0 (preamble): $.extensions["my.tracer"].piano: unsupported extension "my.tracer/piano"
        location-forward       | metadata: fragment 3 (event record class "sched_switch"): $.payload-field-class.member-classes[1].field-class.length-field-location: no field "sel" is decoded before this one
        location-outside-scope | metadata: fragment 2 (data stream class): $.packet-context-field-class.member-classes[2].field-class.length-field-location: origin event-record-payload is decoded after this field
        selector-no-option     | stream: packet 0, offset 23: event 'sched_switch' (id 0), field 'payload.v': variant tag value 9 in the event payload selects no option (metadata fragment 3 (event record class "sched_switch"): $.payload-field-class.member-classes[3].field-class)
        content-past-packet    | stream: packet 0, offset 0: field 'packet_context.content_size': content_size 256 bits is larger than packet_size 192 bits (metadata fragment 2 (data stream class): $.packet-context-field-class.member-classes[1].field-class)
        """)
    void whatTheSpecificationSaysMustFailIsOneLine(String name, String message) throws Exception {
        Path trace = resource(name);
        Cli.Run run = Cli.run("print", trace.toString());
        assertThat(run.status()).isEqualTo(1);
        List<String> lines = run.err().lines().toList();
        assertThat(lines).hasSize(1);
        assertThat(lines.getFirst()).startsWith("hetrace: " + trace + "/" + message);
    }
}

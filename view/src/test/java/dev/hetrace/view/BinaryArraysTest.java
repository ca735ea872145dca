package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A binary answer's arrays: each in the narrowest type that holds all its numbers, from a multiple
 * of 8 bytes, read back as the JSON arrays they stand for.
 */
class BinaryArraysTest {
    private static final long[][] ARRAYS = {
        {-32768, 32767, 0}, // i16, 6 bytes: the next array starts 2 bytes of padding later
        {}, // anywhere aligned: at 0
        {32768, -1},
        {-32769},
        {Integer.MAX_VALUE, Integer.MIN_VALUE},
        {Integer.MAX_VALUE + 1L, 5},
        {-(1L << 53), 1L << 53, 17_699_059_901L},
        {7},
    };
    private static final String[] TYPES = {"i16", "i16", "i32", "i32", "i32", "f64", "f64", "i16"};
    private static final int[] AT = {0, 0, 8, 16, 24, 32, 48, 72};

    @Test
    void eachArrayIsInTheNarrowestTypeAlignedAndReadsBackAsItsJson() throws Exception {
        BinaryArrays arrays = new BinaryArrays();
        Numbers numbers = new Numbers().binary(arrays);
        ByteArrayOutputStream json = new ByteArrayOutputStream();
        StringBuilder plain = new StringBuilder("{");
        try (JsonGenerator g = new JsonFactory().createGenerator(json)) {
            g.writeStartObject();
            for (int i = 0; i < ARRAYS.length; i++) {
                numbers.start();
                for (long v : ARRAYS[i]) {
                    numbers.add(v);
                }
                numbers.writeField(g, "a" + i);
                plain.append(i == 0 ? "" : ",").append("\"a").append(i).append("\":[");
                for (int j = 0; j < ARRAYS[i].length; j++) {
                    plain.append(j == 0 ? "" : ",").append(ARRAYS[i][j]);
                }
                plain.append("]");
            }
            g.writeEndObject();
        }
        String head = json.toString(StandardCharsets.UTF_8);
        for (int i = 0; i < ARRAYS.length; i++) {
            assertThat(head)
                    .contains("\"a" + i + "\":{\"binary\":\"" + TYPES[i] + "\",\"at\":" + AT[i] + ",\"n\":"
                            + ARRAYS[i].length + "}");
        }
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        arrays.sendTo(sent, json.toByteArray(), json.size());
        assertThat(BinaryAnswers.read(sent.toByteArray()))
                .isEqualTo(BinaryAnswers.LONGS.readTree(plain.append("}").toString()));
    }

    @Test
    void asTextTheArraysAreJacksonsJson() throws Exception {
        Numbers numbers = new Numbers();
        ByteArrayOutputStream json = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(json)) {
            g.writeStartObject();
            numbers.start();
            for (long v : ARRAYS[6]) {
                numbers.add(v);
            }
            numbers.writeField(g, "a");
            numbers.start();
            numbers.writeField(g, "empty");
            g.writeEndObject();
        }
        assertThat(json.toString(StandardCharsets.UTF_8))
                .isEqualTo("{\"a\":[-9007199254740992,9007199254740992,17699059901],\"empty\":[]}");
    }
}

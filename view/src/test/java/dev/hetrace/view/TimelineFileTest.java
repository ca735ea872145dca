package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.index.TraceIndex;
import dev.hetrace.sim.Fault;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A timeline kept in a file and read back, with its trace set's index, serves the same answers as
 * the one built from the state model, request by request over HTTP; the statistics of a range
 * come from the index even with the traces gone; a damaged or foreign file is refused with its
 * name.
 */
class TimelineFileTest {
    @TempDir
    static Path dir;

    static StateBuilder.Input input;
    static Timeline built;
    static Timeline kept;
    static ViewServer fromModel;
    static ViewServer fromFile;
    static Path board;
    static TraceIndex index;
    static final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void board() throws Exception {
        Simulation.Result r = Simulation.sobel(
                SimConfig.sobel(3).withSlaves(4).withFaults(List.of(new Fault.Preempt(List.of(1, 2), -1))),
                dir.resolve("board"));
        board = dir.resolve("board");
        index = TraceIndex.open(
                dir.resolve("cache"), r.traces(), StateBuilder.Clocks.DEFAULT, null, Map.of(), n -> {}, true);
        StateBuilder.Built b = index.takeBuiltFrom();
        input = b.input();
        built = Timeline.of(b.model());
        fromModel = new ViewServer(built, input).start("127.0.0.1", 0);
        Path file = dir.resolve("board.timeline");
        TimelineFile.write(built, file);
        kept = TimelineFile.read(file);
        fromFile = new ViewServer(kept, TraceAnswers.of(index)).start("127.0.0.1", 0);
    }

    @AfterAll
    static void stop() {
        for (ViewServer s : new ViewServer[] {fromModel, fromFile}) {
            if (s != null) {
                s.close();
            }
        }
    }

    private static String get(ViewServer s, String path) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + "/" + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
        return r.body();
    }

    @Test
    void theKeptTimelineHasNoModelAndTheSameRowsLabelsAndIntervals() {
        assertThat(kept.model()).isNull();
        assertThat(kept.rows()).isEqualTo(built.rows());
        assertThat(kept.intervals()).isEqualTo(built.intervals()).isPositive();
        assertThat(kept.events()).isEqualTo(built.events());
        for (int i = 0; i < built.intervals(); i++) {
            assertThat(kept.startOf(i)).isEqualTo(built.startOf(i));
            assertThat(kept.endOf(i)).isEqualTo(built.endOf(i));
            assertThat(kept.labelOf(i)).isEqualTo(built.labelOf(i));
            assertThat(kept.extraOf(i)).isEqualTo(built.extraOf(i));
        }
        assertThat(kept.labels().size()).isEqualTo(built.labels().size());
        assertThat(kept.messages()).isEqualTo(built.messages()).isPositive();
    }

    @Test
    void everyAnswerIsTheSameFromTheFileAsFromTheModel() throws Exception {
        List<String> paths = new ArrayList<>(List.of(
                "api/meta",
                "api/diagnosis",
                "api/stats",
                "api/find?q=sobel&after=0&dir=next",
                "api/find?q=intr&after=" + (built.end() - built.begin()) + "&dir=prev"));
        long span = built.end() - built.begin();
        String all = IntStream.range(0, built.rows().size())
                .mapToObj(Integer::toString)
                .collect(Collectors.joining(","));
        SplittableRandom rnd = new SplittableRandom(7);
        for (int k = 0; k < 12; k++) {
            long from = k == 0 ? 0 : rnd.nextLong(span);
            long to = k == 0 ? span : from + 1 + rnd.nextLong(Math.max(1, (span - from) / (1 + rnd.nextInt(1000))));
            int width = k % 2 == 0 ? 2000 : 1 + rnd.nextInt(800);
            paths.add("api/view?from=" + from + "&to=" + to + "&width=" + width + "&rows=" + all);
            int row = rnd.nextInt(built.rows().size());
            paths.add("api/events?row=" + row + "&from=" + from + "&to=" + to);
        }
        for (String name : List.of("sobel", "intruder")) {
            if (built.labels().find(name) >= 0) {
                paths.add("api/durations?name=" + name);
            }
        }
        for (String p : paths) {
            assertThat(get(fromFile, p)).as(p).isEqualTo(get(fromModel, p));
        }
    }

    @Test
    void answersAskedAtOnceOnManyConnectionsAreEachWholeAndTheirOwn() throws Exception {
        // the server keeps answers' buffers from request to request: asked at once, with errors
        // among them, each answer must still be the one asked for, whole, in JSON as in binary
        long span = built.end() - built.begin();
        String all = IntStream.range(0, built.rows().size())
                .mapToObj(Integer::toString)
                .collect(Collectors.joining(","));
        SplittableRandom rnd = new SplittableRandom(3);
        List<String> paths = new ArrayList<>();
        for (int k = 0; k < 24; k++) {
            long from = rnd.nextLong(span);
            String path = k % 6 == 5
                    ? "api/view?from=0&to=" + span + "&width=100&rows="
                            + built.rows().size()
                    : "api/view?from=" + from + "&to=" + (from + 1 + rnd.nextLong(span - from)) + "&width="
                            + (200 + rnd.nextInt(1800)) + "&rows=" + all;
            paths.add(k % 4 < 2 ? path + "&format=binary" : path);
        }
        paths.add("api/meta");
        paths.add("api/diagnosis");
        List<java.util.concurrent.CompletableFuture<HttpResponse<byte[]>>> asked = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            for (String p : paths) {
                asked.add(http.sendAsync(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fromFile.port() + "/" + p))
                                .build(),
                        HttpResponse.BodyHandlers.ofByteArray()));
            }
        }
        int binaries = 0;
        for (int i = 0; i < asked.size(); i++) {
            String p = paths.get(i % paths.size());
            HttpResponse<byte[]> r = asked.get(i).get();
            if (p.contains("&rows=" + built.rows().size())) {
                assertThat(r.statusCode()).as(p).isEqualTo(400);
                assertThat(new String(r.body(), StandardCharsets.UTF_8))
                        .as(p)
                        .isEqualTo("{\"error\": \"no row " + built.rows().size() + "\"}");
                continue;
            }
            assertThat(r.statusCode()).as(p).isEqualTo(200);
            assertThat(r.headers().firstValue("Server-Timing"))
                    .as(p)
                    .hasValueSatisfying(v -> assertThat(v).matches("answer;dur=\\d+\\.\\d"));
            String asJson = get(fromModel, p.replace("&format=binary", ""));
            if (p.endsWith("&format=binary")) {
                binaries++;
                assertThat(r.headers().firstValue("Content-Type")).as(p).hasValue("application/octet-stream");
                // compared whole, not printed whole: an answer is up to megabytes
                assertThat(BinaryAnswers.read(r.body()).equals(BinaryAnswers.LONGS.readTree(asJson)))
                        .as(p + ": the answer asked for, whole")
                        .isTrue();
            } else {
                assertThat(new String(r.body(), StandardCharsets.UTF_8).equals(asJson))
                        .as(p + ": the answer asked for, whole")
                        .isTrue();
            }
        }
        assertThat(binaries).isEqualTo(3 * 10);
    }

    @Test
    void aViewInBinaryIsTheJsonAnswerWithItsArraysAsTypedArraysAndAnUnknownFormatIsRefused() throws Exception {
        long span = built.end() - built.begin();
        String all = IntStream.range(0, built.rows().size())
                .mapToObj(Integer::toString)
                .collect(Collectors.joining(","));
        java.util.Set<String> types = new java.util.TreeSet<>();
        for (String range :
                List.of("from=0&to=" + span, "from=" + span / 3 + "&to=" + (span / 3 + span / 50), "from=5&to=900")) {
            String p = "api/view?" + range + "&width=1500&rows=" + all;
            byte[] b = http.send(
                            HttpRequest.newBuilder(URI.create(
                                            "http://127.0.0.1:" + fromModel.port() + "/" + p + "&format=binary"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofByteArray())
                    .body();
            assertThat(BinaryAnswers.read(b)).as(p).isEqualTo(BinaryAnswers.LONGS.readTree(get(fromModel, p)));
            assertThat(get(fromModel, p + "&format=json")).as("json, said").isEqualTo(get(fromModel, p));
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"binary\":\"(\\w+)\"")
                    .matcher(new String(b, StandardCharsets.ISO_8859_1));
            while (m.find()) {
                types.add(m.group(1));
            }
        }
        // times past 2^31 ns and small numbers: both the narrowest and the widest types were sent
        assertThat(types).contains("i16", "f64");
        HttpResponse<String> bad = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fromModel.port()
                                + "/api/view?from=0&to=9&width=10&rows=0&format=xml"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).isEqualTo("{\"error\": \"format: json or binary, not xml\"}");
    }

    @Test
    void theStatisticsOfARangeComeFromTheIndexWithoutTheTracesAndThePatternSearchToo() throws Exception {
        long span = built.end() - built.begin();
        SplittableRandom rnd = new SplittableRandom(11);
        List<String> ranges = new ArrayList<>(List.of(
                "api/stats?from=" + span / 4 + "&to=" + span / 2,
                "api/stats?from=-5&to=" + (span + 5),
                "api/stats?from=" + span / 3 + "&to=" + span / 3));
        for (int k = 0; k < 8; k++) {
            long from = rnd.nextLong(span);
            ranges.add("api/stats?from=" + from + "&to=" + (from + rnd.nextLong(span - from + 1)));
        }
        Path away = dir.resolve("board-moved-away");
        Files.move(board, away);
        try {
            // the traces are not where they were indexed: the statistics do not need them
            int withRows = 0;
            for (String range : ranges) {
                String answer = get(fromFile, range);
                assertThat(answer).as(range).isEqualTo(get(fromModel, range));
                withRows += answer.contains("\"rows\":[{") ? 1 : 0;
            }
            assertThat(withRows).isGreaterThanOrEqualTo(ranges.size() - 2);
        } finally {
            Files.move(away, board);
        }
        for (String pattern : List.of(
                "api/pattern?first=sobel_entry&then=sobel_exit",
                "api/pattern?first=msgq_put&then=msgq_get&where=msg_id%3Dmsg_id",
                "api/pattern?first=func_entry&then=func_exit&where=func%3Dfunc&sameCore=true")) {
            assertThat(get(fromFile, pattern)).as(pattern).isEqualTo(get(fromModel, pattern));
        }
        assertThat(get(fromFile, "api/pattern?first=msgq_put&then=msgq_get&where=msg_id%3Dmsg_id"))
                .doesNotStartWith("{\"count\":0,");
    }

    @Test
    void aDamagedForeignOrCutFileIsRefusedWithItsName() throws Exception {
        Path good = dir.resolve("board.timeline");
        byte[] bytes = Files.readAllBytes(good);

        Path cut = dir.resolve("cut.timeline");
        Files.write(cut, Arrays.copyOf(bytes, bytes.length / 2));
        assertThatThrownBy(() -> TimelineFile.read(cut))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("cut.timeline")
                .hasMessageContaining("cut short");

        Path foreign = dir.resolve("foreign.timeline");
        Files.writeString(foreign, "{\"not\": \"a timeline\"} and some more bytes to pass the preamble");
        assertThatThrownBy(() -> TimelineFile.read(foreign))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("foreign.timeline: not a hetrace timeline");

        Path old = dir.resolve("old.timeline");
        Files.write(old, bytes);
        try (FileChannel ch = FileChannel.open(old, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(4).putInt(0, TimelineFile.VERSION + 1), TimelineFile.MAGIC.length);
        }
        assertThatThrownBy(() -> TimelineFile.read(old))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("a timeline of format " + (TimelineFile.VERSION + 1));

        // every byte of the header flipped in turn: refused or read, never another exception
        Path flipped = dir.resolve("flipped.timeline");
        long headerAt = ByteBuffer.wrap(bytes, TimelineFile.MAGIC.length + 8, 8).getLong();
        SplittableRandom rnd = new SplittableRandom(3);
        for (int k = 0; k < 200; k++) {
            byte[] b = bytes.clone();
            int at = (int) (headerAt + rnd.nextInt((int) (bytes.length - headerAt)));
            b[at] ^= (byte) (1 + rnd.nextInt(255));
            Files.write(flipped, b);
            try {
                TimelineFile.read(flipped);
            } catch (IOException e) {
                assertThat(e).hasMessageContaining("flipped.timeline");
            }
        }

        // a byte of a column changed (an interval's time, a summary): never served
        Path altered = dir.resolve("altered.timeline");
        for (long at : new long[] {48, headerAt / 2, headerAt - 1}) {
            byte[] b = bytes.clone();
            b[(int) at] ^= 0x01;
            Files.write(altered, b);
            assertThatThrownBy(() -> TimelineFile.read(altered))
                    .isInstanceOf(IOException.class)
                    .hasMessage(altered + ": not as it was written (its bytes do not give its checksum)");
        }
    }
}

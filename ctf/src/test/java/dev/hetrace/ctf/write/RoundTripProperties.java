package dev.hetrace.ctf.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.decode.FieldValues.Choice;
import dev.hetrace.ctf.metadata.EventClass;
import dev.hetrace.ctf.metadata.FieldType;
import dev.hetrace.ctf.metadata.FieldType.ArrayType;
import dev.hetrace.ctf.metadata.FieldType.EnumType;
import dev.hetrace.ctf.metadata.FieldType.Member;
import dev.hetrace.ctf.metadata.FieldType.SequenceType;
import dev.hetrace.ctf.metadata.FieldType.StructType;
import dev.hetrace.ctf.metadata.FieldType.VariantType;
import dev.hetrace.ctf.metadata.StreamClass;
import dev.hetrace.ctf.metadata.TraceClass;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.ctf.write.TraceReading.ReadEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Whatever the writer writes, the reader reads back the same: the metadata (as a trace class)
 * and every event's id, time and field values; and babeltrace2 prints the
 * same text as hetrace for it.
 */
class RoundTripProperties {

    /** A written trace and what was written into each of its stream files. */
    record Written(Path dir, TraceClass traceClass, Map<String, List<ReadEvent>> events) {}

    static Written write(Random random, Path dir, boolean babeltraceSafe) throws IOException {
        return write(random, dir, babeltraceSafe, CtfVersion.V1_8);
    }

    static Written write(Random random, Path dir, boolean babeltraceSafe, CtfVersion version) throws IOException {
        RandomTraces gen = new RandomTraces(random, babeltraceSafe, version == CtfVersion.V2);
        TraceClass tc = gen.traceClass();
        Map<String, List<ReadEvent>> written = new LinkedHashMap<>();
        try (CtfWriter w = CtfWriter.create(dir, tc, version)) {
            if (version == CtfVersion.V1_8) {
                // CTF 2 says the same trace differently (roles, range-selected variants, names as
                // shown): its events are what must read back equal.
                assertThat(normalized(w.metadata()))
                        .as("metadata read back:\n%s", TsdlWriter.write(tc))
                        .isEqualTo(normalized(tc));
            }
            for (StreamClass sc : tc.streams().values()) {
                int instances = 1 + random.nextInt(2);
                for (int i = 0; i < instances; i++) {
                    StreamWriter s = w.stream(sc.id()).packetSize(new int[] {64, 128, 512, 4096}[random.nextInt(4)]);
                    List<ReadEvent> events = new ArrayList<>();
                    List<EventClass> classes = new ArrayList<>(sc.events().values());
                    long t = random.nextInt(1000);
                    int count = random.nextInt(60);
                    for (int e = 0; e < count; e++) {
                        EventClass ec = classes.get(random.nextInt(classes.size()));
                        long gap = gen.wideTime.get(sc.id()) && random.nextInt(10) == 0
                                ? (1L << 28) + random.nextInt(1 << 20)
                                : random.nextInt(3) == 0 ? 0 : random.nextInt(5000);
                        t += gap;
                        Object sctx = sc.eventContext() == null ? null : gen.value(sc.eventContext());
                        Object ctx = ec.context() == null ? null : gen.value(ec.context());
                        Object payload = ec.payload() == null ? null : gen.value(ec.payload());
                        if (version == CtfVersion.V2) {
                            sctx = shownNames(sctx);
                            ctx = shownNames(ctx);
                            payload = shownNames(payload);
                        }
                        s.packetContext("cpu_id", (long) random.nextInt(4));
                        if (random.nextInt(15) == 0) {
                            s.discard(1 + random.nextInt(5));
                        }
                        s.event(ec.id(), t, sctx, ctx, payload);
                        events.add(new ReadEvent(ec.id(), t, sctx, ctx, payload));
                    }
                    written.put(s.file().getFileName().toString(), events);
                }
            }
        }
        return new Written(dir, tc, written);
    }

    @Property(tries = 150)
    void everyWrittenEventReadsBackEqual(@ForAll Random random) throws Exception {
        everyWrittenEventReadsBackEqual(random, CtfVersion.V1_8);
    }

    @Property(tries = 150)
    void everyEventWrittenWithCtf2MetadataReadsBackEqual(@ForAll Random random) throws Exception {
        everyWrittenEventReadsBackEqual(random, CtfVersion.V2);
    }

    /** The CTF 2 traces of the properties above hold what CTF 1.8 cannot say; the CTF 1.8 ones do not. */
    @Example
    void randomCtf2TracesHoldOptionalsBooleansAndBlobs() throws Exception {
        StringBuilder ctf2 = new StringBuilder();
        StringBuilder ctf18 = new StringBuilder();
        for (long seed = 0; seed < 30; seed++) {
            for (CtfVersion version : CtfVersion.values()) {
                Path dir = Files.createTempDirectory("hetrace-roundtrip");
                try {
                    write(new Random(seed), dir, false, version);
                    (version == CtfVersion.V2 ? ctf2 : ctf18).append(Files.readString(dir.resolve("metadata")));
                } finally {
                    delete(dir);
                }
            }
        }
        assertThat(ctf2.toString())
                .contains(
                        "\"optional\"",
                        "\"selector-field-ranges\"",
                        "\"fixed-length-boolean\"",
                        "\"dynamic-length-blob\"",
                        "\"static-length-blob\"",
                        "\"media-type\"");
        assertThat(ctf18.toString()).doesNotContain("optional", "blob", "boolean");
    }

    private static void everyWrittenEventReadsBackEqual(Random random, CtfVersion version) throws Exception {
        Path dir = Files.createTempDirectory("hetrace-roundtrip");
        try {
            Written w = write(random, dir, false, version);
            for (Map.Entry<String, List<ReadEvent>> e : w.events().entrySet()) {
                if (e.getValue().isEmpty()) {
                    continue;
                }
                assertThat(TraceReading.readStream(dir, e.getKey()))
                        .as("events of %s; metadata:\n%s", e.getKey(), Files.readString(dir.resolve("metadata")))
                        .isEqualTo(e.getValue());
            }
        } finally {
            delete(dir);
        }
    }

    @Property(tries = 25)
    void babeltrace2PrintsWhatHetracePrints(@ForAll Random random) throws Exception {
        if (!Required.hasBabeltrace2()) {
            return; // a developer's machine without it (under CI it fails instead)
        }
        Path dir = Files.createTempDirectory("hetrace-bt2");
        try {
            write(random, dir, true);
            TraceReading.Babeltrace bt = TraceReading.babeltrace(dir);
            assertThat(bt.exit())
                    .as(
                            "babeltrace2 exit status; stderr:\n%s\nmetadata:\n%s",
                            bt.err(), Files.readString(dir.resolve("metadata")))
                    .isZero();
            assertThat(TraceReading.hetraceText(dir))
                    .as("metadata:\n%s", Files.readString(dir.resolve("metadata")))
                    .isEqualTo(bt.out());
        } finally {
            if (System.getProperty("hetrace.keep") == null) {
                delete(dir);
            } else {
                System.err.println("KEPT " + dir);
            }
        }
    }

    /** A value tree with its members named as CTF 2 metadata names them: as CTF 1.8 shows them. */
    private static Object shownNames(Object value) {
        return switch (value) {
            case Map<?, ?> m -> {
                Map<String, Object> out = new LinkedHashMap<>();
                m.forEach((k, v) -> out.put(shown((String) k), shownNames(v)));
                yield out;
            }
            case List<?> l -> l.stream().map(RoundTripProperties::shownNames).toList();
            case Choice c -> new Choice(shown(c.option()), shownNames(c.value()));
            case null, default -> value;
        };
    }

    private static String shown(String raw) {
        return raw.startsWith("_") ? raw.substring(1) : raw;
    }

    /** The parser links tags and lengths to the members they name; the model written by hand does not. */
    static TraceClass normalized(TraceClass t) {
        TreeMap<Long, StreamClass> streams = new TreeMap<>();
        for (StreamClass s : t.streams().values()) {
            TreeMap<Long, EventClass> events = new TreeMap<>();
            for (EventClass e : s.events().values()) {
                events.put(
                        e.id(),
                        new EventClass(
                                e.id(),
                                e.name(),
                                e.streamId(),
                                struct(e.context()),
                                struct(e.payload()),
                                e.logLevel(),
                                e.emfUri()));
            }
            streams.put(
                    s.id(),
                    new StreamClass(
                            s.id(),
                            struct(s.packetContext()),
                            struct(s.eventHeader()),
                            struct(s.eventContext()),
                            events));
        }
        return new TraceClass(
                t.major(), t.minor(), t.byteOrder(), t.uuid(), struct(t.packetHeader()), t.clocks(), t.env(), streams);
    }

    private static StructType struct(StructType s) {
        return s == null ? null : (StructType) normalized(s);
    }

    private static FieldType normalized(FieldType t) {
        return switch (t) {
            case StructType s ->
                new StructType(
                        s.members().stream()
                                .map(RoundTripProperties::normalized)
                                .toList(),
                        s.minAlignment());
            case VariantType v ->
                new VariantType(
                        v.tag(),
                        v.options().stream()
                                .map(RoundTripProperties::normalized)
                                .toList(),
                        null);
            case SequenceType q -> new SequenceType(normalized(q.element()), q.length(), null);
            case ArrayType a -> new ArrayType(normalized(a.element()), a.length());
            case EnumType e -> e;
            default -> t;
        };
    }

    private static Member normalized(Member m) {
        return new Member(m.name(), normalized(m.type()));
    }

    static void delete(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}

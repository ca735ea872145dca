package dev.hetrace.tracer.metadata;

import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.ctf.metadata.EventClass;
import dev.hetrace.ctf.metadata.FieldType;
import dev.hetrace.ctf.metadata.FieldType.ArrayType;
import dev.hetrace.ctf.metadata.FieldType.EnumMapping;
import dev.hetrace.ctf.metadata.FieldType.EnumType;
import dev.hetrace.ctf.metadata.FieldType.FloatType;
import dev.hetrace.ctf.metadata.FieldType.IntegerType;
import dev.hetrace.ctf.metadata.FieldType.Member;
import dev.hetrace.ctf.metadata.FieldType.SequenceType;
import dev.hetrace.ctf.metadata.FieldType.StringType;
import dev.hetrace.ctf.metadata.FieldType.StructType;
import dev.hetrace.ctf.metadata.FieldType.VariantType;
import dev.hetrace.ctf.metadata.StreamClass;
import dev.hetrace.ctf.metadata.TraceClass;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Structural comparison of two trace classes, environment aside, naming the first difference
 * by its place ({@code stream 0 / event 1 "ev" / payload / x: size 8 vs 16}). Enumeration
 * mappings compare as sets: barectf keeps a label's ranges in a set, whose order means nothing.
 */
final class TraceClassDiff {
    private TraceClassDiff() {}

    /** The first difference between {@code actual} and {@code expected}, or null if they are the same. */
    static String firstDifference(TraceClass actual, TraceClass expected) {
        String d = same("major", actual.major(), expected.major());
        d = d != null ? d : same("minor", actual.minor(), expected.minor());
        d = d != null ? d : same("byte order", actual.byteOrder(), expected.byteOrder());
        d = d != null ? d : same("uuid", actual.uuid(), expected.uuid());
        d = d != null ? d : types("packet header", actual.packetHeader(), expected.packetHeader());
        d = d != null
                ? d
                : same(
                        "clock names",
                        actual.clocks().keySet(),
                        expected.clocks().keySet());
        if (d != null) {
            return d;
        }
        for (String name : actual.clocks().keySet()) {
            ClockClass a = actual.clocks().get(name);
            ClockClass e = expected.clocks().get(name);
            if (!a.equals(e)) {
                return "clock " + name + ": " + a + " vs " + e;
            }
        }
        d = same("stream count", actual.streamCount(), expected.streamCount());
        d = d != null ? d : same("stream runs", actual.streamRuns(), expected.streamRuns());
        d = d != null
                ? d
                : same(
                        "stream ids",
                        actual.streams().keySet(),
                        expected.streams().keySet());
        if (d != null) {
            return d;
        }
        for (long id : actual.streams().keySet()) {
            d = stream("stream " + id, actual.stream(id), expected.stream(id));
            if (d != null) {
                return d;
            }
        }
        return null;
    }

    private static String stream(String where, StreamClass a, StreamClass e) {
        String d = types(where + " / packet context", a.packetContext(), e.packetContext());
        d = d != null ? d : types(where + " / event header", a.eventHeader(), e.eventHeader());
        d = d != null ? d : types(where + " / event context", a.eventContext(), e.eventContext());
        d = d != null ? d : same(where + " / event runs", a.eventRuns(), e.eventRuns());
        d = d != null
                ? d
                : same(where + " / event ids", a.events().keySet(), e.events().keySet());
        if (d != null) {
            return d;
        }
        for (long id : a.events().keySet()) {
            EventClass ea = a.events().get(id);
            EventClass ee = e.events().get(id);
            String w = where + " / event " + id + " \"" + ee.name() + "\"";
            d = same(w + " / name", ea.name(), ee.name());
            d = d != null ? d : same(w + " / stream id", ea.streamId(), ee.streamId());
            d = d != null ? d : same(w + " / log level", ea.logLevel(), ee.logLevel());
            d = d != null ? d : same(w + " / model.emf.uri", ea.emfUri(), ee.emfUri());
            d = d != null ? d : types(w + " / context", ea.context(), ee.context());
            d = d != null ? d : types(w + " / payload", ea.payload(), ee.payload());
            if (d != null) {
                return d;
            }
        }
        return null;
    }

    private static String same(String where, Object a, Object e) {
        return Objects.equals(a, e) ? null : where + ": " + a + " vs " + e;
    }

    private static String types(String where, FieldType a, FieldType e) {
        if (a == null || e == null) {
            return a == e ? null : where + ": " + describe(a) + " vs " + describe(e);
        }
        if (a.getClass() != e.getClass()) {
            return where + ": " + describe(a) + " vs " + describe(e);
        }
        return switch (a) {
            case IntegerType i -> same(where, i, e);
            case FloatType f -> same(where, f, e);
            case StringType s -> same(where, s, e);
            case FieldType.VarIntType v -> same(where, v, e);
            case FieldType.BoolType b -> same(where, b, e);
            case FieldType.BitArrayType b -> same(where, b, e);
            case EnumType en -> {
                EnumType ee = (EnumType) e;
                String d = same(where + " (container)", en.container(), ee.container());
                yield d != null
                        ? d
                        : same(where + " (mappings)", sortedMappings(en.mappings()), sortedMappings(ee.mappings()));
            }
            case StructType s -> {
                StructType se = (StructType) e;
                String d = same(where + " (align)", s.minAlignment(), se.minAlignment());
                d = d != null ? d : same(where + " (member names)", names(s.members()), names(se.members()));
                for (int i = 0; d == null && i < s.members().size(); i++) {
                    d = types(
                            where + " / " + s.members().get(i).name(),
                            s.members().get(i).type(),
                            se.members().get(i).type());
                }
                yield d;
            }
            case ArrayType ar -> {
                ArrayType ae = (ArrayType) e;
                String d = same(where + " (length)", ar.length(), ae.length());
                yield d != null ? d : types(where + "[]", ar.element(), ae.element());
            }
            case SequenceType sq -> {
                SequenceType sqe = (SequenceType) e;
                String d = same(
                        where + " (length field)",
                        sq.length().toString(),
                        sqe.length().toString());
                yield d != null ? d : types(where + "[]", sq.element(), sqe.element());
            }
            case VariantType v -> same(where, v, e);
            case FieldType.OptionalType o -> same(where, o, e);
            case FieldType.BlobType b -> same(where, b, e);
        };
    }

    private static List<String> names(List<Member> members) {
        List<String> n = new ArrayList<>();
        members.forEach(m -> n.add(m.name()));
        return n;
    }

    private static TreeSet<String> sortedMappings(List<EnumMapping> mappings) {
        TreeSet<String> s = new TreeSet<>(Comparator.naturalOrder());
        mappings.forEach(m -> s.add(m.label() + "=" + m.low() + ".." + m.high()));
        return s;
    }

    private static String describe(FieldType t) {
        return t == null ? "none" : t.getClass().getSimpleName();
    }
}

package dev.hetrace.tracer.c;

import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.config.Configuration.ClockType;
import dev.hetrace.tracer.config.Configuration.DataStreamType;
import dev.hetrace.tracer.config.Configuration.EventRecordType;
import dev.hetrace.tracer.config.FieldType;
import dev.hetrace.tracer.config.FieldType.DynamicArrayType;
import dev.hetrace.tracer.config.FieldType.EnumerationType;
import dev.hetrace.tracer.config.FieldType.IntegerType;
import dev.hetrace.tracer.config.FieldType.Member;
import dev.hetrace.tracer.config.FieldType.RealType;
import dev.hetrace.tracer.config.FieldType.StaticArrayType;
import dev.hetrace.tracer.config.FieldType.StringType;
import dev.hetrace.tracer.config.FieldType.StructureType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The tracer's C API as barectf 3 names it: the C types of parameters, the parameters each
 * function takes for a configuration, and the functions' prototypes, which the header declares
 * and the source defines.
 */
final class TracerApi {
    /** Root structures and the prefixes barectf gives their members' parameters. */
    static final String PH = "ph";

    static final String PC = "pc";
    static final String ERCC = "cc";
    static final String ERSC = "sc";
    static final String ERP = "p";
    /** Packet context members the tracer writes itself: open_packet takes no parameter for them. */
    static final Set<String> PC_FEATURE_MEMBERS = Set.of(
            "packet_size", "content_size", "timestamp_begin", "timestamp_end", "events_discarded", "packet_seq_num");

    /** A parameter of a tracer function. */
    record Param(String name, FieldType type) {
        /** The C variable holding the byte size (with its NUL) of a string parameter. */
        String sizeVariable() {
            return "_size_" + name;
        }
    }

    private final Configuration config;
    private final String p;

    TracerApi(Configuration config) {
        this.config = config;
        this.p = config.options().identifierPrefix();
    }

    /** The identifier prefix ({@code barectf_} unless set). */
    String prefix() {
        return p;
    }

    /** The prefix of the macros the tracer defines (the identifier prefix in capitals). */
    String macroPrefix() {
        return p.toUpperCase();
    }

    /** barectf's C type of a parameter for a field type ({@code isConst} as barectf's _ft_c_type). */
    static String cType(FieldType ft, boolean isConst) {
        String c = isConst ? "const " : "";
        return switch (ft) {
            case IntegerType i -> c + intCType(i.signed(), i.size());
            case EnumerationType e ->
                c + intCType(e.integer().signed(), e.integer().size());
            case RealType r ->
                c
                        + (r.size() == 32 && r.alignment() == 32
                                ? "float"
                                : r.size() == 64 && r.alignment() == 64 ? "double" : "uint64_t");
            case StringType s -> pointer("const char", isConst);
            case StaticArrayType a -> pointer(cType(a.element(), true), isConst);
            case DynamicArrayType a -> pointer(cType(a.element(), true), isConst);
            case StructureType s -> throw new IllegalArgumentException("a structure is not a parameter");
        };
    }

    private static String pointer(String pointed, boolean isConst) {
        return pointed + (pointed.endsWith("*") ? "" : " ") + "*" + (isConst ? " const" : "");
    }

    private static String intCType(boolean signed, int size) {
        int bits = size <= 8 ? 8 : size <= 16 ? 16 : size <= 32 ? 32 : 64;
        return (signed ? "" : "u") + "int" + bits + "_t";
    }

    /** The C type of a clock type's values ({@code uint32_t} unless the configuration says). */
    String clockCType(ClockType c) {
        return config.options().clockTypeCTypes().getOrDefault(c.name(), "uint32_t");
    }

    private static List<Param> params(Optional<StructureType> root, String prefix, Set<String> exclude) {
        List<Param> out = new ArrayList<>();
        root.ifPresent(s -> {
            for (Member m : s.members()) {
                if (!exclude.contains(m.name())) {
                    out.add(new Param(prefix + "_" + m.name(), m.type()));
                }
            }
        });
        return out;
    }

    /** The parameters of a data stream type's open_packet after its context. */
    List<Param> openParams(DataStreamType d) {
        List<Param> out =
                params(Optional.of(config.trace().type().packetHeader()), PH, Set.of("magic", "uuid", "stream_id"));
        out.addAll(params(Optional.of(d.packetContext()), PC, PC_FEATURE_MEMBERS));
        return out;
    }

    /** The parameters of an event record type's tracing function after its context. */
    static List<Param> traceParams(DataStreamType d, EventRecordType e) {
        List<Param> out = params(d.eventRecordCommonContext(), ERCC, Set.of());
        out.addAll(params(e.specificContext(), ERSC, Set.of()));
        out.addAll(params(e.payload(), ERP, Set.of()));
        return out;
    }

    /** The parameters declared after a first one: {@code ",\n\tTYPE NAME"} each. */
    static String paramDecls(List<Param> params) {
        StringBuilder sb = new StringBuilder();
        for (Param prm : params) {
            String t = cType(prm.type(), false);
            sb.append(",\n\t").append(t).append(t.endsWith("*") ? "" : " ").append(prm.name());
        }
        return sb.toString();
    }

    /** The parameters passed on after a first argument: {@code ", NAME"} each. */
    static String paramNames(List<Param> params) {
        StringBuilder sb = new StringBuilder();
        for (Param prm : params) {
            sb.append(", ").append(prm.name());
        }
        return sb.toString();
    }

    String initProto() {
        return "/* Initialize context */\nvoid " + p
                + "init(void *vctx,\n\tuint8_t *buf, uint32_t buf_size,\n\tconst struct " + p
                + "platform_callbacks cbs, void *data)";
    }

    String openProto(DataStreamType d) {
        return "/* Open packet for data stream type `" + d.name() + "` */\nvoid " + p + d.name()
                + "_open_packet(\n\tstruct " + p + d.name() + "_ctx *sctx" + paramDecls(openParams(d)) + ")";
    }

    String closeProto(DataStreamType d) {
        return "/* Close packet for data stream type `" + d.name() + "` */\nvoid " + p + d.name()
                + "_close_packet(struct " + p + d.name() + "_ctx *sctx)";
    }

    String traceProto(DataStreamType d, EventRecordType e) {
        return "/* Trace (data stream type `" + d.name() + "`, event record type `" + e.name() + "`) */\nvoid " + p
                + d.name() + "_trace_" + e.name() + "(struct " + p + d.name() + "_ctx *sctx"
                + paramDecls(traceParams(d, e)) + ")";
    }
}

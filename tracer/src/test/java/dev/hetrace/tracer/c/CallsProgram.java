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
 * A C program, written against barectf 3's API only, that calls every tracing function of a
 * configuration {@code rounds} times with values that vary by call, through a platform whose
 * clocks are a deterministic counter and which writes each data stream type's packets to
 * {@code DIR/stream_NAME}. Built against barectf's tracer and hetrace's, it must give the same trace.
 */
final class CallsProgram {
    private static final Set<String> PC_FEATURES = Set.of(
            "packet_size", "content_size", "timestamp_begin", "timestamp_end", "events_discarded", "packet_seq_num");

    private CallsProgram() {}

    static String source(Configuration c, String header, int packetSize, int rounds) {
        String p = c.options().identifierPrefix();
        for (DataStreamType d : c.trace().type().dataStreamTypes()) {
            // the packet size must fit its field (barectf's packet-set-buf test has an 8-bit one)
            int bits = d.packetFeatures().totalSize().size();
            if (bits < 31) {
                packetSize = Math.min(packetSize, (int) (((1L << bits) - 1) / 8));
            }
        }
        StringBuilder s = new StringBuilder();
        s.append("#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n\n#include \"")
                .append(header)
                .append("\"\n\n");
        s.append(c.trace().type().clockTypes().isEmpty() ? "" : "static uint64_t now;\n")
                .append("static int k;\n\n");
        for (ClockType clk : c.trace().type().clockTypes()) {
            String ct = c.options().clockTypeCTypes().get(clk.name());
            s.append("static ")
                    .append(ct)
                    .append(' ')
                    .append(clk.name())
                    .append("_clock(void *data)\n{\n\t(void) data;\n\treturn (")
                    .append(ct)
                    .append(") (now += 3);\n}\n\n");
        }
        s.append("static int backend_full(void *data)\n{\n\t(void) data;\n\treturn 0;\n}\n\n");
        for (DataStreamType d : c.trace().type().dataStreamTypes()) {
            String n = d.name();
            s.append("static struct ")
                    .append(p)
                    .append(n)
                    .append("_ctx ctx_")
                    .append(n)
                    .append(";\n");
            s.append("static uint8_t buf_")
                    .append(n)
                    .append('[')
                    .append(packetSize)
                    .append("];\n");
            s.append("static FILE *out_").append(n).append(";\n\n");
            s.append("static void open_").append(n).append("(void *data)\n{\n");
            StringBuilder decls = new StringBuilder();
            StringBuilder args = new StringBuilder();
            int i = 0;
            for (Member m : d.packetContext().members()) {
                if (!PC_FEATURES.contains(m.name())) {
                    args.append(", ").append(argument(m, "pc" + i, 1 + i, decls));
                }
                i++;
            }
            s.append(decls)
                    .append("\t(void) data;\n\t")
                    .append(p)
                    .append(n)
                    .append("_open_packet(&ctx_")
                    .append(n)
                    .append(args)
                    .append(");\n}\n\n");
            s.append("static void close_")
                    .append(n)
                    .append("(void *data)\n{\n\t(void) data;\n\t")
                    .append(p)
                    .append(n)
                    .append("_close_packet(&ctx_")
                    .append(n)
                    .append(");\n\tfwrite(")
                    .append(p)
                    .append("packet_buf(&ctx_")
                    .append(n)
                    .append("), 1, ")
                    .append(p)
                    .append("packet_buf_size(&ctx_")
                    .append(n)
                    .append("), out_")
                    .append(n)
                    .append(");\n}\n\n");
        }
        s.append(
                "int main(int argc, char **argv)\n{\n\tchar path[4096];\n\n\tif (argc != 2) {\n\t\treturn 2;\n\t}\n\n");
        for (DataStreamType d : c.trace().type().dataStreamTypes()) {
            String n = d.name();
            s.append("\t{\n\t\tstruct ")
                    .append(p)
                    .append("platform_callbacks cbs;\n\n\t\tmemset(&cbs, 0, sizeof(cbs));\n");
            for (ClockType clk : c.trace().type().clockTypes()) {
                s.append("\t\tcbs.")
                        .append(clk.name())
                        .append("_clock_get_value = ")
                        .append(clk.name())
                        .append("_clock;\n");
            }
            s.append("\t\tcbs.is_backend_full = backend_full;\n\t\tcbs.open_packet = open_")
                    .append(n)
                    .append(";\n\t\tcbs.close_packet = close_")
                    .append(n)
                    .append(";\n");
            s.append("\t\tsprintf(path, \"%s/stream_")
                    .append(n)
                    .append("\", argv[1]);\n\t\tout_")
                    .append(n)
                    .append(" = fopen(path, \"wb\");\n\t\tif (!out_")
                    .append(n)
                    .append(") {\n\t\t\treturn 1;\n\t\t}\n");
            s.append("\t\t")
                    .append(p)
                    .append("init(&ctx_")
                    .append(n)
                    .append(", buf_")
                    .append(n)
                    .append(", sizeof(buf_")
                    .append(n)
                    .append("), cbs, NULL);\n\t\topen_")
                    .append(n)
                    .append("(NULL);\n\t}\n");
        }
        s.append("\n\tfor (k = 0; k < ").append(rounds).append("; k++) {\n");
        for (DataStreamType d : c.trace().type().dataStreamTypes()) {
            for (EventRecordType e : d.eventRecordTypes()) {
                StringBuilder decls = new StringBuilder();
                StringBuilder args = new StringBuilder();
                int i = 0;
                for (Optional<StructureType> root :
                        List.of(d.eventRecordCommonContext(), e.specificContext(), e.payload())) {
                    if (root.isPresent()) {
                        for (Member m : root.get().members()) {
                            args.append(", ").append(argument(m, "v" + i, i, decls));
                            i++;
                        }
                    }
                }
                s.append("\t\t{\n");
                decls.toString().lines().forEach(l -> s.append("\t\t").append(l).append('\n'));
                s.append("\t\t\t")
                        .append(p)
                        .append(d.name())
                        .append("_trace_")
                        .append(e.name())
                        .append("(&ctx_")
                        .append(d.name())
                        .append(args)
                        .append(");\n\t\t}\n");
            }
        }
        s.append("\t}\n\n");
        for (DataStreamType d : c.trace().type().dataStreamTypes()) {
            String n = d.name();
            s.append("\tif (")
                    .append(p)
                    .append("packet_is_open(&ctx_")
                    .append(n)
                    .append(") && !")
                    .append(p)
                    .append("packet_is_empty(&ctx_")
                    .append(n)
                    .append(")) {\n\t\tclose_")
                    .append(n)
                    .append("(NULL);\n\t}\n\tfclose(out_")
                    .append(n)
                    .append(");\n");
        }
        s.append("\treturn 0;\n}\n");
        return s.toString();
    }

    /** The argument for a member; the length member barectf adds before a dynamic array stays within its 3 elements. */
    private static String argument(Member m, String name, int salt, StringBuilder decls) {
        if (m.type() instanceof IntegerType
                && m.name().startsWith("__")
                && m.name().endsWith("_len")) {
            return "(uint32_t) ((k + " + salt + ") % 4)";
        }
        return value(m.type(), name, salt, decls);
    }

    /**
     * A C expression for argument {@code salt} of a call in round {@code k} (the loop variable);
     * arrays are declared in {@code decls}, a dynamic array with 3 elements.
     */
    private static String value(FieldType ft, String name, int salt, StringBuilder decls) {
        return switch (ft) {
            case IntegerType i -> "(" + TracerApi.cType(ft, false) + ") (k * 37 + " + (salt * 11) + ")";
            case EnumerationType e -> "(" + TracerApi.cType(ft, false) + ") (k + " + salt + ")";
            case RealType r -> "(" + TracerApi.cType(ft, false) + ") (k + " + salt + ")";
            // empty, short, and on both sides of the generated tracer's inline limit (32 bytes with the NUL)
            case StringType s ->
                "(k % 5 == 0 ? \"\" : k % 5 == 1 ? \"s" + salt + "\" : k % 5 == 2 ? \"" + padded("s" + salt, 31)
                        + "\" : k % 5 == 3 ? \"" + padded("s" + salt, 32) + "\" : \"" + padded("s" + salt, 60) + "\")";
            case StaticArrayType a -> array(a.element(), (int) a.length(), name, salt, decls);
            case DynamicArrayType a -> array(a.element(), 3, name, salt, decls);
            case StructureType s -> throw new IllegalArgumentException("a structure is not a parameter");
        };
    }

    private static String padded(String s, int length) {
        return s + "-".repeat(length - s.length());
    }

    private static String array(FieldType element, int length, String name, int salt, StringBuilder decls) {
        List<String> items = new ArrayList<>();
        for (int i = 0; i < length; i++) {
            items.add(constant(element, name + "_" + i, salt + i, decls));
        }
        decls.append("\tstatic ")
                .append(TracerApi.cType(element, true))
                .append(' ')
                .append(name)
                .append('[')
                .append(Math.max(1, length))
                .append("] = {")
                .append(items.isEmpty() ? "0" : String.join(", ", items))
                .append("};\n");
        return name;
    }

    /** A constant expression (static initializers cannot use the round variable). */
    private static String constant(FieldType ft, String name, int salt, StringBuilder decls) {
        return switch (ft) {
            case IntegerType i -> "(" + TracerApi.cType(ft, false) + ") " + (salt * 13 + 1);
            case EnumerationType e -> "(" + TracerApi.cType(ft, false) + ") " + salt;
            case RealType r -> "(" + TracerApi.cType(ft, false) + ") " + salt + ".5";
            case StringType s -> "\"e" + salt + "\"";
            case StaticArrayType a -> array(a.element(), (int) a.length(), name, salt, decls);
            case DynamicArrayType a -> array(a.element(), 3, name, salt, decls);
            case StructureType s -> throw new IllegalArgumentException("a structure is not a parameter");
        };
    }
}

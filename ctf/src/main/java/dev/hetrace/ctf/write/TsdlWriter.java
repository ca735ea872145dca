package dev.hetrace.ctf.write;

import dev.hetrace.ctf.metadata.ByteOrder;
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
import dev.hetrace.ctf.metadata.FieldType.VarIntType;
import dev.hetrace.ctf.metadata.FieldType.VariantType;
import dev.hetrace.ctf.metadata.StreamClass;
import dev.hetrace.ctf.metadata.StructChain;
import dev.hetrace.ctf.metadata.TraceClass;
import dev.hetrace.ctf.metadata.TsdlWords;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes a {@link TraceClass} as CTF 1.8 TSDL text. Every type is written inline with all its
 * attributes spelled out (byte order included), so the text means the same thing to any CTF
 * reader whatever its defaults; parsing the text gives back an equal trace class.
 */
public final class TsdlWriter {
    private final StringBuilder out = new StringBuilder(4096);
    private int indent;
    private boolean implicitStreamId;

    private TsdlWriter() {}

    /** The metadata text of {@code trace}, starting with the CTF 1.8 signature comment. */
    public static String write(TraceClass trace) {
        TsdlWriter w = new TsdlWriter();
        w.trace(trace);
        return w.out.toString();
    }

    private void trace(TraceClass t) {
        out.append("/* CTF 1.8 */\n\n");
        line("trace {");
        indent++;
        line("major = " + t.major() + ";");
        line("minor = " + t.minor() + ";");
        if (t.uuid() != null) {
            line("uuid = \"" + t.uuid() + "\";");
        }
        line("byte_order = " + (t.byteOrder() == ByteOrder.BIG_ENDIAN ? "be" : "le") + ";");
        scope("packet.header", t.packetHeader());
        indent--;
        line("};");
        if (!t.env().isEmpty()) {
            out.append('\n');
            line("env {");
            indent++;
            for (Map.Entry<String, Object> e : t.env().entrySet()) {
                String value = e.getValue() instanceof String s ? quote(s) : String.valueOf(e.getValue());
                line(identifier(e.getKey()) + " = " + value + ";");
            }
            indent--;
            line("};");
        }
        for (ClockClass c : t.clocks().values()) {
            out.append('\n');
            clock(c);
        }
        // A lone stream class 0 without stream_id in the packet header is written without ids:
        // babeltrace2 rejects a stream id that packets cannot carry.
        implicitStreamId = t.streams().size() == 1
                && t.streams().firstKey() == 0
                && (t.packetHeader() == null || t.packetHeader().member("stream_id") == null);
        for (StreamClass s : t.streams().values()) {
            out.append('\n');
            line("stream {");
            indent++;
            if (!implicitStreamId) {
                line("id = " + s.id() + ";");
            }
            scope("packet.context", s.packetContext());
            scope("event.header", s.eventHeader());
            scope("event.context", s.eventContext());
            indent--;
            line("};");
            for (EventClass e : s.events().values()) {
                out.append('\n');
                event(e);
            }
        }
    }

    private void clock(ClockClass c) {
        line("clock {");
        indent++;
        line("name = " + identifier(c.name()) + ";");
        if (c.uuid() != null) {
            line("uuid = \"" + c.uuid() + "\";");
        }
        if (c.description() != null) {
            line("description = " + quote(c.description()) + ";");
        }
        line("freq = " + c.frequency() + ";");
        line("precision = " + c.precision() + ";");
        line("offset_s = " + c.offsetSeconds() + ";");
        line("offset = " + c.offsetCycles() + ";");
        line("absolute = " + (c.absolute() ? "true" : "false") + ";");
        indent--;
        line("};");
    }

    private void event(EventClass e) {
        line("event {");
        indent++;
        line("name = " + quote(e.name()) + ";");
        line("id = " + e.id() + ";");
        if (!implicitStreamId) {
            line("stream_id = " + e.streamId() + ";");
        }
        if (e.logLevel() != null) {
            line("loglevel = " + e.logLevel() + ";");
        }
        if (e.emfUri() != null) {
            line("model.emf.uri = " + quote(e.emfUri()) + ";");
        }
        scope("context", e.context());
        scope("fields", e.payload());
        indent--;
        line("};");
    }

    private void scope(String name, StructType type) {
        if (type == null) {
            return;
        }
        indent();
        out.append(name).append(" := ");
        struct(type);
        out.append(";\n");
    }

    private void line(String s) {
        indent();
        out.append(s).append('\n');
    }

    private void indent() {
        out.repeat("\t", Math.min(indent, 64)); // deeply nested structs: no quadratic indentation
    }

    /** Writes a type specifier; array and sequence dimensions go into the declarator instead. */
    private void type(FieldType t) {
        switch (t) {
            case IntegerType it -> integer(it);
            case EnumType et -> {
                out.append("enum : ");
                integer(et.container());
                out.append(" {");
                boolean first = true;
                for (EnumMapping m : et.mappings()) {
                    out.append(first ? " " : ", ")
                            .append(quote(m.label()))
                            .append(" = ")
                            .append(number(m.low(), et.container().signed()));
                    if (m.low() != m.high()) {
                        out.append(" ... ")
                                .append(number(m.high(), et.container().signed()));
                    }
                    first = false;
                }
                out.append(" }");
            }
            case FloatType ft ->
                out.append("floating_point { exp_dig = ")
                        .append(ft.expDig())
                        .append("; mant_dig = ")
                        .append(ft.mantDig())
                        .append("; byte_order = ")
                        .append(order(ft.byteOrder()))
                        .append("; align = ")
                        .append(ft.alignment())
                        .append("; }");
            case StringType st ->
                out.append("string { encoding = ")
                        .append(encoding(st.encoding()))
                        .append("; }");
            case StructType st -> struct(st);
            case VariantType vt -> {
                if (vt.tag() == null) {
                    throw new IllegalArgumentException("a variant without a tag cannot be written");
                }
                out.append("variant <").append(vt.tag()).append("> {\n");
                indent++;
                for (Member m : vt.options()) {
                    declaration(m);
                }
                indent--;
                indent();
                out.append('}');
            }
            case VarIntType vt -> throw new IllegalArgumentException("CTF 1.8 has no variable-length integers");
            case FieldType.BoolType bt -> throw new IllegalArgumentException("CTF 1.8 has no booleans");
            case FieldType.BitArrayType ba -> throw new IllegalArgumentException("CTF 1.8 has no bit arrays");
            case FieldType.OptionalType ot -> throw new IllegalArgumentException("CTF 1.8 has no optionals");
            case FieldType.BlobType bt -> throw new IllegalStateException("BLOB type " + bt + " outside a declarator");
            case ArrayType at -> throw new IllegalStateException("array type " + at + " outside a declarator");
            case SequenceType sq -> throw new IllegalStateException("sequence type " + sq + " outside a declarator");
        }
    }

    private void struct(StructType st) {
        if (st.members() instanceof StructChain chain && chain.levels() > 1) {
            chain(st, chain);
            return;
        }
        out.append("struct {\n");
        indent++;
        for (Member m : st.members()) {
            declaration(m);
        }
        indent--;
        indent();
        out.append('}');
        if (st.minAlignment() > 1) {
            out.append(" align(").append(st.minAlignment()).append(')');
        }
    }

    /** Nested structs of one shape, level by level without recursion. */
    private void chain(StructType top, StructChain chain) {
        long levels = chain.levels();
        for (long k = levels; k >= 1; k--) {
            out.append("struct {\n");
            indent++;
            for (Member m : chain.before()) {
                declaration(m);
            }
            if (k > 1) {
                indent();
            }
        }
        declaration(new Member(chain.holeName(1), chain.core()));
        for (long k = 1; k <= levels; k++) {
            for (Member m : chain.after()) {
                declaration(m);
            }
            indent--;
            indent();
            out.append('}');
            int align = k == levels ? top.minAlignment() : chain.minAlignment();
            if (align > 1) {
                out.append(" align(").append(align).append(')');
            }
            if (k < levels) {
                out.append(' ').append(identifier(chain.holeName(k + 1))).append(";\n");
            }
        }
    }

    /** {@code TYPE name[d0][d1]...;} where the outermost array or sequence comes first, as in C. */
    private void declaration(Member m) {
        List<String> dims = new ArrayList<>();
        FieldType t = m.type();
        while (true) {
            if (t instanceof ArrayType at) {
                dims.add(Long.toString(at.length()));
                t = at.element();
            } else if (t instanceof SequenceType sq) {
                dims.add(sq.length().toString());
                t = sq.element();
            } else if (t instanceof FieldType.BlobType bt) {
                // CTF 1.8 has no BLOBs: an array or sequence of bytes shown in hexadecimal says the same bytes.
                dims.add(
                        bt.lengthField() == null
                                ? Long.toString(bt.length())
                                : bt.lengthField().toString());
                t = new IntegerType(8, 8, false, ByteOrder.LITTLE_ENDIAN, 16, FieldType.Encoding.NONE, null);
            } else {
                break;
            }
        }
        indent();
        type(t);
        out.append(' ').append(identifier(m.name()));
        for (String d : dims) {
            out.append('[').append(d).append(']');
        }
        out.append(";\n");
    }

    private void integer(IntegerType it) {
        out.append("integer { size = ")
                .append(it.size())
                .append("; align = ")
                .append(it.alignment())
                .append("; signed = ")
                .append(it.signed() ? "true" : "false")
                .append("; byte_order = ")
                .append(order(it.byteOrder()))
                .append("; base = ")
                .append(it.base())
                .append("; encoding = ")
                .append(encoding(it.encoding()))
                .append(';');
        if (it.mappedClock() != null) {
            out.append(" map = clock.").append(it.mappedClock()).append(".value;");
        }
        out.append(" }");
    }

    /** Field names are written as TSDL identifiers; anything else would change the metadata's meaning. */
    static String identifier(String name) {
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]*") || TsdlWords.reserved(name)) {
            throw new IllegalArgumentException("'" + name + "' cannot be a field name in TSDL (an identifier that"
                    + " is not a keyword; prefix it with '_', which readers remove when they show it)");
        }
        return name;
    }

    private static String number(long v, boolean signed) {
        return signed ? Long.toString(v) : Long.toUnsignedString(v);
    }

    private static String order(ByteOrder o) {
        return o == ByteOrder.BIG_ENDIAN ? "be" : "le";
    }

    private static String encoding(FieldType.Encoding e) {
        return switch (e) {
            case NONE -> "none";
            case UTF8 -> "UTF8";
            case ASCII -> "ASCII";
            case UTF16BE, UTF16LE, UTF32BE, UTF32LE ->
                throw new IllegalArgumentException("CTF 1.8 has no " + e + " strings");
        };
    }

    /** A TSDL string literal. */
    public static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\t' -> b.append("\\t");
                case '\r' -> b.append("\\r");
                default -> {
                    if (c < 0x20) {
                        // three octal digits: a hex escape would take a hex digit after it as its own
                        b.append('\\')
                                .append((char) ('0' + (c >> 6)))
                                .append((char) ('0' + ((c >> 3) & 7)))
                                .append((char) ('0' + (c & 7)));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}

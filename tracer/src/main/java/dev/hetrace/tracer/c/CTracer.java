package dev.hetrace.tracer.c;

import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.config.Configuration.ByteOrder;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The C99 tracer of a configuration: {@code PREFIX.h} and {@code PREFIX.c}, with barectf 3's
 * API (same names, signatures and platform callbacks), so an instrumented application and its
 * platform build against either. Unlike barectf's, the code writes every field in the trace's
 * byte order whatever the host's, so a big-endian trace can be produced (and tested) on a
 * little-endian host. It uses nothing from libc beyond {@code <stdint.h>} and
 * {@code <string.h>}.
 */
public final class CTracer {
    /** Root structures and the prefixes barectf gives their members' parameters. */
    private static final String PH = "ph";
    private static final String PC = "pc";
    private static final String ERCC = "cc";
    private static final String ERSC = "sc";
    private static final String ERP = "p";
    static final Set<String> PC_FEATURE_MEMBERS = Set.of("packet_size", "content_size", "timestamp_begin",
        "timestamp_end", "events_discarded", "packet_seq_num");

    private final Configuration config;
    private final String p;
    private final boolean bigEndian;

    private CTracer(Configuration config) {
        this.config = config;
        this.p = config.options().identifierPrefix();
        this.bigEndian = config.trace().type().nativeByteOrder() == ByteOrder.BIG_ENDIAN;
    }

    /** Generated files by name ({@code PREFIX.h}, {@code PREFIX.c}). */
    public static Map<String, String> generate(Configuration config) {
        CTracer t = new CTracer(config);
        Map<String, String> files = new LinkedHashMap<>();
        String file = config.options().fileNamePrefix();
        files.put(file + ".h", t.header());
        files.put(file + ".c", t.source(file + ".h"));
        return files;
    }

    // ---- C types and parameters --------------------------------------------------------------

    /** barectf's C type of a parameter for a field type ({@code isConst} as barectf's _ft_c_type). */
    static String cType(FieldType ft, boolean isConst) {
        String c = isConst ? "const " : "";
        return switch (ft) {
            case IntegerType i -> c + intCType(i.signed(), i.size());
            case EnumerationType e -> c + intCType(e.integer().signed(), e.integer().size());
            case RealType r -> c + (r.size() == 32 && r.alignment() == 32 ? "float"
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

    private record Param(String name, FieldType type) {}

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

    private static String paramDecls(List<Param> params) {
        StringBuilder sb = new StringBuilder();
        for (Param prm : params) {
            String t = cType(prm.type(), false);
            sb.append(",\n\t").append(t).append(t.endsWith("*") ? "" : " ").append(prm.name());
        }
        return sb.toString();
    }

    private static String paramNames(List<Param> params) {
        StringBuilder sb = new StringBuilder();
        for (Param prm : params) {
            sb.append(", ").append(prm.name());
        }
        return sb.toString();
    }

    private List<Param> openParams(DataStreamType d) {
        List<Param> out = params(Optional.of(config.trace().type().packetHeader()), PH, Set.of("magic", "uuid", "stream_id"));
        out.addAll(params(Optional.of(d.packetContext()), PC, PC_FEATURE_MEMBERS));
        return out;
    }

    private static List<Param> traceParams(DataStreamType d, EventRecordType e) {
        List<Param> out = params(d.eventRecordCommonContext(), ERCC, Set.of());
        out.addAll(params(e.specificContext(), ERSC, Set.of()));
        out.addAll(params(e.payload(), ERP, Set.of()));
        return out;
    }

    private String clockCType(ClockType c) {
        return config.options().clockTypeCTypes().getOrDefault(c.name(), "uint32_t");
    }

    private List<DataStreamType> dsts() {
        return config.trace().type().dataStreamTypes();
    }

    // ---- header ----------------------------------------------------------------------------

    private String initProto() {
        return "/* Initialize context */\nvoid " + p + "init(void *vctx,\n\tuint8_t *buf, uint32_t buf_size,\n\tconst struct "
            + p + "platform_callbacks cbs, void *data)";
    }

    private String openProto(DataStreamType d) {
        return "/* Open packet for data stream type `" + d.name() + "` */\nvoid " + p + d.name() + "_open_packet(\n\tstruct "
            + p + d.name() + "_ctx *sctx" + paramDecls(openParams(d)) + ")";
    }

    private String closeProto(DataStreamType d) {
        return "/* Close packet for data stream type `" + d.name() + "` */\nvoid " + p + d.name()
            + "_close_packet(struct " + p + d.name() + "_ctx *sctx)";
    }

    private String traceProto(DataStreamType d, EventRecordType e) {
        return "/* Trace (data stream type `" + d.name() + "`, event record type `" + e.name() + "`) */\nvoid " + p
            + d.name() + "_trace_" + e.name() + "(struct " + p + d.name() + "_ctx *sctx" + paramDecls(traceParams(d, e)) + ")";
    }

    private String header() {
        String guard = "_" + p.toUpperCase() + "H";
        StringBuilder h = new StringBuilder();
        h.append("#ifndef ").append(guard).append("\n#define ").append(guard).append("\n\n");
        h.append("/* Generated by hetrace from a barectf configuration: barectf 3's API. */\n\n");
        h.append("#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
        var opts = config.options();
        if (opts.identifierPrefixDefinition()) {
            h.append("#define _BARECTF_PREFIX ").append(p).append("\n\n#define _BARECTF_IDENTIFIER_PREFIX ").append(p).append("\n");
        }
        Optional<DataStreamType> def = opts.defaultDataStreamTypeName()
            .flatMap(n -> dsts().stream().filter(d -> d.name().equals(n)).findFirst());
        if (def.isPresent() && opts.defaultDataStreamTypeNameDefinition()) {
            h.append("#define _BARECTF_DEFAULT_STREAM ").append(def.get().name())
                .append("\n\n#define _BARECTF_DEFAULT_DATA_STREAM_TYPE_NAME ").append(def.get().name()).append("\n");
        }
        def.ifPresent(d -> {
            h.append('\n');
            for (EventRecordType e : d.eventRecordTypes()) {
                h.append("#define ").append(p).append("trace_").append(e.name()).append(' ').append(p).append(d.name())
                    .append("_trace_").append(e.name()).append('\n');
            }
        });
        h.append("\nstruct ").append(p).append("ctx;\n\n");
        h.append("""
            /*
             * The buffer sizes (bytes) init and packet_set_buf accept (hetrace addition): the smallest
             * holds the packet header and context and the largest fixed part of any event record.
             * Given another size, they leave the tracer with no packet (packet_buf_size() is 0): no
             * packet opens and every event record is discarded and counted.
             */
            #define %1$sMIN_PACKET_SIZE	UINT32_C(%2$d)
            #define %1$sMAX_PACKET_SIZE	UINT32_C(%3$d)

            """.formatted(macroPrefix(), minPacketBytes(), MAX_PACKET_BYTES));
        h.append("""
            /*
             * Extends a wrapping 32-bit hardware counter to a monotonic 64-bit clock value (hetrace
             * addition, not in barectf's API). `last` holds the previous result (start it at 0);
             * read the counter at least once per wrap period.
             */
            static inline uint64_t %1$sextend_counter32(uint64_t *last, uint32_t counter)
            {
            	uint64_t value = (*last & ~(uint64_t) UINT32_MAX) | counter;

            	if (value < *last) {
            		value += (uint64_t) UINT32_MAX + 1;
            	}

            	*last = value;
            	return value;
            }

            """.formatted(p));
        for (String decl : List.of("uint32_t %spacket_size(const void *vctx);", "int %spacket_is_full(const void *vctx);",
                "int %spacket_is_empty(const void *vctx);", "uint32_t %spacket_events_discarded(const void *vctx);",
                "uint32_t %sdiscarded_event_records_count(const void * const vctx);",
                "uint32_t %spacket_sequence_number(const void * const vctx);", "uint8_t *%spacket_buf(const void *vctx);",
                "uint8_t *%spacket_buf_addr(const void * const vctx);",
                "void %spacket_set_buf(void *vctx, uint8_t *buf, uint32_t buf_size);",
                "uint32_t %spacket_buf_size(const void *vctx);", "int %spacket_is_open(const void *vctx);",
                "int %sis_in_tracing_section(const void *vctx);",
                "volatile const int *%sis_in_tracing_section_ptr(const void *vctx);",
                "int %sis_tracing_enabled(const void *vctx);", "void %senable_tracing(void *vctx, int enable);")) {
            h.append(decl.formatted(p)).append('\n');
        }
        h.append("\nstruct ").append(p).append("platform_callbacks {\n");
        List<ClockType> clocks = config.trace().type().clockTypes();
        if (!clocks.isEmpty()) {
            h.append("\t/* Clock source callbacks */\n");
            for (ClockType c : clocks) {
                h.append('\t').append(clockCType(c)).append(" (*").append(c.name()).append("_clock_get_value)(void *);\n");
            }
            h.append('\n');
        }
        h.append("""
            	/* Is the back end full? */
            	int (*is_backend_full)(void *);

            	/* Open packet */
            	void (*open_packet)(void *);

            	/* Close packet */
            	void (*close_packet)(void *);
            };

            struct %1$sctx {
            	/* Platform callbacks */
            	struct %1$splatform_callbacks cbs;

            	/* Platform data (passed to callbacks) */
            	void *data;

            	/* Output buffer (will contain a CTF binary packet) */
            	uint8_t *buf;

            	/* Packet's total size (bits) */
            	uint32_t packet_size;

            	/* Packet's content size (bits) */
            	uint32_t content_size;

            	/* Current position from beginning of packet (bits) */
            	uint32_t at;

            	/* Size of packet header + context fields (content offset) */
            	uint32_t off_content;

            	/* Discarded event records counter snapshot */
            	uint32_t events_discarded;

            	/* Packet's sequence number */
            	uint32_t sequence_number;

            	/* Current packet is open? */
            	int packet_is_open;

            	/* In tracing code? */
            	volatile int in_tracing_section;

            	/* Tracing is enabled? */
            	volatile int is_tracing_enabled;

            	/* Use current/last event record timestamp when opening/closing packets */
            	int use_cur_last_event_ts;

            	/*
            	 * Where the tracing functions' fast path may write up to (bits): the packet's size
            	 * while tracing is enabled, 0 while it is not, so one comparison tests both
            	 * (hetrace addition)
            	 */
            	uint32_t room_end;
            };

            """.formatted(p));
        for (DataStreamType d : dsts()) {
            h.append("struct ").append(p).append(d.name()).append("_ctx {\n\t/* Parent */\n\tstruct ").append(p)
                .append("ctx parent;\n\n\t/* Config-specific members follow */\n");
            for (Member m : config.trace().type().packetHeader().members()) {
                h.append("\tuint32_t off_ph_").append(m.name()).append(";\n");
            }
            for (Member m : d.packetContext().members()) {
                h.append("\tuint32_t off_pc_").append(m.name()).append(";\n");
            }
            d.defaultClockType().ifPresent(c -> h.append('\t').append(clockCType(c)).append(" cur_last_event_ts;\n"));
            h.append("};\n\n");
        }
        h.append(initProto()).append(";\n\n");
        for (DataStreamType d : dsts()) {
            h.append(openProto(d)).append(";\n\n").append(closeProto(d)).append(";\n\n");
            for (EventRecordType e : d.eventRecordTypes()) {
                h.append(traceProto(d, e)).append(";\n\n");
            }
        }
        h.append("#ifdef __cplusplus\n}\n#endif\n\n#endif /* ").append(guard).append(" */\n");
        return h.toString();
    }

    /** The largest packet (bytes): bit positions and the fast path's bounds stay far from 2^32. */
    static final int MAX_PACKET_BYTES = 1 << 28;

    private String macroPrefix() {
        return p.toUpperCase();
    }

    /**
     * The smallest packet (bytes) of the configuration: of every data stream type, the packet
     * header and context (strings empty, dynamic arrays empty) and the largest event record whose
     * strings are empty and dynamic arrays empty, with its largest alignment padding.
     */
    static int minPacketBytes(Configuration config) {
        return new CTracer(config).minPacketBytes();
    }

    private int minPacketBytes() {
        long most = 0;
        for (DataStreamType d : dsts()) {
            most = Math.max(most, contentBound(d).leastBits() + largestEventLeastBits(d));
        }
        return (int) ((most + 7) / 8);
    }

    /** The largest event record of a data stream type with its strings and dynamic arrays empty (bits). */
    private long largestEventLeastBits(DataStreamType d) {
        int start = recordStart(d);
        long event = 0;
        for (EventRecordType e : d.eventRecordTypes()) {
            event = Math.max(event, bound(d, e, start).leastBits());
        }
        return event;
    }

    // ---- source ----------------------------------------------------------------------------

    private String source(String headerName) {
        StringBuilder c = new StringBuilder();
        c.append("/* Generated by hetrace from a barectf configuration. */\n\n");
        c.append("#include <stdint.h>\n#include <string.h>\n\n#include \"").append(headerName).append("\"\n\n");
        c.append("""
            #define _ALIGN(_at_var, _align)						\\
            	do {								\\
            		(_at_var) = ((_at_var) + ((_align) - 1)) & ~(uint64_t) ((_align) - 1);	\\
            	} while (0)

            #if defined(__GNUC__)
            # define _COMPILER_BARRIER()	__asm__ __volatile__("" ::: "memory")
            #else
            # define _COMPILER_BARRIER()	do { } while (0)
            #endif

            /* Keeps the rare path (opening and closing packets) out of the tracing functions */
            #if defined(__GNUC__)
            # define _NOINLINE	__attribute__((noinline))
            #else
            # define _NOINLINE
            #endif

            /* Fixed-size copies become plain loads and stores, even with -ffreestanding */
            #if defined(__GNUC__)
            # define _MEMCPY	__builtin_memcpy
            #else
            # define _MEMCPY	memcpy
            #endif

            #define _BITS_TO_BYTES(_x)	((_x) >> 3)
            #define _BYTES_TO_BITS(_x)	((_x) << 3)

            union _f2u {
            	float f;
            	uint32_t u;
            };

            union _d2u {
            	double f;
            	uint64_t u;
            };

            """);
        c.append(clockReaders());
        c.append(bitWriter());
        if (dsts().stream().anyMatch(d -> d.eventRecordTypes().stream()
                .anyMatch(e -> traceParams(d, e).stream().anyMatch(prm -> prm.type() instanceof StringType)))) {
            c.append(shortStrings());
        }
        c.append("""
            /*
             * The packet size (bits) of a buffer of buf_size bytes, or 0 (no packet ever opens: every
             * event record is discarded and counted) if the buffer cannot hold the packet header and
             * context with the largest fixed part of an event record, or is too large for the 32-bit
             * bit positions with room to spare
             */
            static uint32_t _packet_size_of(const uint32_t buf_size)
            {
            	if (buf_size < %2$sMIN_PACKET_SIZE || buf_size > %2$sMAX_PACKET_SIZE) {
            		return 0;
            	}

            	return _BYTES_TO_BITS(buf_size);
            }

            uint32_t %1$spacket_size(const void * const vctx)
            {
            	return ((const struct %1$sctx *) vctx)->packet_size;
            }

            int %1$spacket_is_full(const void * const vctx)
            {
            	const struct %1$sctx * const ctx = (const struct %1$sctx *) vctx;

            	return ctx->at == ctx->packet_size;
            }

            int %1$spacket_is_empty(const void * const vctx)
            {
            	const struct %1$sctx * const ctx = (const struct %1$sctx *) vctx;

            	return ctx->at <= ctx->off_content;
            }

            uint32_t %1$spacket_events_discarded(const void * const vctx)
            {
            	return ((const struct %1$sctx *) vctx)->events_discarded;
            }

            uint32_t %1$sdiscarded_event_records_count(const void * const vctx)
            {
            	return %1$spacket_events_discarded(vctx);
            }

            uint32_t %1$spacket_sequence_number(const void * const vctx)
            {
            	return ((const struct %1$sctx *) vctx)->sequence_number;
            }

            uint8_t *%1$spacket_buf(const void * const vctx)
            {
            	return ((const struct %1$sctx *) vctx)->buf;
            }

            uint8_t *%1$spacket_buf_addr(const void * const vctx)
            {
            	return %1$spacket_buf(vctx);
            }

            uint32_t %1$spacket_buf_size(const void * const vctx)
            {
            	return _BITS_TO_BYTES(((const struct %1$sctx *) vctx)->packet_size);
            }

            void %1$spacket_set_buf(void * const vctx, uint8_t * const buf, const uint32_t buf_size)
            {
            	struct %1$sctx * const ctx = (struct %1$sctx *) vctx;

            	const uint32_t packet_size = _packet_size_of(buf_size);

            	ctx->buf = buf;

            	if (ctx->at == ctx->packet_size) {
            		/* Keep full packet state */
            		ctx->at = packet_size;
            	}

            	ctx->packet_size = packet_size;
            	ctx->room_end = ctx->is_tracing_enabled ? ctx->packet_size : 0;
            }

            int %1$spacket_is_open(const void * const vctx)
            {
            	return ((const struct %1$sctx *) vctx)->packet_is_open;
            }

            int %1$sis_in_tracing_section(const void * const vctx)
            {
            	return ((const struct %1$sctx *) vctx)->in_tracing_section;
            }

            volatile const int *%1$sis_in_tracing_section_ptr(const void * const vctx)
            {
            	return &((const struct %1$sctx *) vctx)->in_tracing_section;
            }

            int %1$sis_tracing_enabled(const void * const vctx)
            {
            	return ((const struct %1$sctx *) vctx)->is_tracing_enabled;
            }

            void %1$senable_tracing(void * const vctx, const int enable)
            {
            	struct %1$sctx * const ctx = (struct %1$sctx *) vctx;

            	ctx->is_tracing_enabled = enable;
            	ctx->room_end = enable ? ctx->packet_size : 0;
            }

            /* Makes room for an event record of er_size bits, opening and closing packets as needed. */
            static int _reserve_er_space_slow(struct %1$sctx * const ctx, const uint64_t er_size)
            {
            	/* Event record cannot fit any packet? */
            	if (er_size > ctx->packet_size - ctx->off_content) {
            		goto no_space;
            	}

            	if (%1$spacket_is_full(ctx)) {
            		if (ctx->cbs.is_backend_full(ctx->data)) {
            			goto no_space;
            		}

            		ctx->use_cur_last_event_ts = 1;
            		ctx->cbs.open_packet(ctx->data);
            		ctx->use_cur_last_event_ts = 0;
            	}

            	if (er_size > ctx->packet_size - ctx->at) {
            		ctx->use_cur_last_event_ts = 1;
            		ctx->cbs.close_packet(ctx->data);
            		ctx->use_cur_last_event_ts = 0;

            		if (ctx->cbs.is_backend_full(ctx->data)) {
            			goto no_space;
            		}

            		ctx->use_cur_last_event_ts = 1;
            		ctx->cbs.open_packet(ctx->data);
            		ctx->use_cur_last_event_ts = 0;
            	}

            	/* The platform could not open a packet (or the buffer was refused at init) */
            	if (!ctx->packet_is_open) {
            		goto no_space;
            	}

            	return 1;

            no_space:
            	ctx->events_discarded++;
            	return 0;
            }

            /* The record just traced filled the packet: close it, then leave the tracing section. */
            static _NOINLINE void _close_full_packet(struct %1$sctx * const ctx)
            {
            	ctx->cbs.close_packet(ctx->data);
            	_COMPILER_BARRIER();
            	ctx->in_tracing_section = 0;
            }

            """.formatted(p, macroPrefix()));
        c.append(initProto()).append("\n{\n").append("""
            	struct %1$sctx * const ctx = (struct %1$sctx *) vctx;

            	ctx->cbs = cbs;
            	ctx->data = data;
            	ctx->buf = buf;
            	ctx->packet_size = _packet_size_of(buf_size);
            	ctx->at = 0;
            	ctx->off_content = 0;
            	ctx->events_discarded = 0;
            	ctx->sequence_number = 0;
            	ctx->packet_is_open = 0;
            	ctx->in_tracing_section = 0;
            	ctx->is_tracing_enabled = 1;
            	ctx->use_cur_last_event_ts = 0;
            	ctx->room_end = ctx->packet_size;
            }

            """.formatted(p));
        for (DataStreamType d : dsts()) {
            dataStreamType(c, d);
        }
        return c.toString();
    }

    /**
     * How each clock type is read: through the platform callback, unless the build defines
     * {@code PREFIX_NAME_CLOCK_READ(data)} to read it directly (a hetrace addition).
     */
    private String clockReaders() {
        StringBuilder c = new StringBuilder();
        for (ClockType clk : config.trace().type().clockTypes()) {
            String macro = (p + clk.name() + "_clock_read").toUpperCase(java.util.Locale.ROOT);
            c.append("""
                /*
                 * Reads clock type `%2$s`: through the platform callback, unless the build defines
                 * %1$s(data) as an expression reading the clock directly, e.g. a timer register:
                 * -D'%1$s(data)=(*(volatile uint32_t *) 0x1c0000)'. This saves an indirect call
                 * on every tracepoint (hetrace addition); `data` is the platform data given to init.
                 */
                #ifdef %1$s
                # define _CLOCK_READ_%2$s(_ctx)	((%3$s) %1$s((_ctx)->data))
                #else
                # define _CLOCK_READ_%2$s(_ctx)	((_ctx)->cbs.%2$s_clock_get_value((_ctx)->data))
                #endif

                """.formatted(macro, clk.name(), clockCType(clk)));
        }
        return c.toString();
    }

    /** The longest string (with its NUL) a tracing function's fast path copies itself. */
    static final int SHORT_STRING = 32;

    /**
     * Strings in the fast path: their size is found by testing bytes inline and they are copied
     * by at most two fixed-size copies, so that a short string (a task, function or queue name)
     * makes no call; a longer one goes to the slow path, which calls strlen and memcpy.
     */
    private static String shortStrings() {
        StringBuilder tests = new StringBuilder();
        for (int i = 0; i < SHORT_STRING; i++) {
            tests.append("\t_TEST(").append(i).append(");").append(i % 8 == 7 ? "\n" : "");
        }
        return """
            /* The byte size (with its NUL) of a string of at most %1$d bytes, else 0. */
            static inline uint32_t _short_string_size(const char * const s)
            {
            #define _TEST(_i)	do { if (s[_i] == '\\0') { return (_i) + 1; } } while (0)
            %2$s#undef _TEST
            	return 0;
            }

            /* Copies n bytes (1 to %1$d) as at most two overlapping copies of a fixed size. */
            static inline void _copy_short(uint8_t * const d, const char * const s, const uint32_t n)
            {
            	if (n > 16) {
            		_MEMCPY(d, s, 16);
            		_MEMCPY(d + n - 16, s + n - 16, 16);
            	} else if (n >= 8) {
            		_MEMCPY(d, s, 8);
            		_MEMCPY(d + n - 8, s + n - 8, 8);
            	} else if (n >= 4) {
            		_MEMCPY(d, s, 4);
            		_MEMCPY(d + n - 4, s + n - 4, 4);
            	} else if (n >= 2) {
            		_MEMCPY(d, s, 2);
            		_MEMCPY(d + n - 2, s + n - 2, 2);
            	} else {
            		*d = (uint8_t) *s;
            	}
            }

            """.formatted(SHORT_STRING, tests);
    }

    /** Writes {@code len} bits of {@code v} at bit {@code at}, CTF's bit order for the trace's byte order. */
    private String bitWriter() {
        String body = bigEndian ? """
            	/* Big endian: the most significant bits first, from each byte's most significant bit */
            	if ((at & 7) == 0 && (len & 7) == 0) {
            		uint8_t *b = &buf[at >> 3];
            		unsigned int n = len >> 3;

            		while (n > 0) {
            			n--;
            			*b++ = (uint8_t) (v >> (n * 8));
            		}

            		return;
            	}

            	while (len > 0) {
            		const unsigned int shift = at & 7;
            		const unsigned int n = 8 - shift < len ? 8 - shift : len;
            		const unsigned int pos = 8 - shift - n;
            		const unsigned int mask = ((1u << n) - 1u) << pos;
            		const unsigned int bits = (unsigned int) ((v >> (len - n)) & ((1u << n) - 1u));
            		uint8_t * const b = &buf[at >> 3];

            		*b = (uint8_t) ((*b & ~mask) | (bits << pos));
            		len -= n;
            		at += n;
            	}
            """ : """
            	/* Little endian: the least significant bits first, from each byte's least significant bit */
            	if ((at & 7) == 0 && (len & 7) == 0) {
            		uint8_t *b = &buf[at >> 3];

            		for (; len > 0; len -= 8) {
            			*b++ = (uint8_t) v;
            			v >>= 8;
            		}

            		return;
            	}

            	while (len > 0) {
            		const unsigned int shift = at & 7;
            		const unsigned int n = 8 - shift < len ? 8 - shift : len;
            		const unsigned int mask = ((1u << n) - 1u) << shift;
            		uint8_t * const b = &buf[at >> 3];

            		*b = (uint8_t) ((*b & ~mask) | (((unsigned int) v << shift) & mask));
            		v >>= n;
            		len -= n;
            		at += n;
            	}
            """;
        // Whole bytes: one store of the value in the trace's byte order. Where the compiler
        // tells the host's byte order, memcpy of the (swapped if needed) value is a single store
        // (byte stores would be merged into shifts and vector registers by some compilers);
        // elsewhere, byte by byte.
        String order = bigEndian ? "__ORDER_BIG_ENDIAN__" : "__ORDER_LITTLE_ENDIAN__";
        StringBuilder fixed = new StringBuilder();
        fixed.append("#if defined(__BYTE_ORDER__) && defined(").append(order).append(") && __BYTE_ORDER__ == ")
            .append(order).append("\n");
        for (int size : new int[] {8, 16, 32, 64}) {
            fixed.append(fixedWriter(size, "(uint" + size + "_t) v"));
        }
        fixed.append("#elif defined(__GNUC__) && defined(__BYTE_ORDER__)\n");
        for (int size : new int[] {8, 16, 32, 64}) {
            fixed.append(fixedWriter(size, size == 8 ? "(uint8_t) v" : "__builtin_bswap" + size + "((uint" + size + "_t) v)"));
        }
        fixed.append("#else\n");
        for (int size : new int[] {8, 16, 32, 64}) {
            fixed.append("static inline void _write_").append(size).append("(uint8_t * const b, const uint64_t v)\n{\n");
            for (int k = 0; k < size / 8; k++) {
                int shift = bigEndian ? size - 8 - 8 * k : 8 * k;
                fixed.append("\tb[").append(k).append("] = (uint8_t) ").append(shift == 0 ? "v" : "(v >> " + shift + ")").append(";\n");
            }
            fixed.append("}\n\n");
        }
        fixed.append("#endif\n\n");
        return "static void _write_bits(uint8_t * const buf, uint32_t at, uint64_t v, unsigned int len)\n{\n" + body
            + "}\n\n" + fixed;
    }

    private static String fixedWriter(int size, String value) {
        return "static inline void _write_" + size + "(uint8_t * const b, const uint64_t v)\n{\n\tconst uint" + size
            + "_t u = " + value + ";\n\n\t_MEMCPY(b, &u, " + size / 8 + ");\n}\n\n";
    }

    /**
     * The start of open_packet ({@code opening}) and close_packet: platforms call them with
     * tracing disabled or from within a tracepoint (in_tracing_section set); either leaves a
     * packet already in the wanted state alone.
     */
    private static String packetEntry(boolean opening) {
        return """
            	const int saved_in_tracing_section = ctx->in_tracing_section;

            	/* Called by the platform while tracing is disabled: leave the packet alone */
            	if (!ctx->is_tracing_enabled && !saved_in_tracing_section) {
            		ctx->in_tracing_section = 0;
            		return;
            	}

            	ctx->in_tracing_section = 1;

            	if (%sctx->packet_is_open) {
            		ctx->in_tracing_section = saved_in_tracing_section;
            		return;
            	}

            """.formatted(opening ? "" : "!");
    }

    private void dataStreamType(StringBuilder c, DataStreamType d) {
        String sctxType = "struct " + p + d.name() + "_ctx";
        Optional<ClockType> clock = d.defaultClockType();
        // open
        c.append(openProto(d)).append("\n{\n\tstruct ").append(p).append("ctx * const ctx = &sctx->parent;\n");
        boolean begTs = clock.isPresent() && d.packetFeatures().beginningTimestamp().isPresent();
        if (begTs) {
            c.append(packetTimestamp(clock.get()));
        }
        c.append(packetEntry(true)).append("""
            	/* A buffer init or packet_set_buf refused: no packet */
            	if (ctx->packet_size == 0) {
            		ctx->in_tracing_section = saved_in_tracing_section;
            		return;
            	}

            	uint8_t * const buf = ctx->buf;
            	uint32_t at = 0;

            """);
        StructureType ph = config.trace().type().packetHeader();
        if (ph.members().stream().anyMatch(m -> m.name().equals("uuid"))) {
            c.append("\tstatic const uint8_t uuid[16] = {");
            byte[] bytes = uuidBytes();
            for (int i = 0; i < 16; i++) {
                c.append(i == 0 ? "" : ", ").append(bytes[i] & 0xff);
            }
            c.append("};\n\n");
        }
        if (!contentBound(d).constant()) {
            // strings or arrays in the packet context: the minimum packet size counted them empty
            c.append("\t/* The packet context must leave room for an event record, else no packet */\n\t{\n\t\tuint64_t end = 0;\n\n");
            Cursor size = new Cursor(c, "\t\t", "end", Cursor.AT_ZERO, false);
            size.align(ph.alignment());
            for (Member m : ph.members()) {
                size.field(m.type(), "", "", null);
            }
            size.align(d.packetContext().alignment());
            for (Member m : d.packetContext().members()) {
                size.field(m.type(), PC + "_" + m.name(), PC + "___" + m.name() + "_len", null);
            }
            size.flush();
            c.append("\t\tif (end + ").append(largestEventLeastBits(d)).append(" > ctx->packet_size) {\n")
                .append("\t\t\t/* as a full packet: records go to the slow path, which opens a packet or counts them */\n")
                .append("\t\t\tctx->at = ctx->packet_size;\n")
                .append("\t\t\tctx->in_tracing_section = saved_in_tracing_section;\n\t\t\treturn;\n\t\t}\n\t}\n\n");
        }
        c.append("\t(void) buf;\n\t/* Packet header */\n");
        // the packet starts at 0: every position is a constant until a field of variable size
        Cursor cur = new Cursor(c, "\t", "at", Cursor.AT_ZERO, true);
        cur.align(ph.alignment());
        for (Member m : ph.members()) {
            c.append("\tsctx->off_ph_").append(m.name()).append(" = ").append(cur.position()).append(";\n");
            String src = switch (m.name()) {
                case "magic" -> "UINT32_C(0xc1fc1fc1)";
                case "stream_id" -> "UINT64_C(" + d.id() + ")";
                default -> "uuid";
            };
            cur.field(m.type(), src, "", null);
        }
        c.append("\n\t/* Packet context */\n");
        cur.align(d.packetContext().alignment());
        for (Member m : d.packetContext().members()) {
            IntegerType it = m.type() instanceof IntegerType i ? i : null;
            switch (m.name()) {
                case "packet_size" -> cur.field(it, "ctx->packet_size", "", null);
                case "timestamp_begin" -> cur.field(it, begTs ? "ts" : "0", "", null);
                case "packet_seq_num" -> cur.field(it, "ctx->sequence_number", "", null);
                case "content_size", "timestamp_end", "events_discarded" -> {
                    // written when the packet closes
                    cur.align(it.alignment());
                    c.append("\tsctx->off_pc_").append(m.name()).append(" = ").append(cur.position()).append(";\n");
                    cur.skip(it.alignment(), it.size());
                }
                default -> cur.field(m.type(), PC + "_" + m.name(), PC + "___" + m.name() + "_len", null);
            }
        }
        cur.flush();
        c.append("""

            	ctx->at = at;
            	ctx->off_content = at;
            	ctx->packet_is_open = 1;
            	ctx->in_tracing_section = saved_in_tracing_section;
            }

            """);
        // close
        c.append(closeProto(d)).append("\n{\n\tstruct ").append(p).append("ctx * const ctx = &sctx->parent;\n");
        boolean endTs = clock.isPresent() && d.packetFeatures().endTimestamp().isPresent();
        if (endTs) {
            c.append(packetTimestamp(clock.get()));
        }
        c.append(packetEntry(false)).append("""
            	ctx->content_size = ctx->at;
            """);
        d.packetFeatures().endTimestamp().ifPresent(it -> c.append("\t_write_bits(ctx->buf, sctx->off_pc_timestamp_end, (uint64_t) ")
            .append(endTs ? "ts" : "0").append(", ").append(it.size()).append(");\n"));
        c.append("\t_write_bits(ctx->buf, sctx->off_pc_content_size, (uint64_t) ctx->content_size, ")
            .append(d.packetFeatures().contentSize().size()).append(");\n");
        d.packetFeatures().discardedEventRecordsCounterSnapshot().ifPresent(it ->
            c.append("\t_write_bits(ctx->buf, sctx->off_pc_events_discarded, (uint64_t) ctx->events_discarded, ")
                .append(it.size()).append(");\n"));
        c.append("\tctx->at = ctx->packet_size;\n\tctx->packet_is_open = 0;\n");
        if (d.packetFeatures().sequenceNumber().isPresent()) {
            c.append("\tctx->sequence_number++;\n");
        }
        c.append("\tctx->in_tracing_section = saved_in_tracing_section;\n}\n\n");
        int start = recordStart(d);
        for (EventRecordType e : d.eventRecordTypes()) {
            eventRecordType(c, d, e, sctxType, start);
        }
    }

    /** The time a packet opens or closes at: the event's being traced when it does so, else now. */
    private String packetTimestamp(ClockType clock) {
        return "\tconst " + clockCType(clock) + " ts = ctx->use_cur_last_event_ts ?\n\t\tsctx->cur_last_event_ts :\n"
            + "\t\t_CLOCK_READ_" + clock.name() + "(ctx);\n";
    }

    /**
     * An event record type's tracing function. The fast path runs when the open packet has
     * room: it checks the room against a bound of the record's size that costs an instruction or
     * two (every record of the stream starts at a known alignment, see {@link #recordStart}),
     * serializes the record, then reads the clock and writes the timestamp into the header, so
     * that only the context and a pointer stay live across the clock read, and it calls nothing
     * else (closing a packet the record filled is a tail call). Strings of up to {@value
     * #SHORT_STRING} bytes are measured and copied inline. Anything else (no open packet, a room
     * the bound does not prove, a longer string) goes to a separate slow function, which reads
     * the clock first, computes the exact size in 64 bits and opens and closes packets as barectf does
     * (then sizes the record again: a new packet's alignment padding may differ), so
     * both give the same packets for the same calls and clock values.
     */
    private void eventRecordType(StringBuilder c, DataStreamType d, EventRecordType e, String sctxType, int start) {
        List<Param> params = traceParams(d, e);
        String suffix = d.name() + "_" + e.name();
        List<Param> strings = params.stream().filter(prm -> prm.type() instanceof StringType).toList();
        String unused = params.stream().filter(prm -> prm.type() instanceof StaticArrayType a && a.length() == 0)
            .map(prm -> "\t(void) " + prm.name() + ";\n").reduce("", String::concat);
        String readClock = d.defaultClockType()
            .map(clk -> "\tsctx->cur_last_event_ts = _CLOCK_READ_" + clk.name() + "(ctx);\n").orElse("");
        RecordBound bound = bound(d, e, start);
        boolean fast = bound.exact();

        // slow path
        StringBuilder serialize = new StringBuilder("\tbuf = ctx->buf;\n");
        String writeTs = serialize(serialize, d, e, start, false);
        String locals = "\tuint8_t *buf;\n" + (writeTs.contains("ts_p") ? "\tuint8_t *ts_p;\n" : "")
            + (writeTs.contains("ts_at") ? "\tuint32_t ts_at;\n" : "");
        c.append("static _NOINLINE void _trace_slow_").append(suffix).append("(").append(sctxType).append(" * const sctx")
            .append(paramDecls(params)).append(")\n{\n\tstruct ").append(p).append("ctx * const ctx = &sctx->parent;\n");
        for (Param prm : strings) {
            c.append("\tconst uint64_t ").append(strLen(prm)).append(" = (uint64_t) strlen(").append(prm.name()).append(") + 1;\n");
        }
        c.append(locals).append("\tuint32_t at = ctx->at;\n\tuint64_t er_size;\n\n").append(unused).append("""
            	/* The fast path sends a call here when tracing is disabled */
            	if (!ctx->is_tracing_enabled) {
            		ctx->in_tracing_section = 0;
            		return;
            	}

            """).append(readClock);
        erSize(c, d, e, start);
        c.append("""
            	if (!_reserve_er_space_slow(ctx, er_size)) {
            		ctx->in_tracing_section = 0;
            		return;
            	}

            	if (ctx->at != at) {
            		/* A new packet: the record's alignment padding, hence its size, may differ there */
            		at = ctx->at;
            """);
        erSize(c, d, e, start, "\t\t");
        c.append("""
            		if (er_size > ctx->packet_size - at) {
            			ctx->events_discarded++;
            			ctx->in_tracing_section = 0;
            			return;
            		}
            	}

            """).append(serialize).append(writeTs).append("""
            	if (ctx->at == ctx->packet_size) {
            		_close_full_packet(ctx);
            		return;
            	}

            	_COMPILER_BARRIER();
            	ctx->in_tracing_section = 0;
            }

            """);

        // the tracing function
        StringBuilder fastSerialize = new StringBuilder("\tbuf = ctx->buf;\n");
        String fastWriteTs = serialize(fastSerialize, d, e, start, fast);
        c.append(traceProto(d, e)).append("\n{\n\tstruct ").append(p).append("ctx * const ctx = &sctx->parent;\n")
            .append(locals).append(fast ? "\tuint32_t at, packet_size;\n\n" : "\tuint32_t at, packet_size;\n\tuint64_t er_size;\n\n")
            .append(unused);
        // Unlike barectf's, a tracepoint that interrupts another one (an ISR on the same core)
        // must not touch the packet nor the saved timestamp: it is discarded and counted. The
        // barrier keeps the compiler from reading the context before the section is entered.
        // With the bound, a disabled tracing (room_end 0) fails the room test and the slow
        // function returns: one test fewer. A record of no bits fits anything: it tests both.
        boolean mayBeEmpty = d.eventRecordHeader().members().isEmpty();
        boolean roomTestsEnabled = fast && !mayBeEmpty && bound.noArrayTerms() && bound.constantBits() < (1 << 20);
        if (!roomTestsEnabled) {
            c.append("\tif (!ctx->is_tracing_enabled) {\n\t\treturn;\n\t}\n\n");
        }
        c.append("""
            	if (ctx->in_tracing_section) {
            		if (ctx->is_tracing_enabled) {
            			ctx->events_discarded++;
            		}

            		return;
            	}

            	ctx->in_tracing_section = 1;
            	_COMPILER_BARRIER();

            """);
        StringBuilder noRoom = new StringBuilder();
        if (mayBeEmpty) {
            noRoom.append("at == packet_size || "); // a record of no bits fits a full packet: test that none is open
        }
        for (Param prm : strings) {
            c.append(fast ? "\tconst uint32_t " : "\tconst uint64_t ").append(strLen(prm)).append(" = ")
                .append(fast ? "_short_string_size(" + prm.name() + ")" : "(uint64_t) strlen(" + prm.name() + ") + 1").append(";\n");
            if (fast) {
                noRoom.append(strLen(prm)).append(" == 0 || ");
            }
        }
        c.append("\tat = ctx->at;\n\tpacket_size = ctx->").append(roomTestsEnabled ? "room_end" : "packet_size").append(";\n");
        if (fast) {
            if (roomTestsEnabled) {
                // no overflow: the bound is under 2^20 bits plus strings of at most SHORT_STRING
                // bytes, and packets are under 2^32 bits (buf_size is in bytes) minus that
                noRoom.append("at + (uint32_t) (").append(bound.expression()).append(") > packet_size");
            } else {
                noRoom.append("(uint64_t) (").append(bound.expression()).append(") > packet_size - at");
            }
        } else {
            erSize(c, d, e, start);
            noRoom.append("er_size > packet_size - at");
        }
        c.append("\tif (").append(noRoom).append(") {\n\t\t_trace_slow_").append(suffix).append("(sctx")
            .append(paramNames(params)).append(");\n\t\treturn;\n\t}\n\n");
        // the packet_size read above stays valid: nothing but this function touches the context meanwhile
        String stamp = readClock + fastWriteTs.replace("\n\n", "\n");
        c.append(fastSerialize).append("\n\tif (at == packet_size) {\n").append(stamp.replaceAll("(?m)^\t", "\t\t"))
            .append("\t\t_close_full_packet(ctx);\n\t\treturn;\n\t}\n\n").append(stamp).append("""
            	_COMPILER_BARRIER();
            	ctx->in_tracing_section = 0;
            }

            """);
    }

    private static String strLen(Param prm) {
        return "_size_" + prm.name();
    }

    /**
     * Statements serializing the record at {@code at} in {@code buf} but its timestamp, leaving
     * {@code ctx->at} at its end and {@code ts_p} (or {@code ts_at}) where the timestamp goes;
     * returns the statement writing the timestamp (empty without one).
     */
    private String serialize(StringBuilder c, DataStreamType d, EventRecordType e, int start, boolean shortStrings) {
        Cursor w = new Cursor(c, "\t", "at", start, true);
        if (shortStrings) {
            w.shortStrings();
        }
        StructureType erh = d.eventRecordHeader();
        String writeTs = "";
        w.align(erh.alignment());
        for (Member m : erh.members()) {
            IntegerType it = (IntegerType) m.type();
            if (m.name().equals("id")) {
                w.field(it, Integer.toString(e.id()), "", null);
            } else if (d.defaultClockType().isEmpty()) {
                w.field(it, "0", "", null);
            } else {
                // written once the clock is read
                w.align(it.alignment());
                String value = "(uint64_t) sctx->cur_last_event_ts";
                int size = it.size();
                if (w.byteAligned() && (size == 8 || size == 16 || size == 32 || size == 64)) {
                    c.append("\tts_p = ").append(w.bytePointer("buf")).append(";\n");
                    writeTs = "\t_write_" + size + "(ts_p, " + value + ");\n\n";
                } else {
                    c.append("\tts_at = ").append(w.position()).append(";\n");
                    writeTs = "\t_write_bits(buf, ts_at, " + value + ", " + size + ");\n\n";
                }
                w.skip(it.alignment(), size);
            }
        }
        payload(w, d, e);
        w.flush();
        c.append("\tctx->at = at;\n");
        return writeTs;
    }

    /** Lays out the common context, specific context and payload of an event record. */
    private static void payload(FieldSink cur, DataStreamType d, EventRecordType e) {
        List<Optional<StructureType>> roots = List.of(d.eventRecordCommonContext(), e.specificContext(), e.payload());
        List<String> prefixes = List.of(ERCC, ERSC, ERP);
        for (int r = 0; r < roots.size(); r++) {
            if (roots.get(r).isPresent()) {
                cur.align(roots.get(r).get().alignment());
                for (Member m : roots.get(r).get().members()) {
                    String name = prefixes.get(r) + "_" + m.name();
                    cur.field(m.type(), name, prefixes.get(r) + "___" + m.name() + "_len",
                        m.type() instanceof StringType ? strLen(new Param(name, m.type())) : null);
                }
            }
        }
    }

    /** Statements setting {@code er_size} to the bits of the event record starting at {@code at}. */
    private void erSize(StringBuilder c, DataStreamType d, EventRecordType e, int start) {
        erSize(c, d, e, start, "\t");
    }

    /** The same, indented by {@code ind}; sizes add in 64 bits, so no string or array length wraps them. */
    private void erSize(StringBuilder c, DataStreamType d, EventRecordType e, int start, String ind) {
        c.append(ind).append("{\n").append(ind).append("\tuint64_t end = at;\n\n");
        Cursor s = new Cursor(c, ind + "\t", "end", start, false);
        s.align(d.eventRecordHeader().alignment());
        for (Member m : d.eventRecordHeader().members()) {
            IntegerType it = (IntegerType) m.type();
            s.skip(it.alignment(), it.size());
        }
        payload(s, d, e);
        s.flush();
        c.append(ind).append("\ter_size = end - at;\n").append(ind).append("}\n\n");
    }

    /** The bound of an event record's size from a position that is a multiple of {@code start} bits. */
    private static RecordBound bound(DataStreamType d, EventRecordType e, int start) {
        RecordBound b = new RecordBound(start);
        b.align(d.eventRecordHeader().alignment());
        for (Member m : d.eventRecordHeader().members()) {
            b.field(m.type(), "");
        }
        payload(b, d, e);
        return b;
    }

    /**
     * The largest power of two (bits, up to 4096) that every event record of the stream starts
     * at a multiple of: the packet content starts at one, and each record type, started at one,
     * ends at one. Alignments up to it then cost nothing at run time.
     */
    private int recordStart(DataStreamType d) {
        RecordBound content = contentBound(d);
        if (!content.exact()) {
            return 1;
        }
        candidates:
        for (int start = 4096; start > 1; start >>= 1) {
            if (!content.multipleOf(start)) {
                continue;
            }
            for (EventRecordType e : d.eventRecordTypes()) {
                RecordBound end = bound(d, e, start);
                if (!end.exact() || !end.multipleOf(start)) {
                    continue candidates;
                }
            }
            return start;
        }
        return 1;
    }

    /** The packet header and context of a data stream type's packets, from the packet's start. */
    private RecordBound contentBound(DataStreamType d) {
        RecordBound content = new RecordBound(Cursor.AT_ZERO);
        StructureType ph = config.trace().type().packetHeader();
        content.align(ph.alignment());
        for (Member m : ph.members()) {
            content.field(m.type(), "");
        }
        content.align(d.packetContext().alignment());
        for (Member m : d.packetContext().members()) {
            content.field(m.type(), "");
        }
        return content;
    }

    private byte[] uuidBytes() {
        return uuidBytes(config);
    }

    /** The trace UUID as the packet headers hold it (zeros without one). */
    static byte[] uuidBytes(Configuration config) {
        byte[] b = new byte[16];
        config.trace().type().uuid().ifPresent(u -> {
            long hi = u.getMostSignificantBits();
            long lo = u.getLeastSignificantBits();
            for (int i = 0; i < 8; i++) {
                b[i] = (byte) (hi >>> (56 - 8 * i));
                b[8 + i] = (byte) (lo >>> (56 - 8 * i));
            }
        });
        return b;
    }
}

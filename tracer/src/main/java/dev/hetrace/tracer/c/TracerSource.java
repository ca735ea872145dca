package dev.hetrace.tracer.c;

import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.config.Configuration.ByteOrder;
import dev.hetrace.tracer.config.Configuration.ClockType;
import dev.hetrace.tracer.config.Configuration.DataStreamType;
import dev.hetrace.tracer.config.Configuration.EventRecordType;
import dev.hetrace.tracer.config.FieldType.StringType;
import java.util.List;
import java.util.Locale;

/**
 * The tracer's source {@code PREFIX.c}: the run-time part every tracer shares (its fixed text
 * is in {@code tracer.c.in}), the bit writer of the trace's byte order, the clock readers, then
 * per data stream type its packet functions and its event record types' tracing functions.
 */
final class TracerSource {
    private static final String TEMPLATE = "tracer.c.in";

    private final Configuration config;
    private final TracerApi api;
    private final RecordLayout layout;

    TracerSource(Configuration config, TracerApi api, RecordLayout layout) {
        this.config = config;
        this.api = api;
        this.layout = layout;
    }

    String text(String headerName) {
        CTemplate t = CTemplate.of(TEMPLATE);
        List<DataStreamType> dsts = config.trace().type().dataStreamTypes();
        StringBuilder c = new StringBuilder(t.fill("top", "header", headerName));
        c.append(clockReaders(t));
        // Whole bytes are written as one store of the value in the trace's byte order: where
        // the compiler tells the host's byte order, memcpy of the (swapped if needed) value is a
        // single store (byte stores would be merged into shifts and vector registers by some
        // compilers); elsewhere, byte by byte.
        boolean bigEndian = config.trace().type().nativeByteOrder() == ByteOrder.BIG_ENDIAN;
        c.append(t.fill(bigEndian ? "bit-writer-big-endian" : "bit-writer-little-endian"));
        if (dsts.stream()
                .anyMatch(d -> d.eventRecordTypes().stream()
                        .anyMatch(e -> TracerApi.traceParams(d, e).stream()
                                .anyMatch(prm -> prm.type() instanceof StringType)))) {
            c.append(shortStrings(t));
        }
        c.append(t.fill("runtime", "prefix", api.prefix(), "PREFIX", api.macroPrefix()));
        c.append(api.initProto()).append("\n{\n").append(t.fill("init-body", "prefix", api.prefix()));
        PacketFunctions packets = new PacketFunctions(config, api, layout);
        TracingFunction tracing = new TracingFunction(api);
        for (DataStreamType d : dsts) {
            packets.append(c, d);
            int start = layout.recordStart(d);
            for (EventRecordType e : d.eventRecordTypes()) {
                tracing.append(c, d, e, start);
            }
        }
        return c.toString();
    }

    /**
     * How each clock type is read: through the platform callback, unless the build defines
     * {@code PREFIX_NAME_CLOCK_READ(data)} to read it directly (a hetrace addition).
     */
    private String clockReaders(CTemplate t) {
        StringBuilder c = new StringBuilder();
        for (ClockType clk : config.trace().type().clockTypes()) {
            String macro = (api.prefix() + clk.name() + "_clock_read").toUpperCase(Locale.ROOT);
            c.append(t.fill("clock-reader", "macro", macro, "clock", clk.name(), "ctype", api.clockCType(clk)));
        }
        return c.toString();
    }

    /**
     * Strings in the fast path: their size is found by testing bytes inline and they are copied
     * by at most two fixed-size copies, so that a short string (a task, function or queue name)
     * makes no call; a longer one goes to the slow path, which calls strlen and memcpy.
     */
    private static String shortStrings(CTemplate t) {
        StringBuilder tests = new StringBuilder();
        for (int i = 0; i < TracingFunction.SHORT_STRING; i++) {
            tests.append("\t_TEST(").append(i).append(");").append(i % 8 == 7 ? "\n" : "");
        }
        return t.fill(
                "short-strings", "max", Integer.toString(TracingFunction.SHORT_STRING), "tests", tests.toString());
    }
}

package dev.hetrace.tracer.c;

import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.config.Configuration.ClockType;
import dev.hetrace.tracer.config.Configuration.CodeGenerationOptions;
import dev.hetrace.tracer.config.Configuration.DataStreamType;
import dev.hetrace.tracer.config.Configuration.EventRecordType;
import dev.hetrace.tracer.config.FieldType.Member;
import java.util.List;
import java.util.Optional;

/**
 * The tracer's header {@code PREFIX.h}: barectf 3's declarations (its context structures grow
 * the offsets of this configuration's fields), and hetrace's additions, the accepted buffer
 * sizes and a counter extension. Its fixed text is in {@code tracer.h.in}.
 */
final class TracerHeader {
    private static final String TEMPLATE = "tracer.h.in";

    private final Configuration config;
    private final TracerApi api;
    private final RecordLayout layout;

    TracerHeader(Configuration config, TracerApi api, RecordLayout layout) {
        this.config = config;
        this.api = api;
        this.layout = layout;
    }

    String text() {
        CTemplate t = CTemplate.of(TEMPLATE);
        String p = api.prefix();
        List<DataStreamType> dsts = config.trace().type().dataStreamTypes();
        String guard = "_" + p.toUpperCase() + "H";
        StringBuilder h = new StringBuilder(t.fill("top", "guard", guard));
        CodeGenerationOptions opts = config.options();
        if (opts.identifierPrefixDefinition()) {
            h.append("#define _BARECTF_PREFIX ")
                    .append(p)
                    .append("\n\n#define _BARECTF_IDENTIFIER_PREFIX ")
                    .append(p)
                    .append("\n");
        }
        Optional<DataStreamType> def = opts.defaultDataStreamTypeName()
                .flatMap(n -> dsts.stream().filter(d -> d.name().equals(n)).findFirst());
        if (def.isPresent() && opts.defaultDataStreamTypeNameDefinition()) {
            h.append("#define _BARECTF_DEFAULT_STREAM ")
                    .append(def.get().name())
                    .append("\n\n#define _BARECTF_DEFAULT_DATA_STREAM_TYPE_NAME ")
                    .append(def.get().name())
                    .append("\n");
        }
        def.ifPresent(d -> {
            h.append('\n');
            for (EventRecordType e : d.eventRecordTypes()) {
                h.append("#define ")
                        .append(p)
                        .append("trace_")
                        .append(e.name())
                        .append(' ')
                        .append(p)
                        .append(d.name())
                        .append("_trace_")
                        .append(e.name())
                        .append('\n');
            }
        });
        h.append(t.fill(
                "api",
                "prefix",
                p,
                "PREFIX",
                api.macroPrefix(),
                "min_packet_size",
                Integer.toString(layout.minPacketBytes()),
                "max_packet_size",
                Integer.toString(RecordLayout.MAX_PACKET_BYTES)));
        List<ClockType> clocks = config.trace().type().clockTypes();
        if (!clocks.isEmpty()) {
            h.append("\t/* Clock source callbacks */\n");
            for (ClockType c : clocks) {
                h.append('\t')
                        .append(api.clockCType(c))
                        .append(" (*")
                        .append(c.name())
                        .append("_clock_get_value)(void *);\n");
            }
            h.append('\n');
        }
        h.append(t.fill("context", "prefix", p));
        for (DataStreamType d : dsts) {
            h.append("struct ")
                    .append(p)
                    .append(d.name())
                    .append("_ctx {\n\t/* Parent */\n\tstruct ")
                    .append(p)
                    .append("ctx parent;\n\n\t/* Config-specific members follow */\n");
            for (Member m : config.trace().type().packetHeader().members()) {
                h.append("\tuint32_t off_ph_").append(m.name()).append(";\n");
            }
            for (Member m : d.packetContext().members()) {
                h.append("\tuint32_t off_pc_").append(m.name()).append(";\n");
            }
            d.defaultClockType()
                    .ifPresent(c -> h.append('\t').append(api.clockCType(c)).append(" cur_last_event_ts;\n"));
            h.append("};\n\n");
        }
        h.append(api.initProto()).append(";\n\n");
        for (DataStreamType d : dsts) {
            h.append(api.openProto(d)).append(";\n\n").append(api.closeProto(d)).append(";\n\n");
            for (EventRecordType e : d.eventRecordTypes()) {
                h.append(api.traceProto(d, e)).append(";\n\n");
            }
        }
        h.append(t.fill("bottom", "guard", guard));
        return h.toString();
    }
}

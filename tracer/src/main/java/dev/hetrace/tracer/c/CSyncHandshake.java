package dev.hetrace.tracer.c;

import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.config.Configuration.DataStreamType;
import dev.hetrace.tracer.config.Configuration.SyncHandshake;
import dev.hetrace.tracer.config.FieldType.Member;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The C side of the sync handshake (docs/sync.md): {@code PREFIX-sync.h} and
 * {@code PREFIX-sync.c}, the shared mailbox, the slave's answer for its interrupt handler and
 * the master's exchange. They call the tracer's own tracing functions for the two event record
 * types the configuration's sync option added, so the events are ordinary events of the trace.
 * Freestanding like the tracer ({@code <stdint.h>} only), with GCC/Clang {@code __atomic}
 * builtins for the mailbox's memory ordering.
 */
public final class CSyncHandshake {
    private CSyncHandshake() {}

    /** The files, or none when the configuration has no sync handshake. */
    public static Map<String, String> generate(Configuration config) {
        if (config.sync().isEmpty()) {
            return Map.of();
        }
        CTemplate template = CTemplate.of("sync-handshake.c.in");
        String p = config.options().identifierPrefix();
        String file = config.options().fileNamePrefix();
        String name = config.sync().get().dataStreamTypeName();
        DataStreamType d = config.trace().type().dataStreamTypes().stream()
                .filter(x -> x.name().equals(name))
                .findFirst()
                .orElseThrow();
        String sp = p + "sync_";
        String up = p.toUpperCase() + "SYNC_";
        String sctx = "struct " + p + d.name() + "_ctx";
        String send = p + d.name() + "_trace_" + SyncHandshake.SEND;
        String recv = p + d.name() + "_trace_" + SyncHandshake.RECV;
        // the event record common context, if any, is the tracing functions' first values:
        // the sync functions take them and pass them on (the tracer's parameter names)
        StringBuilder ccDecls = new StringBuilder();
        StringBuilder ccNames = new StringBuilder();
        String ccDoc = "";
        if (d.eventRecordCommonContext().isPresent()
                && !d.eventRecordCommonContext().get().members().isEmpty()) {
            for (Member m : d.eventRecordCommonContext().get().members()) {
                String t = TracerApi.cType(m.type(), false);
                ccDecls.append(",\n\t")
                        .append(t)
                        .append(t.endsWith("*") ? "" : " ")
                        .append("cc_")
                        .append(m.name());
                ccNames.append(", cc_").append(m.name());
            }
            ccDoc = template.fill("common-context-doc");
        }
        String guard = "_" + p.toUpperCase() + "SYNC_H";
        Map<String, String> files = new LinkedHashMap<>();
        files.put(
                file + "-sync.h",
                template.fill(
                        "header",
                        "guard",
                        guard,
                        "file",
                        file,
                        "sync",
                        sp,
                        "stream",
                        d.name(),
                        "MACRO",
                        up,
                        "send_event",
                        SyncHandshake.SEND,
                        "recv_event",
                        SyncHandshake.RECV,
                        "cc_doc",
                        "\n" + ccDoc,
                        "stream_ctx",
                        sctx,
                        "cc_decls",
                        String.valueOf(ccDecls)));
        files.put(
                file + "-sync.c",
                template.fill(
                        "source",
                        "file",
                        file,
                        "sync",
                        sp,
                        "MACRO",
                        up,
                        "stream_ctx",
                        sctx,
                        "prefix",
                        p,
                        "send",
                        send,
                        "recv",
                        recv,
                        "cc_decls",
                        String.valueOf(ccDecls),
                        "cc_names",
                        String.valueOf(ccNames)));
        return files;
    }
}

package dev.hetrace.tracer.c;

import static dev.hetrace.tracer.shm.ShmRingLayout.*;

import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.config.Configuration.DataStreamType;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code shm-ring} platform: a core writes whole packets of one data stream type (the
 * default one, else the first) straight into the slots of its ring in a shared memory region,
 * which {@code hetrace collect} drains. The core side is freestanding like the tracer; a
 * separate small Linux-only helper maps a region file for producers that run as Linux
 * processes. The region layout is {@link dev.hetrace.tracer.shm.ShmRingLayout}'s.
 */
public final class ShmRingPlatform {
    private ShmRingPlatform() {}

    public static Map<String, String> generate(Configuration config) {
        CTemplate t = CTemplate.of("shm-ring-platform.c.in");
        String p = config.options().identifierPrefix();
        String file = config.options().fileNamePrefix();
        DataStreamType d = PlatformParts.stream(config);
        String pp = p + "platform_shm_ring_";
        String up = p.toUpperCase() + "SHM_RING_";
        String sctx = "struct " + p + d.name() + "_ctx";
        PlatformParts.UserClocks clocks = PlatformParts.userClocks(config, pp);
        PlatformParts.OpenArgs open = PlatformParts.openArgs(d);
        byte[] uuid = CTracer.uuidBytes(config);
        StringBuilder uuidInit = new StringBuilder();
        for (byte b : uuid) {
            uuidInit.append(uuidInit.isEmpty() ? "" : ", ").append(b & 0xff);
        }
        Map<String, String> files = new LinkedHashMap<>();
        String guard = "_" + p.toUpperCase() + "PLATFORM_SHM_RING_H";
        files.put(
                file + "-platform-shm-ring.h",
                t.fill(
                        "header",
                        "guard",
                        guard,
                        "file",
                        file,
                        "platform",
                        pp,
                        "stream",
                        d.name(),
                        "MACRO",
                        up,
                        "clock_members",
                        clocks.members(),
                        "magic",
                        String.format("%08x", MAGIC),
                        "version",
                        String.valueOf(VERSION),
                        "header_size",
                        String.valueOf(HEADER_SIZE),
                        "slot_alignment",
                        String.valueOf(SLOT_ALIGNMENT),
                        "stream_ctx",
                        sctx));
        files.put(
                file + "-platform-shm-ring.c",
                t.fill(
                        "source",
                        "file",
                        file,
                        "platform",
                        pp,
                        "clock_functions",
                        clocks.functions(),
                        "prefix",
                        p,
                        "header_size",
                        String.valueOf(HEADER_SIZE),
                        "MACRO",
                        up,
                        "stream",
                        d.name(),
                        "open_args",
                        open.args(),
                        "open_decls",
                        open.decls(),
                        "stream_id",
                        String.valueOf(d.id()),
                        "uuid",
                        String.valueOf(uuidInit),
                        "slot_alignment",
                        String.valueOf(SLOT_ALIGNMENT),
                        "max_slot_count",
                        String.valueOf(MAX_SLOT_COUNT),
                        "clock_init",
                        clocks.init(),
                        "stream_ctx",
                        sctx,
                        "PREFIX",
                        p.toUpperCase()));
        String lguard = "_" + p.toUpperCase() + "SHM_RING_LINUX_H";
        files.put(file + "-shm-ring-linux.h", t.fill("linux-header", "guard", lguard, "prefix", p));
        files.put(file + "-shm-ring-linux.c", t.fill("linux-source", "file", file, "prefix", p, "MACRO", up));
        return files;
    }
}

package dev.hetrace.tracer.c;

import static dev.hetrace.tracer.shm.ShmRingLayout.*;

import dev.hetrace.tracer.config.Configuration;
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
        PlatformParts.Names n = PlatformParts.names(config, "shm_ring");
        byte[] uuid = CTracer.uuidBytes(config);
        StringBuilder uuidInit = new StringBuilder();
        for (byte b : uuid) {
            uuidInit.append(uuidInit.isEmpty() ? "" : ", ").append(b & 0xff);
        }
        Map<String, String> files = new LinkedHashMap<>();
        files.put(
                n.file() + "-platform-shm-ring.h",
                t.fill(
                        "header",
                        n.header(
                                "MACRO",
                                n.macro(),
                                "magic",
                                String.format("%08x", MAGIC),
                                "version",
                                String.valueOf(VERSION),
                                "header_size",
                                String.valueOf(HEADER_SIZE),
                                "slot_alignment",
                                String.valueOf(SLOT_ALIGNMENT))));
        files.put(
                n.file() + "-platform-shm-ring.c",
                t.fill(
                        "source",
                        n.source(
                                "header_size",
                                String.valueOf(HEADER_SIZE),
                                "MACRO",
                                n.macro(),
                                "stream_id",
                                String.valueOf(n.stream().id()),
                                "uuid",
                                String.valueOf(uuidInit),
                                "slot_alignment",
                                String.valueOf(SLOT_ALIGNMENT),
                                "max_slot_count",
                                String.valueOf(MAX_SLOT_COUNT),
                                "PREFIX",
                                n.prefix().toUpperCase())));
        String lguard = "_" + n.prefix().toUpperCase() + "SHM_RING_LINUX_H";
        files.put(n.file() + "-shm-ring-linux.h", t.fill("linux-header", "guard", lguard, "prefix", n.prefix()));
        files.put(
                n.file() + "-shm-ring-linux.c",
                t.fill("linux-source", "file", n.file(), "prefix", n.prefix(), "MACRO", n.macro()));
        return files;
    }
}

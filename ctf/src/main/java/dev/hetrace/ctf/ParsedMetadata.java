package dev.hetrace.ctf;

import dev.hetrace.ctf.decode.TracePlan;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.MetadataReader;
import dev.hetrace.ctf.metadata.TraceClass;
import java.io.IOException;
import java.lang.ref.SoftReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A trace's metadata parsed and compiled into its decode plan, with the warnings the parsing
 * told. Byte-identical metadata files share one (see {@link CtfTrace.Opener}).
 */
record ParsedMetadata(TraceClass metadata, TracePlan plan, List<String> warnings) {
    /** Metadata files up to this size are compared by content (a digest) to share their parsing. */
    private static final long SHARED_METADATA_MAX = 1 << 20;

    /**
     * Parsed metadata by content, shared by every opener of the process: a command that reads
     * its traces several times (synchronization's passes, then the state model) parses each
     * metadata once. Values are soft (the collector may drop them under memory pressure), and
     * at most {@code PARSED_MAX} are kept, the least recently used dropped first.
     */
    private static final int PARSED_MAX = 4096;

    private static final Map<String, SoftReference<ParsedMetadata>> PARSED =
            Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, SoftReference<ParsedMetadata>> eldest) {
                    return size() > PARSED_MAX;
                }
            });

    /**
     * The parsed metadata and decode plan of {@code metadataFile}, telling its parsing's
     * warnings to {@code warnings} (again when it was parsed before).
     */
    static ParsedMetadata read(Path metadataFile, Consumer<String> warnings) throws IOException, MetadataException {
        String key = null;
        long size = Files.size(metadataFile);
        if (size <= SHARED_METADATA_MAX) {
            byte[] bytes = Files.readAllBytes(metadataFile);
            try {
                key = bytes.length + ":"
                        + HexFormat.of()
                                .formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            SoftReference<ParsedMetadata> ref = PARSED.get(key);
            ParsedMetadata known = ref == null ? null : ref.get();
            if (known != null) {
                for (String w : known.warnings()) {
                    warnings.accept(metadataFile + ": " + w);
                }
                return known;
            }
        }
        List<String> said = new ArrayList<>();
        TraceClass metadata;
        try {
            metadata = MetadataReader.read(metadataFile, w -> {
                said.add(w);
                warnings.accept(metadataFile + ": " + w);
            });
        } catch (MetadataException e) {
            throw e.in(metadataFile);
        }
        TracePlan plan;
        try {
            plan = TracePlan.compile(metadata);
        } catch (MetadataException e) {
            throw e.in(metadataFile);
        }
        ParsedMetadata pm = new ParsedMetadata(metadata, plan, List.copyOf(said));
        if (key != null) {
            PARSED.put(key, new SoftReference<>(pm));
        }
        return pm;
    }
}

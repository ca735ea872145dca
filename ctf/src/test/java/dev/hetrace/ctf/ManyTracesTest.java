package dev.hetrace.ctf;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Traces opened together through a {@link CtfTrace.Opener} share the parsing of byte-identical
 * metadata files and read exactly as traces opened one by one.
 */
class ManyTracesTest {
    private static final String METADATA = """
        /* CTF 1.8 */
        typealias integer { size = 8; align = 8; signed = false; base = hex; } := uint8_t;
        typealias integer { size = 32; align = 8; signed = false; base = hex; } := uint32_t;
        trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; }; };
        clock { name = monotonic; freq = 1000000000; offset = 1415075600471492540; };
        event { name = myevent; fields := struct { uint8_t f; }; strange = 1; };
        """;

    @Test
    void identicalMetadataIsParsedOnceAndTracesReadAsAlone(@TempDir Path root) throws Exception {
        int count = 1500;
        for (int i = 0; i < count; i++) {
            Path dir = Files.createDirectories(root.resolve(Integer.toString(i)));
            // The last trace's metadata differs (one more space): it is parsed on its own.
            Files.writeString(dir.resolve("metadata"), i == count - 1 ? METADATA + " " : METADATA);
            Files.write(dir.resolve("stream"), new byte[] {(byte) 0xC1, 0x1F, (byte) 0xFC, (byte) 0xC1, (byte) i});
        }
        List<String> warnings = new ArrayList<>();
        CtfTrace.Opener opener = new CtfTrace.Opener(warnings::add);
        List<CtfTrace> shared = new ArrayList<>();
        List<CtfTrace> alone = new ArrayList<>();
        try {
            for (Path dir : CtfTrace.find(root)) {
                shared.add(opener.open(dir, root));
                alone.add(CtfTrace.open(dir, root, w -> {}));
            }
            assertThat(shared).hasSize(count);
            assertThat(shared.get(0).plan()).isSameAs(shared.get(count - 2).plan());
            assertThat(shared.get(0).metadata()).isSameAs(shared.get(count - 2).metadata());
            CtfTrace last = shared.stream()
                    .filter(t -> t.directory().endsWith(Integer.toString(count - 1)))
                    .findFirst()
                    .orElseThrow();
            assertThat(last.plan()).isNotSameAs(shared.get(0).plan());
            // Each trace tells the warnings of its metadata, parsed or not.
            assertThat(warnings).hasSize(count).allMatch(w -> w.contains("unknown event attribute 'strange'"));
            assertThat(shared.get(7).directory()).isEqualTo(alone.get(7).directory());
            assertThat(shared.get(7).name()).isEqualTo(alone.get(7).name()).isEqualTo("1003");
            assertThat(ParkedStreamsTest.read(shared, 8, null))
                    .isEqualTo(ParkedStreamsTest.read(alone, Integer.MAX_VALUE, null))
                    .contains("myevent: { f = 0xFF }");
        } finally {
            shared.forEach(CtfTrace::close);
            alone.forEach(CtfTrace::close);
        }
    }
}

package dev.hetrace.ctf;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.write.SampleTrace;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Traces are found through symbolic links (a trace, or a folder of them, linked from elsewhere), and a link loop ends. */
class TraceDiscoveryTest {
    @TempDir
    Path dir;

    @Test
    void aTraceReachedThroughASymbolicLinkIsRead() throws Exception {
        Path real = dir.resolve("real").resolve("t1");
        SampleTrace.write(real, 1000, 2, 4096);
        Path view = Files.createDirectories(dir.resolve("view"));
        Path link = Files.createSymbolicLink(view.resolve("link"), real);
        Files.createSymbolicLink(view.resolve("loop"), view); // a link back up: skipped, not walked forever

        assertThat(CtfTrace.find(link)).containsExactly(link);
        assertThat(CtfTrace.find(view)).containsExactly(link);
        for (Path input : new Path[] {link, view}) {
            long n = 0;
            try (CtfReader r = CtfReader.open(input)) {
                while (r.next()) {
                    n++;
                }
            }
            assertThat(n).as(input.toString()).isEqualTo(1000);
        }
    }
}

package dev.hetrace.bench;

import dev.hetrace.ctf.write.Ctf2Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The CTF 2 twin of a trace, for the reader benchmark: a folder whose stream files are links to
 * the trace's and whose metadata is the trace's rewritten as CTF 2, so that both versions decode
 * the same bytes.
 */
public final class Ctf2Twin {
    private Ctf2Twin() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: Ctf2Twin TRACE_DIR OUT_DIR");
            System.exit(2);
        }
        Path trace = Path.of(args[0]).toAbsolutePath();
        Path out = Files.createDirectories(Path.of(args[1]));
        List<Path> files;
        try (Stream<Path> list = Files.list(trace)) {
            files = list.filter(Files::isRegularFile).toList();
        }
        for (Path f : files) {
            Path target = out.resolve(f.getFileName());
            Files.deleteIfExists(target);
            if (f.getFileName().toString().equals("metadata")) {
                Files.copy(f, target);
                Ctf2Writer.rewrite(target);
            } else {
                Files.createSymbolicLink(target, f);
            }
        }
    }
}

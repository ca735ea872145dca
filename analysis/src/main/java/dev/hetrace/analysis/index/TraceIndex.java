package dev.hetrace.analysis.index;

import dev.hetrace.analysis.Mapping;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.ctf.decode.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.duckdb.DuckDBConnection;

/**
 * The analysis of a set of traces as tables in a DuckDB file (one per trace set, in a cache
 * folder), so that queries and views do not decode the traces again. The file is named after a
 * hash of what it is made from: the traces' absolute paths and their files' sizes and
 * modification times, the mapping file, the symbols and {@link #FORMAT_VERSION}; it is reused
 * while they are unchanged, and any change names another file. It is built into a temporary
 * file renamed when complete, so that a build cut short is never taken for an index.
 */
public final class TraceIndex {
    /** Changes whenever the tables or their meaning change: older files are then not used. */
    public static final int FORMAT_VERSION = 2;

    private final Path file;
    private final boolean built;
    private final List<String> traceNames;

    private TraceIndex(Path file, boolean built, List<String> traceNames) {
        this.file = file;
        this.built = built;
        this.traceNames = traceNames;
    }

    /** {@code $HETRACE_CACHE}, else {@code $XDG_CACHE_HOME/hetrace}, else {@code ~/.cache/hetrace}. */
    public static Path defaultCache(Map<String, String> env) {
        String own = env.get("HETRACE_CACHE");
        if (own != null && !own.isBlank()) {
            return Path.of(own);
        }
        String xdg = env.get("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isBlank()) {
            return Path.of(xdg, "hetrace");
        }
        return Path.of(System.getProperty("user.home"), ".cache", "hetrace");
    }

    /**
     * The index of {@code traces} read with the mapping file (null: the presets), function
     * addresses named after {@code symbols}: the cached one if it is current, else built now
     * (several traces are synchronized first). {@code notes} is told that an index is being built
     * and how far it is, and the warnings of the build; nothing when the index is reused.
     */
    public static TraceIndex open(Path cache, List<Path> traces, Path mappingFile, Map<String, String> symbols,
                                  Consumer<String> notes)
            throws IOException, MetadataException, StreamDecodingException {
        Path file = cache.resolve(key(traces, mappingFile, symbols) + ".duckdb");
        if (Files.isRegularFile(file)) {
            return new TraceIndex(file, false, names(traces));
        }
        Mapping mapping = mappingFile == null ? null : Mapping.read(mappingFile); // a bad one is told before any build
        Files.createDirectories(cache);
        notes.accept("indexing " + traces.size() + (traces.size() == 1 ? " trace" : " traces") + " into " + file + "...");
        Path tmp = cache.resolve(file.getFileName() + ".tmp-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        try {
            build(tmp, traces, mapping, symbols, notes, 0);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (SQLException e) {
            throw new IOException(file + ": cannot write the index: " + firstLine(e.getMessage()), e);
        } finally {
            Files.deleteIfExists(tmp);
            Files.deleteIfExists(Path.of(tmp + ".wal"));
        }
        return new TraceIndex(file, true, names(traces));
    }

    /**
     * Builds the index of {@code traces} into {@code file} (which must not exist), with DuckDB
     * limited to {@code threads} threads when positive; returns the events indexed.
     */
    public static long build(Path file, List<Path> traces, Mapping mapping, Map<String, String> symbols,
                             Consumer<String> notes, int threads)
            throws IOException, MetadataException, StreamDecodingException, SQLException {
        return build(file, traces, null, mapping, symbols, notes, threads);
    }

    /** As {@link #build(Path, List, Mapping, Map, Consumer, int)}, for traces already put on one clock. */
    public static long build(Path file, StateBuilder.Input in, Mapping mapping, Map<String, String> symbols,
                             Consumer<String> notes, int threads)
            throws IOException, MetadataException, StreamDecodingException, SQLException {
        return build(file, in.traces(), in, mapping, symbols, notes, threads);
    }

    /** Builds the index of {@code traces}, on {@code in}'s clocks (null: synchronized by the state pass). */
    private static long build(Path file, List<Path> traces, StateBuilder.Input given, Mapping mapping,
                              Map<String, String> symbols, Consumer<String> told, int threads)
            throws IOException, MetadataException, StreamDecodingException, SQLException {
        // told from the threads that read the traces and fill the tables
        Consumer<String> notes = n -> {
            synchronized (told) {
                told.accept(n);
            }
        };
        Consumer<String> warnings = w -> notes.accept("warning: " + w);
        long[] lastNote = {System.nanoTime()};
        List<String> names = names(traces);
        IndexTables.EventLog log = IndexTables.eventLog(names, events -> {
            long now = System.nanoTime();
            synchronized (lastNote) {
                if (now - lastNote[0] > 2_000_000_000L) {
                    lastNote[0] = now;
                    notes.accept(String.format(java.util.Locale.ROOT, "indexing: %,d events read", events));
                }
            }
        });
        // one pass: the state model, and the events' narrow rows as the pass reads them
        StateBuilder.Input in;
        StateModel model;
        if (given != null) {
            in = given;
            model = StateBuilder.build(in, mapping, Long.MIN_VALUE, warnings, log, threads);
        } else {
            StateBuilder.Built built = StateBuilder.synchronizeAndBuild(traces, mapping, warnings, log, threads);
            in = built.input();
            model = built.model();
        }
        model.symbolize(symbols);
        try (DuckDBConnection c = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:" + file)) {
            if (threads > 0) {
                try (var s = c.createStatement()) {
                    s.execute("SET threads = " + threads);
                }
            }
            try {
                IndexTables.fill(c, in, model, log, notes);
            } catch (IOException | MetadataException | StreamDecodingException | SQLException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(file + ": " + e.getMessage(), e);
            }
            try (var s = c.createStatement()) {
                s.execute("CHECKPOINT");
            }
        }
        return model.events();
    }

    /** The cache file. */
    public Path file() {
        return file;
    }

    /** Whether this call built the index (false: an index already in the cache was used). */
    public boolean built() {
        return built;
    }

    /** The traces' names as the tables give them, in the order given. */
    public List<String> traceNames() {
        return traceNames;
    }

    /**
     * A read-only connection to the index (several processes may read it at once), with the
     * {@code events} view: {@code events_raw} with the names and the fields, decoded from the
     * traces for the rows a query reads.
     */
    public Connection connect() throws SQLException {
        Properties p = new Properties();
        p.setProperty("duckdb.read_only", "true");
        Connection c = DriverManager.getConnection("jdbc:duckdb:" + file, p);
        try {
            attachEvents(c);
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /** Makes the {@code events} view on a connection to an index file (see {@link #connect()}). */
    public static void attachEvents(Connection c) throws SQLException {
        Map<String, String> paths = new java.util.LinkedHashMap<>();
        try (var s = c.createStatement(); var r = s.executeQuery("SELECT trace, path FROM traces ORDER BY rowid")) {
            while (r.next()) {
                paths.putIfAbsent(r.getString(1), r.getString(2));
            }
        }
        EventFields.attach(c, new ArrayList<>(paths.values()));
    }

    /** The first line of a DuckDB message (they add the query and a caret below). */
    public static String firstLine(String message) {
        if (message == null) {
            return "unknown error";
        }
        String m = message.strip();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl).strip();
    }

    private static List<String> names(List<Path> traces) {
        List<String> out = new ArrayList<>();
        for (Path p : traces) {
            out.add(p.toAbsolutePath().normalize().getFileName().toString());
        }
        return out;
    }

    /**
     * The hash that names the index of these inputs (and what else is kept of them): it changes
     * when a trace's file is added, removed, resized or touched, or the mapping or symbols change.
     */
    public static String key(List<Path> traces, Path mappingFile, Map<String, String> symbols) throws IOException {
        return key(traces, mappingFile, () -> symbols);
    }

    /**
     * A short hash of the traces' paths alone (not their contents): what names everything kept
     * of one trace set, whatever its state, so that an older state's files can be told apart.
     */
    public static String pathsKey(List<Path> traces) {
        MessageDigest d;
        try {
            d = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        for (Path t : traces) {
            d.update((t.toAbsolutePath().normalize() + "\n").getBytes(StandardCharsets.UTF_8));
        }
        return HexFormat.of().formatHex(d.digest(), 0, 6);
    }

    /** The symbols of {@link #key(List, Path, Map)}, still being read (asked for once the traces' files are listed). */
    public interface Symbols {
        Map<String, String> get() throws IOException;
    }

    /** As {@link #key(List, Path, Map)}, the symbols asked for last: they can be read meanwhile. */
    public static String key(List<Path> traces, Path mappingFile, Symbols later) throws IOException {
        MessageDigest d;
        try {
            d = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        StringBuilder sb = new StringBuilder("hetrace index ").append(FORMAT_VERSION).append('\n');
        for (Path t : traces) {
            Path root = t.toAbsolutePath().normalize();
            if (!Files.exists(root)) {
                throw new IOException(t + ": no such file or directory");
            }
            sb.append("trace ").append(root).append('\n');
            List<Path> files;
            try (Stream<Path> s = Files.walk(root)) {
                files = s.filter(Files::isRegularFile).sorted().toList();
            }
            for (Path f : files) {
                BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
                sb.append(root.relativize(f)).append(' ').append(a.size()).append(' ')
                    .append(a.lastModifiedTime().to(java.util.concurrent.TimeUnit.NANOSECONDS)).append('\n');
            }
        }
        if (mappingFile != null) {
            sb.append("mapping ").append(HexFormat.of().formatHex(d.digest(Files.readAllBytes(mappingFile)))).append('\n');
        }
        new TreeMap<>(later.get()).forEach((k, v) -> sb.append("symbol ").append(k).append(' ').append(v).append('\n'));
        byte[] h = d.digest(sb.toString().getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(h, 0, 16);
    }
}

package dev.hetrace.analysis.index;

import dev.hetrace.analysis.Mapping;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.ctf.FileFailure;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.duckdb.DuckDBConnection;

/**
 * The analysis of a set of traces as tables (one index per trace set, in a cache folder), so that
 * queries and views do not decode the traces again: a folder holding a DuckDB file
 * ({@value #TABLES}: the small tables and the ENUM types of names) and the large tables as
 * Parquet files, which {@link #connect()} makes views of. The folder is named after the traces'
 * paths ({@link #pathsKey}) and a hash of what it is made from: the traces' absolute paths and
 * their files' sizes and modification times, the mapping file, the symbols and
 * {@link #FORMAT_VERSION}; it is reused while they are unchanged, any change names another, and
 * the index of an earlier state of the same traces is removed once the new one is complete. It is
 * built in a temporary folder renamed when complete, so that a build cut short is never taken for
 * an index.
 */
public final class TraceIndex {
    /** Changes whenever the tables or their meaning change: older indexes are then not used. */
    public static final int FORMAT_VERSION = 9;

    /** The DuckDB file in an index's folder. */
    public static final String TABLES = "tables.duckdb";

    private static final String SUFFIX = ".index";

    /**
     * The file of an index's folder that lists the files its function names were read from
     * (binaries and debug files, or where they were looked for), each with its size and
     * modification time then ("-" when absent): one changed, the index is built again.
     */
    public static final String NAMING_FILES = "naming-files";

    /** The single-file indexes of hetrace's earlier format, {@code KEY.duckdb}: never read again. */
    public static final Pattern OLD_FORMAT = Pattern.compile("[0-9a-f]{32}\\.duckdb(\\.wal)?");

    private final Path folder;
    private final boolean built;
    private final List<String> traceNames;
    /** What an index built with {@code keepModel} was built from; null otherwise. */
    private StateBuilder.Built builtFrom;

    private TraceIndex(Path folder, boolean built, List<String> traceNames, StateBuilder.Built builtFrom) {
        this.folder = folder;
        this.built = built;
        this.traceNames = traceNames;
        this.builtFrom = builtFrom;
    }

    /**
     * The state model (symbolized) and synchronized traces this index was just built from, handed
     * over once (null when the index was reused, not opened with {@code keepModel}, or already taken).
     */
    public synchronized StateBuilder.Built takeBuiltFrom() {
        StateBuilder.Built b = builtFrom;
        builtFrom = null;
        return b;
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
    public static TraceIndex open(
            Path cache, List<Path> traces, Path mappingFile, Map<String, String> symbols, Consumer<String> notes)
            throws IOException, MetadataException, StreamDecodingException {
        return open(cache, traces, StateBuilder.Clocks.DEFAULT, mappingFile, symbols, notes);
    }

    /**
     * As {@link #open(Path, List, Path, Map, Consumer)}, the traces put on one clock as
     * {@code clocks} say (part of what names the index).
     */
    public static TraceIndex open(
            Path cache,
            List<Path> traces,
            StateBuilder.Clocks clocks,
            Path mappingFile,
            Map<String, String> symbols,
            Consumer<String> notes)
            throws IOException, MetadataException, StreamDecodingException {
        return open(cache, traces, clocks, mappingFile, symbols, notes, false);
    }

    /**
     * As {@link #open(Path, List, StateBuilder.Clocks, Path, Map, Consumer)}; with {@code keepModel},
     * an index built now keeps the state model and traces it was built from ({@link #takeBuiltFrom}),
     * so that a viewer lays out its timeline without reading the traces a second time.
     */
    public static TraceIndex open(
            Path cache,
            List<Path> traces,
            StateBuilder.Clocks clocks,
            Path mappingFile,
            Map<String, String> symbols,
            Consumer<String> notes,
            boolean keepModel)
            throws IOException, MetadataException, StreamDecodingException {
        return open(
                cache,
                entryBase(traces, clocks, mappingFile, () -> symbols),
                traces,
                clocks,
                mappingFile,
                symbols,
                notes,
                keepModel);
    }

    /**
     * As {@link #open(Path, List, StateBuilder.Clocks, Path, Map, Consumer, boolean)}, the index's
     * name ({@link #entryBase}) already known: whoever keeps more than the index names it once.
     */
    public static TraceIndex open(
            Path cache,
            String base,
            List<Path> traces,
            StateBuilder.Clocks clocks,
            Path mappingFile,
            Map<String, String> symbols,
            Consumer<String> notes,
            boolean keepModel)
            throws IOException, MetadataException, StreamDecodingException {
        Path folder = cache.resolve(base + SUFFIX);
        DuckDbLibrary.require(); // before a build that could not be written
        // DuckDB's native library loads while the index is checked: whoever opens an index then reads it
        Thread.ofPlatform().daemon().name("hetrace-duckdb-load").start(TraceIndex::loadDuckDb);
        if (complete(folder)) {
            String changed = Checksums.mismatch(folder);
            String renamed = changed == null ? namingFileChanged(folder) : null;
            if (changed == null && renamed == null) {
                used(folder);
                return new TraceIndex(folder, false, StateBuilder.traceNames(traces), null);
            }
            notes.accept(
                    changed != null
                            ? "the index in " + folder + " is not as it was written (" + changed
                                    + "): building it again"
                            : renamed + ", which names the traces' functions, changed: building the index again");
            deleteTree(folder);
        } else if (Files.exists(folder)) { // a file of it removed by hand: built again
            notes.accept("the index in " + folder + " lacks some of its files: building it again");
            deleteTree(folder);
        }
        Mapping mapping = mappingFile == null ? null : Mapping.read(mappingFile); // a bad one is told before any build
        Files.createDirectories(cache);
        // the traces opened first (their metadata read): one that cannot be read is told alone,
        // before the note of a build that would not happen
        for (Path t : traces) {
            try (CtfReader r = CtfReader.open(List.of(t), w -> {})) {
                r.traces();
            }
        }
        notes.accept(
                "indexing " + traces.size() + (traces.size() == 1 ? " trace" : " traces") + " into " + folder + "...");
        Path tmp = cache.resolve(
                folder.getFileName() + ".tmp-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        StateBuilder.Built made;
        try {
            made = build(tmp, traces, null, clocks, mapping, symbols, notes, 0);
            Checksums.write(tmp);
            try {
                Files.move(tmp, folder, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileSystemException e) { // the folder exists: renaming over it fails
                if (!complete(folder)) { // else: another process built it meanwhile
                    throw e;
                }
            }
        } catch (SQLException e) {
            throw new IOException(folder + ": cannot write the index: " + firstLine(e.getMessage()), e);
        } finally {
            deleteTree(tmp);
        }
        forgetOlder(folder, "the index of an earlier state of these traces", notes);
        return new TraceIndex(folder, true, StateBuilder.traceNames(traces), keepModel ? made : null);
    }

    /**
     * Marks something kept in the cache as used now (its modification time), so that pruning by
     * age ({@code hetrace cache --older-than}) spares what is still in use; a failure is ignored.
     */
    public static void used(Path kept) {
        try {
            Files.setLastModifiedTime(kept, FileTime.from(Instant.now()));
        } catch (IOException e) {
            // a read-only cache: pruning by age then sees the build's time
        }
    }

    /** The traces' paths an index was built from (its traces table), in order. */
    public static List<String> tracePaths(Path folder) throws SQLException {
        requireDuckDb();
        Properties p = new Properties();
        p.setProperty("duckdb.read_only", "true");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + folder.resolve(TABLES), p)) {
            return paths(c);
        }
    }

    private static List<String> paths(Connection c) throws SQLException {
        List<String> paths = new ArrayList<>();
        try (var s = c.createStatement();
                var r = s.executeQuery("SELECT path FROM traces ORDER BY rowid")) {
            while (r.next()) {
                paths.add(r.getString(1));
            }
        }
        return paths;
    }

    /**
     * Whether the index named {@code base} ({@link #entryBase}) is in {@code cache} with all its
     * files: {@link #open} then opens it without a build, unless its files are not as written.
     */
    public static boolean present(Path cache, String base) {
        Path folder = cache.resolve(base + SUFFIX);
        return complete(folder) && namingFileChanged(folder) == null;
    }

    /**
     * Whether the index named {@code base} names functions after binaries and was built after
     * {@code kept} was written: what was kept of it before (a timeline) may name them otherwise.
     */
    public static boolean renamedSince(Path cache, String base, Path kept) {
        try {
            return Files.getLastModifiedTime(cache.resolve(base + SUFFIX).resolve(NAMING_FILES))
                            .compareTo(Files.getLastModifiedTime(kept))
                    > 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** A file's state as {@link #NAMING_FILES} lists it: its size and modification time, or "- -" when absent. */
    private static String fileState(Path file) {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return a.size() + " " + a.lastModifiedTime().to(TimeUnit.NANOSECONDS);
        } catch (IOException | RuntimeException e) {
            return "- -";
        }
    }

    /** Lists the files the model's function names were read from, with their state now ({@link #NAMING_FILES}), if any. */
    private static void writeNamingFiles(Path folder, StateModel model) throws IOException {
        if (model.namingFiles().isEmpty()) {
            return; // no function named after a binary
        }
        StringBuilder sb = new StringBuilder();
        for (Path f : model.namingFiles()) {
            String p = f.toString();
            if (p.indexOf('\n') < 0 && p.indexOf('\r') < 0) {
                sb.append(fileState(f)).append(' ').append(p).append('\n');
            }
        }
        Files.writeString(folder.resolve(NAMING_FILES), sb.toString());
    }

    /** The first file of the index's {@link #NAMING_FILES} that is not as it was, or null (none, or no such list). */
    private static String namingFileChanged(Path folder) {
        List<String> lines;
        try {
            lines = Files.readAllLines(folder.resolve(NAMING_FILES));
        } catch (IOException e) {
            return null; // an index with no names from binaries
        }
        for (String line : lines) {
            int a = line.indexOf(' ');
            int b = a < 0 ? -1 : line.indexOf(' ', a + 1);
            if (b > 0 && !fileState(Path.of(line.substring(b + 1))).equals(line.substring(0, b))) {
                return line.substring(b + 1);
            }
        }
        return null;
    }

    /** Whether {@code folder} holds every file of an index. */
    private static boolean complete(Path folder) {
        if (!Files.isRegularFile(folder.resolve(TABLES))) {
            return false;
        }
        for (String t : IndexTables.PARQUET) {
            if (!Files.isRegularFile(folder.resolve(t + ".parquet"))) {
                return false;
            }
        }
        return Files.isRegularFile(folder.resolve(MarkTable.FILE)) && ModelStore.present(folder);
    }

    /**
     * Removes what was kept for earlier states of the same traces as {@code kept} (an index or a
     * timeline: same paths, same kind, other contents or mapping), telling {@code notes} that
     * {@code what} (such a one) was removed; and the single-file indexes of hetrace's earlier format
     * (named by their key alone), which no version that writes folders reads.
     */
    public static void forgetOlder(Path kept, String what, Consumer<String> notes) {
        String name = kept.getFileName().toString();
        String prefix = pathsPrefix(name);
        String kind = name.substring(name.lastIndexOf('.'));
        try (Stream<Path> s = Files.list(kept.getParent())) {
            for (Path p : s.toList()) {
                String n = p.getFileName().toString();
                if (!prefix.isEmpty() && n.startsWith(prefix) && n.endsWith(kind) && !n.equals(name)) {
                    deleteTree(p);
                    notes.accept("removed " + what + ": " + p);
                } else if (OLD_FORMAT.matcher(n).matches() && Files.isRegularFile(p)) {
                    Files.deleteIfExists(p);
                    notes.accept("removed an index in hetrace's earlier format: " + p);
                }
            }
        } catch (IOException e) {
            notes.accept("warning: cannot tidy " + kept.getParent() + ": " + e.getMessage());
        }
    }

    /**
     * The name of what is kept in the cache for {@code traces}, before its suffix (the index's
     * {@value #SUFFIX}, {@code .timeline}): {@code PATHS-KEY}, PATHS hashing the traces' paths
     * alone ({@link #pathsKey}), KEY what the traces hold too ({@link #key}).
     */
    public static String entryBase(List<Path> traces, StateBuilder.Clocks clocks, Path mappingFile, Symbols later)
            throws IOException {
        return pathsKey(traces) + "-" + key(traces, clocks, mappingFile, later);
    }

    /** The {@code PATHS-} part of such a name, which every state of the same traces shares ("" when there is none). */
    public static String pathsPrefix(String entryName) {
        return entryName.substring(0, entryName.indexOf('-') + 1);
    }

    /** Deletes a folder and what it holds (links not followed), or a file; nothing when it does not exist. */
    public static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            try (Stream<Path> s = Files.list(p)) {
                for (Path c : s.toList()) {
                    deleteTree(c);
                }
            }
        }
        Files.deleteIfExists(p);
    }

    /**
     * Builds the index of {@code traces} into the folder {@code folder} (which must not exist),
     * with DuckDB limited to {@code threads} threads when positive; returns the events indexed.
     */
    public static long build(
            Path folder,
            List<Path> traces,
            Mapping mapping,
            Map<String, String> symbols,
            Consumer<String> notes,
            int threads)
            throws IOException, MetadataException, StreamDecodingException, SQLException {
        return build(folder, traces, null, StateBuilder.Clocks.DEFAULT, mapping, symbols, notes, threads)
                .model()
                .events();
    }

    /** As {@link #build(Path, List, Mapping, Map, Consumer, int)}, for traces already put on one clock. */
    public static long build(
            Path folder,
            StateBuilder.Input in,
            Mapping mapping,
            Map<String, String> symbols,
            Consumer<String> notes,
            int threads)
            throws IOException, MetadataException, StreamDecodingException, SQLException {
        return build(folder, in.traces(), in, null, mapping, symbols, notes, threads)
                .model()
                .events();
    }

    /**
     * Builds the index of {@code traces}, on {@code in}'s clocks (null: synchronized by the state
     * pass as {@code clocks} say).
     */
    private static StateBuilder.Built build(
            Path folder,
            List<Path> traces,
            StateBuilder.Input given,
            StateBuilder.Clocks clocks,
            Mapping mapping,
            Map<String, String> symbols,
            Consumer<String> told,
            int threads)
            throws IOException, MetadataException, StreamDecodingException, SQLException {
        // told from the threads that read the traces and fill the tables
        Consumer<String> notes = n -> {
            synchronized (told) {
                told.accept(n);
            }
        };
        Consumer<String> warnings = w -> notes.accept("warning: " + w);
        long[] lastNote = {System.nanoTime()};
        List<String> names = StateBuilder.traceNames(traces);
        EventLog log = IndexTables.eventLog(names, events -> {
            long now = System.nanoTime();
            synchronized (lastNote) {
                if (now - lastNote[0] > 2_000_000_000L) {
                    lastNote[0] = now;
                    notes.accept(String.format(Locale.ROOT, "indexing: %,d events read", events));
                }
            }
        });
        // DuckDB loads its native library (60 MB) when first used: meanwhile the pass reads
        DuckDbLibrary.require();
        Thread.ofPlatform().daemon().name("hetrace-duckdb-load").start(TraceIndex::loadDuckDb);
        // one pass: the state model, and the events' narrow rows as the pass reads them
        StateBuilder.Input in;
        StateModel model;
        if (given != null) {
            in = given;
            model = StateBuilder.build(
                    in,
                    StateBuilder.Options.of(warnings)
                            .withMapping(mapping)
                            .withListener(log)
                            .withThreads(threads));
        } else {
            StateBuilder.Built built = StateBuilder.synchronizeAndBuild(
                    traces,
                    clocks,
                    StateBuilder.Options.of(warnings)
                            .withMapping(mapping)
                            .withListener(log)
                            .withThreads(threads));
            in = built.input();
            model = built.model();
        }
        model.symbolize(symbols, warnings);
        Files.createDirectory(folder);
        try (DuckDBConnection c =
                (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:" + folder.resolve(TABLES))) {
            if (threads > 0) {
                try (var s = c.createStatement()) {
                    s.execute("SET threads = " + threads);
                }
            }
            try {
                IndexTables.fill(folder, c, in, model, log, notes, threads);
                MarkTable.write(folder, model);
                ModelStore.write(folder, model, notes);
                writeNamingFiles(folder, model);
            } catch (IOException | MetadataException | StreamDecodingException | SQLException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(folder + ": " + e.getMessage(), e);
            }
            try (var s = c.createStatement()) {
                s.execute("CHECKPOINT");
            }
        }
        return new StateBuilder.Built(in, model);
    }

    /** {@link DuckDbLibrary#require} for the methods that fail with SQLException. */
    private static void requireDuckDb() throws SQLException {
        try {
            DuckDbLibrary.require();
        } catch (IOException e) {
            throw new SQLException(e.getMessage(), e);
        }
    }

    /** Loads DuckDB's native library (a database in memory opened and closed); a failure is told by the index's own use. */
    private static void loadDuckDb() {
        try {
            DriverManager.getConnection("jdbc:duckdb:").close();
        } catch (SQLException | RuntimeException | LinkageError e) {
            // the index's connection says what is wrong
        }
    }

    /**
     * Makes the diagnosis's tables ({@link DiagnosisTables}) unless they are made already, so
     * that a connection opened after this has them; true when this call made them.
     */
    public boolean diagnose() throws IOException {
        return DiagnosisTables.ensure(folder, null);
    }

    /** As {@link #diagnose()}, from {@code model} (this index's, in memory; null: read from the store). */
    public boolean diagnose(StateModel model) throws IOException {
        return DiagnosisTables.ensure(folder, model);
    }

    /** The index's folder in the cache. */
    public Path folder() {
        return folder;
    }

    /** Whether this call built the index (false: an index already in the cache was used). */
    public boolean built() {
        return built;
    }

    /** The traces' state model, read from the index ({@link ModelStore}): equal to the one built from the traces. */
    public StateModel model() throws IOException {
        return ModelStore.read(folder);
    }

    /** The traces' names as the tables give them, in the order given. */
    public List<String> traceNames() {
        return traceNames;
    }

    /**
     * A read-only connection to the index (several processes may read it at once), with the
     * large tables as views of their Parquet files, and {@code events}' fields decoded from the
     * traces for the rows a query reads.
     */
    public Connection connect() throws SQLException {
        return connect(folder);
    }

    /** A read-only connection to the index in {@code folder} (see {@link #connect()}). */
    public static Connection connect(Path folder) throws SQLException {
        requireDuckDb();
        Properties p = new Properties();
        p.setProperty("duckdb.read_only", "true");
        Connection c = DriverManager.getConnection("jdbc:duckdb:" + folder.resolve(TABLES), p);
        try {
            IndexTables.attach(c, folder, paths(c));
            MarkTable.attach(c, folder);
            DiagnosisTables.attach(c, folder);
            CounterTable.attach(c, folder);
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
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

    /**
     * The hash that names the index of these inputs (and what else is kept of them): it changes
     * when a trace's file is added, removed, resized or touched, or the mapping or symbols change.
     */
    public static String key(List<Path> traces, Path mappingFile, Map<String, String> symbols) throws IOException {
        return key(traces, StateBuilder.Clocks.DEFAULT, mappingFile, () -> symbols);
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

    /**
     * As {@link #key(List, Path, Map)}, with how the traces are put on one clock, the symbols asked
     * for last: they can be read meanwhile.
     */
    public static String key(List<Path> traces, StateBuilder.Clocks clocks, Path mappingFile, Symbols later)
            throws IOException {
        MessageDigest d;
        try {
            d = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        StringBuilder sb =
                new StringBuilder("hetrace index ").append(FORMAT_VERSION).append('\n');
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
                sb.append(root.relativize(f))
                        .append(' ')
                        .append(a.size())
                        .append(' ')
                        .append(a.lastModifiedTime().to(TimeUnit.NANOSECONDS))
                        .append('\n');
            }
        }
        if (traces.size() > 1) {
            sb.append("clocks ").append(clocks).append('\n');
        }
        if (mappingFile != null) {
            byte[] mapping;
            try {
                mapping = Files.readAllBytes(mappingFile);
            } catch (IOException e) {
                throw FileFailure.of("read", mappingFile, e);
            }
            sb.append("mapping ")
                    .append(HexFormat.of().formatHex(d.digest(mapping)))
                    .append('\n');
        }
        new TreeMap<>(later.get())
                .forEach((k, v) ->
                        sb.append("symbol ").append(k).append(' ').append(v).append('\n'));
        byte[] h = d.digest(sb.toString().getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(h, 0, 16);
    }
}

package dev.hetrace.analysis;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Names the functions a trace gives by address ({@code 0x557d6a3ceec0}) after the binaries its
 * processes had loaded there, as babeltrace2's {@code --debug-info} does: each binary read from
 * the path the trace recorded, on this machine, and used only when it is the one traced (its
 * build id is the one the trace recorded, when the trace recorded one). A stripped binary's
 * symbols are looked for in its separate debug file, by build id, under {@link #DEBUG_ROOT}.
 */
final class BinarySymbols {
    /** Where separate debug files are found by build id ({@code .build-id/ab/cdef….debug}). */
    static final Path DEBUG_ROOT = Path.of("/usr/lib/debug");

    private static final Pattern ADDRESS = Pattern.compile("0x[0-9a-f]{1,16}");

    private BinarySymbols() {}

    /**
     * The names of the addresses among {@code names} ({@code 0x} and lowercase hex) that a binary
     * of {@code binaries} holds, address to name ({@code name}, or {@code name+0xoff} inside a
     * function). An address two binaries name differently (two processes, different programs at
     * the same place) keeps its number. Each binary that holds addresses but cannot be used is told
     * to {@code warnings} once, with why.
     */
    static Map<String, String> names(
            List<StateModel.Binary> binaries, List<String> names, Path debugRoot, Consumer<String> warnings) {
        return names(binaries, names, debugRoot, warnings, p -> {});
    }

    /** As {@link #names(List, List, Path, Consumer)}, each file looked at (or for) told to {@code consulted}. */
    static Map<String, String> names(
            List<StateModel.Binary> binaries,
            List<String> names,
            Path debugRoot,
            Consumer<String> warnings,
            Consumer<Path> consulted) {
        long[] addresses = names.stream()
                .filter(n -> ADDRESS.matcher(n).matches())
                .mapToLong(n -> Long.parseUnsignedLong(n.substring(2), 16))
                .sorted()
                .distinct()
                .toArray();
        Map<String, String> out = new HashMap<>();
        if (addresses.length == 0) {
            return out;
        }
        // the binaries by file (path and build id), each load with the addresses it holds
        Map<String, List<Load>> files = new LinkedHashMap<>();
        Map<String, Set<Long>> held = new HashMap<>();
        for (StateModel.Binary b : binaries) {
            if (b.size() <= 0) {
                continue;
            }
            int from = Arrays.binarySearch(addresses, b.base());
            from = from >= 0 ? from : -from - 1;
            int to = from;
            while (to < addresses.length && addresses[to] - b.base() < b.size()) {
                to++;
            }
            if (to == from) {
                continue;
            }
            String key = b.path() + "\0" + b.buildId();
            files.computeIfAbsent(key, k -> new ArrayList<>()).add(new Load(b, from, to));
            Set<Long> in = held.computeIfAbsent(key, k -> new HashSet<>());
            for (int i = from; i < to; i++) {
                in.add(addresses[i]);
            }
        }
        Set<String> ambiguous = new HashSet<>();
        files.forEach((key, loads) -> {
            StateModel.Binary first = loads.getFirst().binary();
            int count = held.get(key).size();
            ElfFile elf;
            try {
                elf = symbols(first.path(), first.buildId(), debugRoot, consulted);
            } catch (IOException e) {
                warnings.accept(first.path() + ": " + e.getMessage() + ": its " + count
                        + (count == 1 ? " function keeps its address" : " functions keep their addresses"));
                return;
            }
            Set<Long> unnamed = new HashSet<>();
            for (Load l : loads) {
                StateModel.Binary b = l.binary();
                for (int i = l.from(); i < l.to(); i++) {
                    long a = addresses[i];
                    String name = elf.nameOf(b.pic() ? a - b.base() + elf.firstLoadAddress() : a);
                    if (name == null) {
                        unnamed.add(a);
                        continue;
                    }
                    String address = "0x" + Long.toHexString(a);
                    String before = out.putIfAbsent(address, name);
                    if (before != null && !before.equals(name)) {
                        ambiguous.add(address);
                    }
                }
            }
            if (!elf.hasSymtab() && !unnamed.isEmpty()) {
                // only its dynamic symbols: the functions it does not export are in none
                int n = unnamed.size();
                warnings.accept(first.path() + ": stripped (no .symtab, and no debug file for its build id under "
                        + debugRoot + "): its " + n
                        + (n == 1 ? " function keeps its address" : " functions keep their addresses"));
            }
        });
        ambiguous.forEach(out::remove);
        return out;
    }

    /** A binary loaded, and the positions [from, to) of the sorted addresses it holds. */
    private record Load(StateModel.Binary binary, int from, int to) {}

    /**
     * The ELF file whose symbols name the binary at {@code path} with build id {@code buildId}
     * (null: not recorded): the file there, when it is that build and has a {@code .symtab};
     * else its separate debug file found by build id, when there is one; else the file with its
     * {@code .dynsym} (maybe empty).
     *
     * @throws IOException saying, in a few words, why neither can be used
     */
    static ElfFile symbols(String path, String buildId, Path debugRoot, Consumer<Path> consulted) throws IOException {
        ElfFile elf = null;
        IOException why = null;
        if (path.startsWith("[")) {
            why = new IOException("not a file (made by the kernel)");
        } else {
            try {
                consulted.accept(Path.of(path));
                elf = ElfFile.read(Path.of(path));
                if (buildId != null && !buildId.equals(elf.buildIdHex())) {
                    why = new IOException(
                            elf.buildIdHex() == null
                                    ? "not the binary traced (it has no build id, the traced one had " + buildId + ")"
                                    : "not the binary traced (build id differs)");
                    elf = null;
                }
            } catch (NoSuchFileException e) {
                why = new IOException("no such file on this machine");
            } catch (AccessDeniedException e) {
                why = new IOException("cannot be read (permission denied)");
            } catch (ElfFile.ElfException e) {
                why = e;
            } catch (IOException | RuntimeException e) {
                why = new IOException("cannot be read (" + e.getMessage() + ")");
            }
        }
        if (elf != null && elf.hasSymtab()) {
            return elf;
        }
        String id = buildId != null ? buildId : elf != null ? elf.buildIdHex() : null;
        if (id != null && id.length() > 2) {
            Path debug =
                    debugRoot.resolve(".build-id").resolve(id.substring(0, 2)).resolve(id.substring(2) + ".debug");
            consulted.accept(debug);
            if (Files.isRegularFile(debug)) {
                try {
                    ElfFile d = ElfFile.read(debug);
                    if (id.equals(d.buildIdHex()) && d.functionCount() > 0) {
                        return d;
                    }
                } catch (IOException | RuntimeException e) {
                    // the binary's own dynamic symbols, if any, rather than nothing
                }
            }
        }
        if (elf != null) {
            return elf;
        }
        throw why;
    }
}

package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.hetrace.ctf.testing.Required;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The ELF reader on files gcc builds here (position-independent, at fixed addresses, 32-bit),
 * against what binutils' {@code readelf} and {@code nm} read in them; and the naming of traced
 * addresses ({@link BinarySymbols}) with such files damaged, replaced, missing or stripped.
 */
class ElfFileTest {
    private static final String SOURCE = """
            #include <stdio.h>
            static int counter;
            __attribute__((noinline)) static int helper(int x) { counter += x; return counter * 3; }
            __attribute__((noinline)) int worker(int n) { int s = 0; for (int i = 0; i < n; i++) s += helper(i); return s; }
            __attribute__((noinline, weak)) int hook(int x) { return x + counter; }
            int main(int argc, char **argv) { (void) argv; printf("%d\\n", worker(argc) + hook(argc)); return 0; }
            """;

    @TempDir
    static Path dir;

    private static final Map<String, Path> builds = new HashMap<>();

    @BeforeAll
    static void build() throws Exception {
        Required.tool("gcc", "--version");
        Required.tool("readelf", "--version");
        Required.tool("nm", "--version");
        Required.tool("objcopy", "--version");
        Files.writeString(dir.resolve("prog.c"), SOURCE);
        builds.put("pie", gcc("prog-pie", "-O1", "-g", "-fpie", "-pie"));
        builds.put("no-pie", gcc("prog-no-pie", "-O1", "-g", "-fno-pie", "-no-pie"));
        Path probe = dir.resolve("m32-probe");
        if (run(List.of("gcc", "-m32", dir.resolve("prog.c").toString(), "-o", probe.toString())).exit == 0) {
            builds.put("m32", gcc("prog-m32", "-m32", "-O1", "-g"));
        }
        // no big-endian compiler here: the same files with every field the reader and readelf read swapped
        builds.put("big-endian", bigEndian(builds.get("pie"), "prog-be"));
        if (builds.containsKey("m32")) {
            builds.put("m32-big-endian", bigEndian(builds.get("m32"), "prog-m32-be"));
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"pie", "no-pie", "m32", "big-endian", "m32-big-endian"})
    void theFunctionsBuildIdAndLoadAddressAreThoseBinutilsRead(String build) throws Exception {
        if (build.startsWith("m32") && !builds.containsKey(build)) {
            Required.missing("gcc -m32 cannot build here (no 32-bit C library: apt-get install gcc-multilib)");
            return;
        }
        Path file = builds.get(build);
        ElfFile elf = ElfFile.read(file);
        assertThat(elf.elf64()).as("ELF64").isEqualTo(!build.startsWith("m32"));
        assertThat(elf.order())
                .isEqualTo(build.endsWith("big-endian") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        assertThat(run(List.of("readelf", "-h", file.toString())).out)
                .contains(build.endsWith("big-endian") ? "big endian" : "little endian");
        assertThat(elf.hasSymtab()).isTrue();

        Matcher id =
                Pattern.compile("Build ID: ([0-9a-f]+)").matcher(run(List.of("readelf", "-n", file.toString())).out);
        assertThat(id.find()).as("readelf -n shows a build id").isTrue();
        assertThat(elf.buildIdHex()).isEqualTo(id.group(1));

        Matcher load = Pattern.compile("(?m)^\\s*LOAD\\s+0x[0-9a-f]+\\s+0x([0-9a-f]+)")
                .matcher(run(List.of("readelf", "-lW", file.toString())).out);
        assertThat(load.find()).isTrue();
        assertThat(elf.firstLoadAddress()).isEqualTo(Long.parseUnsignedLong(load.group(1), 16));

        // readelf's .symtab: the defined FUNC and IFUNC symbols, by address, with their sizes
        Map<Long, Set<String>> byAddress = new HashMap<>();
        Map<Long, Long> sizes = new HashMap<>();
        String symbols = run(List.of("readelf", "-sW", file.toString())).out;
        String symtab = symbols.substring(symbols.indexOf("Symbol table '.symtab'"));
        Pattern row = Pattern.compile(
                "(?m)^\\s*\\d+:\\s+([0-9a-f]+)\\s+(\\d+|0x[0-9a-f]+)\\s+(FUNC|IFUNC)\\s+\\S+\\s+\\S+\\s+(\\S+)\\s+(\\S+)");
        for (Matcher m = row.matcher(symtab); m.find(); ) {
            if (m.group(4).equals("UND")) {
                continue;
            }
            long a = Long.parseUnsignedLong(m.group(1), 16);
            byAddress.computeIfAbsent(a, k -> new HashSet<>()).add(m.group(5));
            sizes.merge(a, Long.decode(m.group(2)), Math::max);
        }
        Map<Long, String> functions = elf.functions();
        assertThat(functions.keySet()).as("the functions' addresses").isEqualTo(byAddress.keySet());
        functions.forEach(
                (a, name) -> assertThat(byAddress.get(a)).as("names at 0x%x", a).contains(name));
        for (String f : List.of("main", "worker", "helper", "hook")) {
            long a = address(byAddress, f);
            assertThat(elf.nameOf(a)).isEqualTo(f);
            assertThat(elf.nameOf(a + 1)).as("inside %s", f).isEqualTo(f + "+0x1");
            assertThat(elf.nameOf(a + sizes.get(a) - 1)).isEqualTo(f + "+0x" + Long.toHexString(sizes.get(a) - 1));
        }

        if (build.endsWith("big-endian")) {
            return; // nm reads the sections it does not know as the machine's (little-endian) order
        }
        // nm lists the same functions at the same addresses
        Map<String, Long> nm = new HashMap<>();
        for (String line :
                run(List.of("nm", "--defined-only", file.toString())).out.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 3 && "TtWwi".contains(f[1])) {
                nm.put(f[2], Long.parseUnsignedLong(f[0], 16));
            }
        }
        functions.forEach(
                (a, name) -> assertThat(nm.get(name)).as("nm's %s", name).isEqualTo(a));
    }

    @Test
    void tracedAddressesAreNamedAfterTheBinaryLoadedThere() throws Exception {
        Path file = builds.get("pie");
        ElfFile elf = ElfFile.read(file);
        long base = 0x5555_5555_4000L;
        List<String> warnings = new ArrayList<>();
        Map<String, String> names = BinarySymbols.names(
                List.of(binary(file, base, elf.buildIdHex())),
                addresses(elf, base, "worker", "helper"),
                dir.resolve("no-debug"),
                warnings::add);
        assertThat(warnings).isEmpty();
        assertThat(names).containsValues("worker", "helper", "worker+0x1").hasSize(3);
    }

    @Test
    void anotherBuildAMissingFileATruncatedOneAndACorruptSectionHeaderEachGiveOneWarning() throws Exception {
        Path file = builds.get("pie");
        ElfFile elf = ElfFile.read(file);
        long base = 0x5555_5555_4000L;
        byte[] bytes = Files.readAllBytes(file);

        Path truncated = dir.resolve("truncated");
        Files.write(truncated, java.util.Arrays.copyOf(bytes, bytes.length * 2 / 3));

        // the .symtab's section header says its entries lie far past the file's end
        Path corrupt = dir.resolve("corrupt");
        ByteBuffer b = ByteBuffer.wrap(bytes.clone()).order(ByteOrder.LITTLE_ENDIAN);
        long shoff = b.getLong(40);
        int shentsize = b.getShort(58);
        int shnum = b.getShort(60);
        boolean patched = false;
        for (int k = 0; k < shnum; k++) {
            int at = (int) shoff + k * shentsize;
            if (b.getInt(at + 4) == 2) { // SHT_SYMTAB
                b.putLong(at + 24, 0x7FFF_FFFF_FFFF_FF00L);
                patched = true;
            }
        }
        assertThat(patched).isTrue();
        Files.write(corrupt, b.array());

        Path garbage = dir.resolve("garbage");
        byte[] g = new byte[4096];
        new java.util.Random(7).nextBytes(g);
        System.arraycopy(new byte[] {0x7F, 'E', 'L', 'F', 2, 1}, 0, g, 0, 6);
        Files.write(garbage, g);

        String other = "00".repeat(20);
        List<StateModel.Binary> loaded = List.of(
                binary(file, base, other),
                binary(dir.resolve("gone"), base + 0x100000, null),
                binary(truncated, base + 0x200000, elf.buildIdHex()),
                binary(corrupt, base + 0x300000, elf.buildIdHex()),
                binary(garbage, base + 0x400000, null));
        List<String> names = new ArrayList<>();
        for (int k = 0; k < 5; k++) {
            names.addAll(addresses(elf, base + k * 0x100000L, "worker", "helper"));
        }
        List<String> warnings = new ArrayList<>();
        Map<String, String> named = BinarySymbols.names(loaded, names, dir.resolve("no-debug"), warnings::add);
        assertThat(named).as("nothing named").isEmpty();
        assertThat(warnings).hasSize(5);
        assertThat(warnings.get(0))
                .isEqualTo(file + ": not the binary traced (build id differs): its 3 functions keep their addresses");
        assertThat(warnings.get(1)).startsWith(dir.resolve("gone") + ": no such file on this machine: its 3 functions");
        assertThat(warnings.get(2)).startsWith(truncated + ": truncated or damaged ELF file (");
        assertThat(warnings.get(3)).startsWith(corrupt + ": truncated or damaged ELF file (.symtab, ");
        assertThat(warnings.get(4)).startsWith(garbage + ": ");
        assertThat(warnings).allSatisfy(w -> assertThat(w).doesNotContain("\n").doesNotContain("Exception"));
        assertThatThrownBy(() -> ElfFile.read(corrupt)).isInstanceOf(ElfFile.ElfException.class);
    }

    @Test
    void aFifoOrAFolderNamedAsABinaryIsRefusedInOneLineWithoutBlocking() throws Exception {
        Path fifo = dir.resolve("fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor())
                .isZero();
        Path folder = Files.createDirectories(dir.resolve("folder"));
        long base = 0x5555_5555_4000L;
        ElfFile elf = ElfFile.read(builds.get("pie"));
        List<String> names = new ArrayList<>(addresses(elf, base, "worker"));
        names.addAll(addresses(elf, base + 0x100000L, "worker"));
        List<String> warnings = new ArrayList<>();
        // opening a FIFO for reading waits for a writer: the call would never return
        Map<String, String> named = assertTimeoutPreemptively(
                java.time.Duration.ofSeconds(20),
                () -> BinarySymbols.names(
                        List.of(binary(fifo, base, null), binary(folder, base + 0x100000L, null)),
                        names,
                        dir.resolve("no-debug"),
                        warnings::add));
        assertThat(named).isEmpty();
        assertThat(warnings)
                .containsExactly(
                        fifo + ": not a regular file: its 2 functions keep their addresses",
                        folder + ": not a regular file: its 2 functions keep their addresses");
    }

    @Test
    void aStrippedBinarysFunctionsAreNamedAfterItsDebugFileFoundByBuildId() throws Exception {
        Path file = builds.get("pie");
        ElfFile elf = ElfFile.read(file);
        String id = elf.buildIdHex();
        Path stripped = dir.resolve("stripped");
        assertThat(run(List.of("objcopy", "--strip-all", file.toString(), stripped.toString())).exit)
                .isZero();
        assertThat(ElfFile.read(stripped).hasSymtab()).isFalse();
        Path debugRoot = dir.resolve("debug");
        Path debug = debugRoot.resolve(".build-id").resolve(id.substring(0, 2)).resolve(id.substring(2) + ".debug");
        Files.createDirectories(debug.getParent());
        assertThat(run(List.of("objcopy", "--only-keep-debug", file.toString(), debug.toString())).exit)
                .isZero();
        long base = 0x7F00_0000_0000L;
        List<String> traced = addresses(elf, base, "helper", "worker");
        List<String> warnings = new ArrayList<>();
        Map<String, String> named =
                BinarySymbols.names(List.of(binary(stripped, base, id)), traced, debugRoot, warnings::add);
        assertThat(warnings).isEmpty();
        assertThat(named).containsValues("helper", "worker");

        // without the debug file: the static helper is in no dynamic symbol table, it keeps its address
        named = BinarySymbols.names(
                List.of(binary(stripped, base, id)), traced, dir.resolve("no-debug"), warnings::add);
        assertThat(named).doesNotContainValue("helper");
        assertThat(warnings).hasSize(1).first().asString().startsWith(stripped + ": ");
    }

    /** Bytes changed at random, in the headers and anywhere: the file read, or refused with an ElfException. */
    @Test
    void randomDamageIsReadOrRefusedInOneLineNeverAnotherException() throws Exception {
        for (String build : builds.keySet()) {
            byte[] original = Files.readAllBytes(builds.get(build));
            java.util.Random random = new java.util.Random(build.hashCode());
            Path damaged = dir.resolve("damaged-" + build);
            int refused = 0;
            for (int i = 0; i < 400; i++) {
                byte[] b = original.clone();
                int n = 1 + random.nextInt(8);
                for (int k = 0; k < n; k++) {
                    // half the time in the ELF header, else anywhere
                    b[random.nextInt(i % 2 == 0 ? 64 : b.length)] = (byte) random.nextInt(256);
                }
                Files.write(damaged, b);
                try {
                    ElfFile elf = ElfFile.read(damaged);
                    for (long a : elf.functions().keySet()) {
                        elf.nameOf(a + 1);
                    }
                } catch (ElfFile.ElfException e) {
                    refused++;
                    assertThat(e.getMessage()).doesNotContain("\n").matches("(not an|truncated|damaged).*");
                }
            }
            assertThat(refused).as("%s: damaged copies refused", build).isPositive();
        }
    }

    /**
     * A copy of the little-endian ELF file {@code file} in big-endian order: the ELF header, the
     * program and section headers, the symbol tables' entries and the notes' headers swapped, the
     * rest as it was. readelf reads it as it reads the original.
     */
    private static Path bigEndian(Path file, String out) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer le = ByteBuffer.wrap(bytes.clone()).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer be = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        boolean wide = le.get(4) == 2;
        int w = wide ? 8 : 4;
        bytes[5] = 2; // ELFDATA2MSB
        // the ELF header after e_ident: type, machine, version, entry, phoff, shoff, flags, then six halves
        int at = swap(le, be, 16, 2, 2, 4, w, w, w, 4, 2, 2, 2, 2, 2, 2);
        assertThat(at).isEqualTo(wide ? 64 : 52);
        long phoff = wide ? le.getLong(32) : le.getInt(28);
        long shoff = wide ? le.getLong(40) : le.getInt(32);
        int phentsize = le.getShort(wide ? 54 : 42);
        int phnum = le.getShort(wide ? 56 : 44);
        int shentsize = le.getShort(wide ? 58 : 46);
        int shnum = le.getShort(wide ? 60 : 48);
        for (int k = 0; k < phnum; k++) {
            int p = (int) phoff + k * phentsize;
            swap(le, be, p, wide ? new int[] {4, 4, 8, 8, 8, 8, 8, 8} : new int[] {4, 4, 4, 4, 4, 4, 4, 4});
        }
        for (int k = 0; k < shnum; k++) {
            int h = (int) shoff + k * shentsize;
            int type = le.getInt(h + 4);
            long offset = wide ? le.getLong(h + 24) : le.getInt(h + 16);
            long size = wide ? le.getLong(h + 32) : le.getInt(h + 20);
            long entsize = wide ? le.getLong(h + 56) : le.getInt(h + 36);
            swap(le, be, h, 4, 4, w, w, w, w, 4, 4, w, w);
            if (type == 2 || type == 11) { // the symbol tables
                for (long e = offset; e + entsize <= offset + size; e += entsize) {
                    swap(le, be, (int) e, wide ? new int[] {4, 1, 1, 2, 8, 8} : new int[] {4, 4, 4, 1, 1, 2});
                }
            } else if (type == 7) { // notes: their headers, aligned as their section
                long align = wide ? le.getLong(h + 48) : le.getInt(h + 32);
                long a = align == 8 ? 8 : 4;
                for (long n = offset; n + 12 <= offset + size; ) {
                    int namesz = le.getInt((int) n);
                    int descsz = le.getInt((int) n + 4);
                    swap(le, be, (int) n, 4, 4, 4);
                    long desc = offset + ((n - offset + 12 + namesz + a - 1) & -a);
                    n = offset + ((desc - offset + descsz + a - 1) & -a);
                }
            }
        }
        Path to = dir.resolve(out);
        Files.write(to, bytes);
        return to;
    }

    /** Swaps fields of these widths, one after the other from {@code at}; where the next would begin. */
    private static int swap(ByteBuffer le, ByteBuffer be, int at, int... widths) {
        for (int width : widths) {
            switch (width) {
                case 2 -> be.putShort(at, le.getShort(at));
                case 4 -> be.putInt(at, le.getInt(at));
                case 8 -> be.putLong(at, le.getLong(at));
                default -> {}
            }
            at += width;
        }
        return at;
    }

    private static StateModel.Binary binary(Path file, long base, String buildId) {
        return new StateModel.Binary(0, 1, base, 0x100000, file.toString(), true, buildId);
    }

    /** The traced addresses of functions of {@code elf} loaded at {@code base}: each start, and the first one's second byte. */
    private static List<String> addresses(ElfFile elf, long base, String... functions) {
        List<String> out = new ArrayList<>();
        for (String f : functions) {
            long a = elf.functions().entrySet().stream()
                    .filter(e -> e.getValue().equals(f))
                    .findFirst()
                    .orElseThrow()
                    .getKey();
            out.add("0x" + Long.toHexString(a - elf.firstLoadAddress() + base));
        }
        long first = Long.decode(out.getFirst());
        out.add("0x" + Long.toHexString(first + 1));
        return out;
    }

    private static long address(Map<Long, Set<String>> byAddress, String name) {
        return byAddress.entrySet().stream()
                .filter(e -> e.getValue().contains(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError(name + " not in readelf's .symtab"))
                .getKey();
    }

    private static Path gcc(String out, String... options) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("gcc"));
        cmd.addAll(List.of(options));
        cmd.addAll(List.of(
                "-Wl,--build-id",
                dir.resolve("prog.c").toString(),
                "-o",
                dir.resolve(out).toString()));
        Ran r = run(cmd);
        assertThat(r.exit).as("%s:%n%s", cmd, r.out).isZero();
        return dir.resolve(out);
    }

    private record Ran(int exit, String out) {}

    private static Ran run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(cmd + ": timed out");
        }
        return new Ran(p.exitValue(), out);
    }
}

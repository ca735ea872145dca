package dev.hetrace.analysis;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * What hetrace needs of an ELF file (ELF32 or ELF64, either byte order) to name the functions a
 * trace gives by address: its function symbols ({@code .symtab}, else {@code .dynsym}), its build
 * id ({@code .note.gnu.build-id}) and the address its first loadable segment is linked at.
 *
 * <p>Every read is checked against the file's size before it is made, and what is kept is
 * bounded by the file (a symbol table's entries lie in the file; names are at most
 * {@link #MAX_NAME} bytes and shared by offset): a damaged or hostile file is refused with an
 * {@link ElfException} that says what is wrong and where, never read past its end.
 */
public final class ElfFile {
    /** The longest symbol name read; a longer one makes the file refused. */
    static final int MAX_NAME = 4096;

    private static final int SHT_SYMTAB = 2;
    private static final int SHT_NOTE = 7;
    private static final int SHT_NOBITS = 8;
    private static final int SHT_DYNSYM = 11;
    private static final int PT_LOAD = 1;
    private static final int PT_NOTE = 4;
    private static final int STT_FUNC = 2;
    private static final int STT_GNU_IFUNC = 10;
    private static final int NT_GNU_BUILD_ID = 3;

    /** Why an ELF file cannot be read: one line, saying what and where. */
    public static final class ElfException extends IOException {
        ElfException(String message) {
            super(message);
        }
    }

    private final boolean elf64;
    private final ByteOrder order;
    private final long firstLoad;
    private final byte[] buildId;
    private final boolean symtab;
    /** The functions by start address: starts, sizes and names, side by side. */
    private final long[] starts;

    private final long[] sizes;
    private final String[] names;

    private ElfFile(
            boolean elf64,
            ByteOrder order,
            long firstLoad,
            byte[] buildId,
            boolean symtab,
            long[] starts,
            long[] sizes,
            String[] names) {
        this.elf64 = elf64;
        this.order = order;
        this.firstLoad = firstLoad;
        this.buildId = buildId;
        this.symtab = symtab;
        this.starts = starts;
        this.sizes = sizes;
        this.names = names;
    }

    /**
     * Reads the ELF file at {@code path}.
     *
     * @throws NoSuchFileException when there is no such file
     * @throws ElfException        when it is not a regular file, not an ELF file, or a damaged one
     */
    public static ElfFile read(Path path) throws IOException {
        // the path comes from a trace: a FIFO would block the open, a device or a folder is no binary
        if (!Files.readAttributes(path, BasicFileAttributes.class).isRegularFile()) {
            throw new ElfException("not a regular file");
        }
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
                Arena arena = Arena.ofConfined()) {
            long size = ch.size();
            if (size < 16) {
                throw new ElfException("not an ELF file (" + size + " bytes)");
            }
            MemorySegment file = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            return new Reader(file).read();
        } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
            // every read is checked before it is made: this is a bug, said as a damaged file rather than a trace
            throw new ElfException("damaged ELF file (" + e.getMessage() + ")");
        }
    }

    /** Whether it is an ELF64 file (else ELF32). */
    public boolean elf64() {
        return elf64;
    }

    /** Its byte order. */
    public ByteOrder order() {
        return order;
    }

    /** The virtual address of its first loadable segment (0 for a position-independent file, usually). */
    public long firstLoadAddress() {
        return firstLoad;
    }

    /** Its build id, or null when it has none. */
    public byte[] buildId() {
        return buildId == null ? null : buildId.clone();
    }

    /** Its build id in lowercase hex, or null. */
    public String buildIdHex() {
        return buildId == null ? null : HexFormat.of().formatHex(buildId);
    }

    /** Whether its functions come from a {@code .symtab} (else from {@code .dynsym}, or none). */
    public boolean hasSymtab() {
        return symtab;
    }

    /** How many functions it names (symbols sharing an address counted once). */
    public int functionCount() {
        return starts.length;
    }

    /** The functions it names, by address: start and name (for tests and diagnostics). */
    public Map<Long, String> functions() {
        Map<Long, String> out = new HashMap<>();
        for (int i = 0; i < starts.length; i++) {
            out.put(starts[i], names[i]);
        }
        return out;
    }

    /**
     * The name of the function that holds the (linked) address {@code vaddr}: its name at its
     * start, {@code name+0xoff} inside it; null when no function holds it.
     */
    public String nameOf(long vaddr) {
        int i = Arrays.binarySearch(starts, vaddr);
        if (i >= 0) {
            return names[i];
        }
        // the functions that begin before it, nearest first (a few: nested ranges are rare)
        for (int k = -i - 2, seen = 0; k >= 0 && seen < 8; k--, seen++) {
            if (vaddr - starts[k] < sizes[k]) {
                return names[k] + "+0x" + Long.toHexString(vaddr - starts[k]);
            }
        }
        return null;
    }

    /** One read of one file: its bytes, checked reads, and what is found in them. */
    private static final class Reader {
        final MemorySegment file;
        final long size;
        boolean elf64;
        ValueLayout.OfShort u16;
        ValueLayout.OfInt u32;
        ValueLayout.OfLong u64;

        Reader(MemorySegment file) {
            this.file = file;
            this.size = file.byteSize();
        }

        ElfFile read() throws ElfException {
            if (file.get(ValueLayout.JAVA_BYTE, 0) != 0x7F
                    || file.get(ValueLayout.JAVA_BYTE, 1) != 'E'
                    || file.get(ValueLayout.JAVA_BYTE, 2) != 'L'
                    || file.get(ValueLayout.JAVA_BYTE, 3) != 'F') {
                throw new ElfException("not an ELF file (no ELF magic number)");
            }
            int cls = file.get(ValueLayout.JAVA_BYTE, 4) & 0xFF;
            int data = file.get(ValueLayout.JAVA_BYTE, 5) & 0xFF;
            if (cls != 1 && cls != 2) {
                throw new ElfException("damaged ELF file (class " + cls + ", neither 32 nor 64 bits)");
            }
            if (data != 1 && data != 2) {
                throw new ElfException("damaged ELF file (data encoding " + data + ", neither little nor big endian)");
            }
            elf64 = cls == 2;
            ByteOrder order = data == 1 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
            u16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(order);
            u32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(order);
            u64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(order);
            check(0, elf64 ? 64 : 52, "the ELF header");
            long phoff = word(elf64 ? 32 : 28);
            long shoff = word(elf64 ? 40 : 32);
            int phentsize = half(elf64 ? 54 : 42);
            int phnum = half(elf64 ? 56 : 44);
            int shentsize = half(elf64 ? 58 : 46);
            int shnum = half(elf64 ? 60 : 48);

            // the program headers: the first loadable segment's address, the notes when no section says them
            long firstLoad = 0;
            boolean loadFound = false;
            List<long[]> segmentNotes = new ArrayList<>();
            if (phnum > 0) {
                table(phoff, phnum, phentsize, elf64 ? 56 : 32, "program header");
                for (int k = 0; k < phnum; k++) {
                    long at = phoff + (long) k * phentsize;
                    int type = file.get(u32, at);
                    long offset = word(at + (elf64 ? 8 : 4));
                    long vaddr = word(at + (elf64 ? 16 : 8));
                    long filesz = word(at + (elf64 ? 32 : 16));
                    long align = word(at + (elf64 ? 48 : 28));
                    if (type == PT_LOAD && !loadFound) {
                        firstLoad = vaddr;
                        loadFound = true;
                    } else if (type == PT_NOTE) {
                        segmentNotes.add(new long[] {offset, filesz, align});
                    }
                }
            }

            // the section headers: the symbol tables and the notes
            long symtab = -1;
            long dynsym = -1;
            List<long[]> sectionNotes = new ArrayList<>();
            if (shnum > 0) {
                table(shoff, shnum, shentsize, elf64 ? 64 : 40, "section header");
                for (int k = 0; k < shnum; k++) {
                    long at = shoff + (long) k * shentsize;
                    int type = file.get(u32, at + 4);
                    if (type == SHT_SYMTAB && symtab < 0) {
                        symtab = at;
                    } else if (type == SHT_DYNSYM && dynsym < 0) {
                        dynsym = at;
                    } else if (type == SHT_NOTE) {
                        sectionNotes.add(new long[] {
                            word(at + (elf64 ? 24 : 16)), word(at + (elf64 ? 32 : 20)), word(at + (elf64 ? 48 : 32))
                        });
                    }
                }
            }
            byte[] buildId = null;
            for (long[] n : sectionNotes.isEmpty() ? segmentNotes : sectionNotes) {
                buildId = buildId(n[0], n[1], n[2]);
                if (buildId != null) {
                    break;
                }
            }
            long table = symtab >= 0 ? symtab : dynsym;
            List<Function> functions = table < 0
                    ? List.of()
                    : functions(table, shoff, shnum, shentsize, symtab >= 0 ? ".symtab" : ".dynsym");
            int n = functions.size();
            long[] starts = new long[n];
            long[] sizes = new long[n];
            String[] names = new String[n];
            for (int k = 0; k < n; k++) {
                Function f = functions.get(k);
                starts[k] = f.value;
                sizes[k] = f.size;
                names[k] = f.name;
            }
            return new ElfFile(elf64, order, firstLoad, buildId, symtab >= 0, starts, sizes, names);
        }

        private record Function(long value, long size, String name, int rank) {}

        /** The function symbols of the symbol table whose header is at {@code header}, one per address, sorted. */
        private List<Function> functions(long header, long shoff, int shnum, int shentsize, String what)
                throws ElfException {
            long offset = word(header + (elf64 ? 24 : 16));
            long bytes = word(header + (elf64 ? 32 : 20));
            int link = file.get(u32, header + (elf64 ? 40 : 24));
            long entsize = word(header + (elf64 ? 56 : 36));
            if (entsize < (elf64 ? 24 : 16)) {
                throw new ElfException("damaged ELF file (" + what + " entries of " + entsize + " bytes)");
            }
            check(offset, bytes, what);
            if (link <= 0 || link >= shnum) {
                throw new ElfException("damaged ELF file (" + what + "'s string table is section "
                        + Integer.toUnsignedString(link) + ", of " + shnum + ")");
            }
            long strHeader = shoff + (long) link * shentsize;
            if (file.get(u32, strHeader + 4) == SHT_NOBITS) {
                throw new ElfException("damaged ELF file (" + what + "'s string table has no bytes in the file)");
            }
            long strOffset = word(strHeader + (elf64 ? 24 : 16));
            long strBytes = word(strHeader + (elf64 ? 32 : 20));
            check(strOffset, strBytes, what + "'s string table");
            long count = bytes / entsize;
            Map<Long, String> byOffset = new HashMap<>();
            Map<Long, Function> byValue = new HashMap<>();
            for (long k = 0; k < count; k++) {
                long at = offset + k * entsize;
                long name = file.get(u32, at) & 0xFFFFFFFFL;
                int info;
                int shndx;
                long value;
                long size;
                if (elf64) {
                    info = file.get(ValueLayout.JAVA_BYTE, at + 4) & 0xFF;
                    shndx = file.get(u16, at + 6) & 0xFFFF;
                    value = file.get(u64, at + 8);
                    size = file.get(u64, at + 16);
                } else {
                    value = file.get(u32, at + 4) & 0xFFFFFFFFL;
                    size = file.get(u32, at + 8) & 0xFFFFFFFFL;
                    info = file.get(ValueLayout.JAVA_BYTE, at + 12) & 0xFF;
                    shndx = file.get(u16, at + 14) & 0xFFFF;
                }
                int kind = info & 0xF;
                if (kind != STT_FUNC && kind != STT_GNU_IFUNC || shndx == 0 || name == 0) {
                    continue;
                }
                if (name >= strBytes) {
                    throw new ElfException("damaged ELF file (" + what + " symbol " + k + "'s name at " + name
                            + ", past its string table's " + strBytes + " bytes)");
                }
                String s = byOffset.get(name);
                if (s == null) {
                    s = string(strOffset + name, strOffset + strBytes, what + " symbol " + k);
                    byOffset.put(name, s);
                }
                // of the symbols at one address: a global one, else a weak one, else a local one; the longest
                int binding = info >>> 4;
                int rank = binding == 1 ? 2 : binding == 2 ? 1 : 0;
                Function f = new Function(value, size, s, rank);
                Function old = byValue.get(value);
                if (old == null || rank > old.rank || rank == old.rank && Long.compareUnsigned(size, old.size) > 0) {
                    byValue.put(value, f);
                }
            }
            List<Function> out = new ArrayList<>(byValue.values());
            out.sort((a, b) -> Long.compare(a.value, b.value));
            return out;
        }

        /** The NUL-terminated string at {@code at}, which must end before {@code limit}. */
        private String string(long at, long limit, String what) throws ElfException {
            long end = at;
            long stop = Math.min(limit, at + MAX_NAME + 1);
            while (end < stop && file.get(ValueLayout.JAVA_BYTE, end) != 0) {
                end++;
            }
            if (end == stop) {
                throw new ElfException("damaged ELF file (" + what + "'s name "
                        + (stop == limit ? "runs past its string table" : "is longer than " + MAX_NAME + " bytes")
                        + ")");
            }
            return new String(file.asSlice(at, end - at).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        }

        /** The GNU build id among the notes at {@code offset} ({@code bytes} long, entries aligned on {@code align}), or null. */
        private byte[] buildId(long offset, long bytes, long align) throws ElfException {
            check(offset, bytes, "a note section");
            long a = align == 8 ? 8 : 4;
            long at = offset;
            long end = offset + bytes;
            while (end - at >= 12) {
                long namesz = file.get(u32, at) & 0xFFFFFFFFL;
                long descsz = file.get(u32, at + 4) & 0xFFFFFFFFL;
                int type = file.get(u32, at + 8);
                long name = at + 12;
                // the descriptor and the next note begin aligned (from the section's start)
                long desc = offset + pad(name - offset + namesz, a);
                long next = offset + pad(desc - offset + descsz, a);
                if (desc > end || desc + descsz > end) {
                    throw new ElfException("damaged ELF file (a note at offset " + at + " runs past its section)");
                }
                if (type == NT_GNU_BUILD_ID
                        && namesz == 4
                        && file.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), name)
                                == 0x474E5500) { // "GNU\0"
                    return file.asSlice(desc, descsz).toArray(ValueLayout.JAVA_BYTE);
                }
                at = next;
            }
            return null;
        }

        private static long pad(long n, long align) {
            return (n + align - 1) & -align;
        }

        /** Refuses the file unless its {@code what} table's {@code count} entries, of at least {@code least} bytes, lie in it. */
        private void table(long offset, int count, int entry, int least, String what) throws ElfException {
            if (entry < least) {
                throw new ElfException("damaged ELF file (" + what + " entries of " + entry + " bytes)");
            }
            check(offset, (long) count * entry, "the " + what + " table");
        }

        /** Refuses the file unless {@code [offset, offset + length)} lies in it. */
        private void check(long offset, long length, String what) throws ElfException {
            if (offset < 0 || length < 0 || offset > size || length > size - offset) {
                throw new ElfException("truncated or damaged ELF file (" + what + ", "
                        + Long.toUnsignedString(length) + " bytes at offset " + Long.toUnsignedString(offset)
                        + ", is not within the file's " + size + " bytes)");
            }
        }

        /** An address or offset: 8 bytes in ELF64, 4 in ELF32. */
        private long word(long at) {
            return elf64 ? file.get(u64, at) : file.get(u32, at) & 0xFFFFFFFFL;
        }

        private int half(long at) {
            return file.get(u16, at) & 0xFFFF;
        }
    }
}

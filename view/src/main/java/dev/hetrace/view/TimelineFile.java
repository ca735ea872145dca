package dev.hetrace.view;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A {@link Timeline} kept in a file, so that the viewer opens a large board without reading its
 * traces again: the rows, labels and names, then every column (intervals, summaries, point events,
 * messages) as it is in memory. Reading maps the file and slices the columns out of it: nothing
 * is copied, and a view request touches only the pages of the rows and times it draws.
 *
 * <pre>
 * 0   "HETRACE-TIMELINE" (16 bytes), format version (int), 1 if little-endian (int),
 *     where the header starts and its length (longs), the CRC-32C of every byte after these
 *     48 (long); then the columns, each 8-aligned
 * ... the header: the small parts (DataOutput), then each column's place and length
 * </pre>
 *
 * Columns are in the byte order of the machine that wrote them; another order is refused (and
 * the viewer builds the timeline again), as is a file whose bytes no longer give its checksum
 * (changed, cut short): what is served is what was written.
 */
public final class TimelineFile {
    static final byte[] MAGIC = "HETRACE-TIMELINE".getBytes(StandardCharsets.US_ASCII);
    /** Raised when what is written changes: an older file is then built again. */
    static final int VERSION = 7;

    private static final int PREAMBLE = 48;
    private static final int BUFFER = 1 << 22;

    private TimelineFile() {}

    /**
     * Writes {@code t} to {@code file}: to a temporary file beside it, then renamed, so that a
     * reader never sees half of one. (What needs the state model, the statistics and the
     * diagnosis, is in the trace set's index.)
     */
    public static long write(Timeline t, Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve(
                file.getFileName() + ".tmp-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        try {
            List<MemorySegment> columns = columns(t);
            long[] at = new long[columns.size()];
            long pos = PREAMBLE;
            for (int k = 0; k < columns.size(); k++) {
                at[k] = pos;
                pos = (pos + columns.get(k).byteSize() + 7) & ~7L;
            }
            byte[] header = header(t, columns, at);
            long headerAt = pos;
            ByteBuffer pre = ByteBuffer.allocate(PREAMBLE).order(ByteOrder.BIG_ENDIAN);
            // written through a buffer, not a mapping: a full disk is an IOException, not a fault in memory
            try (FileChannel ch = FileChannel.open(
                    tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ByteBuffer buf = ByteBuffer.allocateDirect(BUFFER);
                MemorySegment window = MemorySegment.ofBuffer(buf);
                for (int k = 0; k < columns.size(); k++) {
                    write(ch, buf, window, columns.get(k), at[k]);
                }
                write(ch, buf, window, MemorySegment.ofArray(header), headerAt);
                // the checksum of the bytes as they are in the file (the gaps between columns included), read back
                pre.put(MAGIC)
                        .putInt(VERSION)
                        .putInt(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? 1 : 0)
                        .putLong(headerAt)
                        .putLong(header.length)
                        .putLong(checksum(ch, headerAt + header.length));
                write(ch, buf, window, MemorySegment.ofArray(pre.array()), 0);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return Files.size(file);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The CRC-32C of the bytes of {@code ch} from {@link #PREAMBLE} up to {@code end}. */
    private static long checksum(FileChannel ch, long end) throws IOException {
        CRC32C crc = new CRC32C();
        ByteBuffer buf = ByteBuffer.allocateDirect(BUFFER);
        for (long pos = PREAMBLE; pos < end; ) {
            buf.clear().limit((int) Math.min(BUFFER, end - pos));
            int n = ch.read(buf, pos);
            if (n < 0) {
                break;
            }
            pos += n;
            crc.update(buf.flip());
        }
        return crc.getValue();
    }

    /** Writes {@code from} at {@code pos}, a buffer's worth at a time. */
    private static void write(FileChannel ch, ByteBuffer buf, MemorySegment window, MemorySegment from, long pos)
            throws IOException {
        for (long o = 0; o < from.byteSize(); o += BUFFER) {
            int n = (int) Math.min(BUFFER, from.byteSize() - o);
            MemorySegment.copy(from, o, window, 0, n);
            buf.clear().limit(n);
            while (buf.hasRemaining()) {
                pos += ch.write(buf, pos);
            }
        }
    }

    /** The columns in the order the header lists them: the intervals, point events, messages, then each summary's. */
    private static List<MemorySegment> columns(Timeline t) {
        List<MemorySegment> out = new ArrayList<>(List.of(
                t.start,
                t.end_,
                t.maxEnd,
                t.label,
                t.state,
                t.flags,
                t.extra,
                t.markTime,
                t.markLabel,
                t.markSync,
                t.msgRow,
                t.msgSend,
                t.msgReceive,
                t.msgMaxReceive,
                t.msgSendCore,
                t.msgReceiveCore,
                t.msgSendTask,
                t.msgReceiveTask,
                t.msgQueue,
                t.msgId));
        for (RowSummary s : t.summaries) {
            if (s != null) {
                out.addAll(List.of(s.busy, s.count, s.top, s.topTime));
            }
        }
        return out;
    }

    private static byte[] header(Timeline t, List<MemorySegment> columns, long[] at) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 16);
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeLong(t.begin);
        out.writeLong(t.end);
        out.writeLong(t.events);
        strings(out, t.traceNames);
        strings(out, t.coreNames);
        strings(out, t.taskNames);
        out.writeInt(t.labels.size());
        for (int i = 0; i < t.labels.size(); i++) {
            string(out, t.labels.name(i));
        }
        out.writeInt(t.rows.size());
        for (Timeline.Row r : t.rows) {
            out.writeByte(r.kind().ordinal());
            string(out, r.name());
            out.writeInt(r.parent());
            out.writeInt(r.level());
            out.writeInt(r.core());
            out.writeInt(r.task());
            out.writeInt(r.depth());
        }
        ints(out, t.offset);
        ints(out, t.markOff);
        ints(out, t.lost());
        for (RowSummary s : t.summaries) {
            out.writeBoolean(s != null);
            if (s != null) {
                out.writeLong(s.origin);
                out.writeInt(s.shift0);
                ints(out, s.levelBase);
                ints(out, s.levelBins);
            }
        }
        out.writeInt(columns.size());
        for (int k = 0; k < columns.size(); k++) {
            out.writeLong(at[k]);
            out.writeLong(columns.get(k).byteSize());
        }
        out.flush();
        return bytes.toByteArray();
    }

    /**
     * Maps {@code file} and returns its timeline (without a state model: {@link Timeline#model()}
     * is null). Throws when the file is not a timeline, is of another version or byte order, or
     * is cut short, saying which.
     */
    public static Timeline read(Path file) throws IOException {
        MemorySegment all;
        long sum;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            all = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), Arena.ofAuto());
            // read, not through the mapping: touching every page of a file of gigabytes to check
            // it faulted each in (three times as long); a view then touches only what it shows
            sum = all.byteSize() < PREAMBLE ? 0 : checksum(ch, all.byteSize());
        }
        long size = all.byteSize();
        if (size < PREAMBLE) {
            throw new IOException(file + ": not a hetrace timeline (" + size + " bytes)");
        }
        ByteBuffer pre = all.asSlice(0, PREAMBLE).asByteBuffer().order(ByteOrder.BIG_ENDIAN);
        byte[] magic = new byte[MAGIC.length];
        pre.get(magic);
        if (!Arrays.equals(magic, MAGIC)) {
            throw new IOException(file + ": not a hetrace timeline");
        }
        int version = pre.getInt();
        if (version != VERSION) {
            throw new IOException(file + ": a timeline of format " + version + ", this hetrace reads " + VERSION);
        }
        boolean little = pre.getInt() == 1;
        if (little != (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN)) {
            throw new IOException(file + ": written on a machine of the other byte order");
        }
        long headerAt = pre.getLong();
        long headerLen = pre.getLong();
        if (headerAt < PREAMBLE || headerLen < 0 || headerLen > Integer.MAX_VALUE || headerAt + headerLen != size) {
            throw new IOException(file + ": cut short or damaged (its header is said to be at " + headerAt + ", "
                    + headerLen + " bytes, in a file of " + size + ")");
        }
        long crc = pre.getLong();
        if (sum != crc) {
            throw new IOException(file + ": not as it was written (its bytes do not give its checksum)");
        }
        byte[] header = all.asSlice(headerAt, headerLen).toArray(ValueLayout.JAVA_BYTE);
        try {
            return parse(file, all, new DataInputStream(new ByteArrayInputStream(header)));
        } catch (EOFException | IndexOutOfBoundsException | IllegalArgumentException e) {
            throw new IOException(file + ": damaged header (" + e.getMessage() + ")", e);
        }
    }

    private static Timeline parse(Path file, MemorySegment all, DataInputStream in) throws IOException {
        Timeline t = new Timeline(null);
        t.begin = in.readLong();
        t.end = in.readLong();
        t.events = in.readLong();
        t.traceNames = strings(in);
        t.coreNames = strings(in);
        t.taskNames = strings(in);
        int labels = count(in);
        for (int i = 0; i < labels; i++) {
            t.labels.id(string(in));
        }
        Timeline.Kind[] kinds = Timeline.Kind.values();
        int rows = count(in);
        for (int r = 0; r < rows; r++) {
            int kind = in.readUnsignedByte();
            if (kind >= kinds.length) {
                throw new IOException(file + ": damaged header (row " + r + " of kind " + kind + ")");
            }
            t.rows.add(new Timeline.Row(
                    r, kinds[kind], string(in), in.readInt(), in.readInt(), in.readInt(), in.readInt(), in.readInt()));
        }
        t.offset = ints(in);
        t.markOff = ints(in);
        t.lost = ints(in);
        if (t.lost.length != rows) {
            throw new IOException(file + ": damaged header (" + t.lost.length + " lost counts for " + rows + " rows)");
        }
        record Pyramid(long origin, int shift0, int[] base, int[] bins) {}
        List<Pyramid> pyramids = new ArrayList<>();
        int[] pyramidOf = new int[rows];
        for (int r = 0; r < rows; r++) {
            pyramidOf[r] = -1;
            if (in.readBoolean()) {
                pyramidOf[r] = pyramids.size();
                pyramids.add(new Pyramid(in.readLong(), in.readInt(), ints(in), ints(in)));
            }
        }
        int columns = count(in);
        if (columns != 20 + 4 * pyramids.size()) {
            throw new IOException(file + ": damaged header (" + columns + " columns)");
        }
        MemorySegment[] c = new MemorySegment[columns];
        for (int k = 0; k < columns; k++) {
            long at = in.readLong();
            long len = in.readLong();
            if (at < PREAMBLE || len < 0 || at + len > all.byteSize()) {
                throw new IOException(
                        file + ": cut short or damaged (column " + k + " at " + at + ", " + len + " bytes)");
            }
            c[k] = all.asSlice(at, len);
        }
        int k = 0;
        t.start = c[k++];
        t.end_ = c[k++];
        t.maxEnd = c[k++];
        t.label = c[k++];
        t.state = c[k++];
        t.flags = c[k++];
        t.extra = c[k++];
        t.markTime = c[k++];
        t.markLabel = c[k++];
        t.markSync = c[k++];
        t.msgRow = c[k++];
        t.msgSend = c[k++];
        t.msgReceive = c[k++];
        t.msgMaxReceive = c[k++];
        t.msgSendCore = c[k++];
        t.msgReceiveCore = c[k++];
        t.msgSendTask = c[k++];
        t.msgReceiveTask = c[k++];
        t.msgQueue = c[k++];
        t.msgId = c[k++];
        t.summaries = new RowSummary[rows];
        for (int r = 0; r < rows; r++) {
            if (pyramidOf[r] >= 0) {
                Pyramid p = pyramids.get(pyramidOf[r]);
                t.summaries[r] =
                        new RowSummary(p.origin(), p.shift0(), p.base(), p.bins(), c[k], c[k + 1], c[k + 2], c[k + 3]);
                k += 4;
            }
        }
        t.derive();
        check(file, t);
        return t;
    }

    /** That the columns have the lengths the header's counts give, so that no request reads past one. */
    private static void check(Path file, Timeline t) throws IOException {
        int rows = t.rows.size();
        long n = t.offset.length == rows + 1 ? t.offset[rows] : -1;
        long marks = t.markOff.length == rows + 1 ? t.markOff[rows] : -1;
        long messages = t.msgSend.byteSize() / Long.BYTES;
        boolean ok = n >= 0
                && marks >= 0
                && t.start.byteSize() == 8 * n
                && t.end_.byteSize() == 8 * n
                && t.maxEnd.byteSize() == 8 * n
                && t.label.byteSize() == 4 * n
                && t.state.byteSize() == n
                && t.flags.byteSize() == n
                && t.extra.byteSize() == 8 * n
                && t.markTime.byteSize() == 8 * marks
                && t.markLabel.byteSize() == 4 * marks
                && t.markSync.byteSize() == marks
                && t.msgRow.byteSize() == 4 * messages
                && t.msgReceive.byteSize() == 8 * messages
                && t.msgMaxReceive.byteSize() == 8 * messages
                && t.msgSendCore.byteSize() == 4 * messages
                && t.msgReceiveCore.byteSize() == 4 * messages
                && t.msgSendTask.byteSize() == 4 * messages
                && t.msgReceiveTask.byteSize() == 4 * messages
                && t.msgQueue.byteSize() == 8 * messages
                && t.msgId.byteSize() == 8 * messages;
        ok &= ascending(t.offset) && ascending(t.markOff);
        for (RowSummary s : t.summaries) {
            if (s != null) {
                long bins = s.levelBase.length == 0
                        ? 0
                        : s.levelBase[s.levelBase.length - 1] + s.levelBins[s.levelBins.length - 1];
                ok &= s.busy.byteSize() == 4 * bins
                        && s.count.byteSize() == 4 * bins
                        && s.top.byteSize() == 4L * RowSummary.TOP * bins
                        && s.topTime.byteSize() == 4L * RowSummary.TOP * bins;
            }
        }
        if (!ok) {
            throw new IOException(file + ": damaged (its columns do not have the lengths its header gives)");
        }
    }

    /** Whether {@code a} starts at 0 and never goes down: offsets of consecutive ranges. */
    private static boolean ascending(int[] a) {
        if (a.length == 0 || a[0] != 0) {
            return false;
        }
        for (int i = 1; i < a.length; i++) {
            if (a[i] < a[i - 1]) {
                return false;
            }
        }
        return true;
    }

    private static void string(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String string(DataInputStream in) throws IOException {
        byte[] b = new byte[count(in)];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    private static void strings(DataOutputStream out, List<String> l) throws IOException {
        out.writeInt(l.size());
        for (String s : l) {
            string(out, s);
        }
    }

    private static List<String> strings(DataInputStream in) throws IOException {
        int n = count(in);
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(string(in));
        }
        return List.copyOf(out);
    }

    private static void ints(DataOutputStream out, int[] a) throws IOException {
        out.writeInt(a.length);
        for (int v : a) {
            out.writeInt(v);
        }
    }

    private static int[] ints(DataInputStream in) throws IOException {
        int[] a = new int[count(in)];
        for (int i = 0; i < a.length; i++) {
            a[i] = in.readInt();
        }
        return a;
    }

    /** A count read from the header, which cannot exceed what is left of it. */
    private static int count(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available()) {
            throw new EOFException("a count of " + n + " with " + in.available() + " bytes left");
        }
        return n;
    }
}

package dev.hetrace.ctf.metadata;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a trace's {@code metadata} file, plain text or packetized, and parses it: CTF 1.8 TSDL,
 * or CTF 2 JSON fragments (the text starts with a record separator). The file is streamed, never
 * held whole: metadata may be gigabytes.
 */
public final class MetadataReader {
    private static final int PACKET_MAGIC = 0x75D11D57;
    private static final int PACKET_HEADER_BYTES = 37;
    private static final Pattern SIGNATURE = Pattern.compile("^/\\* CTF (\\d{1,9})\\.(\\d{1,9})[ \\t\\r\\n*]");

    private MetadataReader() {}

    /** Parses the metadata file of a trace directory; warnings (unknown attributes...) go to {@code warnings}. */
    public static TraceClass read(Path metadataFile, Consumer<String> warnings) throws IOException, MetadataException {
        byte[] head;
        try (InputStream in = Files.newInputStream(metadataFile)) {
            head = in.readNBytes(64);
        }
        long size = Files.size(metadataFile);
        return parse(head, () -> new BufferedInputStream(Files.newInputStream(metadataFile), 1 << 16), size, warnings);
    }

    public static TraceClass parse(byte[] bytes, Consumer<String> warnings) throws MetadataException {
        try {
            return parse(
                    Arrays.copyOf(bytes, Math.min(bytes.length, 64)),
                    () -> new ByteArrayInputStream(bytes),
                    bytes.length,
                    warnings);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @FunctionalInterface
    private interface Opener {
        InputStream open() throws IOException;
    }

    private static TraceClass parse(byte[] head, Opener opener, long size, Consumer<String> warnings)
            throws IOException, MetadataException {
        ByteOrder packetOrder = packetizedOrder(head);
        if (packetOrder == null) {
            if (head.length > 0 && head[0] == Ctf2Parser.RS) {
                try (InputStream in = opener.open()) {
                    return Ctf2Parser.parse(in);
                }
            }
            checkSignature(new String(head, StandardCharsets.UTF_8));
        } else {
            // Packet headers are checked before any text is parsed, as when the file was read whole.
            try (InputStream in = new DepacketizingStream(opener.open(), packetOrder, size)) {
                byte[] sink = new byte[1 << 16];
                while (in.read(sink) >= 0) {
                    // only the packet headers matter here
                }
            } catch (UncheckedMetadataException e) {
                throw e.getCause();
            }
        }
        if (packetOrder != null && startsCtf2(new DepacketizingStream(opener.open(), packetOrder, size))) {
            try (InputStream in = new DepacketizingStream(opener.open(), packetOrder, size)) {
                return Ctf2Parser.parse(in);
            } catch (UncheckedMetadataException e) {
                throw e.getCause();
            }
        }
        TsdlParser.Source source = () ->
                reader(packetOrder == null ? opener.open() : new DepacketizingStream(opener.open(), packetOrder, size));
        TraceClass trace;
        try {
            trace = TsdlParser.parse(source, packetOrder != null ? packetOrder : ByteOrder.LITTLE_ENDIAN, warnings);
        } catch (UncheckedMetadataException e) {
            throw e.getCause();
        }
        if (packetOrder != null && trace.byteOrder() != packetOrder) {
            throw new MetadataException("metadata packets are " + describe(packetOrder)
                    + " but the trace byte_order is " + describe(trace.byteOrder()));
        }
        return trace;
    }

    /** Whether depacketized metadata is CTF 2: JSON fragments, each after a record separator. */
    private static boolean startsCtf2(InputStream in) throws IOException {
        try (in) {
            return in.read() == Ctf2Parser.RS;
        }
    }

    private static Reader reader(InputStream in) {
        // Malformed UTF-8 reads as U+FFFD, as new String(bytes, UTF_8) does.
        return new InputStreamReader(
                in,
                StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPLACE)
                        .onUnmappableCharacter(CodingErrorAction.REPLACE));
    }

    /** Text metadata as the packets carry it (or the text itself), for tools that show metadata. */
    public static String text(byte[] bytes) throws MetadataException {
        ByteOrder order = packetizedOrder(bytes);
        if (order == null) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        try (InputStream in = new DepacketizingStream(new ByteArrayInputStream(bytes), order, bytes.length)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (UncheckedMetadataException e) {
            throw e.getCause();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String describe(ByteOrder order) {
        return order == ByteOrder.BIG_ENDIAN ? "big-endian" : "little-endian";
    }

    private static void checkSignature(String text) throws MetadataException {
        if (!text.isEmpty() && text.charAt(0) == '{') {
            throw new MetadataException(
                    1,
                    1,
                    "metadata starts with '{' but not with the record separator (0x1E) of"
                            + " CTF 2 metadata: not a CTF 1.8 or CTF 2 metadata stream");
        }
        if (!text.startsWith("/* CTF")) {
            return; // the signature is recommended; babeltrace2 reads metadata without it too
        }
        Matcher m = SIGNATURE.matcher(text);
        if (!m.find()) {
            throw new MetadataException(1, 1, "malformed metadata signature: expected \"/* CTF 1.8\"");
        }
        if (!m.group(1).equals("1") || !m.group(2).equals("8")) {
            throw new MetadataException(
                    1,
                    8,
                    "unsupported CTF version " + m.group(1) + "." + m.group(2)
                            + " in the metadata signature: only CTF 1.8 and CTF 2 are supported");
        }
    }

    private static ByteOrder packetizedOrder(byte[] bytes) {
        if (bytes.length < 4) {
            return null;
        }
        int be = ByteBuffer.wrap(bytes, 0, 4)
                .order(java.nio.ByteOrder.BIG_ENDIAN)
                .getInt();
        if (be == PACKET_MAGIC) {
            return ByteOrder.BIG_ENDIAN;
        }
        if (Integer.reverseBytes(be) == PACKET_MAGIC) {
            return ByteOrder.LITTLE_ENDIAN;
        }
        return null;
    }

    /** A metadata error met while streaming, carried through {@link InputStream} methods. */
    private static final class UncheckedMetadataException extends RuntimeException {
        UncheckedMetadataException(MetadataException cause) {
            super(cause);
        }

        @Override
        public synchronized MetadataException getCause() {
            return (MetadataException) super.getCause();
        }
    }

    /** The text of packetized metadata: each packet's content without its header, packet after packet. */
    private static final class DepacketizingStream extends InputStream {
        private final InputStream in;
        private final java.nio.ByteOrder order;
        private final long fileSize;
        private final byte[] header = new byte[PACKET_HEADER_BYTES];
        private byte[] firstUuid;
        private long offset;
        private int packet;
        /** Content bytes left in the current packet, then padding bytes to skip. */
        private long contentLeft;

        private long paddingLeft;

        DepacketizingStream(InputStream in, ByteOrder order, long fileSize) {
            this.in = in;
            this.order = order.nio();
            this.fileSize = fileSize;
        }

        /** Moves to the next packet with content; false at the end of the file. */
        private boolean nextPacket() throws IOException {
            while (contentLeft == 0) {
                if (paddingLeft > 0) {
                    in.skipNBytes(paddingLeft);
                    offset += paddingLeft;
                    paddingLeft = 0;
                }
                if (offset >= fileSize) {
                    return false;
                }
                readHeader();
            }
            return true;
        }

        private void readHeader() throws IOException {
            String where = "metadata packet " + packet + " at byte offset " + offset;
            long left = fileSize - offset;
            if (left < PACKET_HEADER_BYTES) {
                throw fail(where + ": truncated packet header (" + left + " bytes left, header needs "
                        + PACKET_HEADER_BYTES + ")");
            }
            if (in.readNBytes(header, 0, PACKET_HEADER_BYTES) != PACKET_HEADER_BYTES) {
                throw fail(where + ": truncated packet header");
            }
            ByteBuffer buf = ByteBuffer.wrap(header).order(order);
            if (buf.getInt(0) != PACKET_MAGIC) {
                throw fail(where + ": bad magic 0x" + Integer.toHexString(buf.getInt(0)) + " (expected 0x75d11d57)");
            }
            byte[] uuid = Arrays.copyOfRange(header, 4, 20);
            if (firstUuid == null) {
                firstUuid = uuid;
            } else if (!Arrays.equals(firstUuid, uuid)) {
                throw fail(where + ": UUID differs from the first metadata packet's");
            }
            long contentBits = Integer.toUnsignedLong(buf.getInt(24));
            long packetBits = Integer.toUnsignedLong(buf.getInt(28));
            int compression = header[32] & 0xFF;
            int encryption = header[33] & 0xFF;
            int checksumScheme = header[34] & 0xFF;
            int major = header[35] & 0xFF;
            int minor = header[36] & 0xFF;
            if (compression != 0 || encryption != 0 || checksumScheme != 0) {
                throw fail(where + ": compressed, encrypted or checksummed metadata is not supported");
            }
            if (!(major == 1 && minor == 8) && !(major == 2 && minor == 0)) {
                throw fail(where + ": unsupported CTF version " + major + "." + minor);
            }
            if (contentBits % 8 != 0 || packetBits % 8 != 0) {
                throw fail(where + ": content_size and packet_size must be whole bytes");
            }
            if (contentBits < PACKET_HEADER_BYTES * 8L || contentBits > packetBits) {
                throw fail(where + ": content_size " + contentBits + " bits is not between the header"
                        + " size and packet_size " + packetBits);
            }
            if (offset + packetBits / 8 > fileSize) {
                throw fail(where + ": packet_size " + packetBits + " bits goes past the end of the file");
            }
            offset += PACKET_HEADER_BYTES;
            contentLeft = contentBits / 8 - PACKET_HEADER_BYTES;
            paddingLeft = packetBits / 8 - contentBits / 8;
            packet++;
        }

        private static UncheckedMetadataException fail(String message) {
            return new UncheckedMetadataException(new MetadataException(message));
        }

        @Override
        public int read() throws IOException {
            if (!nextPacket()) {
                return -1;
            }
            int b = in.read();
            if (b < 0) {
                throw fail("metadata packet " + (packet - 1) + ": truncated content");
            }
            contentLeft--;
            offset++;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (!nextPacket()) {
                return -1;
            }
            int n = in.read(b, off, (int) Math.min(len, contentLeft));
            if (n < 0) {
                throw fail("metadata packet " + (packet - 1) + ": truncated content");
            }
            contentLeft -= n;
            offset += n;
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}

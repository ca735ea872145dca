package dev.hetrace.ctf.metadata;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a trace's {@code metadata} file, plain text or packetized, and parses it.
 */
public final class MetadataReader {
    private static final int PACKET_MAGIC = 0x75D11D57;
    private static final int PACKET_HEADER_BYTES = 37;
    private static final Pattern SIGNATURE = Pattern.compile("^/\\* CTF (\\d{1,9})\\.(\\d{1,9})[ \\t\\r\\n*]");

    private MetadataReader() {
    }

    /** Parses the metadata file of a trace directory; warnings (unknown attributes...) go to {@code warnings}. */
    public static TraceClass read(Path metadataFile, Consumer<String> warnings) throws IOException, MetadataException {
        byte[] bytes = Files.readAllBytes(metadataFile);
        return parse(bytes, warnings);
    }

    public static TraceClass parse(byte[] bytes, Consumer<String> warnings) throws MetadataException {
        ByteOrder packetOrder = packetizedOrder(bytes);
        String text;
        if (packetOrder != null) {
            text = depacketize(bytes, packetOrder);
        } else {
            text = new String(bytes, StandardCharsets.UTF_8);
            checkSignature(text);
        }
        TraceClass trace = TsdlParser.parse(text, packetOrder != null ? packetOrder : ByteOrder.LITTLE_ENDIAN, warnings);
        if (packetOrder != null && trace.byteOrder() != packetOrder) {
            throw new MetadataException("metadata packets are " + describe(packetOrder) + " but the trace byte_order is "
                + describe(trace.byteOrder()));
        }
        return trace;
    }

    /** Text metadata as the packets carry it (or the text itself), for tools that show metadata. */
    public static String text(byte[] bytes) throws MetadataException {
        ByteOrder order = packetizedOrder(bytes);
        return order != null ? depacketize(bytes, order) : new String(bytes, StandardCharsets.UTF_8);
    }

    private static String describe(ByteOrder order) {
        return order == ByteOrder.BIG_ENDIAN ? "big-endian" : "little-endian";
    }

    private static void checkSignature(String text) throws MetadataException {
        if (!text.startsWith("/* CTF")) {
            return; // the signature is recommended; babeltrace2 reads metadata without it too
        }
        Matcher m = SIGNATURE.matcher(text);
        if (!m.find()) {
            throw new MetadataException(1, 1, "malformed metadata signature: expected \"/* CTF 1.8\"");
        }
        if (!m.group(1).equals("1") || !m.group(2).equals("8")) {
            throw new MetadataException(1, 8, "unsupported CTF version " + m.group(1) + "." + m.group(2)
                + " in the metadata signature (expected 1.8)");
        }
    }

    private static ByteOrder packetizedOrder(byte[] bytes) {
        if (bytes.length < 4) {
            return null;
        }
        int be = ByteBuffer.wrap(bytes, 0, 4).order(java.nio.ByteOrder.BIG_ENDIAN).getInt();
        if (be == PACKET_MAGIC) {
            return ByteOrder.BIG_ENDIAN;
        }
        if (Integer.reverseBytes(be) == PACKET_MAGIC) {
            return ByteOrder.LITTLE_ENDIAN;
        }
        return null;
    }

    private static String depacketize(byte[] bytes, ByteOrder order) throws MetadataException {
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(order.nio());
        StringBuilder text = new StringBuilder();
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(bytes.length);
        byte[] firstUuid = null;
        long offset = 0;
        int packet = 0;
        while (offset < bytes.length) {
            String where = "metadata packet " + packet + " at byte offset " + offset;
            if (bytes.length - offset < PACKET_HEADER_BYTES) {
                throw new MetadataException(where + ": truncated packet header (" + (bytes.length - offset)
                    + " bytes left, header needs " + PACKET_HEADER_BYTES + ")");
            }
            int at = (int) offset;
            if (buf.getInt(at) != PACKET_MAGIC) {
                throw new MetadataException(where + ": bad magic 0x" + Integer.toHexString(buf.getInt(at))
                    + " (expected 0x75d11d57)");
            }
            byte[] uuid = new byte[16];
            System.arraycopy(bytes, at + 4, uuid, 0, 16);
            if (firstUuid == null) {
                firstUuid = uuid;
            } else if (!java.util.Arrays.equals(firstUuid, uuid)) {
                throw new MetadataException(where + ": UUID differs from the first metadata packet's");
            }
            long contentBits = Integer.toUnsignedLong(buf.getInt(at + 24));
            long packetBits = Integer.toUnsignedLong(buf.getInt(at + 28));
            int compression = bytes[at + 32] & 0xFF;
            int encryption = bytes[at + 33] & 0xFF;
            int checksumScheme = bytes[at + 34] & 0xFF;
            int major = bytes[at + 35] & 0xFF;
            int minor = bytes[at + 36] & 0xFF;
            if (compression != 0 || encryption != 0 || checksumScheme != 0) {
                throw new MetadataException(where + ": compressed, encrypted or checksummed metadata is not supported");
            }
            if (major != 1 || minor != 8) {
                throw new MetadataException(where + ": unsupported CTF version " + major + "." + minor);
            }
            if (contentBits % 8 != 0 || packetBits % 8 != 0) {
                throw new MetadataException(where + ": content_size and packet_size must be whole bytes");
            }
            if (contentBits < PACKET_HEADER_BYTES * 8L || contentBits > packetBits) {
                throw new MetadataException(where + ": content_size " + contentBits + " bits is not between the header"
                    + " size and packet_size " + packetBits);
            }
            if (offset + packetBits / 8 > bytes.length) {
                throw new MetadataException(where + ": packet_size " + packetBits + " bits goes past the end of the file");
            }
            out.write(bytes, at + PACKET_HEADER_BYTES, (int) (contentBits / 8 - PACKET_HEADER_BYTES));
            offset += packetBits / 8;
            packet++;
        }
        text.append(new String(out.toByteArray(), StandardCharsets.UTF_8));
        return text.toString();
    }
}

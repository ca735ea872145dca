package dev.hetrace.tracer.rpmsg;

import java.io.IOException;
import java.nio.ByteBuffer;

/** The metadata of a trace collected packet by packet, made from its first whole packet (e.g. to take its trace UUID). */
@FunctionalInterface
public interface FirstPacketMetadata {
    byte[] metadata(ByteBuffer firstPacket) throws IOException;
}

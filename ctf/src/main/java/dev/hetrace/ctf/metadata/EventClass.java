package dev.hetrace.ctf.metadata;

import dev.hetrace.ctf.metadata.FieldType.StructType;

/**
 * An event type of a stream.
 *
 * @param context  the event context ({@code context := ...}), or null
 * @param payload  the event payload ({@code fields := ...}), or null
 * @param logLevel the {@code loglevel} attribute, or null
 * @param emfUri   the {@code model.emf.uri} attribute, or null
 */
public record EventClass(
        long id, String name, long streamId, StructType context, StructType payload, Long logLevel, String emfUri) {}

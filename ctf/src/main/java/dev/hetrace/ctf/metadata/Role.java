package dev.hetrace.ctf.metadata;

/**
 * What a field means to the decoder, as CTF 2 metadata says it explicitly (CTF 1.8 says it by
 * reserved member names, which the decode plan reads instead).
 */
public enum Role {
    PACKET_MAGIC_NUMBER("packet-magic-number"),
    METADATA_STREAM_UUID("metadata-stream-uuid"),
    DATA_STREAM_CLASS_ID("data-stream-class-id"),
    DATA_STREAM_ID("data-stream-id"),
    PACKET_TOTAL_LENGTH("packet-total-length"),
    PACKET_CONTENT_LENGTH("packet-content-length"),
    DEFAULT_CLOCK_TIMESTAMP("default-clock-timestamp"),
    PACKET_END_DEFAULT_CLOCK_TIMESTAMP("packet-end-default-clock-timestamp"),
    DISCARDED_EVENT_RECORD_COUNTER_SNAPSHOT("discarded-event-record-counter-snapshot"),
    PACKET_SEQUENCE_NUMBER("packet-sequence-number"),
    EVENT_RECORD_CLASS_ID("event-record-class-id");

    private final String jsonName;

    Role(String jsonName) {
        this.jsonName = jsonName;
    }

    /** The role's name in CTF 2 metadata. */
    public String jsonName() {
        return jsonName;
    }

    /** The role named {@code name} in CTF 2 metadata, or null. */
    public static Role named(String name) {
        for (Role r : values()) {
            if (r.jsonName.equals(name)) {
                return r;
            }
        }
        return null;
    }
}

package dev.hetrace.profile;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.hetrace.ctf.write.OutputFile;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A campaign saved as JSON ({@code campaign.json}): what {@code hetrace profile run}, {@code sweep}
 * and {@code import} write, and what the analyses and reports read. NaN values are written as
 * the string {@code "NaN"}, which reads back as NaN.
 */
public final class CampaignFile {

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private CampaignFile() {}

    public static void write(Campaign campaign, Path file) throws IOException {
        try (OutputFile out = OutputFile.of(file)) {
            try (var os = out.newOutputStream()) {
                JSON.writeValue(os, campaign);
            }
            out.commit();
        }
    }

    /** Reads a campaign; a malformed file gets a {@link ProfileException} naming it, its line and column. */
    public static Campaign read(Path file) throws IOException {
        try {
            return JSON.readValue(file.toFile(), Campaign.class);
        } catch (JsonProcessingException e) {
            var at = e.getLocation();
            throw new ProfileException(
                    file + (at == null ? "" : ":" + at.getLineNr() + ":" + at.getColumnNr())
                            + ": not a hetrace campaign: " + e.getOriginalMessage(),
                    e);
        }
    }
}

package dev.hetrace.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CampaignFileTest {

    @Test
    void aCampaignReadsBackEqualNaNsIncluded(@TempDir Path dir) throws Exception {
        Run run = new Run(
                "./matmul 512",
                Map.of("stress", "3"),
                1,
                1.25,
                1.2,
                Double.NaN,
                Map.of("task-clock", 1234.5, "page-faults", 77.0),
                Map.of("cycles", "not supported"),
                List.of(new Sample(0.5, 10, 11, "worker", 1, "tick", Map.of("instructions", 1e9))));
        Campaign campaign = new Campaign("matmul", Map.of("cpu", "test"), List.of(run), List.of(Map.of("level", "3")));
        Path file = dir.resolve("c/campaign.json");
        CampaignFile.write(campaign, file);
        Campaign back = CampaignFile.read(file);
        assertThat(back.runs().getFirst().systemSeconds()).isNaN();
        assertThat(back.runs().getFirst().value("page-faults")).isEqualTo(77.0);
        assertThat(back.runs().getFirst().samples()).isEqualTo(run.samples());
        assertThat(back.name()).isEqualTo("matmul");
    }

    @Test
    void theCurveASweepRecordsReadsBackAndAnOlderFileWithoutOneStillReads(@TempDir Path dir) throws Exception {
        Run run =
                new Run("w", Map.of("stress", "0"), 0, 1.0, 0.9, 0.1, Map.of("task-clock", 950.0), Map.of(), List.of());
        Campaign swept = new Campaign("s", Map.of(), List.of(run), List.of(), new Campaign.Curve("task-clock", 0.15));
        Path file = dir.resolve("swept.json");
        CampaignFile.write(swept, file);
        assertThat(CampaignFile.read(file).curve()).isEqualTo(new Campaign.Curve("task-clock", 0.15));

        // a campaign that does not say writes no "curve" (as an older hetrace wrote it), and reads back without one
        Path old = dir.resolve("old.json");
        CampaignFile.write(swept.withCurve(null), old);
        assertThat(Files.readString(old)).doesNotContain("curve");
        assertThat(CampaignFile.read(old).curve()).isNull();
        assertThat(CampaignFile.read(old).runs()).isEqualTo(swept.runs());

        Path bad = Files.writeString(
                dir.resolve("bad-curve.json"), Files.readString(file).replace("0.15", "-1"));
        assertThatThrownBy(() -> CampaignFile.read(bad))
                .isInstanceOf(ProfileException.class)
                .hasMessageContaining("bad-curve.json:")
                .hasMessageContaining("threshold must be ≥ 0, not -1.0");
    }

    @Test
    void aMalformedFileIsNamedWithItsLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("bad.json");
        Files.writeString(file, "{\n  \"name\": \"x\",\n  \"runs\": [ 12 \n");
        assertThatThrownBy(() -> CampaignFile.read(file))
                .isInstanceOf(ProfileException.class)
                .hasMessageContaining("bad.json:3");
    }
}

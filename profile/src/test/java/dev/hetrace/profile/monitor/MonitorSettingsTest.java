package dev.hetrace.profile.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.profile.ProfileException;
import dev.hetrace.profile.metric.Metric;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MonitorSettingsTest {

    @Test
    void settingsSavedAreReadBackTheSame(@TempDir Path dir) throws Exception {
        MonitorSettings s = new MonitorSettings(
                250,
                List.of("task-clock", "instructions", "cycles"),
                List.of(Metric.parse("ipc=instructions / cycles"), Metric.parse("cpu=task-clock*100/interval")));
        s.write(dir.resolve("monitor.json"));
        // formulas compare by their text
        assertThat(MonitorSettings.read(dir.resolve("monitor.json"))).hasToString(s.toString());
        assertThat(s.perfEvents()).containsExactly("instructions", "cycles");
    }

    @Test
    void aMetricOverACounterThatIsNotMeasuredIsRefusedNamingIt() {
        assertThatThrownBy(() -> new MonitorSettings(
                        500, MonitorSettings.DEFAULT_EVENTS, List.of(Metric.parse("ipc=instructions/cycles"))))
                .isInstanceOf(ProfileException.class)
                .hasMessageContaining("uses 'cycles', 'instructions', not measured: add them to --events");
    }

    @Test
    void aMalformedFileIsNamed(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("monitor.json"), "{\"metrics\": [\"x=(task-clock\"]}");
        assertThatThrownBy(() -> MonitorSettings.read(f))
                .isInstanceOf(ProfileException.class)
                .hasMessageStartingWith(f.toString())
                .hasMessageContaining("')' is missing");
    }
}

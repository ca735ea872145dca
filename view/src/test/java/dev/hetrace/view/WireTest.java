package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The wire schema of {@code /api/view} is documented where the server and the app cite it
 * (docs/view.md, "Wire schema"), field by field in the order {@link Wire} writes them, and the
 * app's modules read positions only through wire.js.
 */
class WireTest {
    private static String row(String doc, String record) {
        return doc.lines()
                .filter(l -> l.startsWith("| `" + record + "` "))
                .findFirst()
                .orElseThrow(() -> new AssertionError("docs/view.md has no row for " + record));
    }

    private static String fields(List<String> names) {
        return names.stream().map(n -> "`" + n + "`").collect(Collectors.joining(", "));
    }

    @Test
    void theDocumentedSchemaIsTheOneTheServerWritesAndSends() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "view.md"));
        String section = doc.substring(doc.indexOf("### Wire schema"));
        assertThat(row(section, "rect")).contains("| " + fields(Wire.RECT) + " |");
        assertThat(row(section, "column"))
                .contains("| " + fields(Wire.COLUMN) + ", then `top` (" + Wire.TOP + ") times `columnLabel`: "
                        + fields(Wire.COLUMN_LABEL) + " |");
        assertThat(row(section, "arrow")).contains("| " + fields(Wire.ARROW) + " |");
        assertThat(row(section, "mark")).contains("| " + fields(Wire.MARK) + " |");
        assertThat(row(section, "markColumn")).contains("| " + fields(Wire.MARK_COLUMN) + " |");
        assertThat(row(section, "value")).contains("| " + fields(Wire.VALUE) + " |");
        assertThat(Wire.columnStride()).isEqualTo(Wire.COLUMN.size() + Wire.TOP * Wire.COLUMN_LABEL.size());
    }

    @Test
    void theAppReadsTheArraysOnlyThroughTheSchema() throws Exception {
        Path app = Path.of("src", "main", "resources", "dev", "hetrace", "view", "app");
        List<String> found = new ArrayList<>();
        for (String module : List.of("timeline.js", "source.js", "kernel.js")) {
            String js = Files.readString(app.resolve(module));
            assertThat(js).as(module).contains("from './wire.js'");
            // the strides and offsets the app once wrote as numbers of its own
            for (String magic :
                    List.of("k += 12", "k += 5", "k += 3", "4 * i", "TOP = 4", "k + 4 + 2 * j", "k + 5 + 2 * j")) {
                if (js.contains(magic)) {
                    found.add(module + ": " + magic);
                }
            }
        }
        assertThat(found).isEmpty();
        assertThat(Files.readString(app.resolve("app.js"))).contains("configure(meta.wire)");
    }
}

package dev.hetrace.analysis.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.duckdb.DuckDBDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DuckDbLibraryTest {
    @Test
    void theNameIsTheOneTheDriversJarHoldsForThisMachine() throws Exception {
        // the Maven artifact carries every platform's library: this machine's must be among them
        assertThat(DuckDBDriver.class.getResource("/" + DuckDbLibrary.fileName()))
                .isNotNull();
        DuckDbLibrary.require();
    }

    @Test
    void aLibraryBesideTheJarOrOnTheLibraryPathIsFound(@TempDir Path dir) throws Exception {
        Path jarDir = Files.createDirectories(dir.resolve("jar"));
        Path libs = Files.createDirectories(dir.resolve("libs"));
        String name = DuckDbLibrary.fileName();
        String missing = DuckDbLibrary.problem(name, jarDir, libs.toString());
        assertThat(missing)
                .isEqualTo(
                        "DuckDB's native library is missing: " + jarDir.resolve(name)
                                + " (hetrace's build puts it beside the jar: keep the libduckdb_java files with hetrace.jar when moving it)");

        Files.writeString(libs.resolve(System.mapLibraryName("duckdb_java")), "");
        assertThat(DuckDbLibrary.problem(name, jarDir, "/nonexistent" + File.pathSeparator + libs))
                .isEmpty();

        Files.writeString(jarDir.resolve(name), "");
        assertThat(DuckDbLibrary.problem(name, jarDir, "")).isEmpty();
    }
}

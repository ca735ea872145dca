package dev.hetrace.tracer.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.ctf.testing.Required;
import dev.hetrace.tracer.Processes;
import dev.hetrace.tracer.c.CTracer;
import dev.hetrace.tracer.c.LinuxFilePlatform;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a configuration pastes into the generated C is checked first: a clock's {@code $c-type}
 * must be a C type name and the code-generation prefixes an identifier and a file name, else
 * one error naming the file, line and field. Type names as C writes them still compile.
 */
class CTypeValidationTest {
    @TempDir
    Path dir;

    private static final Path SHM = Path.of("src/test/resources/dev/hetrace/tracer/shm/shm.yaml");

    private Path config(String name, String cType, String prefix) throws Exception {
        String yaml = Files.readString(SHM)
                .replace("$c-type: uint64_t", "$c-type: " + cType)
                .replace("prefix: sr", "prefix: " + prefix);
        return Files.writeString(dir.resolve(name + ".yaml"), yaml);
    }

    @Test
    void codeInACTypeIsRefusedNamingTheFileAndTheField() throws Exception {
        String[] bad = {
            "'uint64_t; int evil(void) { return 0; }'",
            "'uint64_t /* comment */'",
            "\"uint64_t\\n#include <stdio.h>\"",
            "'struct { int a; }'",
            "'int (*f)(void)'",
            "'uint64_t // rest'",
            "''",
        };
        for (int i = 0; i < bad.length; i++) {
            Path c = config("bad" + i, bad[i], "sr");
            assertThatThrownBy(() -> ConfigReader.read(c, List.of(dir)))
                    .as(bad[i])
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining(c.toString())
                    .hasMessageContaining("trace.type.clock-types.core_clock.$c-type")
                    .hasMessageContaining("not a C type name")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        }
        for (String prefix : new String[] {"'x; int y'", "'../../etc/x'", "'a b'"}) {
            Path c = config("prefix", "uint64_t", prefix);
            assertThatThrownBy(() -> ConfigReader.read(c, List.of(dir)))
                    .as(prefix)
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining(c.toString())
                    .hasMessageContaining("options.code-generation.prefix");
        }
    }

    @Test
    void typeNamesAsCWritesThemAreAcceptedAndCompile() throws Exception {
        for (String ok : new String[] {
            "uint32_t", "const char *", "struct foo *", "unsigned long long", "const uint64_t", "char * const"
        }) {
            assertThat(ConfigReader.read(config("ok", "'" + ok + "'", "sr"), List.of(dir))
                            .options())
                    .as(ok)
                    .isNotNull();
        }
        Required.that(Processes.works(List.of("gcc", "--version"), dir), "gcc is not installed");
        for (String ok : new String[] {"uint32_t", "unsigned long long", "uint64_t"}) {
            Path out = Files.createDirectories(dir.resolve(ok.replace(' ', '_')));
            Configuration c = ConfigReader.read(config("gcc", "'" + ok + "'", "sr"), List.of(dir));
            for (Map<String, String> files : List.of(CTracer.generate(c), LinuxFilePlatform.generate(c))) {
                for (Map.Entry<String, String> f : files.entrySet()) {
                    Files.writeString(out.resolve(f.getKey()), f.getValue());
                }
            }
            List<String> cmd = new ArrayList<>(List.of("gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-c"));
            try (var s = Files.list(out)) {
                s.filter(p -> p.toString().endsWith(".c"))
                        .forEach(p -> cmd.add(p.getFileName().toString()));
            }
            Processes.run(out, cmd);
        }
    }
}

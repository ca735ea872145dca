package dev.hetrace.profile.metric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.profile.ProfileException;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import org.junit.jupiter.api.Test;

class FormulaTest {

    private static double eval(String formula, Map<String, Double> counters) {
        return Formula.parse(formula).evaluate(n -> counters.getOrDefault(n, Double.NaN));
    }

    @Test
    void pmctrackAppsMpkiFormulaIsComputedWithPrecedence() {
        assertThat(eval("(pmc3*1000)/pmc0", Map.of("pmc3", 40.0, "pmc0", 2000.0)))
                .isEqualTo(20.0);
        assertThat(eval("llc_misses * 1000 / instructions", Map.of("llc_misses", 5.0, "instructions", 1e4)))
                .isEqualTo(0.5);
        assertThat(eval("1 + 2 * 3 - 4 / 2", Map.of())).isEqualTo(5.0);
        assertThat(eval("-(a - b) * 2", Map.of("a", 1.0, "b", 4.0))).isEqualTo(6.0);
        assertThat(eval("1.5e3 / x", Map.of("x", 3.0))).isEqualTo(500.0);
    }

    @Test
    void perfEventNamesWithDashesAreOneName() {
        Formula f = Formula.parse("L1-dcache-load-misses * 1000 / instructions");
        assertThat(f.names()).containsExactlyInAnyOrder("L1-dcache-load-misses", "instructions");
        assertThat(eval("task-clock - cpu-clock", Map.of("task-clock", 5.0, "cpu-clock", 2.0)))
                .isEqualTo(3.0);
        assertThat(Formula.parse("task-clock-cpu").names()).containsExactly("task-clock-cpu");
    }

    @Test
    void aMissingCounterOrAZeroDivisorGivesNaNNotInfinity() {
        assertThat(eval("a / b", Map.of("a", 1.0, "b", 0.0))).isNaN();
        assertThat(eval("a / b", Map.of("a", 1.0))).isNaN();
    }

    @Test
    void malformedFormulasNameTheColumn() {
        assertThatThrownBy(() -> Formula.parse("a * (b + c"))
                .isInstanceOf(ProfileException.class)
                .hasMessageContaining("column 11")
                .hasMessageContaining("')' is missing");
        assertThatThrownBy(() -> Formula.parse("a * ")).hasMessageContaining("missing");
        assertThatThrownBy(() -> Formula.parse("a $ b"))
                .hasMessageContaining("column 3")
                .hasMessageContaining("'$'");
        assertThatThrownBy(() -> Metric.parse("=a/b")).hasMessageContaining("name");
    }

    @Test
    void metricsParseNameAndFormula() {
        Metric m = Metric.parse("ipc = instructions / cycles");
        assertThat(m.name()).isEqualTo("ipc");
        assertThat(m.formula().evaluate(n -> n.equals("instructions") ? 3 : 2)).isEqualTo(1.5);
        assertThat(Metric.parse("page-faults").formula().names()).containsExactly("page-faults");
    }

    @Property(tries = 200)
    void arithmeticMatchesJava(
            @ForAll @DoubleRange(min = -1e6, max = 1e6) double a,
            @ForAll @DoubleRange(min = -1e6, max = 1e6) double b,
            @ForAll @DoubleRange(min = 1, max = 1e6) double c) {
        Map<String, Double> v = Map.of("a", a, "b", b, "c", c);
        assertThat(eval("a + b * c", v)).isEqualTo(a + b * c);
        assertThat(eval("(a - b) / c", v)).isEqualTo((a - b) / c);
        assertThat(eval("a - b - c", v)).isEqualTo(a - b - c);
        assertThat(eval("a / c / c", v)).isEqualTo(a / c / c);
    }
}

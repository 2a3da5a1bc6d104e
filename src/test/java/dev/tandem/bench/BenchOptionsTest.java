package dev.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class BenchOptionsTest {

    @Test
    void bothArmsByDefaultOrTheOneNamed() {
        assertThat(BenchOptions.parse("read-isolation").arms()).containsExactly("two_runtime", "solo");
        assertThat(BenchOptions.parse("subscribe-fanout", "--arm", "two_runtime").arms()).isEqualTo(List.of("two_runtime"));
        assertThat(BenchOptions.parse("maintenance-throughput", "--arm=solo").arms()).isEqualTo(List.of("solo"));
        assertThatThrownBy(() -> BenchOptions.parse("read-isolation", "--arm", "both"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--arm must be two_runtime or solo, got both");
    }

    @Test
    void aReportOfOneArmHasNoOtherArm() {
        BenchReport report = new BenchReport("read-isolation");
        report.arm(BenchReport.TWO_RUNTIME).put("p50_ms", 1.0);
        assertThat(report.measured(BenchReport.SOLO).isEmpty()).isTrue();
        assertThat(report.json().path("arms").has(BenchReport.SOLO)).isFalse();
        assertThat(report.measured(BenchReport.TWO_RUNTIME).path("p50_ms").asDouble()).isEqualTo(1.0);
    }

    @Test
    void pgCompareSweepsEveryRateThenCapacityInEachModeByDefault() {
        BenchOptions o = BenchOptions.parse("pg-compare");
        assertThat(o.pg().rates()).containsExactly(577.0, 2000.0, 5000.0, 10000.0);
        assertThat(o.pg().capacity()).isTrue();
        assertThat(o.pg().modes()).containsExactly("simple", "prepared");
        assertThat(o.pg().systems()).containsExactly("tandem", "postgresql");
        assertThat(o.pg().pgSettings()).containsExactly("shared_buffers=2GB");
        assertThat(PgCompareScenario.arms(o.pg()).stream().map(PgCompareScenario.Arm::key)).containsExactly("simple_577", "prepared_577",
                "simple_2000", "prepared_2000", "simple_5000", "prepared_5000", "simple_10000", "prepared_10000", "simple_capacity",
                "prepared_capacity");
    }

    @Test
    void pgSourceWritesAtOneThousandThenSaturatesTheUpstreamByDefault() {
        BenchOptions o = BenchOptions.parse("pg-source");
        assertThat(o.pg().rates()).containsExactly(1000.0);
        assertThat(o.pg().capacity()).isTrue();
        assertThat(BenchOptions.parse("pg-source", "--rates", "250").pg().rates()).containsExactly(250.0);
        assertThat(BenchOptions.parse("pg-source", "--rates", "250").pg().capacity()).isFalse();
    }

    @Test
    void pgCompareOptionsNarrowTheSweep() {
        BenchOptions o = BenchOptions.parse("pg-compare", "--rates", "300", "--modes=extended", "--systems", "postgresql", "--seconds", "2",
                "--pg-setting", "work_mem=64MB", "--pg-setting=shared_buffers=128MB");
        assertThat(o.pg().rates()).containsExactly(300.0);
        assertThat(o.pg().capacity()).isFalse();
        assertThat(o.pg().modes()).containsExactly("extended");
        assertThat(o.pg().systems()).containsExactly("postgresql");
        assertThat(o.durationOr(null)).hasSeconds(2);
        assertThat(o.pg().pgSettings()).as("a shared_buffers given replaces the default").containsExactly("work_mem=64MB", "shared_buffers=128MB");
        assertThat(BenchOptions.parse("pg-compare", "--rates", "capacity").pg().rates()).isEmpty();
        assertThatThrownBy(() -> BenchOptions.parse("pg-compare", "--modes", "fast"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--modes takes simple, extended, prepared, got 'fast'");
        assertThatThrownBy(() -> BenchOptions.parse("pg-compare", "--rates", "577,lots"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--rates takes rates and 'capacity', got 'lots'");
        assertThatThrownBy(() -> BenchOptions.parse("pg-compare", "--pg-setting", "fsync"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--pg-setting takes name=value");
    }

    @Test
    void sqlShapesMeasuresEveryShapeByDefaultOrThoseNamed() {
        assertThat(BenchOptions.parse("sql-shapes").shapes()).containsExactly("correlated", "row_number", "closure", "temporal");
        assertThat(BenchOptions.parse("sql-shapes", "--shapes", "closure,Correlated,closure").shapes()).containsExactly("closure", "correlated");
        assertThatThrownBy(() -> BenchOptions.parse("sql-shapes", "--shapes", "pivot"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--shapes takes correlated, row_number, closure, temporal, got 'pivot'");
    }

    @Test
    void pgbenchRunsOpenLoopWithAPerTransactionLog() {
        assertThat(Pgbench.script(10_000)).isEqualTo("\\set k random(0, 9999)\nSELECT id, v FROM points WHERE id = :k;\n");
    }
}
